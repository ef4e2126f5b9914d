//! `inspect`'s answers to a user's first questions, checked against independent references:
//! what a model takes and gives against LiteRT's interpreter (`*.litert.json`), what it holds
//! (weights, parameters, operator versions, control-flow calls) against flatc's JSON of the
//! file (`*.flatc.json`), and the TFLite Micro resolver lines against the methods TFLM's
//! `MicroMutableOpResolver` declares. Every testdata model, and the corpus's when
//! `FLATMODEL_CORPUS` is set.

use crate::support;

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use support::cli::run;

fn arr(v: &Value) -> &[Value] {
    v.as_array().map_or(&[], |a| a.as_slice())
}

/// The TFLite models of testdata, then those of the corpus when it is set.
fn models() -> Vec<PathBuf> {
    let mut all = support::files_with_suffix(&support::testdata().join("tflite"), ".tflite");
    assert!(all.len() >= 8, "testdata models: {}", all.len());
    if let Some(corpus) = support::corpus() {
        let known: BTreeSet<_> = all.iter().filter_map(|p| p.file_name().map(|n| n.to_owned())).collect();
        let more = support::files_with_suffix(&corpus.join("tflite"), ".tflite");
        all.extend(more.into_iter().filter(|p| p.file_name().is_some_and(|n| !known.contains(n))));
    }
    all
}

/// `inspect --json` of `model`, when the tool reads it as a model.
fn summary(model: &Path) -> Option<Value> {
    let r = run([OsStr::new("inspect"), OsStr::new("--json"), model.as_os_str()]);
    r.no_crash();
    serde_json::from_str(&r.stdout).ok().filter(|s: &Value| s.get("io").is_some())
}

/// The f32 a JSON number holds (both sides write f32 values widened to f64).
fn f32_of(v: &Value) -> f32 {
    v.as_f64().unwrap_or(f64::NAN) as f32
}

/// What LiteRT reports of tensor `t` (its `tensor_details` entry) against our port `p`.
fn check_port(p: &Value, t: &Value) -> Result<(), String> {
    // NumPy's name for TFLite's STRING is `bytes`; the others are the schema's, lower case.
    let dtype = match t["dtype"].as_str().unwrap_or("") {
        "bytes" => "string",
        other => other,
    };
    if p["dtype"] != dtype {
        return Err(format!("dtype {} vs LiteRT's {dtype}", p["dtype"]));
    }
    if p["shape"] != t["shape_signature"] {
        return Err(format!("shape {} vs LiteRT's shape_signature {}", p["shape"], t["shape_signature"]));
    }
    let q = &t["quantization_parameters"];
    let scales: Vec<f32> = arr(&q["scales"]).iter().map(f32_of).collect();
    let zero_points: Vec<i64> = arr(&q["zero_points"]).iter().filter_map(Value::as_i64).collect();
    let ours = &p["quantization"];
    let agrees = match ours["kind"].as_str() {
        None => scales.is_empty() || q["block_size"].as_i64().unwrap_or(0) != 0,
        Some("per-tensor") => {
            scales == [f32_of(&ours["scale"])] && zero_points == [ours["zero_point"].as_i64().unwrap()]
        }
        Some("per-axis") => {
            let s: Vec<f32> = arr(&ours["scales"]).iter().map(f32_of).collect();
            let z: Vec<i64> = arr(&ours["zero_points"]).iter().filter_map(Value::as_i64).collect();
            s == scales && z == zero_points && ours["dimension"] == q["quantized_dimension"]
        }
        Some("block-wise") => ours["block_size"] == q["block_size"],
        Some(other) => return Err(format!("unknown quantization kind {other}")),
    };
    if !agrees {
        return Err(format!("quantization {ours} vs LiteRT's {q}"));
    }
    Ok(())
}

