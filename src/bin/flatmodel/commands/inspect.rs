//! `flatmodel inspect FILE [--json] [--tensors]`: what a model holds, at a glance.
//!
//! One summary serves TFLite and Circle (both through `flatmodel::graph`: subgraphs, operators,
//! tensors, signatures, metadata); each format adds what only it has (TFLite's readings of its
//! metadata, Circle's data formats and revision). The summary is
//! charged against a [`Budget`] linear in the file size, row by row and list element by list
//! element, so a file whose tables are shared many times over is refused rather than expanded.

use crate::summary::arena::{Arena, Uses};
use crate::budget::{Budget, OverBudget};
use crate::summary::facts::{Quant, TensorFacts};
use crate::open::{self, Graph, Kind, Target};
use crate::output::Out;
use crate::summary::warnings::Warnings;
use crate::summary::weights::Weights;
use crate::{Failure, Outcome};
use flatmodel::graph::{MetadataView, ModelView, OperatorView, SignatureView, SubGraphView, TensorMapView};
use flatmodel::verify::Options;
use flatmodel::wire::Vector;
use flatmodel::{circle, tflite};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::Write;

/// Prints the summary of the model in `path`, as text or JSON, with every tensor when asked.
pub fn run(out: &mut Out, path: &OsString, as_json: bool, tensors: bool) -> Result<Outcome, Failure> {
    let name = path.to_string_lossy();
    let input = match open::target(path)? {
        Target::Package => return crate::summary::package::inspect(out, path, as_json),
        Target::NotModel(reason) => return open::report_invalid(out, &name, &reason),
        Target::File(input) => input,
    };
    let summary = match open::kind(input.bytes()) {
        Kind::Graph(model) => summarise(model, tensors),
        Kind::Container(container) => return (container.inspect)(out, &name, input.bytes(), as_json),
        Kind::Invalid(reason) => return open::report_invalid(out, &name, &reason),
    };
    match summary {
        Ok(summary) if as_json => {
            crate::output::write_summary(out, summary)?;
            Ok(Outcome::Ok)
        }
        Ok(summary) => {
            print_text(out, &name, &summary)?;
            Ok(Outcome::Ok)
        }
        Err(over) => open::report_invalid(out, &name, &over.to_string()),
    }
}

/// Prints the TFLite Micro resolver lines for the TFLite model in `path`
/// (`inspect --tflm-resolver`).
pub fn tflm_resolver(out: &mut Out, path: &OsString) -> Result<Outcome, Failure> {
    let name = path.to_string_lossy();
    let input = match open::model_file(out, path, "inspect --tflm-resolver")? {
        Ok(input) => input,
        Err(outcome) => return Ok(outcome),
    };
    match open::kind(input.bytes()) {
        Kind::Graph(Graph::Tflite(model)) => {
            crate::commands::tflm_resolver::print(out, model)?;
            Ok(Outcome::Ok)
        }
        Kind::Invalid(reason) => open::report_invalid(out, &name, &reason),
        _ => Err(Failure::new(format!(
            "{name}: --tflm-resolver reads TFLite models (TFLite Micro runs no other format)"
        ))),
    }
}

/// The summary of the TFLite or Circle model in `bytes` (tensors not listed), or why it cannot
/// be given.
pub fn summary_of(bytes: &[u8]) -> Result<Value, String> {
    match open::kind(bytes) {
        Kind::Graph(model) => summarise(model, false).map_err(|e| e.to_string()),
        Kind::Container(_) => Err("not a TFLite or Circle model".into()),
        Kind::Invalid(reason) => Err(reason),
    }
}

