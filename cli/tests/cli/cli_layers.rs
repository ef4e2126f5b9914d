//! The command line's modules form layers with no import circle: the binary (`main.rs`) only
//! calls the library (`lib.rs`, the public API), whose `command_line` parses the arguments;
//! `commands` run one command each over `report` (what `inspect --json` and `scan` say of a
//! source, shared with the public API), which stands on `open` (how a path is read) and
//! `summary` (what `inspect` says), which stand on the plumbing (`budget`, `convert`, `input`,
//! `output`, `status`, `suggest`, `help`). Read from the sources: every `crate::` path a file
//! names, each leaf of a grouped import (`use crate::{a, b::{c, d}};`) included, is an edge
//! from its module to the module named, and a path to an item of the crate root
//! (`crate::Source`) is an edge to `lib`.

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
            [only] if only == "lib" => "lib".into(),
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
            for segments in paths_after(&text[at + 7..]) {
                // The longest prefix of the path that names a module of the library, else the
                // crate root's.
                let named = (1..=segments.len()).rev().map(|n| segments[..n].join("::")).find(|m| modules.contains(m));
                let module = named.unwrap_or_else(|| "lib".into());
                if module != from {
                    to.insert(module);
                }
            }
        }
        edges.insert(from, to);
    }
    edges
}

/// The paths named by the text right after a `crate::`: one for `a::b::Item` (or a call
/// `a::f(...)`), one per leaf of a grouped import (`{a, b::{c, self}, d as e}`), none when no
/// name follows (prose such as "`crate::` paths"). `self` names the path before it.
fn paths_after(text: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    tree(&mut text.chars().peekable(), &mut Vec::new(), &mut paths);
    paths.retain(|p| !p.is_empty());
    paths
}

/// Reads one use tree after `prefix` (names joined by `::`, ending in a name, a `*` or a braced
/// group of trees), adding each path it names to `paths`.
fn tree(text: &mut std::iter::Peekable<std::str::Chars<'_>>, prefix: &mut Vec<String>, paths: &mut Vec<Vec<String>>) {
    let depth = prefix.len();
    let is_name = |c: &char| c.is_ascii_alphanumeric() || *c == '_';
    let skip_space = |text: &mut std::iter::Peekable<std::str::Chars<'_>>| {
        while text.next_if(|c| c.is_whitespace()).is_some() {}
    };
    loop {
        skip_space(text);
        if text.next_if_eq(&'{').is_some() {
            loop {
                skip_space(text);
                match text.peek() {
                    None => break,
                    Some('}') => {
                        text.next();
                        break;
                    }
                    Some(',') => {
                        text.next();
                    }
                    Some(c) if is_name(c) || *c == '{' || *c == '*' => tree(text, prefix, paths),
                    Some(_) => {
                        text.next();
                    }
                }
            }
            prefix.truncate(depth);
            return;
        }
        let mut name = String::new();
        while let Some(c) = text.next_if(is_name) {
            name.push(c);
        }
        if !name.is_empty() && name != "self" {
            prefix.push(name);
        }
        // `::` goes on; anything else ends the path.
        let mut ahead = text.clone();
        skip_space(&mut ahead);
        if ahead.next() == Some(':') && ahead.next() == Some(':') {
            *text = ahead;
            continue;
        }
        break;
    }
    text.next_if_eq(&'*');
    // `name as alias`: the alias names nothing new.
    let mut ahead = text.clone();
    skip_space(&mut ahead);
    if ahead.next() == Some('a') && ahead.next() == Some('s') && ahead.next().is_some_and(char::is_whitespace) {
        *text = ahead;
        skip_space(text);
        while text.next_if(is_name).is_some() {}
    }
    paths.push(prefix.clone());
    prefix.truncate(depth);
}

#[test]
fn the_reader_finds_every_path_of_grouped_imports() {
    let read = |text: &str| -> Vec<String> { paths_after(text).iter().map(|p| p.join("::")).collect() };
    assert_eq!(read("summary::io::entries(model, &facts)?;"), ["summary::io::entries"]);
    assert_eq!(read("{Failure, Outcome};\nuse std::io;"), ["Failure", "Outcome"]);
    assert_eq!(read("{a, b::c};"), ["a", "b::c"]);
    assert_eq!(
        read("{\n    open::{self, Opened},\n    summary::{graph::{Rules, GraphSummary}, io},\n    output::*,\n};"),
        ["open", "open::Opened", "summary::graph::Rules", "summary::graph::GraphSummary", "summary::io", "output"]
    );
    assert_eq!(read("{input::Access as Mode, status::Failure};"), ["input::Access", "status::Failure"]);
    assert_eq!(read("status :: { Outcome } ;"), ["status::Outcome"]);
    assert_eq!(read("` paths a file names"), Vec::<String>::new());
    assert_eq!(read("{}"), Vec::<String>::new());
    // An unclosed group ends with the text.
    assert_eq!(read("{a, b::{c"), ["a", "b::c"]);
}

/// The top-level layer of `module` (`summary::io` is in `summary`).
fn layer(module: &str) -> &str {
    module.split("::").next().unwrap()
}

#[test]
fn modules_import_only_from_lower_layers() {
    let rank = |l: &str| match l {
        "main" => 6,
        "lib" => 5,
        "command_line" => 4,
        "commands" => 3,
        "report" => 2,
        "open" | "summary" => 1,
        "budget" | "convert" | "input" | "output" | "status" | "suggest" | "help" => 0,
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
fn the_binary_only_runs_the_library() {
    let main = std::fs::read_to_string(support::root().join("cli/src/main.rs")).unwrap();
    let code: Vec<&str> = main.lines().filter(|l| !l.trim_start().starts_with("//")).collect();
    let code = code.join("\n");
    assert!(!code.contains("mod ") && !code.contains("crate::"), "main.rs declares or names modules:\n{code}");
    assert!(code.contains("flatmodel_cli::run_command_line()"), "main.rs does not run the library's command line");
    let edges = edges();
    assert!(edges["main"].is_empty());
    // The public API reaches the reports, and no lower layer reaches back up to it.
    assert!(edges["lib"].contains("report"), "lib.rs: {:?}", edges["lib"]);
    for (from, to) in &edges {
        assert!(from == "lib" || !to.contains("lib"), "{from} imports the crate root");
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
