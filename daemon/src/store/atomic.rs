//! Atomic file replacement: write `DEST.tmp`, fsync it, rename it over `DEST`, fsync the
//! directory. A reader sees the old file or the new one, never a mix, even after power loss.
//!
//! Owns the one way the daemon replaces a whole file (snapshots, game records). It must not
//! decide names or contents.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The temporary file `write_atomic` writes before renaming it over `dest`.
pub fn temp_path(dest: &Path) -> PathBuf {
    let mut name = dest.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    dest.with_file_name(name)
}

/// fsync a directory so a rename or create in it survives power loss.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Replace `dest` with `bytes` atomically and durably. On error `dest` is unchanged (a
/// leftover temporary file may remain; [`temp_path`] names it).
pub fn write_atomic(dest: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = temp_path(dest);
    let mut file = File::create(&tmp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&tmp, dest)?;
    let dir = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    sync_dir(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("atomic-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch dir");
        dir
    }

    #[test]
    fn replaces_the_whole_file_and_leaves_no_temp() {
        let dir = scratch("replace");
        let dest = dir.join("game.pgn");
        std::fs::write(&dest, b"old contents that are longer").expect("seed");
        write_atomic(&dest, b"new").expect("write");
        assert_eq!(std::fs::read(&dest).expect("read"), b"new");
        assert!(!temp_path(&dest).exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_failed_write_leaves_the_old_file() {
        let dir = scratch("fail");
        let dest = dir.join("x.snapshot");
        std::fs::write(&dest, b"old").expect("seed");
        // The temporary file's place is taken by a directory, so creating it fails.
        std::fs::create_dir(temp_path(&dest)).expect("block temp");
        assert!(write_atomic(&dest, b"new").is_err());
        assert_eq!(std::fs::read(&dest).expect("read"), b"old");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn temp_path_is_beside_the_file() {
        assert_eq!(
            temp_path(Path::new("/var/lib/x/a.snapshot")),
            Path::new("/var/lib/x/a.snapshot.tmp")
        );
    }
}
