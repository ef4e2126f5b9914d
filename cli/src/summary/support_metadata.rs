//! tflite-support's model metadata in `inspect`: what its metadata displayer shows a person
//! (model name, version, author, license; each input and output tensor's name, description,
//! content, normalization and value range; the associated files), as JSON and as text.

use crate::budget::{Budget, OverBudget};
use crate::summary::facts::Named;
use flatmodel::tflite_metadata::{AssociatedFile, ContentProperties, ModelMetadata, ProcessUnitOptions};
use flatmodel::tflite_metadata::{ProcessUnit, TensorMetadata};
use flatmodel::wire::TableVector;
use serde::Serialize;
use serde_json::Value;
use std::io::Write;

/// tflite-support's model metadata, as its displayer shows it (`None` for what it lacks).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SupportMetadata {
    /// The model's name.
    pub name: Option<String>,
    /// The model's description.
    pub description: Option<String>,
    /// The model's version.
    pub version: Option<String>,
    /// The model's author.
    pub author: Option<String>,
    /// The model's license.
    pub license: Option<String>,
    /// The oldest metadata parser that reads it.
    pub min_parser_version: Option<String>,
    /// The first subgraph's input tensors.
    pub inputs: Vec<TensorInfo>,
    /// The first subgraph's output tensors.
    pub outputs: Vec<TensorInfo>,
    /// The model's associated files.
    pub associated_files: Vec<FileInfo>,
}

/// One input or output tensor's metadata.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TensorInfo {
    /// Its name.
    pub name: Option<String>,
    /// Its description.
    pub description: Option<String>,
    /// What it holds, as the displayer names it (`image (RGB)`).
    pub content: Option<String>,
    /// Its normalization: the last of its process units that is one.
    pub normalization: Option<Normalization>,
    /// The range of its values.
    pub range: Option<Range>,
    /// Its associated files.
    pub associated_files: Vec<FileInfo>,
}

/// A normalization process unit: `(x - mean) / std`, per channel.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Normalization {
    /// The means.
    pub mean: Vec<f32>,
    /// The standard deviations.
    pub std: Vec<f32>,
}

/// A tensor's value range, both ends included.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Range {
    /// The least value.
    pub min: i32,
    /// The greatest value.
    pub max: i32,
}

/// An associated file: name, type, description.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileInfo {
    /// Its name.
    pub name: Option<String>,
    /// Its type (`TENSOR_AXIS_LABELS`).
    #[serde(rename = "type")]
    pub kind: Named,
    /// Its description.
    pub description: Option<String>,
}

/// The summary of `meta`, charged to `budget` a unit per table and per number listed.
pub fn of(meta: &ModelMetadata<'_>, budget: &mut Budget) -> Result<SupportMetadata, OverBudget> {
    let (mut inputs, mut outputs) = (Vec::new(), Vec::new());
    let subgraphs = meta.subgraph_metadata();
    // The displayer shows the first subgraph's tensors: TFLite models with metadata have one.
    if let Some(sg) = subgraphs.and_then(|s| s.get(0)) {
        for t in sg.input_tensor_metadata().unwrap_or_default() {
            inputs.push(tensor(&t, budget)?);
        }
        for t in sg.output_tensor_metadata().unwrap_or_default() {
            outputs.push(tensor(&t, budget)?);
        }
    }
    Ok(SupportMetadata {
        name: budget.text_of(meta.name())?,
        description: budget.text_of(meta.description())?,
        version: budget.text_of(meta.version())?,
        author: budget.text_of(meta.author())?,
        license: budget.text_of(meta.license())?,
        min_parser_version: budget.text_of(meta.min_parser_version())?,
        inputs,
        outputs,
        associated_files: files(meta.associated_files(), budget)?,
    })
}

/// One tensor's metadata.
fn tensor(t: &TensorMetadata<'_>, budget: &mut Budget) -> Result<TensorInfo, OverBudget> {
    budget.charge(1)?;
    let content = t.content();
    let kind = content.map(|c| c.content_properties()).filter(|p| p.tag() != 0).map(|p| content_text(&p));
    let range = content.and_then(|c| c.range()).map(|r| Range { min: r.min(), max: r.max() });
    let mut normalization = None;
    for unit in t.process_units().unwrap_or_default() {
        if let Some(n) = normalization_of(&unit, budget)? {
            normalization = Some(n);
        }
    }
    Ok(TensorInfo {
        name: budget.text_of(t.name())?,
        description: budget.text_of(t.description())?,
        content: kind,
        normalization,
        range,
        associated_files: files(t.associated_files(), budget)?,
    })
}