/// Our `io` against LiteRT: with no signature, the primary subgraph's inputs and outputs
/// (`input_details`, `output_details`); with signatures, their names (`signature_list`) and
/// each tensor's details by index when the signature runs subgraph 0.
fn check_io(s: &Value, litert: &Value) -> Result<usize, String> {
    let io = arr(&s["io"]);
    let details: BTreeMap<i64, &Value> =
        arr(&litert["tensor_details"]).iter().filter_map(|t| Some((t["index"].as_i64()?, t))).collect();
    let mut checked = 0;
    let signatures = litert["signature_list"].as_object().filter(|m| !m.is_empty());
    match signatures {
        None => {
            let [entry] = io else { return Err(format!("{} entries without signatures", io.len())) };
            for (side, reference) in [("inputs", "input_details"), ("outputs", "output_details")] {
                let ours = arr(&entry[side]);
                let theirs = arr(&litert[reference]);
                if ours.len() != theirs.len() {
                    return Err(format!("{side}: {} vs LiteRT's {}", ours.len(), theirs.len()));
                }
                for (p, t) in ours.iter().zip(theirs) {
                    if p["tensor"] != t["index"] || p["name"] != t["name"] {
                        return Err(format!("{side}: {p} vs LiteRT's {}", t["name"]));
                    }
                    check_port(p, t).map_err(|e| format!("{side} {}: {e}", t["name"]))?;
                    checked += 1;
                }
            }
        }
        Some(signatures) => {
            if io.len() != signatures.len() {
                return Err(format!("{} entries vs LiteRT's {} signatures", io.len(), signatures.len()));
            }
            for entry in io {
                let key = entry["signature"].as_str().unwrap_or("");
                let reference = &signatures[key];
                for side in ["inputs", "outputs"] {
                    let mut ours: Vec<&str> = arr(&entry[side]).iter().filter_map(|p| p["name"].as_str()).collect();
                    let mut theirs: Vec<&str> = arr(&reference[side]).iter().filter_map(Value::as_str).collect();
                    ours.sort_unstable();
                    theirs.sort_unstable();
                    if ours != theirs {
                        return Err(format!("signature {key} {side}: {ours:?} vs LiteRT's {theirs:?}"));
                    }
                    if entry["subgraph"] != 0 {
                        continue;
                    }
                    for p in arr(&entry[side]) {
                        let t = details.get(&p["tensor"].as_i64().unwrap()).ok_or("no such tensor in LiteRT")?;
                        check_port(p, t).map_err(|e| format!("signature {key} {side} {}: {e}", p["name"]))?;
                        checked += 1;
                    }
                }
            }
        }
    }
    Ok(checked)
}

#[test]
fn inputs_and_outputs_match_litert() {
    let mut failures = Vec::new();
    let (mut models_checked, mut ports) = (0, 0);
    for m in models() {
        let Some(reference) = support::reference(&m, "litert.json") else { continue };
        let litert = support::read_json(&reference);
        if litert["allocate_tensors"] != "ok" {
            continue;
        }
        let Some(s) = summary(&m) else { continue };
        match check_io(&s, &litert) {
            Ok(n) => ports += n,
            Err(e) => failures.push(format!("{}: {e}", m.display())),
        }
        models_checked += 1;
    }
    assert!(failures.is_empty(), "{} differ:\n{}", failures.len(), failures.join("\n"));
    assert!(models_checked >= 8 && ports >= 16, "checked {models_checked} models, {ports} tensors");
}

/// The weights flatc's JSON implies: the data of each buffer a non-variable tensor names,
/// once per buffer, its elements (the first tensor's shape) and bytes by element type.
fn reference_weights(flatc: &Value) -> (u64, u64, BTreeMap<String, u64>) {
    let buffers = arr(&flatc["buffers"]);
    let mut seen = BTreeSet::new();
    let (mut bytes, mut parameters) = (0u64, 0u64);
    let mut by_type = BTreeMap::new();
    for sg in arr(&flatc["subgraphs"]) {
        for t in arr(&sg["tensors"]) {
            let buffer = t["buffer"].as_u64().unwrap_or(0);
            let len = buffers.get(buffer as usize).map_or(0, |b| match b.get("data") {
                Some(d) => arr(d).len() as u64,
                None if b["offset"].as_u64().unwrap_or(0) > 1 => b["size"].as_u64().unwrap_or(0),
                None => 0,
            });
            if len == 0 || t["is_variable"] == true || !seen.insert(buffer) {
                continue;
            }
            bytes += len;
            parameters += arr(&t["shape"]).iter().map(|d| d.as_u64().unwrap_or(0)).product::<u64>();
            let ty = t["type"].as_str().unwrap_or("FLOAT32").to_ascii_lowercase();
            *by_type.entry(ty).or_default() += len;
        }
    }
    (bytes, parameters, by_type)
}

/// Each operator code's name by TFLite's rule and its version (1 when absent), counted over
/// every operator, from flatc's JSON.
fn reference_operators(flatc: &Value) -> BTreeMap<(String, i64), u64> {
    let number_of: BTreeMap<&str, i32> =
        (-1000..1000).filter_map(|v| Some((flatmodel::tflite::BuiltinOperator(v).name()?, v))).collect();
    let codes: Vec<(String, i64)> = arr(&flatc["operator_codes"])
        .iter()
        .map(|c| {
            let builtin = match &c["builtin_code"] {
                Value::String(s) => number_of[s.as_str()],
                Value::Number(n) => n.as_i64().unwrap() as i32,
                _ => 0,
            };
            let op = builtin.max(c["deprecated_builtin_code"].as_i64().unwrap_or(0) as i32);
            let name = match op {
                32 => format!("CUSTOM:{}", c["custom_code"].as_str().unwrap_or("")),
                _ => {
                    flatmodel::tflite::BuiltinOperator(op).name().map_or(format!("BuiltinOperator({op})"), String::from)
                }
            };
            (name, c["version"].as_i64().unwrap_or(1))
        })
        .collect();
    let mut counts = BTreeMap::new();
    for sg in arr(&flatc["subgraphs"]) {
        for op in arr(&sg["operators"]) {
            *counts.entry(codes[op["opcode_index"].as_u64().unwrap_or(0) as usize].clone()).or_default() += 1;
        }
    }
    counts
}

