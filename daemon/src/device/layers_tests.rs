//! The layers of `device/` as a test: reads the imports of every file under
//! `daemon/src/device/` (`use` lines with `crate::device::`, `super::`, `self::` or, in
//! `mod.rs`, a child module; and inline `crate::device::` paths), builds the graph between
//! the layers (`link`, `session`, `io`) and the files at the top (`mod.rs`, `client.rs`,
//! ...), and fails on a layer that imports a layer above it (link < session < io) and on
//! any cycle. Reads files at test time only; it owns no rule of the daemon.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layers, lowest first: each may import only those before it.
const LAYERS: [&str; 3] = ["link", "session", "io"];

/// This file: its examples are text, not imports.
const SELF_FILE: &str = "layers_tests.rs";

/// An import from one node to another, and where it is (`file:line`).
type Edges = BTreeMap<(String, String), String>;

/// The module of a file under `device/`, as segments below `device` (`session/mod.rs`:
/// `["session"]`, `mod.rs`: `[]`).
fn module_of(rel: &str) -> Vec<String> {
    let mut segs: Vec<String> = rel.split('/').map(str::to_string).collect();
    let last = segs.pop().unwrap_or_default();
    if last != "mod.rs" {
        segs.push(last.trim_end_matches(".rs").to_string());
    }
    segs
}

/// The node of a module below `device`: its layer, a top-level file, or `mod.rs` (the
/// folder's root, whose items are re-exports for the rest of the daemon).
fn node_of(segs: &[String], top_modules: &BTreeSet<String>) -> String {
    match segs.first() {
        Some(first) if LAYERS.contains(&first.as_str()) || top_modules.contains(first) => {
            first.clone()
        }
        _ => "mod.rs".to_string(),
    }
}

/// Expand a use tree (`a::{b, c::{d, e as f}}`) into its paths, as segments.
fn expand(tree: &str) -> Vec<Vec<String>> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        let path = tree.split(" as ").next().unwrap_or("").trim();
        return vec![path.split("::").map(|s| s.trim().to_string()).collect()];
    };
    let prefix: Vec<String> = tree[..open]
        .trim_end_matches("::")
        .split("::")
        .filter(|s| !s.trim().is_empty())
        .map(|s| s.trim().to_string())
        .collect();
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let (mut parts, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    let mut out = Vec::new();
    for part in parts.into_iter().filter(|p| !p.trim().is_empty()) {
        for rest in expand(part) {
            let mut path = prefix.clone();
            path.extend(rest.into_iter().filter(|s| s != "self"));
            out.push(path);
        }
    }
    out
}

/// A path as written in module `module`, resolved to segments below `device`; `None` when
/// it leaves `device` (std, other crates, the rest of the daemon).
fn resolve(
    path: &[String],
    module: &[String],
    in_root: bool,
    top: &BTreeSet<String>,
) -> Option<Vec<String>> {
    match path.first().map(String::as_str) {
        Some("crate") => {
            (path.get(1).map(String::as_str) == Some("device")).then(|| path[2..].to_vec())
        }
        Some("super") | Some("self") => {
            let mut at = module.to_vec();
            let mut rest = path;
            while let Some(head) = rest.first().filter(|h| *h == "super" || *h == "self") {
                if head == "super" {
                    at.pop()?;
                }
                rest = &rest[1..];
            }
            at.extend(rest.iter().cloned());
            Some(at)
        }
        // A child module named without `self::`: only the root's children are other nodes.
        Some(first) if in_root && (LAYERS.contains(&first) || top.contains(first)) => {
            Some(path.to_vec())
        }
        _ => None,
    }
}

/// The node-to-node imports of the files `(path below device/, text)`.
fn edges(files: &[(String, String)]) -> Edges {
    let top: BTreeSet<String> = files
        .iter()
        .filter_map(|(rel, _)| {
            let first = rel.split('/').next()?;
            (first != "mod.rs").then(|| first.trim_end_matches(".rs").to_string())
        })
        .filter(|m| !LAYERS.contains(&m.as_str()))
        .collect();
    let mut edges = Edges::new();
    for (rel, text) in files.iter().filter(|(rel, _)| rel != SELF_FILE) {
        let file_module = module_of(rel);
        let from = node_of(&file_module, &top);
        // Inline `mod x {` blocks: (their indentation, their name).
        let mut inline: Vec<(usize, String)> = Vec::new();
        // A `use` statement over several lines, and the line it starts on.
        let (mut statement, mut start) = (String::new(), 0);
        for (n, line) in text.lines().enumerate() {
            let code = line.trim_start();
            let indent = line.len() - code.len();
            if code.starts_with("//") {
                continue;
            }
            if inline
                .last()
                .is_some_and(|(i, _)| *i == indent && code.starts_with('}'))
            {
                inline.pop();
            }
            let module: Vec<String> = file_module
                .iter()
                .cloned()
                .chain(inline.iter().map(|(_, m)| m.clone()))
                .collect();
            let unpub = match code.strip_prefix("pub") {
                Some(rest) if rest.starts_with('(') => rest.split_once(") ").map_or("", |(_, r)| r),
                Some(rest) => rest.trim_start(),
                None => code,
            };
            let (mut found, mut line_no) = (Vec::new(), n + 1);
            if statement.is_empty() && unpub.starts_with("use ") {
                start = n + 1;
            }
            if !statement.is_empty() || unpub.starts_with("use ") {
                statement.push_str(code);
                if code.ends_with(';') {
                    let tree = statement.split_once("use ").map_or("", |(_, t)| t);
                    found.extend(expand(tree.trim_end_matches(';')));
                    statement.clear();
                    line_no = start;
                }
            } else {
                let mut rest = code;
                while let Some(at) = rest.find("crate::device::") {
                    let tail = &rest[at..];
                    let end = tail
                        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                        .unwrap_or(tail.len());
                    found.push(tail[..end].split("::").map(str::to_string).collect());
                    rest = &tail[end..];
                }
            }
            for path in found {
                let Some(target) = resolve(&path, &module, file_module.is_empty(), &top) else {
                    continue;
                };
                let to = node_of(&target, &top);
                if to != from {
                    let at = format!("device/{rel}:{line_no}: {}", path.join("::"));
                    edges.entry((from.clone(), to)).or_insert(at);
                }
            }
            if let Some(name) = code
                .trim_start_matches("pub ")
                .strip_prefix("mod ")
                .and_then(|m| m.strip_suffix(" {"))
            {
                inline.push((indent, name.trim().to_string()));
            }
        }
    }
    edges
}

