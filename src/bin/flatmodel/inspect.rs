//! `flatmodel inspect FILE [--json] [--tensors]`: what a model holds, at a glance.
//!
//! One summary serves TFLite and Circle (both through `flatmodel::graph`); each format adds the
//! tables only it has (TFLite's signatures and metadata, Circle's data formats).

use crate::open::{open, with_model, Opened};
use crate::{Failure, Outcome};
use flatmodel::graph::{ModelView, SubGraphView, TensorView};
use flatmodel::{circle, tflite};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::ffi::OsString;

/// Prints the summary of the model in `path`, as text or JSON, with every tensor when asked.
pub fn run(path: &OsString, as_json: bool, tensors: bool) -> Result<Outcome, Failure> {
    if crate::package::is_package(path) {
        return crate::package::inspect(path, as_json);
    }
    {
        let input = crate::input::Input::open(path)?;
        if let Some(container) = crate::open::container(input.bytes()) {
            return (container.inspect)(&path.to_string_lossy(), input.bytes(), as_json);
        }
    }
    with_model(path, |name, model| {
        let summary = summarise(model, tensors);
        if as_json {
            println!("{}", serde_json::to_string_pretty(&summary)?);
        } else {
            print_text(name, &summary);
        }
        Ok(Outcome::Ok)
    })
}

/// The summary of the model in `bytes` (tensors not listed), or why it is not a valid model.
pub fn summary_of(bytes: &[u8]) -> Result<Value, String> {
    open(bytes).map(|model| summarise(model, false))
}

/// The summary of a structurally verified model.
fn summarise(model: Opened<'_>, tensors: bool) -> Value {
    match model {
        Opened::Tflite(m) => {
            let rules = tflite::Model::parse(m.file()).err();
            let mut s = graph_summary("TFLite", m, rules, tensors);
            tflite_extras(&m, &mut s);
            Value::Object(s)
        }
        Opened::Circle(m) => {
            let rules = circle::Model::parse(m.file()).err();
            let mut s = graph_summary("Circle", m, rules, tensors);
            circle_extras(&m, &mut s);
            Value::Object(s)
        }
    }
}

fn ints(v: Option<flatmodel::wire::Vector<'_, i32>>) -> Vec<i32> {
    v.map(|v| v.iter().collect()).unwrap_or_default()
}

/// What both formats share: subgraphs, operators by name, buffers, and the model rules' verdict.
///
/// Counting operators walks the model as a runtime would load it, which for a file whose
/// subgraphs share operator lists is far larger than the file; the walk stops at the same
/// apparent-size budget the verifier uses and says so.
fn graph_summary<'a, M: ModelView<'a>>(
    format: &str,
    model: M,
    rules: Option<flatmodel::Error>,
    with_tensors: bool,
) -> Map<String, Value> {
    let file_len = model.file().len();
    let mut budget = flatmodel::verify::Options::DEFAULT.apparent_size_budget(file_len);
    let mut histogram_complete = true;
    let mut histogram: BTreeMap<String, u64> = BTreeMap::new();
    let subgraphs: Vec<Value> = model
        .subgraph_list()
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
                let name = model.operator_kind(&op).map_or("<missing operator code>".into(), |k| k.to_string());
                *histogram.entry(name).or_default() += 1;
            }
            let mut s = json!({
                "index": i,
                "name": sg.name(),
                "tensors": sg.tensors().map_or(0, |t| t.len()),
                "operators": ops.map_or(0, |o| o.len()),
                "inputs": ints(sg.inputs()),
                "outputs": ints(sg.outputs()),
            });
            if with_tensors {
                s["tensor_list"] = Value::Array(tensor_list(model, &sg, &mut budget));
            }
            s
        })
        .collect();
    let (inside, outside) = model.buffer_bytes();
    let mut s = Map::new();
    s.insert("format".into(), json!(format));
    s.insert("schema_version".into(), json!(model.schema_version()));
    s.insert("file_bytes".into(), json!(file_len));
    s.insert("description".into(), json!(model.description()));
    s.insert("subgraphs".into(), json!(subgraphs));
    s.insert("operator_histogram".into(), json!(histogram));
    s.insert("operator_histogram_complete".into(), json!(histogram_complete));
    s.insert("buffers".into(), json!(model.buffer_count().unwrap_or(0)));
    s.insert("buffer_bytes_inside".into(), json!(inside));
    s.insert("buffer_bytes_outside".into(), json!(outside));
    s.insert("model_rules".into(), json!(rules.map_or_else(|| "ok".into(), |e| e.to_string())));
    s
}

