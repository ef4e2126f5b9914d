//! The command line's modules form layers with no import circle: `main` parses, `commands`
//! run one command each over `open` (how a path is read) and `summary` (what `inspect` says),
//! which stand on the plumbing (`budget`, `input`, `output`, `suggest`, `help`). Read from the
//! sources: every `crate::` path a file names is an edge from its module to the module named.

use crate::support;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module path (`summary::io`) -> the modules its file names through `crate::` paths.
fn edges() -> BTreeMap<String, BTreeSet<String>> {
    let root = support::root().join("cli/src");
    let mut files = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    let module_of = |path: &Path| -> String {
        let rel = path.strip_prefix(&root).unwrap().with_extension("");
        let parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        match parts.as_slice() {
            [only] if only == "main" => "main".into(),
            [init @ .., last] if last == "mod" => init.join("::"),
            all => all.join("::"),
        }
    };
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(f)).collect();
    let mut edges = BTreeMap::new();
    for file in &files {
        let from = module_of(file);
        let text = std::fs::read_to_string(file).unwrap();
        let mut to = BTreeSet::new();
        for (at, _) in text.match_indices("crate::") {
            let path: String =
                text[at + 7..].chars().take_while(|c| c.is_ascii_lowercase() || *c == '_' || *c == ':').collect();
            // The longest prefix of the path that names a module of the binary.
            let segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
            let named = (1..=segments.len()).rev().map(|n| segments[..n].join("::")).find(|m| modules.contains(m));
            if let Some(module) = named.filter(|m| *m != from) {
                to.insert(module);
            }
        }
        edges.insert(from, to);
    }
    edges
}

/// The top-level layer of `module` (`summary::io` is in `summary`).
fn layer(module: &str) -> &str {
    module.split("::").next().unwrap()
}

#[test]
fn modules_import_only_from_lower_layers() {
    let rank = |l: &str| match l {
        "main" => 3,
        "commands" => 2,
        "open" | "summary" => 1,
        "budget" | "input" | "output" | "suggest" | "help" => 0,
        other => panic!("module {other} is in no layer: add it to this test's list"),
    };
    let edges = edges();
    assert!(edges.len() > 30, "read only {} modules", edges.len());
    for (from, to) in &edges {
        for module in to {
            let (a, b) = (layer(from), layer(module));
            assert!(
                a == b || rank(a) > rank(b) || rank(a) == 0,
                "{from} imports {module}: a layer may import only from the layers below it (the plumbing \
                 from itself)"
            );
        }
    }
}

#[test]
fn no_module_imports_in_a_circle() {
    let edges = edges();
    // Depth-first search for a back edge; the path so far names the circle.
    fn visit(m: &str, edges: &BTreeMap<String, BTreeSet<String>>, path: &mut Vec<String>, done: &mut BTreeSet<String>) {
        if done.contains(m) {
            return;
        }
        if let Some(at) = path.iter().position(|p| p == m) {
            panic!("import circle: {} -> {m}", path[at..].join(" -> "));
        }
        path.push(m.to_string());
        for next in edges.get(m).into_iter().flatten() {
            visit(next, edges, path, done);
        }
        path.pop();
        done.insert(m.to_string());
    }
    let mut done = BTreeSet::new();
    for m in edges.keys() {
        visit(m, &edges, &mut Vec::new(), &mut done);
    }
    assert!(done.len() == edges.len());
}