/// What is wrong with the graph: imports of a layer above, and cycles.
fn problems(edges: &Edges) -> Vec<String> {
    let rank = |node: &str| LAYERS.iter().position(|l| *l == node);
    let mut out = Vec::new();
    for ((from, to), at) in edges {
        if let (Some(f), Some(t)) = (rank(from), rank(to))
            && t > f
        {
            out.push(format!(
                "{at}: the {from} layer imports {to}, a layer above it; move what it needs \
                 down into {from} (or a layer below)"
            ));
        }
    }
    let mut graph: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, to) in edges.keys() {
        graph.entry(from).or_default().push(to);
    }
    // Depth-first search; a node on the stack reached again closes a cycle.
    fn visit<'a>(
        node: &'a str,
        graph: &BTreeMap<&'a str, Vec<&'a str>>,
        stack: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
        cycles: &mut Vec<Vec<&'a str>>,
    ) {
        if let Some(pos) = stack.iter().position(|n| *n == node) {
            cycles.push(stack[pos..].iter().copied().chain([node]).collect());
            return;
        }
        if !done.insert(node) {
            return;
        }
        stack.push(node);
        for next in graph.get(node).into_iter().flatten() {
            visit(next, graph, stack, done, cycles);
        }
        stack.pop();
    }
    let (mut done, mut cycles) = (BTreeSet::new(), Vec::new());
    for node in graph.keys() {
        visit(node, &graph, &mut Vec::new(), &mut done, &mut cycles);
    }
    for cycle in cycles {
        let hops: Vec<String> = cycle
            .windows(2)
            .map(|w| edges[&(w[0].to_string(), w[1].to_string())].clone())
            .collect();
        let hint = if cycle.contains(&"mod.rs") {
            " (inside device/, import from the defining module, not from device's re-exports)"
        } else {
            ""
        };
        out.push(format!(
            "cycle {}: {}; one of these imports must go (move the type down){hint}",
            cycle.join(" -> "),
            hops.join("; ")
        ));
    }
    out
}

/// Every `.rs` file under `dir`, as (path below `root`, text).
fn read_tree(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            read_tree(root, &path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            let rel = path.strip_prefix(root).expect("below root");
            let text = std::fs::read_to_string(&path).expect("read source");
            out.push((rel.to_string_lossy().replace('\\', "/"), text));
        }
    }
}

fn files(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect()
}

#[test]
fn the_device_layers_import_only_downwards_and_have_no_cycle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/device");
    let mut tree = Vec::new();
    read_tree(&root, &root, &mut tree);
    let edges = edges(&tree);
    // The reader sees the imports that are there (else this test could not fail).
    for (from, to) in [
        ("io", "session"),
        ("session", "link"),
        ("io", "client"),
        ("mod.rs", "io"),
    ] {
        assert!(
            edges.contains_key(&(from.to_string(), to.to_string())),
            "expected an import {from} -> {to}; found {:?}",
            edges.keys().collect::<Vec<_>>()
        );
    }
    let problems = problems(&edges);
    assert!(
        problems.is_empty(),
        "device/ layers:\n{}",
        problems.join("\n")
    );
}

#[test]
fn a_lower_layer_importing_a_higher_one_is_reported_with_its_line() {
    let edges = edges(&files(&[
        (
            "link/driver/mod.rs",
            "use std::time::Duration;\nuse super::display::Face;\n",
        ),
        (
            "link/display.rs",
            "//! use crate::device::io::x;\nuse crate::device::session::{\n    note::Note,\n};\n",
        ),
        (
            "session/mod.rs",
            "use crate::device::link::driver::Instant;\n",
        ),
    ]));
    let problems = problems(&edges);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(
        problems[0].contains("device/link/display.rs:2: crate::device::session::note::Note"),
        "{problems:?}"
    );
    assert!(
        problems[0].contains("the link layer imports session"),
        "{problems:?}"
    );
    assert!(
        problems[1].starts_with("cycle link -> session -> link"),
        "{problems:?}"
    );
}

#[test]
fn a_cycle_through_the_top_files_is_found_by_super_and_inline_paths() {
    let edges = edges(&files(&[
        (
            "mod.rs",
            "pub use client::Handle;\npub use options::Options;\n",
        ),
        (
            "client.rs",
            "use super::options::Options;\nmod tests {\n    use super::*;\n}\n",
        ),
        (
            "options.rs",
            "fn f() -> crate::device::io::actor::Spawn { todo!() }\n",
        ),
        (
            "io/actor/mod.rs",
            "pub(crate) use super::super::client::Handle;\n",
        ),
    ]));
    let keys: Vec<_> = edges.keys().map(|(f, t)| format!("{f}->{t}")).collect();
    assert_eq!(
        keys,
        [
            "client->options",
            "io->client",
            "mod.rs->client",
            "mod.rs->options",
            "options->io"
        ]
    );
    let problems = problems(&edges);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with("cycle client -> options -> io -> client"),
        "{problems:?}"
    );
}
