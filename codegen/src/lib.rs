//! flatmodel's code generator: each format's `schema.fbs` to its `generated.rs`, a sequence of
//! `crate::fb_*!` macro calls (the grammar is in the library's `src/schema/macros.rs`).
//!
//! There is one schema compiler. The generator resolves a schema with `flatmodel::reflect`,
//! the resolver of the run-time schemas, and takes every FlatBuffers rule from what it resolved
//! ([`items`]); the parsed `.fbs` gives only the order, doc comments and lines of the
//! declarations. [`emit`] prints the result.
//!
//! `cargo xtask codegen` writes every stale file ([`write`]); `cargo xtask codegen --check` and
//! the test `generated_code_is_fresh` (`cargo test`) fail on one ([`stale`]).
//!
//! **Bootstrapping.** The generator links the library, and the library includes the generated
//! files. So `cargo xtask codegen` builds the generator with `--cfg flatmodel_bootstrap`, under
//! which the library leaves out every module that includes generated code (the formats, the
//! model graph, nnpackage; see its `src/lib.rs`), in a target directory of its own
//! (`target/bootstrap`): a stale or missing `generated.rs`, or a change of the macros' grammar
//! (`GRAMMAR_VERSION`), does not stop it from running. CONTRIBUTING.md gives the steps.

pub mod emit;
pub mod items;
pub mod names;

use std::path::{Path, PathBuf};

/// Each schema the library compiles in and the file generated from it, relative to the
/// workspace root.
pub const SCHEMAS: &[(&str, &str)] = &[
    ("src/formats/tflite/schema.fbs", "src/formats/tflite/generated.rs"),
    ("src/formats/circle/schema.fbs", "src/formats/circle/generated.rs"),
    ("src/formats/circle/revision0/schema.fbs", "src/formats/circle/revision0/generated.rs"),
    ("src/formats/vkgraph/schema.fbs", "src/formats/vkgraph/generated.rs"),
    ("src/formats/pte/schema.fbs", "src/formats/pte/generated.rs"),
    ("src/formats/xnnpack/schema.fbs", "src/formats/xnnpack/generated.rs"),
    ("src/formats/ptd/schema.fbs", "src/formats/ptd/generated.rs"),
    ("src/formats/litertlm/schema.fbs", "src/formats/litertlm/generated.rs"),
    ("src/formats/cvimodel/schema.fbs", "src/formats/cvimodel/generated.rs"),
    ("src/formats/tflite_metadata/schema.fbs", "src/formats/tflite_metadata/generated.rs"),
    ("src/formats/conversion_metadata/schema.fbs", "src/formats/conversion_metadata/generated.rs"),
    ("src/formats/circle_training/schema.fbs", "src/formats/circle_training/generated.rs"),
];

/// The workspace root: this crate's parent directory.
pub fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.parent().map_or_else(|| here.to_path_buf(), Path::to_path_buf)
}

/// Reads the schema file at `path`, its includes from disk beside it, and resolves it.
pub fn read_file(path: &Path) -> Result<items::Layout, String> {
    let name = path.to_string_lossy().replace('\\', "/");
    items::read(&name, &mut |p: &str| std::fs::read_to_string(p).map_err(|e| format!("cannot read {p}: {e}")))
}

/// The text of the file generated from `schema` (a path relative to `root`, as the header
/// names it).
pub fn generate(root: &Path, schema: &str) -> Result<String, String> {
    emit::emit(&read_file(&root.join(schema))?, schema, flatmodel::schema::GRAMMAR_VERSION)
}

/// A generated file that differs from what its schema gives.
#[derive(Debug)]
pub struct Stale {
    /// The file, relative to the workspace root.
    pub target: &'static str,
    /// The first line that differs (1-based), as the file has it and as the schema gives it.
    pub line: usize,
    /// That line in the file (quoted), or `<end of file>`.
    pub was: String,
    /// That line as the schema gives it (quoted), or `<end of file>`.
    pub now: String,
    /// The whole text the schema gives.
    pub text: String,
}

impl std::fmt::Display for Stale {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} is stale: line {} is {}, the schema gives {}", self.target, self.line, self.was, self.now)
    }
}

/// Every file of [`SCHEMAS`] under `root` that differs from what its schema gives (a missing
/// file is empty).
pub fn stale(root: &Path) -> Result<Vec<Stale>, String> {
    let mut out = Vec::new();
    for &(schema, target) in SCHEMAS {
        let text = generate(root, schema).map_err(|e| format!("{schema}: {e}"))?;
        let old = std::fs::read_to_string(root.join(target)).unwrap_or_default();
        if let Some((line, was, now)) = first_difference(&old, &text) {
            out.push(Stale { target, line, was, now, text });
        }
    }
    Ok(out)
}

/// Writes every stale file of [`SCHEMAS`] under `root`; gives the files written.
pub fn write(root: &Path) -> Result<Vec<&'static str>, String> {
    let mut written = Vec::new();
    for s in stale(root)? {
        std::fs::write(root.join(s.target), &s.text).map_err(|e| format!("cannot write {}: {e}", s.target))?;
        written.push(s.target);
    }
    Ok(written)
}

/// The first line where `old` and `new` differ: (1-based number, old line, new line), each
/// quoted or `<end of file>`; both empty when only a final newline differs.
pub fn first_difference(old: &str, new: &str) -> Option<(usize, String, String)> {
    let (mut a, mut b) = (old.lines(), new.lines());
    let mut n = 0;
    loop {
        n += 1;
        match (a.next(), b.next()) {
            (None, None) => return (old != new).then(|| (n, String::new(), String::new())),
            (x, y) if x != y => {
                let show = |l: Option<&str>| l.map_or("<end of file>".to_string(), |l| format!("{l:?}"));
                return Some((n, show(x), show(y)));
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_difference_names_the_line() {
        assert_eq!(first_difference("a\nb\n", "a\nb\n"), None);
        assert_eq!(first_difference("a\nb\n", "a\nc\n"), Some((2, "\"b\"".into(), "\"c\"".into())));
        assert_eq!(first_difference("a\n", "a\nb\n"), Some((2, "<end of file>".into(), "\"b\"".into())));
        assert_eq!(first_difference("a", "a\n"), Some((2, String::new(), String::new())));
    }
}