/// The summary of a structurally verified model. The listing is charged first, so a refused
/// file costs no more than its budget; the model rules (over the structure already verified)
/// and warnings then run under the library's own budget.
fn summarise(model: Graph<'_>, tensors: bool) -> Result<Value, OverBudget> {
    match model {
        Graph::Tflite(m) => {
            let mut budget = Budget::for_file(m.file().len());
            let mut s = graph_summary("TFLite", m, tensors, &mut budget)?;
            tflite_extras(&m, &mut s, &mut budget)?;
            let rules = m.check_rules(&Options::DEFAULT).err();
            let mut warnings = Warnings::collect(|f| m.for_each_warning(f));
            if let Some(e) = s.get("associated_files").and_then(|a| a["error"].as_str()) {
                warnings.push(crate::summary::associated::warning_text(e));
            }
            Ok(with_verdict(s, rules, warnings))
        }
        Graph::Circle(m) => {
            let mut budget = Budget::for_file(m.file().len());
            let mut s = graph_summary("Circle", m, tensors, &mut budget)?;
            circle_extras(&m, &mut s, &mut budget)?;
            let rules = m.check_rules(&Options::DEFAULT).err();
            let warnings = Warnings::collect(|f| m.for_each_warning(f));
            Ok(with_verdict(s, rules, warnings))
        }
    }
}

/// The summary with the model rules' verdict and the warnings added.
fn with_verdict(mut s: Map<String, Value>, rules: Option<flatmodel::Error>, warnings: Warnings) -> Value {
    s.insert("model_rules".into(), json!(rules.map_or_else(|| "ok".into(), |e| e.to_string())));
    s.insert("warnings".into(), warnings.to_json());
    Value::Object(s)
}

/// The elements of `v`, charged one unit each.
fn listed<T: flatmodel::wire::Scalar>(v: Option<Vector<'_, T>>, budget: &mut Budget) -> Result<Vec<T>, OverBudget> {
    let Some(v) = v else { return Ok(Vec::new()) };
    budget.charge(v.len())?;
    Ok(v.iter().collect())
}

/// What both formats share: what the model takes and gives, subgraphs (with their
/// control-flow calls and activation arena), operators by name and version, weights, buffers.
fn graph_summary<'a, M: ModelView<'a>>(
    format: &str,
    model: M,
    with_tensors: bool,
    budget: &mut Budget,
) -> Result<Map<String, Value>, OverBudget> {
    let mut histogram: BTreeMap<String, u64> = BTreeMap::new();
    let mut versions: BTreeMap<(String, i32), u64> = BTreeMap::new();
    let mut subgraphs = Vec::new();
    // The arena planner's comparisons, for all subgraphs together: 16 per byte of the file.
    let mut plan_steps = (model.file().len() as u64).saturating_mul(16).saturating_add(4096);
    for (i, sg) in model.subgraph_list().into_iter().flat_map(|s| s.iter()).enumerate() {
        budget.charge(1)?;
        let mut facts = Vec::new();
        for (t, tensor) in sg.tensors().into_iter().flat_map(|v| v.iter()).enumerate() {
            facts.push(TensorFacts::of(model, t, &tensor, budget)?);
        }
        let mut uses = Vec::new();
        let mut calls = Vec::new();
        for (o, op) in sg.operators().into_iter().flat_map(|o| o.iter()).enumerate() {
            budget.charge(1)?;
            let kind = model.operator_kind(&op);
            let name = kind.map_or("<missing operator code>".into(), |k| k.to_string());
            *histogram.entry(name.clone()).or_default() += 1;
            *versions.entry((name.clone(), kind.map_or(0, |k| k.version()))).or_default() += 1;
            let mut called = Vec::new();
            op.for_each_called_subgraph(&mut |s| called.push(s));
            budget.charge(called.len())?;
            if !called.is_empty() {
                calls.push(json!({"operator": o, "name": name, "subgraphs": called}));
            }
            let tensors: Vec<i32> =
                [op.inputs(), op.outputs(), op.intermediates()].into_iter().flatten().flat_map(|v| v.iter()).collect();
            budget.charge(tensors.len())?;
            uses.push(tensors);
        }
        let (inputs, outputs) = (listed(sg.inputs(), budget)?, listed(sg.outputs(), budget)?);
        let arena =
            Arena::of(&Uses { tensors: &facts, operators: &uses, inputs: &inputs, outputs: &outputs }, &mut plan_steps);
        let mut s = json!({
            "index": i,
            "name": sg.name(),
            "tensors": facts.len(),
            "operators": uses.len(),
            "inputs": inputs,
            "outputs": outputs,
            "calls": calls,
            "arena": arena.to_json(),
        });
        if with_tensors {
            s["tensor_list"] = Value::Array(facts.iter().map(tensor_row).collect());
        }
        subgraphs.push(s);
    }
    let signatures = signatures(model, budget)?;
    let mut metadata = Vec::new();
    for m in model.metadata_list().into_iter().flat_map(|m| m.iter()) {
        budget.charge(1)?;
        metadata.push(json!({"name": m.name(), "buffer": m.buffer()}));
    }
    let io: Vec<Value> = crate::summary::io::entries(model, budget)?.iter().map(crate::summary::io::Entry::to_json).collect();
    let weights = Weights::of(model, budget)?;
    let needs = crate::summary::needs::of(model, budget)?;
    let operators: Vec<Value> = versions
        .into_iter()
        .map(|((name, version), count)| json!({"name": name, "version": version, "count": count}))
        .collect();
    let (inside, outside) = model.buffer_bytes();
    let mut s = Map::new();
    s.insert("format".into(), json!(format));
    s.insert("schema_version".into(), json!(model.schema_version()));
    s.insert("file_bytes".into(), json!(model.file().len()));
    s.insert("description".into(), json!(model.description()));
    s.insert("io".into(), json!(io));
    s.insert("weights".into(), weights.to_json());
    s.insert("needs".into(), crate::summary::needs::to_json(&needs));
    s.insert("subgraphs".into(), json!(subgraphs));
    s.insert("operator_histogram".into(), json!(histogram));
    s.insert("operators".into(), json!(operators));
    s.insert("buffers".into(), json!(model.buffer_count().unwrap_or(0)));
    s.insert("buffer_bytes_inside".into(), json!(inside));
    s.insert("buffer_bytes_outside".into(), json!(outside));
    s.insert("signatures".into(), json!(signatures));
    s.insert("metadata".into(), json!(metadata));
    Ok(s)
}

