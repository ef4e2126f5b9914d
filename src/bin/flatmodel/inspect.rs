//! `flatmodel inspect FILE [--json]`: what a model holds, at a glance.

use crate::open::{with_model, Opened};
use crate::{Failure, Outcome};
use flatmodel::tflite;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::ffi::OsString;

/// Prints the summary of the model in `path`, as text or JSON.
pub fn run(path: &OsString, as_json: bool) -> Result<Outcome, Failure> {
    with_model(path, |name, model| {
        let Opened::Tflite(model) = model;
        let summary = summarise(&model, model.file().len());
        if as_json {
            println!("{}", serde_json::to_string_pretty(&summary)?);
        } else {
            print_text(name, &summary);
        }
        Ok(Outcome::Ok)
    })
}

/// The name an operator code shows as: the builtin's name, the custom op's name, or its number.
pub fn operator_name(code: Option<tflite::OperatorCode<'_>>) -> String {
    let Some(code) = code else { return "<missing operator code>".into() };
    let op = code.builtin_operator();
    if op == tflite::BuiltinOperator::CUSTOM {
        return format!("CUSTOM:{}", code.custom_code().unwrap_or(""));
    }
    match op.name() {
        Some(n) => n.to_string(),
        None => format!("BuiltinOperator({})", op.0),
    }
}

fn ints(v: Option<flatmodel::wire::Vector<'_, i32>>) -> Vec<i32> {
    v.map(|v| v.iter().collect()).unwrap_or_default()
}

/// The summary as a JSON value (the text form prints the same fields).
///
/// Counting operators walks the model as a runtime would load it, which for a file whose
/// subgraphs share operator lists is far larger than the file; the walk stops at the same
/// apparent-size budget the verifier uses and says so.
fn summarise(model: &tflite::Model<'_>, file_len: usize) -> Value {
    let mut budget = flatmodel::verify::Options::DEFAULT.apparent_size_budget(file_len);
    let mut histogram_complete = true;
    let mut histogram: BTreeMap<String, u64> = BTreeMap::new();
    let subgraphs: Vec<Value> = model
        .subgraphs()
        .into_iter()
        .flat_map(|s| s.iter())
        .enumerate()
        .map(|(i, sg)| {
            let ops = sg.operators();
            for op in ops.into_iter().flat_map(|o| o.iter()) {
                if budget == 0 {
                    histogram_complete = false;
                    break;
                }
                budget -= 1;
                *histogram.entry(operator_name(model.operator_code(&op))).or_default() += 1;
            }
            json!({
                "index": i,
                "name": sg.name(),
                "tensors": sg.tensors().map_or(0, |t| t.len()),
                "operators": ops.map_or(0, |o| o.len()),
                "inputs": ints(sg.inputs()),
                "outputs": ints(sg.outputs()),
            })
        })
        .collect();
    let signatures: Vec<Value> = model
        .signature_defs()
        .into_iter()
        .flat_map(|s| s.iter())
        .map(|sig| {
            let maps = |m: Option<flatmodel::wire::TableVector<'_, tflite::TensorMap<'_>>>| -> Vec<Value> {
                m.into_iter()
                    .flat_map(|v| v.iter())
                    .map(|t| json!({"name": t.name(), "tensor": t.tensor_index()}))
                    .collect()
            };
            json!({
                "key": sig.signature_key(),
                "subgraph": sig.subgraph_index(),
                "inputs": maps(sig.inputs()),
                "outputs": maps(sig.outputs()),
            })
        })
        .collect();
    let metadata: Vec<Value> = model
        .metadata()
        .into_iter()
        .flat_map(|m| m.iter())
        .map(|m| json!({"name": m.name(), "buffer": m.buffer()}))
        .collect();
    let (inside, outside) = model.buffer_bytes();
    let valid = tflite::Model::parse(model.file()).err().map(|e| e.to_string());
    json!({
        "format": "TFLite",
        "schema_version": model.version(),
        "file_bytes": file_len,
        "description": model.description(),
        "min_runtime_version": model.min_runtime_version(),
        "subgraphs": subgraphs,
        "operator_histogram": histogram,
        "operator_histogram_complete": histogram_complete,
        "signatures": signatures,
        "metadata": metadata,
        "buffers": model.buffers().map_or(0, |b| b.len()),
        "buffer_bytes_inside": inside,
        "buffer_bytes_outside": outside,
        "model_rules": valid.unwrap_or_else(|| "ok".into()),
    })
}

fn print_text(name: &str, s: &Value) {
    let str_of = |v: &Value| v.as_str().map(str::to_string).unwrap_or_else(|| "-".into());
    println!("{name}");
    println!("  format:              {} (schema version {})", str_of(&s["format"]), s["schema_version"]);
    println!("  description:         {}", str_of(&s["description"]));
    println!("  min runtime version: {}", str_of(&s["min_runtime_version"]));
    println!("  model rules:         {}", str_of(&s["model_rules"]));
    let subgraphs = s["subgraphs"].as_array().cloned().unwrap_or_default();
    println!("  subgraphs:           {}", subgraphs.len());
    for sg in &subgraphs {
        println!(
            "    [{}] {}: {} tensors, {} operators, inputs {}, outputs {}",
            sg["index"],
            str_of(&sg["name"]),
            sg["tensors"],
            sg["operators"],
            sg["inputs"],
            sg["outputs"]
        );
    }
    let complete = s["operator_histogram_complete"].as_bool().unwrap_or(true);
    println!("  operators:{}", if complete { "" } else { " (stopped early: the model is far larger than its file)" });
    if let Some(h) = s["operator_histogram"].as_object() {
        let mut rows: Vec<_> = h.iter().collect();
        rows.sort_by(|a, b| b.1.as_u64().cmp(&a.1.as_u64()).then(a.0.cmp(b.0)));
        for (op, n) in rows {
            println!("    {n:>6}  {op}");
        }
    }
    println!("  signatures:");
    for sig in s["signatures"].as_array().into_iter().flatten() {
        let names = |k: &str| {
            sig[k]
                .as_array()
                .into_iter()
                .flatten()
                .map(|t| format!("{}={}", str_of(&t["name"]), t["tensor"]))
                .collect::<Vec<_>>()
                .join(", ")
        };
        println!(
            "    {} (subgraph {}): inputs [{}] outputs [{}]",
            str_of(&sig["key"]),
            sig["subgraph"],
            names("inputs"),
            names("outputs")
        );
    }
    let meta: Vec<String> = s["metadata"].as_array().into_iter().flatten().map(|m| str_of(&m["name"])).collect();
    println!("  metadata:            {}", if meta.is_empty() { "-".into() } else { meta.join(", ") });
    println!(
        "  buffers:             {} ({} bytes inside the flatbuffer, {} outside)",
        s["buffers"], s["buffer_bytes_inside"], s["buffer_bytes_outside"]
    );
}
