//! The command line over ExecuTorch files: `.pte` programs, `VH00` Vulkan delegate blobs and
//! bare VkGraph flatbuffers.

use crate::budget::{Budget, OverBudget};
use crate::output::Out;
use crate::commands::verify::Verdict;
use crate::{Failure, Outcome};
use flatmodel::dump::Dumpable;
use flatmodel::pte::{DataLocation, KernelTypes, PteFile};
use flatmodel::vkgraph::{Blob, Constant, GraphTypes};
use flatmodel::Format;
use serde_json::{json, Value};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::Write;

/// Whether this module reads `bytes` (a `.pte`, a `VH00` blob or a bare VkGraph).
pub fn reads(bytes: &[u8]) -> bool {
    matches!(flatmodel::detect(bytes), Some(Format::Pte | Format::VkGraph))
}

/// Verifies `bytes` fully: a short description, or why they are invalid.
pub fn check(bytes: &[u8]) -> Result<Verdict, String> {
    describe(bytes).map(|summary| Verdict { summary, warnings: Default::default() })
}

fn describe(bytes: &[u8]) -> Result<String, String> {
    match flatmodel::detect(bytes) {
        Some(Format::Pte) => {
            let file = PteFile::parse(bytes).map_err(|e| e.to_string())?;
            let delegates: Vec<_> = file.delegates().collect();
            let vulkan = delegates.iter().filter(|d| d.is_vulkan()).count();
            let plans = file.program().execution_plan().map_or(0, |p| p.len());
            Ok(format!(
                "ExecuTorch program v{}, {plans} execution plan(s), {} delegate(s) ({vulkan} Vulkan)",
                file.program().version(),
                delegates.len()
            ))
        }
        _ => {
            let blob = Blob::parse(bytes).map_err(|e| e.to_string())?;
            let what = if blob.header().is_some() { "Vulkan delegate blob (VH00)" } else { "bare VkGraph (VK00)" };
            let g = blob.graph();
            Ok(format!(
                "{what}, {} value(s), {} operator(s), {} constant(s)",
                g.values().map_or(0, |v| v.len()),
                g.chain().map_or(0, |c| c.len()),
                g.constants().map_or(0, |c| c.len())
            ))
        }
    }
}

/// The root table and its descriptor, for `dump`: the `.pte`'s Program or the blob's VkGraph.
pub fn root(bytes: &[u8]) -> Result<crate::open::Root<'_>, String> {
    match flatmodel::detect(bytes) {
        Some(Format::Pte) => {
            let file = PteFile::parse_structure(bytes).map_err(|e| e.to_string())?;
            Ok(Dumpable::new(file.program()))
        }
        _ => {
            let blob = Blob::parse_structure(bytes).map_err(|e| e.to_string())?;
            Ok(Dumpable::new(blob.graph()))
        }
    }
}

/// The bytes `what` names: `delegate:N`, `segment:N` or `named:KEY` in a `.pte`, `constant:N`
/// in a blob. The outer error is a usage error, the inner one says the file is invalid.
pub fn extract<'a>(name: &str, bytes: &'a [u8], what: &str) -> Result<Result<Cow<'a, [u8]>, String>, Failure> {
    extract_slice(name, bytes, what).map(|r| r.map(Cow::Borrowed))
}

fn extract_slice<'a>(name: &str, bytes: &'a [u8], what: &str) -> Result<Result<&'a [u8], String>, Failure> {
    let number =
        |n: &str| n.parse::<usize>().map_err(|_| Failure::new(format!("'{what}': expected a number after ':'")));
    Ok(match (flatmodel::detect(bytes), what.split_once(':')) {
        (Some(Format::Pte), Some((kind, arg))) => {
            let file = match PteFile::parse(bytes) {
                Ok(f) => f,
                Err(e) => return Ok(Err(e.to_string())),
            };
            match kind {
                "delegate" => {
                    let n = number(arg)?;
                    let d = file.delegate(n).ok_or_else(|| Failure::new(format!("{name}: no delegate {n}")))?;
                    file.delegate_blob(&d).map(|(_, b)| b).map_err(|e| e.to_string())
                }
                "segment" => file.segment(number(arg)?).map(|(_, b)| b).map_err(|e| e.to_string()),
                "named" => {
                    Ok(file.named_data(arg).ok_or_else(|| Failure::new(format!("{name}: no named data '{arg}'")))?)
                }
                _ => return Err(Failure::new(format!("'{what}': a .pte has delegate:N, segment:N or named:KEY"))),
            }
        }
        (_, Some(("constant", arg))) => {
            let blob = match Blob::parse(bytes) {
                Ok(b) => b,
                Err(e) => return Ok(Err(e.to_string())),
            };
            let n = number(arg)?;
            match blob.constant(n) {
                Ok(Constant::Inline(data)) => Ok(data),
                Ok(Constant::Named { key, .. }) => {
                    return Err(Failure::new(format!(
                        "{name}: constant {n} is the program's named data '{key}': extract named:{key} from the .pte"
                    )))
                }
                Err(e) => Err(e.to_string()),
            }
        }
        _ => return Err(Failure::new(format!("'{what}': a Vulkan blob has constant:N"))),
    })
}