/// How the displayer names a tensor's content: its kind, with the image's color space.
fn content_text(p: &ContentProperties<'_>) -> String {
    match p {
        ContentProperties::ImageProperties(i) => match i.color_space().name() {
            Some(space) => format!("image ({space})"),
            None => "image".into(),
        },
        ContentProperties::FeatureProperties(_) => "feature".into(),
        ContentProperties::BoundingBoxProperties(_) => "bounding box".into(),
        ContentProperties::AudioProperties(a) => format!("audio ({} Hz, {} channels)", a.sample_rate(), a.channels()),
        other => other.type_name().map_or_else(|| format!("content type {}", other.tag()), str::to_string),
    }
}

/// A process unit's normalization (mean, std), if it is one.
fn normalization_of(unit: &ProcessUnit<'_>, budget: &mut Budget) -> Result<Option<Normalization>, OverBudget> {
    let ProcessUnitOptions::NormalizationOptions(n) = unit.options() else { return Ok(None) };
    let mean: Vec<f32> = n.mean().into_iter().flatten().collect();
    let std: Vec<f32> = n.std().into_iter().flatten().collect();
    budget.charge(mean.len().saturating_add(std.len()))?;
    Ok(Some(Normalization { mean, std }))
}

/// Associated files: name, type, description.
fn files(list: Option<TableVector<'_, AssociatedFile<'_>>>, budget: &mut Budget) -> Result<Vec<FileInfo>, OverBudget> {
    let mut out = Vec::new();
    for f in list.unwrap_or_default() {
        budget.charge(1)?;
        out.push(FileInfo {
            name: budget.text_of(f.name())?,
            kind: Named::new(f.type_().name(), f.type_().0),
            description: budget.text_of(f.description())?,
        });
    }
    Ok(out)
}

impl SupportMetadata {
    /// The text, indented under `inspect`'s other lines.
    pub fn print(&self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "  model metadata:      {} (version {})", text(&self.name), text(&self.version))?;
        for (key, value) in [("description", &self.description), ("author", &self.author), ("license", &self.license)] {
            if let Some(v) = value {
                writeln!(out, "    {key}: {}", one_line(v))?;
            }
        }
        for (side, tensors) in [("input", &self.inputs), ("output", &self.outputs)] {
            for t in tensors {
                t.print(out, side)?;
            }
        }
        for f in &self.associated_files {
            writeln!(out, "    associated file: {}", f.text())?;
        }
        Ok(())
    }
}

impl TensorInfo {
    /// `    input NAME: CONTENT; normalized: ...; range [MIN, MAX]; file ...`, then the
    /// description on a line of its own; `side` is `input` or `output`.
    fn print(&self, out: &mut dyn Write, side: &str) -> std::io::Result<()> {
        let mut parts = vec![text(&self.content).to_string()];
        if let Some(n) = &self.normalization {
            parts.push(format!("normalized: mean {} std {}", json_list(&n.mean), json_list(&n.std)));
        }
        if let Some(r) = &self.range {
            parts.push(format!("range [{}, {}]", r.min, r.max));
        }
        for f in &self.associated_files {
            parts.push(format!("file {}", f.text()));
        }
        writeln!(out, "    {side} {}: {}", text(&self.name), parts.join("; "))?;
        if let Some(d) = &self.description {
            writeln!(out, "      {}", one_line(d))?;
        }
        Ok(())
    }
}

impl FileInfo {
    /// `NAME (TYPE)`: `-` for no name, `?` for a type the schema does not name.
    fn text(&self) -> String {
        format!("{} ({})", text(&self.name), self.kind.name().unwrap_or("?"))
    }
}

/// `text`, or `-` when there is none.
fn text(text: &Option<String>) -> &str {
    text.as_deref().unwrap_or("-")
}

/// `values` as compact JSON (`[127.5,0.5]`), each at the precision JSON keeps for an f32 and
/// `null` for one that is not finite.
fn json_list(values: &[f32]) -> String {
    Value::from(values).to_string()
}

/// `text` on one line: line breaks as spaces, cut at 200 characters.
fn one_line(text: &str) -> String {
    let flat: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).take(200).collect();
    if text.chars().count() > 200 {
        format!("{flat}…")
    } else {
        flat
    }
}