/// Each signature: its key, subgraph, and the names of its inputs and outputs.
fn signatures<'a, M: ModelView<'a>>(model: M, budget: &mut Budget) -> Result<Vec<Value>, OverBudget> {
    let mut signatures = Vec::new();
    for sig in model.signature_list().into_iter().flat_map(|s| s.iter()) {
        budget.charge(1)?;
        let mut maps = |m: Option<flatmodel::wire::TableVector<'a, <M::Signature as SignatureView<'a>>::TensorMap>>| {
            let m: Vec<_> = m.into_iter().flat_map(|v| v.iter()).collect();
            budget.charge(m.len())?;
            Ok::<_, OverBudget>(
                m.iter().map(|t| json!({"name": t.name(), "tensor": t.tensor_index()})).collect::<Vec<_>>(),
            )
        };
        let (inputs, outputs) = (maps(sig.inputs())?, maps(sig.outputs())?);
        signatures.push(json!({
            "key": sig.key(),
            "subgraph": sig.subgraph_index(),
            "inputs": inputs,
            "outputs": outputs,
        }));
    }
    Ok(signatures)
}

/// One tensor's row: name, type, stored shape and shape signature, buffer, data size and
/// quantization.
fn tensor_row(t: &TensorFacts) -> Value {
    let mut row = json!({
        "index": t.index,
        "name": t.name,
        "type": t.element.to_string(),
        "dtype": crate::summary::facts::dtype(t.element),
        "shape": t.shape,
        "buffer": t.buffer,
        "data_bytes": t.data_bytes,
        "is_variable": t.is_variable,
    });
    if let Some(signature) = t.shape_signature.as_ref().filter(|s| **s != t.shape) {
        row["shape_signature"] = json!(signature);
    }
    if let Some(q) = &t.quant {
        row["quantization"] = q.to_json();
    }
    row
}

