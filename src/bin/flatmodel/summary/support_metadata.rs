//! tflite-support's model metadata in `inspect`: what its metadata displayer shows a person
//! (model name, version, author, license; each input and output tensor's name, description,
//! content, normalization and value range; the associated files), as JSON and as text.

use crate::budget::{Budget, OverBudget};
use flatmodel::tflite_metadata::{AssociatedFile, ContentProperties, ModelMetadata, ProcessUnitOptions};
use flatmodel::tflite_metadata::{ProcessUnit, TensorMetadata};
use flatmodel::wire::TableVector;
use serde_json::{json, Value};
use std::io::Write;

/// The summary of `meta`, charged to `budget` a unit per table and per number listed.
pub fn summary(meta: &ModelMetadata<'_>, budget: &mut Budget) -> Result<Value, OverBudget> {
    let (mut inputs, mut outputs) = (Vec::new(), Vec::new());
    let subgraphs = meta.subgraph_metadata();
    // The displayer shows the first subgraph's tensors: TFLite models with metadata have one.
    if let Some(sg) = subgraphs.and_then(|s| s.get(0)) {
        for t in sg.input_tensor_metadata().into_iter().flat_map(|v| v.iter()) {
            inputs.push(tensor(&t, budget)?);
        }
        for t in sg.output_tensor_metadata().into_iter().flat_map(|v| v.iter()) {
            outputs.push(tensor(&t, budget)?);
        }
    }
    Ok(json!({
        "name": meta.name(),
        "description": meta.description(),
        "version": meta.version(),
        "author": meta.author(),
        "license": meta.license(),
        "min_parser_version": meta.min_parser_version(),
        "inputs": inputs,
        "outputs": outputs,
        "associated_files": files(meta.associated_files(), budget)?,
    }))
}

/// One tensor's metadata.
fn tensor(t: &TensorMetadata<'_>, budget: &mut Budget) -> Result<Value, OverBudget> {
    budget.charge(1)?;
    let content = t.content();
    let kind = content.map(|c| c.content_properties()).filter(|p| p.tag() != 0).map(|p| content_text(&p));
    let range = content.and_then(|c| c.range()).map(|r| json!({"min": r.min(), "max": r.max()}));
    let mut normalization = None;
    for unit in t.process_units().into_iter().flat_map(|u| u.iter()) {
        if let Some(n) = normalization_of(&unit, budget)? {
            normalization = Some(n);
        }
    }
    Ok(json!({
        "name": t.name(),
        "description": t.description(),
        "content": kind,
        "normalization": normalization,
        "range": range,
        "associated_files": files(t.associated_files(), budget)?,
    }))
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
fn normalization_of(unit: &ProcessUnit<'_>, budget: &mut Budget) -> Result<Option<Value>, OverBudget> {
    let ProcessUnitOptions::NormalizationOptions(n) = unit.options() else { return Ok(None) };
    let mean: Vec<f32> = n.mean().into_iter().flat_map(|v| v.iter()).collect();
    let std: Vec<f32> = n.std().into_iter().flat_map(|v| v.iter()).collect();
    budget.charge(mean.len().saturating_add(std.len()))?;
    Ok(Some(json!({"mean": mean, "std": std})))
}

/// Associated files: name, type, description.
fn files(list: Option<TableVector<'_, AssociatedFile<'_>>>, budget: &mut Budget) -> Result<Vec<Value>, OverBudget> {
    let mut out = Vec::new();
    for f in list.into_iter().flat_map(|v| v.iter()) {
        budget.charge(1)?;
        let kind = f.type_().name().map_or_else(|| json!(f.type_().0), |n| json!(n));
        out.push(json!({"name": f.name(), "type": kind, "description": f.description()}));
    }
    Ok(out)
}

/// The text of a summary `s` made by [`summary`], indented under `inspect`'s other lines.
pub fn print(out: &mut dyn Write, s: &Value) -> std::io::Result<()> {
    let text = |v: &Value| v.as_str().map_or_else(|| "-".to_string(), str::to_string);
    writeln!(out, "  model metadata:      {} (version {})", text(&s["name"]), text(&s["version"]))?;
    for key in ["description", "author", "license"] {
        if let Some(v) = s[key].as_str() {
            writeln!(out, "    {key}: {}", one_line(v))?;
        }
    }
    for (side, key) in [("input", "inputs"), ("output", "outputs")] {
        for t in s[key].as_array().into_iter().flatten() {
            let mut parts = vec![text(&t["content"])];
            if let Some(n) = t.get("normalization").filter(|n| !n.is_null()) {
                parts.push(format!("normalized: mean {} std {}", n["mean"], n["std"]));
            }
            if let Some(r) = t.get("range").filter(|r| !r.is_null()) {
                parts.push(format!("range [{}, {}]", r["min"], r["max"]));
            }
            for f in t["associated_files"].as_array().into_iter().flatten() {
                parts.push(format!("file {} ({})", text(&f["name"]), f["type"].as_str().unwrap_or("?")));
            }
            writeln!(out, "    {side} {}: {}", text(&t["name"]), parts.join("; "))?;
            if let Some(d) = t["description"].as_str() {
                writeln!(out, "      {}", one_line(d))?;
            }
        }
    }
    for f in s["associated_files"].as_array().into_iter().flatten() {
        writeln!(out, "    associated file: {} ({})", text(&f["name"]), f["type"].as_str().unwrap_or("?"))?;
    }
    Ok(())
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
