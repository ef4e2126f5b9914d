//! The summary of an nnpackage: its manifest, config and models, each flatbuffer model with its
//! own summary ([`GraphSummary`]).

use crate::convert::to_u64;
use crate::summary::graph::{GraphSummary, Nested, Rules};
use crate::summary::io::{Entry, Found, Port, PortTensor, Runs};
use crate::summary::needs::Need;
use crate::summary::weights::{grouped, Weights};
use flatmodel::nnpackage::{self, Container, Package, TensorIo};
use flatmodel::File;
use serde::Serialize;
use std::io::Write;

/// What `inspect` says of an nnpackage: the manifest, the config, and each model with its
/// own summary.
#[derive(Debug, Serialize)]
pub struct PackageSummary {
    /// `nnpackage`.
    format: &'static str,
    /// `directory` or `zip`.
    container: &'static str,
    /// The manifest's version.
    version: String,
    /// The manifest's `configs`.
    configs: Vec<String>,
    /// The config file read, if any.
    config: Option<ConfigSummary>,
    /// What it needs of a runtime: the manifest's version, and the features it uses.
    needs: Vec<Need>,
    /// The model files' bytes in all.
    file_bytes: u64,
    /// The flatbuffer models' weights together.
    weights: Weights,
    /// Each model.
    models: Vec<ModelSummary>,
    /// The package's inputs (`model:subgraph:index`).
    pkg_inputs: Vec<String>,
    /// The package's outputs.
    pkg_outputs: Vec<String>,
    /// How outputs feed inputs between models.
    model_connect: Vec<ConnectionSummary>,
}

/// The config file: its path and `key=value` entries.
#[derive(Debug, Serialize)]
struct ConfigSummary {
    /// Its path in the package.
    file: String,
    /// Its entries in file order.
    entries: Vec<ConfigEntry>,
}

/// One `key=value` entry.
#[derive(Debug, Serialize)]
struct ConfigEntry {
    /// The key.
    key: String,
    /// The value.
    value: String,
}

/// `from` feeds each of `to`.
#[derive(Debug, Serialize)]
struct ConnectionSummary {
    /// The output.
    from: String,
    /// The inputs it feeds.
    to: Vec<String>,
}

/// One model of the package.
#[derive(Debug, Serialize)]
struct ModelSummary {
    /// Its position in the manifest.
    index: usize,
    /// Its path in the package.
    path: String,
    /// Its type (`tflite`, `circle`, `tvn`, ...).
    #[serde(rename = "type")]
    model_type: &'static str,
    /// Where the type came from: `extension` or `model-types`.
    type_from: &'static str,
    /// The file's size.
    bytes: usize,
    /// Each subgraph's inputs and outputs; `None` for a backend's opaque binary.
    io: Option<Vec<Entry>>,
    /// The model's own summary (a flatbuffer model's), or why it cannot be given.
    summary: Option<Nested<Box<GraphSummary>>>,
}

impl PackageSummary {
    /// The summary of a checked package. Its flatbuffer models were verified in full by the
    /// package check: their summaries read the verified views, verifying nothing twice.
    pub fn of(package: &Package) -> PackageSummary {
        let m = package.manifest();
        let refs = |v: &[nnpackage::IoRef]| -> Vec<String> { v.iter().map(ToString::to_string).collect() };
        let models: Vec<ModelSummary> =
            package.models().iter().enumerate().map(|(i, model)| model_summary(package, i, model)).collect();
        let file_bytes = models.iter().fold(0u64, |sum, m| sum.saturating_add(to_u64(m.bytes)));
        let mut weights = Weights::default();
        for model in &models {
            if let Some(Nested::Read(summary)) = &model.summary {
                weights.add(summary.weights());
            }
        }
        PackageSummary {
            needs: needs(package),
            format: "nnpackage",
            container: match package.container() {
                Container::Directory => "directory",
                Container::Zip => "zip",
            },
            version: m.version.to_string(),
            configs: m.configs.clone(),
            config: package.config().map(|c| ConfigSummary {
                file: c.file.clone(),
                entries: c
                    .entries
                    .iter()
                    .map(|(key, value)| ConfigEntry { key: key.clone(), value: value.clone() })
                    .collect(),
            }),
            file_bytes,
            weights,
            models,
            pkg_inputs: refs(&m.pkg_inputs),
            pkg_outputs: refs(&m.pkg_outputs),
            model_connect: m
                .model_connect
                .iter()
                .map(|c| ConnectionSummary { from: c.from.to_string(), to: refs(&c.to) })
                .collect(),
        }
    }
}

/// What `package` needs of a runtime: its manifest's version, with the version 1.2 and 1.3
/// features it uses (`pkg-inputs`/`pkg-outputs` and `model-connect` across several models,
/// a config file); each model's own needs are in its summary.
fn needs(package: &Package) -> Vec<Need> {
    let m = package.manifest();
    let mut uses = Vec::new();
    if package.models().len() > 1 {
        uses.push(format!("{} models", package.models().len()));
    }
    if !m.model_connect.is_empty() {
        uses.push("model-connect".to_string());
    }
    if let Some(config) = package.config() {
        uses.push(format!("config {}", config.file));
    }
    let uses = if uses.is_empty() { String::new() } else { format!(" ({})", uses.join(", ")) };
    vec![Need { feature: "nnpackage_version", detail: format!("nnpackage {} manifest{uses}", m.version) }]
}