/// TFLite's own readings of its metadata: the minimum runtime version, the support metadata,
/// associated files and the conversion record.
fn tflite_extras(model: &tflite::Model<'_>, s: &mut Map<String, Value>, budget: &mut Budget) -> Result<(), OverBudget> {
    s.insert("min_runtime_version".into(), json!(model.min_runtime_version()));
    nested(s, "support_metadata", model.support_metadata(), |meta| crate::summary::support_metadata::summary(meta, budget))?;
    if let Some(files) = crate::summary::associated::summary(model.file(), budget)? {
        s.insert("associated_files".into(), files);
    }
    nested(s, "conversion_metadata", model.conversion_metadata(), |r| Ok(crate::summary::conversion::summary(r)))
}

/// Under `key`, the summary of a flatbuffer nested in the model's metadata, or the error that
/// verifying it gave (`{"error": ...}`); nothing when the model has none.
fn nested<T>(
    s: &mut Map<String, Value>,
    key: &str,
    found: Option<Result<T, flatmodel::Error>>,
    summary: impl FnOnce(&T) -> Result<Value, OverBudget>,
) -> Result<(), OverBudget> {
    let value = match found {
        None => return Ok(()),
        Some(Ok(root)) => summary(&root)?,
        Some(Err(e)) => json!({ "error": e.to_string() }),
    };
    s.insert(key.into(), value);
    Ok(())
}

/// Circle's own fields: each subgraph's data format, the metadata buffer indices, the schema
/// revision the content shows (`circle::Revision`), the model files `RUN_MODEL` operators run
/// and the training parameters.
fn circle_extras(model: &circle::Model<'_>, s: &mut Map<String, Value>, budget: &mut Budget) -> Result<(), OverBudget> {
    let revision = model.revision();
    // Revision 0's `data_format`, which later revisions deprecate (so not shown for them).
    let formats: Vec<Value> = model
        .subgraphs()
        .into_iter()
        .flat_map(|v| v.iter())
        .map(|sg| {
            let f = sg.data_format();
            f.name().map_or_else(|| json!(f.0), |n| json!(n))
        })
        .collect();
    if let (Some(Value::Array(subgraphs)), false) = (s.get_mut("subgraphs"), revision == circle::Revision::Later) {
        for (sg, format) in subgraphs.iter_mut().zip(formats) {
            sg["data_format"] = format;
        }
    }
    s.insert("metadata_buffer".into(), json!(listed(model.metadata_buffer(), budget)?));
    let revision = match revision {
        circle::Revision::Zero => "0",
        circle::Revision::Later => "0.4+",
        circle::Revision::Undetermined => "undetermined",
    };
    s.insert("circle_revision".into(), json!(revision));
    let mut runs = Vec::new();
    model.for_each_run_model(|r| {
        runs.push(json!({
            "subgraph": r.subgraph,
            "operator": r.operator,
            "location": r.location,
            "signature": r.signature,
        }))
    });
    budget.charge(runs.len())?;
    s.insert("run_model".into(), json!(runs));
    nested(s, "training", model.training(), |t| Ok(crate::summary::training::summary(t)))
}

/// `-` for a missing string.
fn str_of(v: &Value) -> String {
    v.as_str().map_or_else(|| "-".into(), str::to_string)
}

/// The stored shape with the dimensions `shape_signature` leaves dynamic (-1) marked `?`:
/// `[1?,224,224,3]`.
fn shape_text(t: &Value) -> String {
    let dims = |k: &str| t[k].as_array().map(|a| a.iter().filter_map(Value::as_i64).collect::<Vec<_>>());
    let shape = dims("shape").unwrap_or_default();
    let signature = dims("shape_signature").filter(|s| s.len() == shape.len());
    let parts: Vec<String> = shape
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let dynamic = signature.as_ref().and_then(|s| s.get(i)) == Some(&-1);
            format!("{d}{}", if dynamic { "?" } else { "" })
        })
        .collect();
    format!("[{}]", parts.join(","))
}

/// A tensor row's quantization for a person (`-` for none).
fn quant_text(t: &Value) -> String {
    Quant::from_json(&t["quantization"]).map_or_else(|| "-".into(), |q| q.text())
}

