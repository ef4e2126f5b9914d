//! What the C ABI's test binaries share.

use std::path::{Path, PathBuf};

/// The files to check: every file below `dir` but text (JSON, listings, schemas, docs) and
/// compressed references.
pub fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("readable directory").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if !["json", "txt", "md", "gz", "fbs"].iter().any(|e| path.extension().is_some_and(|x| x == *e)) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}