/// The subgraphs each operator's control-flow options call, from flatc's JSON: subgraph,
/// operator, indices.
fn reference_calls(flatc: &Value) -> Vec<(usize, usize, Vec<i64>)> {
    const FIELDS: [&str; 12] = [
        "subgraph",
        "then_subgraph_index",
        "else_subgraph_index",
        "cond_subgraph_index",
        "body_subgraph_index",
        "init_subgraph_index",
        "comparator_subgraph_index",
        "update_computation_subgraph_index",
        "called_computations",
        "decomposition_subgraph_index",
        "branch_subgraph_indices",
        "body_subgraph_index",
    ];
    let mut calls = Vec::new();
    for (s, sg) in arr(&flatc["subgraphs"]).iter().enumerate() {
        for (o, op) in arr(&sg["operators"]).iter().enumerate() {
            let mut called = Vec::new();
            for options in [&op["builtin_options"], &op["builtin_options_2"]] {
                let Some(map) = options.as_object() else { continue };
                // In the options' declaration order, as flatc writes them.
                for (key, value) in map {
                    if !FIELDS.contains(&key.as_str()) {
                        continue;
                    }
                    match value {
                        Value::Array(list) => called.extend(list.iter().filter_map(Value::as_i64)),
                        v => called.extend(v.as_i64()),
                    }
                }
            }
            if !called.is_empty() {
                // flatc's JSON as read here loses the fields' order: compare the sets.
                called.sort_unstable();
                calls.push((s, o, called));
            }
        }
    }
    calls
}

