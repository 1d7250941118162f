//! A temporary directory removed on drop (std only, no extra crate).
//!
//! Owns creation and removal of one directory under the system temp dir.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// A fresh directory under `$TMPDIR` (or `/tmp`), removed with its contents on drop.
#[derive(Debug)]
pub struct TempDir(PathBuf);

impl TempDir {
    /// Create `chessclock-<tag>-<pid>-<n>`; mode 0755 so unprivileged test users can reach
    /// sockets inside it.
    pub fn new(tag: &str) -> std::io::Result<TempDir> {
        TempDir::new_in(&std::env::temp_dir(), tag)
    }

    /// [`TempDir::new`] under `parent` (e.g. `/dev/shm` for a tmpfs).
    pub fn new_in(parent: &Path, tag: &str) -> std::io::Result<TempDir> {
        use std::os::unix::fs::PermissionsExt;
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = parent.join(format!("chessclock-{tag}-{}-{n}", std::process::id()));
        if dir.exists() {
            std::fs::remove_dir_all(&dir)?;
        }
        std::fs::create_dir_all(&dir)?;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755))?;
        Ok(TempDir(dir))
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