/// The summary `inspect` prints, or why the file is invalid or refused. Every plan, delegate and
/// list element is charged to a [`Budget`] for the file, as plans and delegates can be shared.
pub fn summary(bytes: &[u8]) -> Result<Value, String> {
    let mut budget = Budget::for_file(bytes.len());
    match flatmodel::detect(bytes) {
        Some(Format::Pte) => program_summary(bytes, &mut budget),
        _ => {
            let blob = Blob::parse(bytes).map_err(|e| e.to_string())?;
            let mut s = graph_summary(&blob, |_| None, &mut budget).map_err(|e| e.to_string())?;
            s["format"] = json!(if blob.header().is_some() { "Vulkan delegate blob (VH00)" } else { "VkGraph (VK00)" });
            s["file_bytes"] = json!(bytes.len());
            if let Some(h) = blob.header() {
                s["header"] = json!({
                    "header_size": h.header_size, "flatbuffer_offset": h.flatbuffer_offset,
                    "flatbuffer_size": h.flatbuffer_size, "bytes_offset": h.bytes_offset, "bytes_size": h.bytes_size,
                });
            }
            Ok(s)
        }
    }
}

fn program_summary(bytes: &[u8], budget: &mut Budget) -> Result<Value, String> {
    let file = PteFile::parse(bytes).map_err(|e| e.to_string())?;
    let program = file.program();
    let refused = |e: OverBudget| e.to_string();
    let mut plans = Vec::new();
    let mut io = Vec::new();
    for p in program.execution_plan().into_iter().flat_map(|p| p.iter()) {
        let (inputs, outputs) = (p.inputs(), p.outputs());
        let lists = [inputs.map_or(0, |v| v.len()), outputs.map_or(0, |v| v.len())];
        budget.charge(1usize.saturating_add(lists[0]).saturating_add(lists[1])).map_err(refused)?;
        let mut operators = Vec::new();
        for o in p.operators().into_iter().flat_map(|o| o.iter()) {
            budget.charge(1).map_err(refused)?;
            operators.push(match o.overload().filter(|s| !s.is_empty()) {
                Some(overload) => format!("{}.{overload}", o.name().unwrap_or("")),
                None => o.name().unwrap_or("").to_string(),
            });
        }
        let ports = |ids: Option<flatmodel::wire::Vector<'_, i32>>| -> Vec<Value> {
            ids.into_iter().flat_map(|v| v.iter()).map(|id| evalue_port(&p, id)).collect()
        };
        io.push(json!({"plan": p.name(), "inputs": ports(inputs), "outputs": ports(outputs)}));
        plans.push(json!({
            "name": p.name(),
            "values": p.values().map_or(0, |v| v.len()),
            "inputs": inputs.map(|v| v.iter().collect::<Vec<_>>()),
            "outputs": outputs.map(|v| v.iter().collect::<Vec<_>>()),
            "operators": operators,
            "delegates": p.delegates().map_or(0, |d| d.len()),
        }));
    }
    let mut delegates = Vec::new();
    for (n, d) in file.delegates().enumerate() {
        budget.charge(1).map_err(refused)?;
        let processed = d.view.processed();
        let location = processed.map(|p| match p.location() {
            DataLocation::INLINE => format!("inline {}", p.index()),
            DataLocation::SEGMENT => format!("segment {}", p.index()),
            other => format!("DataLocation({})", other.0),
        });
        let mut v = json!({
            "index": n, "plan": d.plan, "backend_id": d.id, "stored": location,
            "bytes": file.delegate_blob(&d).map_or(0, |(_, b)| b.len()),
        });
        if let Some(Ok(blob)) = file.vulkan_blob(&d) {
            v["vulkan"] = graph_summary(&blob, |key| file.named_data(key), budget).map_err(refused)?;
        }
        delegates.push(v);
    }
    let segment_bytes: u64 = (0..program.segments().map_or(0, |s| s.len()))
        .filter_map(|i| file.segment(i).ok())
        .map(|(_, b)| b.len() as u64)
        .sum();
    let needs = program_needs(&file, &plans, &delegates);
    Ok(json!({
        "format": "ExecuTorch program (.pte)",
        "needs": needs,
        "file_bytes": bytes.len(),
        "version": program.version(),
        "extended_header": file.header().map(|h| json!({
            "length": h.length, "program_size": h.program_size,
            "segment_base_offset": h.segment_base_offset, "segment_data_size": h.segment_data_size,
        })),
        "io": io,
        "execution_plans": plans,
        "delegates": delegates,
        "segments": program.segments().map_or(0, |s| s.len()),
        "segment_bytes": segment_bytes,
        "named_data": program.named_data().map_or(0, |n| n.len()),
    }))
}