/// Prints the summary of a TFLite or Circle model as text.
pub fn print_text(out: &mut dyn Write, name: &str, s: &Value) -> std::io::Result<()> {
    writeln!(out, "{name}")?;
    writeln!(out, "  format:              {} (schema version {})", str_of(&s["format"]), s["schema_version"])?;
    writeln!(out, "  description:         {}", str_of(&s["description"]))?;
    if let Some(revision) = s.get("circle_revision").and_then(Value::as_str) {
        let text = match revision {
            "0" => "0 (by its content: operator codes in slot 0 only, or a data_format)",
            "0.4+" => "0.4 or later (by its content: fields revision 0 lacks)",
            _ => "not told by its content (it reads alike with either)",
        };
        writeln!(out, "  circle revision:     {text}")?;
    }
    if s.get("min_runtime_version").is_some() {
        writeln!(out, "  min runtime version: {}", str_of(&s["min_runtime_version"]))?;
    }
    writeln!(out, "  model rules:         {}", str_of(&s["model_rules"]))?;
    writeln!(out, "  warnings:            {}", s["warnings"]["count"])?;
    Warnings::from_json(&s["warnings"]).print(out, "    ")?;
    let needs: Vec<&str> = s["needs"].as_array().into_iter().flatten().filter_map(|n| n["detail"].as_str()).collect();
    if !needs.is_empty() {
        writeln!(out, "  needs:               {}", needs.join("; "))?;
    }
    crate::summary::io::print(out, &s["io"])?;
    crate::summary::weights::print(out, &s["weights"], s["file_bytes"].as_u64().unwrap_or(0))?;
    let subgraphs = s["subgraphs"].as_array().map(Vec::as_slice).unwrap_or_default();
    writeln!(out, "  subgraphs:           {}", subgraphs.len())?;
    for sg in subgraphs {
        let layout = sg.get("data_format").map(|f| format!(", {}", str_of(f))).unwrap_or_default();
        writeln!(
            out,
            "    [{}] {}: {} tensors, {} operators, inputs {}, outputs {}{layout}",
            sg["index"],
            str_of(&sg["name"]),
            sg["tensors"],
            sg["operators"],
            sg["inputs"],
            sg["outputs"]
        )?;
        for call in sg["calls"].as_array().into_iter().flatten() {
            writeln!(
                out,
                "      operator {} {} calls subgraphs {}",
                call["operator"],
                str_of(&call["name"]),
                call["subgraphs"]
            )?;
        }
        print_arena(out, &sg["arena"])?;
        if let Some(rows) = sg["tensor_list"].as_array() {
            print_tensor_table(out, rows)?;
        }
    }
    writeln!(out, "  operators:")?;
    let mut rows: Vec<&Value> = s["operators"].as_array().into_iter().flatten().collect();
    rows.sort_by(|a, b| {
        b["count"].as_u64().cmp(&a["count"].as_u64()).then(str_of(&a["name"]).cmp(&str_of(&b["name"])))
    });
    for op in rows {
        let count = op["count"].as_u64().unwrap_or(0);
        writeln!(out, "    {count:>6}  {} v{}", str_of(&op["name"]), op["version"])?;
    }
    if let Some(signatures) = s.get("signatures").and_then(Value::as_array) {
        writeln!(out, "  signatures:{}", if signatures.is_empty() { "          -" } else { "" })?;
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
            writeln!(
                out,
                "    {} (subgraph {}): inputs [{}] outputs [{}]",
                str_of(&sig["key"]),
                sig["subgraph"],
                names("inputs"),
                names("outputs")
            )?;
        }
    }
    if let Some(meta) = s.get("metadata").and_then(Value::as_array) {
        let meta: Vec<String> = meta.iter().map(|m| str_of(&m["name"])).collect();
        writeln!(out, "  metadata:            {}", if meta.is_empty() { "-".into() } else { meta.join(", ") })?;
    }
    if let Some(files) = s.get("associated_files") {
        crate::summary::associated::print(out, files)?;
    }
    if let Some(record) = s.get("conversion_metadata") {
        match record.get("error").and_then(Value::as_str) {
            Some(e) => writeln!(out, "  converted by:        invalid record: {e}")?,
            None => crate::summary::conversion::print(out, record)?,
        }
    }
    if let Some(meta) = s.get("support_metadata") {
        match meta.get("error").and_then(Value::as_str) {
            Some(e) => writeln!(out, "  model metadata:      invalid: {e}")?,
            None => crate::summary::support_metadata::print(out, meta)?,
        }
    }
    for run in s.get("run_model").and_then(Value::as_array).into_iter().flatten() {
        let signature = run["signature"].as_str().filter(|s| !s.is_empty());
        writeln!(
            out,
            "  runs model:          {} ({}) from subgraph {} operator {}",
            str_of(&run["location"]),
            signature.map_or_else(|| "its first subgraph".into(), |s| format!("signature {s}")),
            run["subgraph"],
            run["operator"]
        )?;
    }
    if let Some(training) = s.get("training") {
        match training.get("error").and_then(Value::as_str) {
            Some(e) => writeln!(out, "  training:            invalid: {e}")?,
            None => crate::summary::training::print(out, training)?,
        }
    }
    if let Some(meta) = s.get("metadata_buffer") {
        writeln!(out, "  metadata buffers:    {meta}")?;
    }
    let bytes = |k: &str| crate::summary::weights::grouped(s[k].as_u64().unwrap_or(0));
    writeln!(
        out,
        "  buffers:             {} ({} bytes inside the flatbuffer, {} outside)",
        s["buffers"],
        bytes("buffer_bytes_inside"),
        bytes("buffer_bytes_outside")
    )
}

