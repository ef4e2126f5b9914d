//! The summary of an ExecuTorch file: a `.pte` program (its plans, delegates, segments, weights
//! and each Vulkan delegate's graph), a `VH00` Vulkan delegate blob or a bare VkGraph.

mod counts;
mod dtypes;
mod program;
mod values;
mod vulkan;
mod weights;

use crate::budget::{Budget, OverBudget};
use flatmodel::pte::PteFile;
use flatmodel::vkgraph::Blob;
use program::ProgramSummary;
use serde::Serialize;
use std::io::Write;
use vulkan::BlobSummary;

/// What `inspect` says of an ExecuTorch file.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum ExecutorchSummary {
    /// A `.pte` program.
    Program(ProgramSummary),
    /// A `VH00` Vulkan delegate blob or a bare VkGraph.
    Blob(BlobSummary),
}

impl ExecutorchSummary {
    /// The summary of a verified `.pte`; every plan, delegate and list element is charged to
    /// `budget`, as plans and delegates can be shared.
    pub fn of_program(file: &PteFile<'_>, tensors: bool, budget: &mut Budget) -> Result<Self, OverBudget> {
        ProgramSummary::of(file, tensors, budget).map(Self::Program)
    }

    /// The summary of a verified `VH00` blob or bare VkGraph, its lists charged to `budget`.
    pub fn of_blob(blob: &Blob<'_>, tensors: bool, budget: &mut Budget) -> Result<Self, OverBudget> {
        BlobSummary::of(blob, tensors, budget).map(Self::Blob)
    }

    /// Prints the summary for `inspect` without `--json`, under the file's `name`.
    pub fn print_text(&self, out: &mut dyn Write, name: &str) -> std::io::Result<()> {
        writeln!(out, "{name}")?;
        match self {
            Self::Program(program) => program.print_text(out),
            Self::Blob(blob) => blob.print_text(out),
        }
    }
}
