//! A configuration file and its drop-in directory, as mosquitto's `include_dir` and
//! NetworkManager's `conf.d` work: the main file (`/etc/chessclockd/chessclockd.toml`), then
//! every `*.toml` in `<main file>.d/` in lexical order of the file names, later files
//! overriding the keys of earlier ones. A drop-in directory may exist without the main file.
//!
//! Owns finding and reading the files, and saying which file and line set a key; it must not
//! merge or check settings (each program does, with the `config` crate).

use std::path::{Path, PathBuf};

/// One configuration file as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layer {
    /// Where it was read from.
    pub path: PathBuf,
    /// Its text.
    pub text: String,
}

/// A file or directory that exists but cannot be read.
#[derive(Debug)]
pub struct ReadError {
    /// The file or directory.
    pub path: PathBuf,
    /// What the OS said.
    pub source: std::io::Error,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot read {}: {}; fix its permissions, remove it, or name another file",
            self.path.display(),
            self.source
        )
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// The drop-in directory of `main`: `main` with `.d` appended (`chessclockd.toml.d`).
pub fn drop_in_dir(main: &Path) -> PathBuf {
    let mut dir = main.as_os_str().to_owned();
    dir.push(".d");
    PathBuf::from(dir)
}

/// The drop-ins of `main`: the files in [`drop_in_dir`] whose names end in `.toml` and do not
/// start with a dot (editors' backups and dpkg's `.dpkg-old` files are ignored), sorted by
/// name. None if the directory does not exist.
pub fn drop_ins(main: &Path) -> Result<Vec<PathBuf>, ReadError> {
    let dir = drop_in_dir(main);
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => return Err(ReadError { path: dir, source }),
    };
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| ReadError {
            path: dir.clone(),
            source,
        })?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || !name.ends_with(".toml") {
            continue;
        }
        files.push(entry.path());
    }
    files.sort();
    Ok(files)
}

/// Read `main` and its drop-ins, in the order they apply. `main` must exist if `required`
/// (a path the operator named); otherwise a missing main file is skipped.
pub fn read_layers(main: &Path, required: bool) -> Result<Vec<Layer>, ReadError> {
    let mut layers = Vec::new();
    match std::fs::read_to_string(main) {
        Ok(text) => layers.push(Layer {
            path: main.to_path_buf(),
            text,
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => {}
        Err(source) => {
            return Err(ReadError {
                path: main.to_path_buf(),
                source,
            });
        }
    }
    for path in drop_ins(main)? {
        let text = std::fs::read_to_string(&path).map_err(|source| ReadError {
            path: path.clone(),
            source,
        })?;
        layers.push(Layer { path, text });
    }
    Ok(layers)
}

/// The layer that set `key` (`replay`, `clock[1].white_side`: the last layer whose table has
/// its top-level key, as that one wins) and the line of `key` in it, or of the nearest
/// enclosing item.
pub fn locate<'a>(layers: &'a [Layer], key: &str) -> Option<(&'a Layer, Option<usize>)> {
    let top = key.split(['.', '[']).next().unwrap_or_default();
    let layer = layers.iter().rev().find(|l| {
        l.text
            .parse::<toml::Table>()
            .is_ok_and(|t| t.contains_key(top))
    })?;
    Some((layer, crate::locate::line_of(&layer.text, key)))
}

/// `(file, line N)` for a message about `key`, or nothing if no file set it.
pub fn where_set(layers: &[Layer], key: &str) -> Option<String> {
    let (layer, line) = locate(layers, key)?;
    Some(match line {
        Some(line) => format!("{}, line {line}", layer.path.display()),
        None => layer.path.display().to_string(),
    })
}

/// The files a program's configuration was read from, for its `--check-config` line:
/// their paths, comma-separated, or that none was and the defaults apply.
pub fn files_read(files: &[PathBuf]) -> String {
    if files.is_empty() {
        return "no file, the defaults".to_owned();
    }
    let paths: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    paths.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("chessclock-system-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch dir");
        dir
    }

    #[test]
    fn the_files_read_are_named_or_the_defaults_said() {
        assert_eq!(files_read(&[]), "no file, the defaults");
        let files = [
            PathBuf::from("/etc/a.toml"),
            PathBuf::from("/etc/a.toml.d/10-b.toml"),
        ];
        assert_eq!(files_read(&files), "/etc/a.toml, /etc/a.toml.d/10-b.toml");
    }

    #[test]
    fn drop_ins_are_toml_files_in_lexical_order_and_the_main_file_may_be_missing() {
        let dir = scratch("order");
        let main = dir.join("x.toml");
        let d = drop_in_dir(&main);
        assert_eq!(d, dir.join("x.toml.d"));
        assert!(read_layers(&main, false).expect("nothing").is_empty());
        assert!(read_layers(&main, true).is_err(), "a named file must exist");
        std::fs::create_dir_all(&d).expect("d");
        for (name, text) in [
            ("20-b.toml", "b = 2\n"),
            ("10-a.toml", "a = 1\n"),
            ("99-z.toml~", "ignored"),
            (".hidden.toml", "ignored"),
            ("30-c.toml.dpkg-old", "ignored"),
            ("README", "ignored"),
        ] {
            std::fs::write(d.join(name), text).expect("write");
        }
        let layers = read_layers(&main, false).expect("drop-ins only");
        let names: Vec<_> = layers.iter().map(|l| l.path.clone()).collect();
        assert_eq!(names, [d.join("10-a.toml"), d.join("20-b.toml")]);
        std::fs::write(&main, "a = 0\n").expect("main");
        let layers = read_layers(&main, true).expect("all");
        assert_eq!(layers.len(), 3);
        assert_eq!(layers[0].path, main, "the main file first");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_last_layer_that_sets_a_key_is_the_one_named() {
        let layer = |path: &str, text: &str| Layer {
            path: PathBuf::from(path),
            text: text.to_owned(),
        };
        let layers = [
            layer("/etc/m.toml", "replay = 1\nlisten = \"x\"\n"),
            layer("/etc/m.toml.d/10.toml", "\n\nreplay = 2\n"),
            layer(
                "/etc/m.toml.d/20.toml",
                "[[clock]]\nport = \"/dev/a\"\n[[clock]]\nwhite_side = \"up\"\n",
            ),
        ];
        assert_eq!(
            where_set(&layers, "replay").as_deref(),
            Some("/etc/m.toml.d/10.toml, line 3")
        );
        assert_eq!(
            where_set(&layers, "listen").as_deref(),
            Some("/etc/m.toml, line 2")
        );
        assert_eq!(
            where_set(&layers, "clock[1].white_side").as_deref(),
            Some("/etc/m.toml.d/20.toml, line 4")
        );
        assert_eq!(where_set(&layers, "mqtt"), None);
    }
}