/// Every tensor of `sg`: name, type, shape, buffer, data size and quantization.
fn tensor_list<'a, M: ModelView<'a>>(model: M, sg: &M::SubGraph, budget: &mut u64) -> Vec<Value> {
    let mut rows = Vec::new();
    for (t, tensor) in sg.tensors().into_iter().flat_map(|v| v.iter()).enumerate() {
        if *budget == 0 {
            break;
        }
        *budget -= 1;
        let element = tensor.element_type();
        let mut row = json!({
            "index": t,
            "name": tensor.name(),
            "type": element.name.map_or_else(|| format!("TensorType({})", element.code), str::to_string),
            "shape": ints(tensor.shape()),
            "shape_signature": ints(tensor.shape_signature()),
            "buffer": tensor.buffer(),
            "data_bytes": model.tensor_data(&tensor).map_or(0, <[u8]>::len),
            "is_variable": tensor.is_variable(),
        });
        if let Some(q) = tensor.quantization().filter(|q| q.scale.is_some_and(|s| !s.is_empty())) {
            let floats = |v: Option<flatmodel::wire::Vector<'_, f32>>| -> Vec<f32> {
                v.map(|v| v.iter().collect()).unwrap_or_default()
            };
            let zero_points: Vec<i64> = q.zero_point.map(|v| v.iter().collect()).unwrap_or_default();
            row["quantization"] = json!({
                "scale": floats(q.scale),
                "zero_point": zero_points,
                "quantized_dimension": q.quantized_dimension,
            });
        }
        rows.push(row);
    }
    rows
}

/// TFLite's own tables: signatures, metadata, the minimum runtime version.
fn tflite_extras(model: &tflite::Model<'_>, s: &mut Map<String, Value>) {
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
    s.insert("min_runtime_version".into(), json!(model.min_runtime_version()));
    s.insert("signatures".into(), json!(signatures));
    s.insert("metadata".into(), json!(metadata));
}

/// Circle's own fields: each subgraph's data format and the metadata buffer indices.
fn circle_extras(model: &circle::Model<'_>, s: &mut Map<String, Value>) {
    let formats: Vec<Value> = model
        .subgraphs()
        .into_iter()
        .flat_map(|v| v.iter())
        .map(|sg| {
            let f = sg.data_format();
            f.name().map_or_else(|| json!(f.0), |n| json!(n))
        })
        .collect();
    if let Some(Value::Array(subgraphs)) = s.get_mut("subgraphs") {
        for (sg, format) in subgraphs.iter_mut().zip(formats) {
            sg["data_format"] = format;
        }
    }
    s.insert("metadata_buffer".into(), json!(ints(model.metadata_buffer())));
}

pub fn print_text(name: &str, s: &Value) {
    let str_of = |v: &Value| v.as_str().map(str::to_string).unwrap_or_else(|| "-".into());
    println!("{name}");
    println!("  format:              {} (schema version {})", str_of(&s["format"]), s["schema_version"]);
    println!("  description:         {}", str_of(&s["description"]));
    if s.get("min_runtime_version").is_some() {
        println!("  min runtime version: {}", str_of(&s["min_runtime_version"]));
    }
    println!("  model rules:         {}", str_of(&s["model_rules"]));
    let subgraphs = s["subgraphs"].as_array().cloned().unwrap_or_default();
    println!("  subgraphs:           {}", subgraphs.len());
    for sg in &subgraphs {
        let layout = sg.get("data_format").map(|f| format!(", {}", str_of(f))).unwrap_or_default();
        println!(
            "    [{}] {}: {} tensors, {} operators, inputs {}, outputs {}{layout}",
            sg["index"],
            str_of(&sg["name"]),
            sg["tensors"],
            sg["operators"],
            sg["inputs"],
            sg["outputs"]
        );
        for t in sg["tensor_list"].as_array().into_iter().flatten() {
            let quant = t.get("quantization").map(|q| format!(" quant {}", q)).unwrap_or_default();
            println!(
                "      {:>5} {} {} {} buffer {} ({} bytes){quant}",
                t["index"],
                str_of(&t["name"]),
                str_of(&t["type"]),
                t["shape_signature"],
                t["buffer"],
                t["data_bytes"]
            );
        }
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
    if let Some(signatures) = s.get("signatures").and_then(Value::as_array) {
        println!("  signatures:");
        for sig in signatures {
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
    }
    if let Some(meta) = s.get("metadata").and_then(Value::as_array) {
        let meta: Vec<String> = meta.iter().map(|m| str_of(&m["name"])).collect();
        println!("  metadata:            {}", if meta.is_empty() { "-".into() } else { meta.join(", ") });
    }
    if let Some(meta) = s.get("metadata_buffer") {
        println!("  metadata buffers:    {meta}");
    }
    println!(
        "  buffers:             {} ({} bytes inside the flatbuffer, {} outside)",
        s["buffers"], s["buffer_bytes_inside"], s["buffer_bytes_outside"]
    );
}