/// What a `.pte` needs of a runtime: its header, the backends its delegates name and the
/// kernels its plans call (`needs` in the layout every format shares).
fn program_needs(file: &PteFile<'_>, plans: &[Value], delegates: &[Value]) -> Value {
    let mut needs = Vec::new();
    let header = file.header().map_or_else(
        || "no extended header (program version only)".to_string(),
        |h| format!("extended header eh00 of {} bytes", h.length),
    );
    needs.push(
        json!({"feature": "pte_header", "detail": format!("program version {}, {header}", file.program().version())}),
    );
    let names = |list: &mut Vec<String>| {
        list.sort();
        list.dedup();
        list.join(", ")
    };
    let mut backends: Vec<String> =
        delegates.iter().filter_map(|d| d["backend_id"].as_str()).map(str::to_string).collect();
    if !backends.is_empty() {
        let detail = format!("delegate backends: {}", names(&mut backends));
        needs.push(json!({"feature": "delegate_backends", "detail": detail}));
    }
    let mut kernels: Vec<String> = plans
        .iter()
        .flat_map(|p| p["operators"].as_array().into_iter().flatten())
        .filter_map(|o| o.as_str().map(str::to_string))
        .collect();
    if !kernels.is_empty() {
        let detail = format!("kernels the runtime must register: {}", names(&mut kernels));
        needs.push(json!({"feature": "kernels", "detail": detail}));
    }
    Value::Array(needs)
}

/// Value `id` of plan `p` as a port: a tensor's dtype and sizes, else the value's type.
fn evalue_port(p: &flatmodel::pte::ExecutionPlan<'_>, id: i32) -> Value {
    let value = usize::try_from(id).ok().and_then(|i| p.values()?.get(i)).map(|v| v.val());
    match value {
        Some(KernelTypes::Tensor(t)) => json!({
            "name": null,
            "tensor": id,
            "dtype": scalar_dtype(t.scalar_type()),
            "shape": t.sizes().map(|s| s.iter().collect::<Vec<_>>()),
            "quantization": null,
        }),
        Some(other) => json!({
            "name": null,
            "tensor": id,
            "dtype": other.type_name().map_or_else(|| format!("type({})", other.tag()), str::to_ascii_lowercase),
            "shape": null,
            "quantization": null,
        }),
        None => json!({"name": null, "tensor": id, "error": "no such value"}),
    }
}

/// ExecuTorch's scalar type by NumPy's name where it has one (`FLOAT` -> `float32`).
fn scalar_dtype(t: flatmodel::pte::ScalarType) -> String {
    let numpy = match t.name() {
        Some("BYTE") => "uint8",
        Some("CHAR") => "int8",
        Some("SHORT") => "int16",
        Some("INT") => "int32",
        Some("LONG") => "int64",
        Some("HALF") => "float16",
        Some("FLOAT") => "float32",
        Some("DOUBLE") => "float64",
        Some(other) => return other.to_ascii_lowercase(),
        None => return format!("type({})", t.0),
    };
    numpy.to_string()
}

