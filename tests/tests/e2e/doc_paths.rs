//! Every source path a document names exists, so a doc cannot point at a file that moved.
//!
//! Reads every Markdown file of the checkout (the `docs/`, the READMEs, ...) and every token
//! in it that looks like a path with a folder and ends in `.rs`, `.py` or `.sh`
//! (`daemon/src/store/state_file.rs`, `game/tests/it/pgn_python.rs`, `scripts/pgn-read.py`).
//! A path is found when the file is at that path from the workspace root, or the path is the
//! tail of a file's path (docs name `supervisor/round.rs` inside the daemon's `src/`). Paths
//! of other projects the docs cite, and the placeholders of a pattern, are listed in
//! [`NOT_OURS`].

use std::path::{Path, PathBuf};

use chessclock_tests::paths::repo_root;

/// Paths a doc names that are not files of this checkout: another project's, or a pattern.
const NOT_OURS: &[&str] = &[
    // quinn-proto's test harness, the model of the driver's (docs/driver.md).
    "tests/util.rs",
    // python-chess's SVG pieces, where the bridge's come from (bridge/assets/PIECES.md).
    "chess/svg.py",
    // The pattern of a unit test file beside its module (docs/architecture.md).
    "x/tests.rs",
];

/// The extensions of the paths checked.
const CHECKED: &[&str] = &[".rs", ".py", ".sh"];

/// Every file under `dir` (the checkout: build output, git's and node's folders left out).
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !(name.starts_with('.') || name == "target" || name == "node_modules") {
                files(&path, out);
            }
        } else {
            out.push(path);
        }
    }
}

/// The paths `text` names: tokens of path characters with a folder and a checked extension
/// (a token after a placeholder such as `<crate>` starts with `/` and is left out).
fn named_paths(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || "_./-".contains(c)))
        .map(|t| t.trim_end_matches('.'))
        .map(|t| t.strip_prefix("./").unwrap_or(t))
        .filter(|t| t.contains('/') && !t.starts_with('/') && !t.contains("//"))
        .filter(|t| CHECKED.iter().any(|ext| t.ends_with(ext)))
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_token_rule_finds_paths_and_leaves_prose_and_patterns() {
    let text = "the store (`daemon/src/store/state_file.rs`), `<crate>/tests/it/main.rs`, \
                see ./scripts/pgn-read.py. and https://example.org/a/b.rs or main.rs";
    assert_eq!(
        named_paths(text),
        ["daemon/src/store/state_file.rs", "scripts/pgn-read.py"]
    );
}

#[test]
fn every_source_path_a_document_names_exists() {
    let root = repo_root();
    let mut all = Vec::new();
    files(&root, &mut all);
    let known: Vec<String> = all
        .iter()
        .filter_map(|p| p.strip_prefix(&root).ok())
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let exists = |named: &str| {
        known
            .iter()
            .any(|k| k == named || k.ends_with(&format!("/{named}")))
    };
    let mut missing = Vec::new();
    let mut docs: Vec<&String> = known.iter().filter(|k| k.ends_with(".md")).collect();
    docs.sort();
    assert!(
        docs.iter().any(|d| d.as_str() == "docs/architecture.md"),
        "no docs found under {}",
        root.display()
    );
    for doc in docs {
        let text = std::fs::read_to_string(root.join(doc)).unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            for named in named_paths(line) {
                if !NOT_OURS.contains(&named.as_str()) && !exists(&named) {
                    missing.push(format!("{doc}:{}: {named}", n + 1));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "documents name files that do not exist (moved? fix the doc, or list another \
         project's path in NOT_OURS):\n{}",
        missing.join("\n")
    );
}
