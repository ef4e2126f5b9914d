//! What `inspect` says of a file: a typed summary per format, built from the verified file and
//! rendered as text or as the JSON that `inspect.schema.json` describes.

pub mod arena;
pub mod associated;
pub mod bundle;
pub mod conversion;
pub mod cvimodel;
pub mod executorch;
pub mod facts;
pub mod flatbuffer;
pub mod graph;
pub mod io;
pub mod litertlm;
pub mod needs;
pub mod package;
pub mod support_metadata;
pub mod training;
pub mod warnings;
pub mod weights;

use crate::budget::{Budget, OverBudget};
use bundle::BundleSummary;
use cvimodel::CvimodelSummary;
use executorch::ExecutorchSummary;
use flatbuffer::FlatbufferSummary;
use flatmodel::bundle::Bundle;
use flatmodel::nnpackage::Package;
use flatmodel::verify::Options;
use flatmodel::File;
use graph::{GraphSummary, Rules};
use litertlm::LitertlmSummary;
use package::PackageSummary;
use serde::Serialize;
use std::io::Write;

/// What `inspect` says of any file: one summary per format, rendered as text or as the JSON
/// that `inspect.schema.json` describes.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Summary {
    /// A TFLite or Circle model.
    Graph(Box<GraphSummary>),
    /// An ExecuTorch program, Vulkan or XNNPACK blob, or `.ptd` data file.
    Executorch(Box<ExecutorchSummary>),
    /// A cvimodel.
    Cvimodel(Box<CvimodelSummary>),
    /// A LiteRT-LM file, each TFLite section with its own summary.
    Litertlm(Box<LitertlmSummary>),
    /// An nnpackage.
    Package(Box<PackageSummary>),
    /// A model bundle (a zip archive of models that is no nnpackage).
    Bundle(Box<BundleSummary>),
    /// Any flatbuffer, read by a schema given at run time (`--schema`).
    Flatbuffer(Box<FlatbufferSummary>),
}

/// Why a file has no summary: the reason `inspect` prints, and the library's error when the
/// reason is one (a rule an ExecuTorch file breaks).
#[derive(Debug)]
pub struct Refused {
    /// The reason, as `inspect` prints it.
    pub reason: String,
    /// The library's error, when there is one.
    pub error: Option<flatmodel::Error>,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

impl Summary {
    /// The summary of a structurally verified file, every tensor (or value) listed when
    /// `tensors`, or why it cannot be given: the file is disproportionate to its summary, or
    /// (ExecuTorch and LiteRT-LM files, whose sections are located through them) its rules
    /// fail. TFLite, Circle and cvimodel summaries show a failing rule instead.
    pub fn of_file(file: File<'_>, tensors: bool) -> Result<Summary, Refused> {
        let refused = |e: OverBudget| Refused { reason: e.to_string(), error: None };
        let rules = |e: flatmodel::Error| Refused { reason: e.to_string(), error: Some(e) };
        Ok(match file {
            File::Tflite(m) => {
                Summary::Graph(Box::new(GraphSummary::of_tflite(m, tensors, Rules::Check).map_err(refused)?))
            }
            File::Circle(m) => {
                Summary::Graph(Box::new(GraphSummary::of_circle(m, tensors, Rules::Check).map_err(refused)?))
            }
            File::Pte(p) => {
                p.check_rules(&Options::DEFAULT).map_err(rules)?;
                let mut budget = Budget::for_file(p.bytes().len());
                Summary::Executorch(Box::new(ExecutorchSummary::of_program(&p, tensors, &mut budget).map_err(refused)?))
            }
            File::VkGraph(b) => {
                b.check_rules(&Options::DEFAULT).map_err(rules)?;
                let mut budget = Budget::for_file(b.bytes().len());
                Summary::Executorch(Box::new(ExecutorchSummary::of_blob(&b, tensors, &mut budget).map_err(refused)?))
            }
            File::Xnnpack(b) => {
                b.check_rules(&Options::DEFAULT).map_err(rules)?;
                let mut budget = Budget::for_file(b.bytes().len());
                Summary::Executorch(Box::new(ExecutorchSummary::of_xnnpack(&b, tensors, &mut budget).map_err(refused)?))
            }
            File::Ptd(f) => {
                f.check_rules(&Options::DEFAULT).map_err(rules)?;
                let mut budget = Budget::for_file(f.bytes().len());
                Summary::Executorch(Box::new(ExecutorchSummary::of_ptd(&f, tensors, &mut budget).map_err(refused)?))
            }
            File::Cvimodel(c) => {
                let mut budget = Budget::for_file(c.file().len());
                Summary::Cvimodel(Box::new(CvimodelSummary::of(&c, &mut budget).map_err(refused)?))
            }
            File::LitertLm(f) => {
                f.check_rules(&Options::DEFAULT).map_err(rules)?;
                Summary::Litertlm(Box::new(LitertlmSummary::of(&f, tensors).map_err(refused)?))
            }
            other => {
                let reason = format!("inspect does not read {:?} files", other.format());
                return Err(Refused { reason, error: None });
            }
        })
    }

    /// The summary of a checked nnpackage.
    pub fn of_package(package: &Package) -> Summary {
        Summary::Package(Box::new(PackageSummary::of(package)))
    }

    /// The summary of a read model bundle, each model member's listing every tensor when
    /// `tensors`.
    pub fn of_bundle(bundle: &Bundle<'_>, tensors: bool) -> Summary {
        Summary::Bundle(Box::new(BundleSummary::of(bundle, tensors)))
    }

    /// Writes the summary as JSON, with its layout's version.
    pub fn write_json(&self, out: &mut dyn Write) -> Result<(), serde_json::Error> {
        crate::output::write_summary(out, serde_json::to_value(self)?)
    }

    /// Prints the summary as text under the file's `name`.
    pub fn print_text(&self, out: &mut dyn Write, name: &str) -> std::io::Result<()> {
        match self {
            Summary::Graph(s) => s.print_text(out, name),
            Summary::Executorch(s) => s.print_text(out, name),
            Summary::Cvimodel(s) => s.print_text(out, name),
            Summary::Litertlm(s) => s.print_text(out, name),
            Summary::Package(s) => s.print_text(out, name),
            Summary::Bundle(s) => s.print_text(out, name),
            Summary::Flatbuffer(s) => s.print_text(out, name),
        }
    }
}
