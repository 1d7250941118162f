//! Paths into the checkout (the project's `dbus/`, `systemd/`, `udev/` directories).
//!
//! Owns path arithmetic only.

use std::path::PathBuf;

/// The workspace root (the directory holding the top-level `Cargo.toml`).
pub fn repo_root() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.parent().map(PathBuf::from).unwrap_or(here)
}

/// A file or directory relative to the workspace root, e.g. `repo_path("dbus")`.
pub fn repo_path(relative: &str) -> PathBuf {
    repo_root().join(relative)
}
