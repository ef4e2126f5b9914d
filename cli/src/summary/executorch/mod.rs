//! The summary of an ExecuTorch file: a `.pte` program (its plans, delegates, segments, weights
//! and each Vulkan or XNNPACK delegate's graph), a `VH00` Vulkan delegate blob or a bare VkGraph,
//! an `XH00` XNNPACK delegate blob or a bare XNNGraph, or a `.ptd` data file.

mod counts;
pub mod data;
mod dtypes;
mod program;
mod ptd;
mod values;
mod vulkan;
mod weights;
pub mod xnnpack;

use crate::budget::{Budget, OverBudget};
use flatmodel::pte::PteFile;
use flatmodel::vkgraph::Blob;
use program::ProgramSummary;
use ptd::PtdSummary;
use serde::Serialize;
use std::io::Write;
use vulkan::BlobSummary;
use xnnpack::XnnpackBlobSummary;

/// What `inspect` says of an ExecuTorch file.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum ExecutorchSummary {
    /// A `.pte` program.
    Program(ProgramSummary),
    /// A `VH00` Vulkan delegate blob or a bare VkGraph.
    Blob(BlobSummary),
    /// An `XH00` XNNPACK delegate blob or a bare XNNGraph.
    Xnnpack(XnnpackBlobSummary),
    /// A `.ptd` data file.
    Ptd(PtdSummary),
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

    /// The summary of a verified `XH00` blob or bare XNNGraph, its lists charged to `budget`.
    pub fn of_xnnpack(
        blob: &flatmodel::xnnpack::Blob<'_>,
        tensors: bool,
        budget: &mut Budget,
    ) -> Result<Self, OverBudget> {
        XnnpackBlobSummary::of(blob, tensors, budget).map(Self::Xnnpack)
    }

    /// The summary of a verified `.ptd` file, its lists charged to `budget`.
    pub fn of_ptd(file: &flatmodel::ptd::PtdFile<'_>, tensors: bool, budget: &mut Budget) -> Result<Self, OverBudget> {
        PtdSummary::of(file, tensors, budget).map(Self::Ptd)
    }

    /// Prints the summary for `inspect` without `--json`, under the file's `name`.
    pub fn print_text(&self, out: &mut dyn Write, name: &str) -> std::io::Result<()> {
        writeln!(out, "{name}")?;
        match self {
            Self::Program(program) => program.print_text(out),
            Self::Blob(blob) => blob.print_text(out),
            Self::Xnnpack(blob) => blob.print_text(out),
            Self::Ptd(file) => file.print_text(out),
        }
    }
}
