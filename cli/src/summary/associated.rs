//! The associated files tflite-support appends to a TFLite model (a zip archive after it), as
//! `inspect` lists them and `verify` warns of a corrupt archive.

use crate::budget::{Budget, OverBudget};
use flatmodel::nnpackage::AssociatedFiles;
use serde::Serialize;
use std::io::Write;

/// The zip archive appended to a model: `{"files": [{name, size}]}`, or `{"error": ...}` when
/// it is corrupt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Appended {
    /// The archive's files, in its order.
    Files(Vec<AppendedFile>),
    /// Why the archive cannot be read.
    Error(String),
}

/// One file of the appended archive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AppendedFile {
    /// Its name in the archive.
    pub name: String,
    /// Its size in bytes, uncompressed.
    pub size: Option<u64>,
}

/// The archive appended to `bytes`, `None` when there is none; a unit of `budget` per file.
pub fn of(bytes: &[u8], budget: &mut Budget) -> Result<Option<Appended>, OverBudget> {
    match AssociatedFiles::read(bytes) {
        Ok(None) => Ok(None),
        Err(e) => Ok(Some(Appended::Error(e.to_string()))),
        Ok(Some(archive)) => {
            let mut files = Vec::new();
            for name in archive.names() {
                budget.charge(1)?;
                files.push(AppendedFile { name: budget.text(name)?, size: archive.size_of(name) });
            }
            Ok(Some(Appended::Files(files)))
        }
    }
}

impl Appended {
    /// The warning when the archive is corrupt ([`warning_text`]), `None` when it was read.
    pub fn warning(&self) -> Option<String> {
        match self {
            Appended::Error(e) => Some(warning_text(e)),
            Appended::Files(_) => None,
        }
    }

    /// `associated files: labels.txt (1024 bytes), ...` under `inspect`'s other lines.
    pub fn print(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let files = match self {
            Appended::Error(e) => return writeln!(out, "  associated files:    unreadable: {e}"),
            Appended::Files(files) => files,
        };
        let listed = if files.is_empty() {
            "none (an empty zip archive follows the model)".into()
        } else {
            let shown: Vec<String> = files
                .iter()
                .map(|f| format!("{} ({} bytes)", f.name, f.size.map_or_else(|| "null".into(), |s| s.to_string())))
                .collect();
            shown.join(", ")
        };
        writeln!(out, "  associated files:    {listed}")
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