/// A Vulkan graph: values by type, operators by name, inputs, outputs, and where each
/// constant's data lives (`named` looks up the program's named data).
fn graph_summary<'a>(
    blob: &Blob<'a>,
    named: impl Fn(&str) -> Option<&'a [u8]>,
    budget: &mut Budget,
) -> Result<Value, OverBudget> {
    let g = blob.graph();
    let len = |n: Option<usize>| n.unwrap_or(0);
    let ids = [g.input_ids().map(|v| v.len()), g.output_ids().map(|v| v.len())];
    let counts = [g.values().map(|v| v.len()), g.chain().map(|c| c.len()), g.constants().map(|c| c.len())];
    let listed = ids.iter().chain(&counts).fold(0usize, |sum, n| sum.saturating_add(len(*n)));
    budget.charge(listed)?;
    let mut values: BTreeMap<String, u64> = BTreeMap::new();
    for v in g.values().into_iter().flat_map(|v| v.iter()) {
        let u = v.value();
        let name = u.type_name().map_or_else(|| format!("GraphTypes({})", u.tag()), str::to_string);
        *values.entry(name).or_default() += 1;
    }
    let mut operators: BTreeMap<String, u64> = BTreeMap::new();
    for call in g.chain().into_iter().flat_map(|c| c.iter()) {
        *operators.entry(call.name().unwrap_or("").to_string()).or_default() += 1;
    }
    let mut values_of =
        |ids: Option<flatmodel::wire::Vector<'_, u32>>| -> Result<(Vec<Value>, Vec<Value>), OverBudget> {
            let mut listed = Vec::new();
            let mut ports = Vec::new();
            for id in ids.into_iter().flat_map(|v| v.iter()) {
                listed.push(match g.values().and_then(|v| v.get(id as usize)).map(|v| v.value()) {
                    Some(GraphTypes::VkTensor(t)) => {
                        let dims = t.dims();
                        budget.charge(dims.map_or(0, |d| d.len()))?;
                        json!({
                            "value": id,
                            "datatype": t.datatype().name().map_or_else(|| json!(t.datatype().0), |n| json!(n)),
                            "dims": dims.map(|d| d.iter().collect::<Vec<_>>()),
                        })
                    }
                    _ => json!({"value": id}),
                });
                ports.push(match listed.last() {
                Some(v) if v.get("dims").is_some() => json!({
                    "name": null,
                    "tensor": id,
                    "dtype": v["datatype"].as_str().map_or_else(|| format!("type({})", v["datatype"]), str::to_ascii_lowercase),
                    "shape": v["dims"],
                    "quantization": null,
                }),
                _ => json!({"name": null, "tensor": id, "dtype": "-", "shape": null, "quantization": null}),
            });
            }
            Ok((listed, ports))
        };
    let ((inputs, in_ports), (outputs, out_ports)) = (values_of(g.input_ids())?, values_of(g.output_ids())?);
    let mut total = 0u64;
    let constants: Vec<Value> = (0..g.constants().map_or(0, |c| c.len()))
        .map(|i| match blob.constant(i) {
            Ok(Constant::Inline(data)) => {
                total = total.saturating_add(data.len() as u64);
                json!({"index": i, "bytes": data.len(), "stored": "inline (VH00 raw bytes)"})
            }
            Ok(Constant::Named { key, length }) => {
                total = total.saturating_add(length);
                let found = named(key).is_some();
                json!({"index": i, "bytes": length, "stored": "named data", "key": key, "found": found})
            }
            Err(_) if blob.header().is_none() => {
                // A bare VkGraph: inline constants live in the VH00 raw-bytes region it lacks.
                let entry = g.constants().and_then(|c| c.get(i));
                let length = entry.map_or(0, |e| e.length());
                total = total.saturating_add(length);
                json!({
                    "index": i, "bytes": length, "offset": entry.map(|e| e.offset()),
                    "stored": "VH00 raw bytes (not part of a bare VkGraph)",
                })
            }
            Err(e) => json!({"index": i, "error": e.to_string()}),
        })
        .collect();
    Ok(json!({
        "version": g.version(),
        "io": [{"graph": "vulkan", "inputs": in_ports, "outputs": out_ports}],
        "values": values,
        "operators": operator_list(operators),
        "inputs": inputs,
        "outputs": outputs,
        "constants": constants,
        "constant_bytes": total,
    }))
}