/// A subgraph's activation arena: the sum of its non-constant tensors and the greedy plan.
fn print_arena(out: &mut dyn Write, arena: &Value) -> std::io::Result<()> {
    let bytes = |k: &str| arena[k].as_u64().map(crate::summary::weights::grouped);
    let plan =
        bytes("greedy_plan_bytes").map_or_else(|| "not planned (too many tensors)".into(), |b| format!("{b} bytes"));
    let left_out = match arena["unsized_tensors"].as_u64() {
        Some(0) | None => String::new(),
        Some(n) => format!(" ({n} tensors of types without a fixed size left out)"),
    };
    writeln!(
        out,
        "      arena: {} bytes of non-constant tensors, {plan} planned greedily by lifetime{left_out}",
        bytes("non_constant_bytes").unwrap_or_default()
    )
}

/// One aligned row per tensor under a header; the name comes last, as names vary in length.
fn print_tensor_table(out: &mut dyn Write, rows: &[Value]) -> std::io::Result<()> {
    const HEADER: [&str; 7] = ["INDEX", "TYPE", "SHAPE", "BYTES", "BUFFER", "QUANTIZATION", "NAME"];
    let cells: Vec<[String; 7]> = rows
        .iter()
        .map(|t| {
            [
                t["index"].to_string(),
                str_of(&t["type"]),
                shape_text(t),
                t["data_bytes"].to_string(),
                t["buffer"].to_string(),
                quant_text(t),
                str_of(&t["name"]),
            ]
        })
        .collect();
    let mut widths = HEADER.map(str::len);
    for row in &cells {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |out: &mut dyn Write, row: [&str; 7]| -> std::io::Result<()> {
        let [index, ty, shape, bytes, buffer, quant, name] = row;
        let [wi, wt, ws, wb, wf, wq, _] = widths;
        writeln!(out, "      {index:>wi$}  {ty:<wt$}  {shape:<ws$}  {bytes:>wb$}  {buffer:>wf$}  {quant:<wq$}  {name}")
    };
    writeln!(out, "      shape: ? marks a dimension that is dynamic (-1 in shape_signature)")?;
    line(out, HEADER)?;
    for row in &cells {
        line(out, [&row[0], &row[1], &row[2], &row[3], &row[4], &row[5], &row[6]].map(String::as_str))?;
    }
    Ok(())
}
