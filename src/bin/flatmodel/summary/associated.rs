//! The associated files tflite-support appends to a TFLite model (a zip archive after it), as
//! `inspect` lists them and `verify` warns of a corrupt archive.

use crate::budget::{Budget, OverBudget};
use flatmodel::nnpackage::AssociatedFiles;
use serde_json::{json, Value};
use std::io::Write;

/// `{"files": [{name, size}]}` for the archive appended to `bytes`, `{"error": ...}` when it is
/// corrupt, `None` when there is none; a unit of `budget` per file.
pub fn summary(bytes: &[u8], budget: &mut Budget) -> Result<Option<Value>, OverBudget> {
    match AssociatedFiles::read(bytes) {
        Ok(None) => Ok(None),
        Err(e) => Ok(Some(json!({ "error": e.to_string() }))),
        Ok(Some(archive)) => {
            let mut files = Vec::new();
            for name in archive.names() {
                budget.charge(1)?;
                files.push(json!({"name": name, "size": archive.size_of(name)}));
            }
            Ok(Some(json!({ "files": files })))
        }
    }
}

/// The warning for a corrupt archive appended to `bytes`: the model stays valid, its
/// associated files cannot be read.
pub fn warning(bytes: &[u8]) -> Option<String> {
    AssociatedFiles::read(bytes).err().map(|e| warning_text(&e.to_string()))
}

/// The warning for an appended archive that is corrupt because of `error`.
pub fn warning_text(error: &str) -> String {
    format!("{error} (the zip archive appended to the model is corrupt; the model itself is valid)")
}

/// `associated files: labels.txt (1,024 bytes), ...` under `inspect`'s other lines.
pub fn print(out: &mut dyn Write, s: &Value) -> std::io::Result<()> {
    if let Some(e) = s["error"].as_str() {
        return writeln!(out, "  associated files:    unreadable: {e}");
    }
    let files: Vec<String> = s["files"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| format!("{} ({} bytes)", f["name"].as_str().unwrap_or("?"), f["size"]))
        .collect();
    let listed =
        if files.is_empty() { "none (an empty zip archive follows the model)".into() } else { files.join(", ") };
    writeln!(out, "  associated files:    {listed}")
}
