//! For the tests only: where they find the project's reference folder `shared/`, which is
//! not in this repository, and what a test does when it is not there.
//!
//! `shared/` holds third-party data that must not be copied into the repository (the real
//! DGT board captures, AGPL-licensed, `captures/dgt/`) and the reference copy of data the
//! repository keeps its own copy of (`conformance/timecontrol-vectors.json`, kept in
//! `engine/tests/data/`). It is found at `$CHESSCLOCK_SHARED` when that is set (used as
//! given, never anything else: `CHESSCLOCK_SHARED=/nonexistent` hides it), else at `../shared`
//! beside the workspace root. A test that needs it calls [`shared`]: without it the test
//! prints one line saying what it did not check and how to get the folder, and passes;
//! under `CI=true` its absence fails the test instead.
//!
//! Owns only this lookup; reads no file itself.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The variable that points the tests at another `shared/` folder.
pub const SHARED_VAR: &str = "CHESSCLOCK_SHARED";

/// The workspace root (the folder of the top `Cargo.toml`).
pub fn workspace_root() -> &'static Path {
    // This crate is one folder below the root.
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// Where `shared/` is looked for: `$CHESSCLOCK_SHARED`, else `../shared` beside the root.
pub fn shared_root() -> PathBuf {
    match std::env::var_os(SHARED_VAR) {
        Some(dir) => PathBuf::from(dir),
        None => workspace_root().join("../shared"),
    }
}

/// `shared/<sub>` when it exists. Otherwise, outside CI, prints one line saying that `what`
/// was not checked and how to get the folder, and returns `None` (the test then returns and
/// passes); under `CI=true` it panics with the same line (CI has `shared/` beside the clone,
/// so its absence there is a broken set-up, not a skip).
pub fn shared(sub: &str, what: &str) -> Option<PathBuf> {
    let path = shared_root().join(sub);
    if path.exists() {
        return Some(path);
    }
    let line = missing_line(&path, what);
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{line} (CI=true: the shared folder is required)");
    }
    // Straight to stderr, past the test harness's capture of `eprintln!`: a passing test's
    // captured output is never shown, and this line must be.
    let _ = writeln!(std::io::stderr(), "{line}");
    None
}

fn missing_line(path: &Path, what: &str) -> String {
    format!(
        "not run: {what}: {} is missing; put the project's shared/ folder beside the checkout \
         or set {SHARED_VAR}=/path/to/shared",
        path.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_missing_line_names_what_was_skipped_and_the_fix() {
        let line = missing_line(Path::new("/x/shared/captures/dgt"), "the DGT captures");
        assert!(line.starts_with("not run: the DGT captures: /x/shared/captures/dgt is missing"));
        assert!(line.contains("CHESSCLOCK_SHARED=/path/to/shared"), "{line}");
        assert!(!line.contains('\n'), "one line: {line}");
    }

    #[test]
    fn the_workspace_root_has_the_workspace_manifest() {
        let manifest = std::fs::read_to_string(workspace_root().join("Cargo.toml"))
            .expect("the root Cargo.toml");
        assert!(manifest.contains("[workspace]"), "{manifest}");
    }
}