/// Prints `summary` for `inspect` without `--json`.
pub fn print(out: &mut Out, name: &str, s: &Value) -> std::io::Result<()> {
    writeln!(out, "{name}")?;
    writeln!(out, "  format:     {}", s["format"].as_str().unwrap_or("-"))?;
    if let Some(plans) = s["execution_plans"].as_array() {
        writeln!(out, "  version:    {}", s["version"])?;
        let needs: Vec<&str> =
            s["needs"].as_array().into_iter().flatten().filter_map(|n| n["detail"].as_str()).collect();
        writeln!(out, "  needs:      {}", needs.join("; "))?;
        crate::summary::io::print_indented(out, &s["io"], "  ", 12)?;
        for p in plans {
            writeln!(
                out,
                "  plan {}: {} values, inputs {}, outputs {}, {} delegate calls",
                p["name"], p["values"], p["inputs"], p["outputs"], p["delegates"]
            )?;
            let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
            for op in p["operators"].as_array().into_iter().flatten() {
                *counts.entry(op.as_str().unwrap_or("-")).or_default() += 1;
            }
            print_histogram(out, counts.into_iter().map(|(k, v)| (k.to_string(), v)), "    ")?;
        }
        writeln!(
            out,
            "  segments:   {} ({} bytes), named data: {}",
            s["segments"], s["segment_bytes"], s["named_data"]
        )?;
        for d in s["delegates"].as_array().into_iter().flatten() {
            writeln!(
                out,
                "  delegate {}: {} ({}, {} bytes)",
                d["index"],
                d["backend_id"],
                d["stored"].as_str().unwrap_or("-"),
                d["bytes"]
            )?;
            if d.get("vulkan").is_some() {
                print_graph(out, &d["vulkan"], "    ")?;
            }
        }
    } else {
        print_graph(out, s, "  ")?;
    }
    Ok(())
}

/// Operator counts in the layout every format's `operators` shares: `{name, count}`, most
/// frequent first (a Vulkan graph's operators have no version).
fn operator_list(counts: BTreeMap<String, u64>) -> Value {
    let mut rows: Vec<(String, u64)> = counts.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    Value::Array(rows.into_iter().map(|(name, count)| json!({"name": name, "count": count})).collect())
}

/// Operator counts, one aligned line each, most frequent first.
fn print_histogram(out: &mut Out, counts: impl Iterator<Item = (String, u64)>, indent: &str) -> std::io::Result<()> {
    let mut rows: Vec<(String, u64)> = counts.collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for (name, n) in rows {
        writeln!(out, "{indent}{n:>6}  {name}")?;
    }
    Ok(())
}

fn print_graph(out: &mut Out, g: &Value, indent: &str) -> std::io::Result<()> {
    let values: Vec<String> = g["values"].as_object().into_iter().flatten().map(|(k, v)| format!("{v} {k}")).collect();
    writeln!(out, "{indent}values:    {}", values.join(", "))?;
    crate::summary::io::print_indented(out, &g["io"], indent, 11)?;
    writeln!(out, "{indent}operators:")?;
    let counts = g["operators"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|o| (o["name"].as_str().unwrap_or("-").to_string(), o["count"].as_u64().unwrap_or(0)));
    print_histogram(out, counts, &format!("{indent}  "))?;
    writeln!(
        out,
        "{indent}constants: {} ({} bytes)",
        g["constants"].as_array().map_or(0, Vec::len),
        g["constant_bytes"]
    )?;
    for c in g["constants"].as_array().into_iter().flatten() {
        let key = c.get("key").and_then(Value::as_str).map(|k| format!(" {k}")).unwrap_or_default();
        writeln!(out, "{indent}  [{}] {} bytes, {}{key}", c["index"], c["bytes"], c["stored"].as_str().unwrap_or("?"))?;
    }
    Ok(())
}

/// `inspect` on an ExecuTorch file.
pub fn inspect(out: &mut Out, name: &str, bytes: &[u8], as_json: bool) -> Result<Outcome, Failure> {
    match summary(bytes) {
        Ok(s) if as_json => {
            crate::output::write_summary(out, s)?;
        }
        Ok(s) => print(out, name, &s)?,
        Err(reason) => return crate::open::report_invalid(out, name, &reason),
    }
    Ok(Outcome::Ok)
}