/// Model `index` of `package`, with its summary when it is a flatbuffer model.
fn model_summary(package: &Package, index: usize, model: &nnpackage::PackageModel) -> ModelSummary {
    let bytes = model.bytes.as_bytes();
    let io = model.io.as_ref().map(|io| {
        io.subgraphs
            .iter()
            .enumerate()
            .map(|(s, sg)| Entry {
                runs: Runs::Subgraph { subgraph: s },
                inputs: sg.inputs.iter().map(port).collect(),
                outputs: sg.outputs.iter().map(port).collect(),
            })
            .collect()
    });
    let summary = package.model_file(index).map(|file| {
        let summary = match file {
            Ok(File::Tflite(m)) => GraphSummary::of_tflite(m, false, Rules::Passed),
            Ok(File::Circle(m)) => GraphSummary::of_circle(m, false, Rules::Passed),
            Ok(_) => return Nested::Invalid { error: "not a TFLite or Circle model".into() },
            Err(e) => return Nested::Invalid { error: e.to_string() },
        };
        summary.map_or_else(|e| Nested::Invalid { error: e.to_string() }, |s| Nested::Read(Box::new(s)))
    });
    ModelSummary {
        index,
        path: model.path.clone(),
        model_type: model.model_type.name(),
        type_from: if model.type_from_extension { "extension" } else { "model-types" },
        bytes: bytes.len(),
        io,
        summary,
    }
}

/// A subgraph input or output in the port layout every format's `io` shares, with the type
/// code as stored (the model's own summary adds its quantization).
fn port(t: &TensorIo) -> Port {
    let shape = t.shape.as_ref().map(|d| d.iter().map(|&x| i64::from(x)).collect());
    let tensor = PortTensor {
        tensor_name: None,
        dtype: crate::summary::facts::dtype(t.element_type),
        type_code: Some(i32::from(t.element_type.code)),
        shape,
        quantization: None,
    };
    Port { name: t.name.clone(), tensor: i64::from(t.tensor), found: Found::Tensor(tensor) }
}

impl PackageSummary {
    /// Prints the summary as text under the package's `name`: the manifest, then each model's
    /// own summary.
    pub fn print_text(&self, out: &mut dyn Write, name: &str) -> std::io::Result<()> {
        let list = |items: &[String]| if items.is_empty() { "-".into() } else { items.join(", ") };
        writeln!(out, "{name}")?;
        writeln!(out, "  format:      nnpackage {} ({})", self.version, self.container)?;
        writeln!(out, "  configs:     {}", list(&self.configs))?;
        crate::summary::needs::print(out, "  needs:       ", &self.needs)?;
        if let Some(config) = &self.config {
            writeln!(out, "  config:      {}", config.file)?;
            for e in &config.entries {
                writeln!(out, "    {}={}", e.key, e.value)?;
            }
        }
        let files = format!("{} bytes in {} model files", grouped(self.file_bytes), self.models.len());
        self.weights.print(out, "  size:        ", &files)?;
        writeln!(out, "  models:      {}", self.models.len())?;
        for model in &self.models {
            let from = if model.type_from == "extension" { " by extension" } else { "" };
            writeln!(out, "    [{}] {} ({}{from}, {} bytes)", model.index, model.path, model.model_type, model.bytes)?;
            for entry in model.io.iter().flatten() {
                let side = |ports: &[Port]| -> String {
                    let parts: Vec<String> = ports.iter().map(port_text).collect();
                    parts.join("; ")
                };
                let sg = match entry.runs {
                    Runs::Subgraph { subgraph } => subgraph,
                    _ => 0,
                };
                writeln!(
                    out,
                    "        subgraph {sg}: inputs [{}] outputs [{}]",
                    side(&entry.inputs),
                    side(&entry.outputs)
                )?;
            }
        }
        writeln!(out, "  pkg-inputs:  {}", list(&self.pkg_inputs))?;
        writeln!(out, "  pkg-outputs: {}", list(&self.pkg_outputs))?;
        writeln!(out, "  connections:{}", if self.model_connect.is_empty() { " -" } else { "" })?;
        for c in &self.model_connect {
            writeln!(out, "    {} -> {}", c.from, c.to.join(", "))?;
        }
        for model in &self.models {
            if let Some(nested) = &model.summary {
                let title = format!("{name}: model {} ({})", model.index, model.path);
                nested.print_under(out, &title, |summary, out, title| summary.print_text(out, title))?;
            }
        }
        Ok(())
    }
}

/// `NAME DTYPE [d0,d1]` (`[?]` without a shape), as a model line lists a port.
fn port_text(p: &Port) -> String {
    let name = p.name.as_deref().unwrap_or("-");
    match &p.found {
        Found::Tensor(t) => {
            let shape = t.shape.as_ref().map_or_else(
                || "[?]".into(),
                |d| format!("[{}]", d.iter().map(i64::to_string).collect::<Vec<_>>().join(",")),
            );
            format!("{name} {} {shape}", t.dtype)
        }
        Found::Missing { error } => format!("{name} ({error})"),
    }
}