#[test]
fn weights_operators_and_calls_match_flatc() {
    let mut failures = Vec::new();
    let (mut checked, mut with_calls, mut with_weights) = (0, 0, 0);
    for m in models() {
        let Some(reference) = support::reference(&m, "flatc.json") else { continue };
        let Some(s) = summary(&m) else { continue };
        let flatc = support::read_json(&reference);
        let mut problems = Vec::new();

        let (bytes, parameters, by_type) = reference_weights(&flatc);
        let w = &s["weights"];
        if w["bytes"] != bytes || w["parameters"] != parameters {
            problems
                .push(format!("weights {} bytes, {} parameters vs {bytes}, {parameters}", w["bytes"], w["parameters"]));
        }
        let ours: BTreeMap<String, u64> =
            arr(&w["by_dtype"]).iter().map(|p| (p[0].as_str().unwrap().to_string(), p[1].as_u64().unwrap())).collect();
        if ours != by_type {
            problems.push(format!("weights by type {ours:?} vs {by_type:?}"));
        }
        let by_operator: u64 = arr(&w["by_operator"]).iter().map(|p| p[1].as_u64().unwrap()).sum();
        if by_operator != bytes {
            problems.push(format!("weights by operator sum to {by_operator}, not {bytes}"));
        }
        let sizes: Vec<u64> = arr(&w["by_operator"]).iter().map(|p| p[1].as_u64().unwrap()).collect();
        if sizes.windows(2).any(|p| p[0] < p[1]) {
            problems.push(format!("weights by operator are not largest first: {sizes:?}"));
        }

        let ours: BTreeMap<(String, i64), u64> = arr(&s["operators"])
            .iter()
            .map(|o| {
                (
                    (o["name"].as_str().unwrap().to_string(), o["version"].as_i64().unwrap()),
                    o["count"].as_u64().unwrap(),
                )
            })
            .collect();
        let theirs = reference_operators(&flatc);
        if ours != theirs {
            problems.push(format!("operators {ours:?} vs {theirs:?}"));
        }

        let ours: Vec<(usize, usize, Vec<i64>)> = arr(&s["subgraphs"])
            .iter()
            .enumerate()
            .flat_map(|(i, sg)| {
                arr(&sg["calls"]).iter().map(move |c| {
                    let mut called: Vec<i64> = arr(&c["subgraphs"]).iter().filter_map(Value::as_i64).collect();
                    called.sort_unstable();
                    (i, c["operator"].as_u64().unwrap() as usize, called)
                })
            })
            .collect();
        let theirs = reference_calls(&flatc);
        if ours != theirs {
            problems.push(format!("calls {ours:?} vs {theirs:?}"));
        }
        with_calls += usize::from(!ours.is_empty());
        with_weights += usize::from(bytes > 0);
        if !problems.is_empty() {
            failures.push(format!("{}: {}", m.display(), problems.join("; ")));
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{} differ:\n{}", failures.len(), failures.join("\n"));
    assert!(checked >= 8 && with_weights >= 8, "checked {checked}, {with_weights} with weights");
    if support::corpus().is_some() {
        assert!(with_calls >= 3, "{with_calls} corpus models with control flow");
    }
}

/// The arena estimate lies between the largest activation and the sum of all of them
/// (rounded up to 16 bytes each), on every model.
#[test]
fn arena_plan_is_bounded_by_the_largest_tensor_and_the_sum() {
    let mut checked = 0;
    for m in models() {
        let Some(s) = summary(&m) else { continue };
        let r = run([OsStr::new("inspect"), OsStr::new("--json"), OsStr::new("--tensors"), m.as_os_str()]);
        let full: Value = serde_json::from_str(&r.stdout).unwrap();
        for (sg, listed) in arr(&s["subgraphs"]).iter().zip(arr(&full["subgraphs"])) {
            let Some(planned) = sg["arena"]["greedy_plan_bytes"].as_u64() else { continue };
            let sizes: Vec<u64> = arr(&listed["tensor_list"])
                .iter()
                .filter(|t| t["data_bytes"] == 0 || t["is_variable"] == true)
                .filter_map(|t| {
                    let per = match t["type"].as_str()? {
                        "FLOAT32" | "INT32" | "UINT32" => 4,
                        "INT8" | "UINT8" | "BOOL" => 1,
                        "FLOAT16" | "INT16" | "UINT16" | "BFLOAT16" => 2,
                        "INT64" | "FLOAT64" | "UINT64" | "COMPLEX64" => 8,
                        _ => return None,
                    };
                    Some(per * arr(&t["shape"]).iter().map(|d| d.as_u64().unwrap_or(0)).product::<u64>())
                })
                .collect();
            let largest = sizes.iter().copied().max().unwrap_or(0);
            let aligned_sum: u64 = sizes.iter().map(|b| b.div_ceil(16) * 16).sum();
            assert!(
                largest <= planned && planned <= aligned_sum,
                "{}: plan {planned}, largest {largest}, sum {aligned_sum}",
                m.display()
            );
            checked += 1;
        }
    }
    assert!(checked >= 8, "checked {checked} subgraphs");
}

#[test]
fn tflm_resolver_lines_name_tflms_methods() {
    // The methods, from TFLM's `micro_mutable_op_resolver.h`, for each model's operators.
    let expected: [(&str, &[&str]); 3] = [
        ("sine_float", &["AddFullyConnected"]),
        ("tf_convnet_int8_full", &["AddConv2D", "AddDepthwiseConv2D", "AddFullyConnected", "AddMean", "AddSoftmax"]),
        // ADD, CONV_2D, DEPTHWISE_CONV_2D, MAX_POOL_2D, PAD, PRELU, STRIDED_SLICE (its flatc JSON)
        (
            "mp_hand_recrop",
            &["AddAdd", "AddConv2D", "AddDepthwiseConv2D", "AddMaxPool2D", "AddPad", "AddPrelu", "AddStridedSlice"],
        ),
    ];
    for (name, methods) in expected {
        let m = support::testdata().join("tflite").join(format!("{name}.tflite"));
        let r = run([OsStr::new("inspect"), OsStr::new("--tflm-resolver"), m.as_os_str()]);
        r.expect_code(0);
        let mut lines = vec![format!("tflite::MicroMutableOpResolver<{}> resolver;", methods.len())];
        lines.extend(methods.iter().map(|m| format!("resolver.{m}();")));
        assert_eq!(r.lines(), lines, "{name}");
    }
    let circle = support::testdata().join("circle").join("sine_float.circle");
    run([OsStr::new("inspect"), OsStr::new("--tflm-resolver"), circle.as_os_str()]).expect_code(2);
}

/// The features flatc's JSON shows the model uses, by the keys `inspect` reports them under.
/// Operator codes count whether or not an operator uses them: LiteRT resolves every code when
/// it loads a model.
fn reference_needs(flatc: &Value) -> BTreeSet<&'static str> {
    let mut needs = BTreeSet::new();
    for c in arr(&flatc["operator_codes"]) {
        if c["version"].as_i64().unwrap_or(1) > 1 {
            needs.insert("operator_versions");
        }
        if c["builtin_code"] == "CUSTOM" || c["deprecated_builtin_code"] == 32 {
            needs.insert("custom_operators");
        }
        let deprecated = c["deprecated_builtin_code"].as_i64().unwrap_or(0);
        if deprecated == 127 && c["builtin_code"] != "PLACEHOLDER_FOR_GREATER_OP_CODES" {
            needs.insert("extended_builtin_codes");
        }
    }
    if arr(&flatc["buffers"]).iter().any(|b| b["offset"].as_u64().unwrap_or(0) > 1) {
        needs.insert("buffer_offset");
    }
    for sg in arr(&flatc["subgraphs"]) {
        for op in arr(&sg["operators"]) {
            if op["builtin_options_2_type"].as_str().is_some_and(|t| t != "NONE") {
                needs.insert("builtin_options_2");
            }
            if op["large_custom_options_offset"].as_u64().unwrap_or(0) > 1 {
                needs.insert("large_custom_options");
            }
        }
        for t in arr(&sg["tensors"]) {
            let checks = [
                (t.get("sparsity").is_some(), "sparsity"),
                (t["is_variable"] == true, "variable_tensors"),
                (arr(&t["shape_signature"]).iter().any(|d| d.as_i64().unwrap_or(0) < 0), "dynamic_shapes"),
                (t["quantization"]["details_type"] == "BlockwiseQuantization", "blockwise_quantization"),
                (!matches!(t["type"].as_str(), Some(ty) if descr_known(ty)), "element_types"),
            ];
            needs.extend(checks.into_iter().filter(|(used, _)| *used).map(|(_, key)| key));
        }
    }
    if !reference_calls(flatc).is_empty() {
        needs.insert("control_flow");
    }
    needs
}

/// Whether `ty` is one of the element types TFLite had before INT4.
fn descr_known(ty: &str) -> bool {
    [
        "FLOAT32",
        "FLOAT16",
        "INT32",
        "UINT8",
        "INT64",
        "STRING",
        "BOOL",
        "INT16",
        "COMPLEX64",
        "INT8",
        "FLOAT64",
        "COMPLEX128",
        "UINT64",
        "RESOURCE",
        "VARIANT",
        "UINT32",
        "UINT16",
    ]
    .contains(&ty)
}

#[test]
fn needs_match_what_flatc_shows_the_file_uses() {
    let mut failures = Vec::new();
    let mut seen = BTreeSet::new();
    let mut checked = 0;
    for m in models() {
        let Some(reference) = support::reference(&m, "flatc.json") else { continue };
        let Some(s) = summary(&m) else { continue };
        let ours: BTreeSet<&str> = arr(&s["needs"]).iter().filter_map(|n| n["feature"].as_str()).collect();
        let theirs = reference_needs(&support::read_json(&reference));
        if ours != theirs {
            failures.push(format!("{}: {ours:?} vs {theirs:?}", m.display()));
        }
        seen.extend(theirs);
        checked += 1;
    }
    assert!(failures.is_empty(), "{} differ:\n{}", failures.len(), failures.join("\n"));
    assert!(checked >= 8 && seen.len() >= 3, "checked {checked}, features seen {seen:?}");
}

/// NumPy's name for an ExecuTorch scalar type as flatc prints it.
fn scalar_dtype(name: &str) -> String {
    match name {
        "BYTE" => "uint8".into(),
        "CHAR" => "int8".into(),
        "SHORT" => "int16".into(),
        "INT" => "int32".into(),
        "LONG" => "int64".into(),
        "HALF" => "float16".into(),
        "FLOAT" => "float32".into(),
        "DOUBLE" => "float64".into(),
        other => other.to_ascii_lowercase(),
    }
}

/// (value index, dtype, shape) of each id in `ids`, as flatc's JSON shows the value.
fn reference_ports(values: &[Value], ids: &Value, tensor: (&str, &str, &str, &str)) -> Vec<(i64, String, Value)> {
    let (type_key, value_key, dtype_key, shape_key) = tensor;
    arr(ids)
        .iter()
        .map(|id| {
            let v = &values[id.as_u64().unwrap() as usize];
            let dtype = v[value_key][dtype_key].as_str().unwrap_or("");
            let dtype = if v[type_key] == "Tensor" { scalar_dtype(dtype) } else { dtype.to_ascii_lowercase() };
            (id.as_i64().unwrap(), dtype, v[value_key][shape_key].clone())
        })
        .collect()
}

fn our_ports(entry: &Value, side: &str) -> Vec<(i64, String, Value)> {
    arr(&entry[side])
        .iter()
        .map(|p| (p["tensor"].as_i64().unwrap(), p["dtype"].as_str().unwrap().to_string(), p["shape"].clone()))
        .collect()
}

/// A `.pte`'s execution plans and its Vulkan graphs take and give what flatc's JSON of the
/// program and of each delegate's VkGraph shows: value, dtype and shape of each input and output.
#[test]
fn executorch_inputs_and_outputs_match_flatc() {
    let dir = support::testdata().join("vkgraph");
    let mut checked = 0;
    for pte in support::files_with_suffix(&dir, ".pte") {
        let s = summary(&pte).unwrap_or_else(|| panic!("{}: no io", pte.display()));
        let program = support::read_json(&support::reference(&pte, "flatc.json").unwrap());
        for (plan, entry) in arr(&program["execution_plan"]).iter().zip(arr(&s["io"])) {
            assert_eq!(entry["plan"], plan["name"]);
            let values = arr(&plan["values"]);
            for side in ["inputs", "outputs"] {
                let theirs = reference_ports(values, &plan[side], ("val_type", "val", "scalar_type", "sizes"));
                assert_eq!(our_ports(entry, side), theirs, "{} plan {} {side}", pte.display(), plan["name"]);
                checked += theirs.len();
            }
        }
        let stem = pte.file_stem().unwrap().to_string_lossy().to_string();
        for (n, d) in arr(&s["delegates"]).iter().enumerate().filter(|(_, d)| d.get("vulkan").is_some()) {
            let graph = support::read_json(&dir.join(format!("{stem}.delegate{n}.vk00.flatc.json")));
            let entry = &d["vulkan"]["io"][0];
            for (side, ids) in [("inputs", "input_ids"), ("outputs", "output_ids")] {
                let theirs =
                    reference_ports(arr(&graph["values"]), &graph[ids], ("value_type", "value", "datatype", "dims"));
                assert_eq!(our_ports(entry, side), theirs, "{} delegate {n} {side}", pte.display());
                checked += theirs.len();
            }
        }
    }
    assert!(checked >= 12, "checked {checked} ports");
}

/// A cvimodel's programs take and give the tensors flatc's JSON names in `input_tensors` and
/// `output_tensors`: dtype (NumPy's names), shape, and for integer tensors `qscale` as the scale.
#[test]
fn cvimodel_inputs_and_outputs_match_flatc() {
    let mut checked = 0;
    for model in support::files_with_suffix(&support::testdata().join("cvimodel"), ".cvimodel") {
        let s = summary(&model).unwrap();
        let flatc = support::read_json(&support::reference(&model, "flatc.json").unwrap());
        for (program, entry) in arr(&flatc["programs"]).iter().zip(arr(&s["io"])) {
            let tensors = arr(&program["tensor_map"]);
            for (side, names) in [("inputs", "input_tensors"), ("outputs", "output_tensors")] {
                let ours = arr(&entry[side]);
                assert_eq!(ours.len(), arr(&program[names]).len());
                for (p, name) in ours.iter().zip(arr(&program[names])) {
                    let t = tensors.iter().find(|t| t["name"] == *name).unwrap();
                    let dtype = match t["dtype"].as_str().unwrap() {
                        "FP32" => "float32".to_string(),
                        "BF16" => "bfloat16".to_string(),
                        other => other.to_ascii_lowercase(),
                    };
                    assert_eq!(
                        (&p["name"], p["dtype"].as_str().unwrap(), &p["shape"]),
                        (name, dtype.as_str(), &t["shape"]["dim"])
                    );
                    if dtype.starts_with("int") || dtype.starts_with("uint") {
                        assert_eq!(f32_of(&p["quantization"]["scale"]), f32_of(&t["quant"]["qscale"]), "{name}");
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 4, "checked {checked}");
}

/// A `.pte`'s needs name the backends of its delegates and the kernels of its plans, as flatc's
/// JSON of the program lists them.
#[test]
fn pte_needs_match_flatc() {
    let mut checked = 0;
    for pte in support::files_with_suffix(&support::testdata().join("vkgraph"), ".pte") {
        let s = summary(&pte).unwrap();
        let program = support::read_json(&support::reference(&pte, "flatc.json").unwrap());
        let detail = |feature: &str| {
            arr(&s["needs"]).iter().find(|n| n["feature"] == feature).map(|n| n["detail"].as_str().unwrap().to_string())
        };
        let plans = arr(&program["execution_plan"]);
        let backends: BTreeSet<&str> =
            plans.iter().flat_map(|p| arr(&p["delegates"])).filter_map(|d| d["id"].as_str()).collect();
        let expected = (!backends.is_empty())
            .then(|| format!("delegate backends: {}", backends.into_iter().collect::<Vec<_>>().join(", ")));
        assert_eq!(detail("delegate_backends"), expected, "{}", pte.display());
        let kernels: BTreeSet<String> = plans
            .iter()
            .flat_map(|p| arr(&p["operators"]))
            .map(|o| match o["overload"].as_str().filter(|s| !s.is_empty()) {
                Some(overload) => format!("{}.{overload}", o["name"].as_str().unwrap()),
                None => o["name"].as_str().unwrap().to_string(),
            })
            .collect();
        let expected = (!kernels.is_empty()).then(|| {
            format!("kernels the runtime must register: {}", kernels.into_iter().collect::<Vec<_>>().join(", "))
        });
        assert_eq!(detail("kernels"), expected, "{}", pte.display());
        assert!(detail("pte_header").is_some_and(|d| d.contains(&format!("program version {}", program["version"]))));
        checked += 1;
    }
    assert!(checked >= 5, "checked {checked}");
}

/// Bytes per element of an ExecuTorch scalar type, as flatc prints its name.
fn scalar_size(name: &str) -> u64 {
    match name {
        "SHORT" | "HALF" | "BFLOAT16" | "BITS16" | "UINT16" => 2,
        "INT" | "FLOAT" | "QINT32" | "UINT32" => 4,
        "LONG" | "DOUBLE" | "UINT64" => 8,
        _ => 1,
    }
}

/// The weights flatc's JSON of a program shows: (bytes, parameters, bytes by dtype). A plan's
/// constant tensors (a constant buffer and no allocation) once per buffer: the legacy
/// `constant_buffer`'s storage length when the program has one, else elements times size;
/// each Vulkan delegate's constants (from its VkGraph's JSON) once per constant named by a
/// tensor value, at the length the graph gives.
fn reference_pte_weights(program: &Value, graphs: &[Value]) -> (u64, u64, BTreeMap<String, u64>) {
    let (mut bytes, mut parameters, mut by_dtype) = (0u64, 0u64, BTreeMap::new());
    let legacy = arr(&program["constant_buffer"]);
    let mut seen = BTreeSet::new();
    for plan in arr(&program["execution_plan"]) {
        for v in arr(&plan["values"]).iter().filter(|v| v["val_type"] == "Tensor") {
            let t = &v["val"];
            let index = t["data_buffer_idx"].as_u64().unwrap_or(0);
            if index == 0 || !t["allocation_info"].is_null() || !seen.insert(index) {
                continue;
            }
            let elements: u64 = arr(&t["sizes"]).iter().map(|d| d.as_u64().unwrap()).product();
            let ty = t["scalar_type"].as_str().unwrap();
            let size = match legacy.get(index as usize) {
                Some(buffer) => arr(&buffer["storage"]).len() as u64,
                None => elements * scalar_size(ty),
            };
            (bytes, parameters) = (bytes + size, parameters + elements);
            *by_dtype.entry(scalar_dtype(ty)).or_default() += size;
        }
    }
    for graph in graphs {
        let mut seen = BTreeSet::new();
        for v in arr(&graph["values"]).iter().filter(|v| v["value_type"] == "VkTensor") {
            let t = &v["value"];
            let Some(id) = t["constant_id"].as_i64().filter(|&id| id >= 0) else { continue };
            if !seen.insert(id) {
                continue;
            }
            let size = graph["constants"][id as usize]["length"].as_u64().unwrap();
            let elements: u64 = arr(&t["dims"]).iter().map(|d| d.as_u64().unwrap()).product();
            (bytes, parameters) = (bytes + size, parameters + elements);
            *by_dtype.entry(t["datatype"].as_str().unwrap().to_ascii_lowercase()).or_default() += size;
        }
    }
    (bytes, parameters, by_dtype)
}

/// A `.pte`'s weights (bytes, parameters, bytes by dtype) are what flatc's JSON of the program
/// and of its Vulkan delegates' graphs shows; a plan constant no kernel reads is listed so.
#[test]
fn pte_weights_match_flatc() {
    let dir = support::testdata().join("vkgraph");
    let mut checked = 0;
    for pte in support::files_with_suffix(&dir, ".pte") {
        let s = summary(&pte).unwrap();
        let program = support::read_json(&support::reference(&pte, "flatc.json").unwrap());
        let stem = pte.file_stem().unwrap().to_string_lossy().to_string();
        let graphs: Vec<Value> = (0..arr(&s["delegates"]).len())
            .map(|n| dir.join(format!("{stem}.delegate{n}.vk00.flatc.json")))
            .filter(|p| p.exists())
            .map(|p| support::read_json(&p))
            .collect();
        let (bytes, parameters, by_dtype) = reference_pte_weights(&program, &graphs);
        let w = &s["weights"];
        assert_eq!((w["bytes"].as_u64(), w["parameters"].as_u64()), (Some(bytes), Some(parameters)), "{stem}");
        let ours: BTreeMap<String, u64> =
            arr(&w["by_dtype"]).iter().map(|p| (p[0].as_str().unwrap().to_string(), p[1].as_u64().unwrap())).collect();
        assert_eq!(ours, by_dtype, "{stem}");
        // Each Vulkan constant is read by an operator of its graph's chain.
        let ops: BTreeSet<String> = graphs
            .iter()
            .flat_map(|g| arr(&g["chain"]))
            .map(|c| format!("{} (VulkanBackend)", c["name"].as_str().unwrap()))
            .collect();
        for pair in arr(&w["by_operator"]).iter().filter(|p| p[0].as_str().unwrap().ends_with("(VulkanBackend)")) {
            assert!(ops.contains(pair[0].as_str().unwrap()), "{stem}: {pair}");
        }
        checked += 1;
    }
    assert!(checked >= 6, "checked {checked}");
    // A Vulkan blob alone: the constants its tensor values name, as its graph's JSON gives them.
    for blob in support::files_with_suffix(&dir, ".vh00") {
        let s = summary(&blob).unwrap();
        let graph = support::read_json(&blob.with_extension("vk00.flatc.json"));
        let (bytes, parameters, by_dtype) = reference_pte_weights(&Value::Null, &[graph]);
        let w = &s["weights"];
        assert_eq!(
            (w["bytes"].as_u64(), w["parameters"].as_u64()),
            (Some(bytes), Some(parameters)),
            "{}",
            blob.display()
        );
        let ours: BTreeMap<String, u64> =
            arr(&w["by_dtype"]).iter().map(|p| (p[0].as_str().unwrap().to_string(), p[1].as_u64().unwrap())).collect();
        assert_eq!(ours, by_dtype, "{}", blob.display());
        checked += 1;
    }
    assert!(checked >= 12, "checked {checked}");
    // The crafted program: one buffer shared by two values and read by `aten::add.out`, one
    // read by no kernel, and a tensor the memory plan allocates (not a weight).
    let s = summary(&dir.join("et_plan_constants.pte")).unwrap();
    assert_eq!(s["weights"]["by_operator"], serde_json::json!([["aten::add.out", 24], ["(read by no operator)", 4]]));
    assert_eq!((s["weights"]["inside"].as_u64(), s["weights"]["outside"].as_u64()), (Some(28), Some(0)));
}

/// `inspect --tensors` lists every value of each plan and each Vulkan graph as flatc's JSON
/// shows it: a tensor's dtype and shape, the constant buffer or constant it names, and for a
/// Vulkan constant the bytes the graph gives its data.
#[test]
fn executorch_value_rows_match_flatc() {
    let dir = support::testdata().join("vkgraph");
    let mut checked = 0;
    for pte in support::files_with_suffix(&dir, ".pte") {
        let r = run([OsStr::new("inspect"), OsStr::new("--json"), OsStr::new("--tensors"), pte.as_os_str()]);
        let s: Value = serde_json::from_str(&r.stdout).unwrap();
        let program = support::read_json(&support::reference(&pte, "flatc.json").unwrap());
        for (plan, ours) in arr(&program["execution_plan"]).iter().zip(arr(&s["execution_plans"])) {
            let rows = arr(&ours["tensor_list"]);
            assert_eq!(rows.len(), arr(&plan["values"]).len(), "{}", pte.display());
            for (v, row) in arr(&plan["values"]).iter().zip(rows) {
                if v["val_type"] != "Tensor" {
                    assert!(row.get("dtype").is_none(), "{row}");
                    continue;
                }
                let t = &v["val"];
                assert_eq!(
                    (&row["dtype"], &row["shape"]),
                    (&Value::from(scalar_dtype(t["scalar_type"].as_str().unwrap())), &t["sizes"])
                );
                let buffer = t["data_buffer_idx"].as_u64().unwrap_or(0);
                if buffer > 0 && t["allocation_info"].is_null() {
                    assert_eq!(row["data"], format!("constant buffer {buffer}"), "{row}");
                }
                checked += 1;
            }
        }
        let stem = pte.file_stem().unwrap().to_string_lossy().to_string();
        for (n, d) in arr(&s["delegates"]).iter().enumerate().filter(|(_, d)| d.get("vulkan").is_some()) {
            let graph = support::read_json(&dir.join(format!("{stem}.delegate{n}.vk00.flatc.json")));
            let rows = arr(&d["vulkan"]["tensor_list"]);
            assert_eq!(rows.len(), arr(&graph["values"]).len());
            for (v, row) in arr(&graph["values"]).iter().zip(rows).filter(|(v, _)| v["value_type"] == "VkTensor") {
                let t = &v["value"];
                let dtype = t["datatype"].as_str().unwrap().to_ascii_lowercase();
                assert_eq!((row["dtype"].as_str(), &row["shape"]), (Some(dtype.as_str()), &t["dims"]));
                if let Some(id) = t["constant_id"].as_i64().filter(|&id| id >= 0) {
                    assert_eq!(row["data"], format!("constant {id}"));
                    assert_eq!(row["data_bytes"], graph["constants"][id as usize]["length"], "{stem} constant {id}");
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 40, "checked {checked} values");
}
