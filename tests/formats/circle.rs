//! Circle: agreement with ONE's own bindings (`.circle_schema.json`), Circle's operator-code
//! rule and later revisions' values on crafted files, the shared model graph giving the same
//! answers for a Circle file (revision 0 or 0.10) and the TFLite file it was converted from, and
//! the shared rules located in Circle's schema terms.

use crate::support;

use flatmodel::circle;
use flatmodel::graph::{ModelView, OperatorKind, OperatorView, SubGraphView, TensorView};
use flatmodel::tflite;
use serde_json::{json, Value};
use std::path::Path;
use support::Bytes;

fn ints(v: Option<flatmodel::wire::Vector<'_, i32>>) -> Value {
    json!(v.map(|v| v.iter().collect::<Vec<_>>()).unwrap_or_default())
}

/// What ONE's bindings report for a tensor: its `quantization` only when it holds numbers.
fn tensor_json(t: &circle::Tensor<'_>) -> Value {
    let element = t.element_type();
    let mut v = json!({
        "name": TensorView::name(t),
        "shape": ints(TensorView::shape(t)),
        "type": element.name,
        "buffer": TensorView::buffer(t),
        "is_variable": TensorView::is_variable(t),
    });
    let holds = |q: &flatmodel::graph::QuantView<'_>| {
        [q.scale, q.min, q.max].iter().any(|v| v.is_some_and(|v| !v.is_empty()))
            || q.zero_point.is_some_and(|z| !z.is_empty())
    };
    if let Some(q) = TensorView::quantization(t).filter(holds) {
        let floats = |x: Option<flatmodel::wire::Vector<'_, f32>>| -> Vec<f64> {
            x.map(|x| x.iter().map(f64::from).collect()).unwrap_or_default()
        };
        let zero_points: Vec<i64> = q.zero_point.map(|z| z.iter().collect()).unwrap_or_default();
        v["quantization"] =
            json!({"scale": floats(q.scale), "zero_point": zero_points, "min": floats(q.min), "max": floats(q.max)});
    }
    v
}

/// The fields of `.circle_schema.json` flatmodel reads, from flatmodel.
fn ours(model: circle::Model<'_>) -> Value {
    let codes: Vec<Value> = (0..model.operator_code_count())
        .map(|i| match model.operator_kind_at(i).unwrap() {
            OperatorKind::Custom { name, version } => json!({"op": "CUSTOM", "custom_code": name, "version": version}),
            k @ OperatorKind::Builtin { version, .. } => {
                json!({"op": k.to_string(), "custom_code": null, "version": version})
            }
        })
        .collect();
    let subgraphs: Vec<Value> = model
        .subgraphs()
        .unwrap()
        .iter()
        .map(|sg| {
            let tensors: Vec<Value> = sg.tensors().unwrap().iter().map(|t| tensor_json(&t)).collect();
            let operators: Vec<Value> = SubGraphView::operators(&sg)
                .unwrap()
                .iter()
                .map(|op| {
                    let options = op.builtin_options();
                    json!({
                        "opcode_index": OperatorView::opcode_index(&op),
                        "inputs": ints(OperatorView::inputs(&op)),
                        "outputs": ints(OperatorView::outputs(&op)),
                        "builtin_options_type": options.type_name().unwrap_or("?"),
                        "custom_options_len": model.custom_options(&op).unwrap().map_or(0, <[u8]>::len),
                    })
                })
                .collect();
            json!({
                "name": SubGraphView::name(&sg),
                "data_format": sg.data_format().0,
                "inputs": ints(SubGraphView::inputs(&sg)),
                "outputs": ints(SubGraphView::outputs(&sg)),
                "tensors": tensors,
                "operators": operators,
            })
        })
        .collect();
    let buffers: Vec<Value> =
        (0..model.buffer_count().unwrap()).map(|i| json!(model.buffer_data(i as u32).unwrap().len())).collect();
    json!({
        "version": model.version(),
        "description": model.description(),
        "operator_codes": codes,
        "subgraphs": subgraphs,
        "buffer_sizes": buffers,
        "metadata_buffer": ints(model.metadata_buffer()),
    })
}

/// The same fields from ONE's bindings (buffers reduced to their sizes; custom codes of
/// builtins are null there).
fn theirs(reference: &Value) -> Value {
    let mut r = reference.clone();
    let sizes: Vec<Value> = r["buffers"].as_array().unwrap().iter().map(|b| b["size"].clone()).collect();
    let obj = r.as_object_mut().unwrap();
    for key in ["tool", "tool_version", "file", "has_identifier_CIR0", "buffers"] {
        obj.remove(key);
    }
    obj.insert("buffer_sizes".into(), json!(sizes));
    r
}

/// Floats within f32 printing precision (the bindings print f32 widened to f64).
fn same(a: &Value, b: &Value, path: &str) -> Result<(), String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.dedup();
            for k in keys {
                same(x.get(k).unwrap_or(&Value::Null), y.get(k).unwrap_or(&Value::Null), &format!("{path}.{k}"))?;
            }
            Ok(())
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            x.iter().zip(y).enumerate().try_for_each(|(i, (p, q))| same(p, q, &format!("{path}[{i}]")))
        }
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            let (p, q) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            if (p - q).abs() <= 1e-7 * q.abs().max(1e-30) {
                Ok(())
            } else {
                Err(format!("{path}: ours {p} vs theirs {q}"))
            }
        }
        (x, y) if x == y => Ok(()),
        (x, y) => Err(format!("{path}: ours {x} vs theirs {y}")),
    }
}

fn check_dir(dir: &Path) -> usize {
    let mut checked = 0;
    let mut failures = Vec::new();
    for file in support::files_with_suffix(dir, ".circle") {
        let Some(reference) = support::reference(&file, "circle_schema.json") else { continue };
        let bytes = std::fs::read(&file).unwrap();
        let model = circle::Model::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        if let Err(e) = same(&ours(model), &theirs(&support::read_json(&reference)), "") {
            failures.push(format!("{}: {e}", file.display()));
        }
        checked += 1;
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} differ from ONE's bindings:\n{}",
        failures.len(),
        failures.join("\n")
    );
    checked
}

#[test]
fn testdata_agrees_with_one_bindings() {
    assert!(check_dir(&support::testdata().join("circle")) >= 1);
}

#[test]
fn corpus_agrees_with_one_bindings() {
    let Some(corpus) = support::corpus() else {
        return;
    };
    assert!(check_dir(&corpus.join("circle")) >= 10);
}

#[test]
fn the_comparison_can_fail() {
    assert!(same(&json!({"a": [1.0, 2]}), &json!({"a": [1.0, 2]}), "").is_ok());
    assert!(same(&json!({"a": [1.0, 2]}), &json!({"a": [1.1, 2]}), "").is_err());
    assert!(same(&json!({"a": 1}), &json!({"a": 1, "b": 2}), "").is_err());
}

/// The Circle file converted from a TFLite file gives the same graph through the shared
/// traits: tensors (name, type, shape, data bytes), operators and custom options.
#[test]
fn circle_and_its_tflite_source_read_the_same() {
    let dir = support::testdata();
    let t_bytes = std::fs::read(dir.join("tflite/sine_float.tflite")).unwrap();
    let c_bytes = std::fs::read(dir.join("circle/sine_float.circle")).unwrap();
    let t = tflite::Model::parse(&t_bytes).unwrap();
    let c = circle::Model::parse(&c_bytes).unwrap();
    let listing = listing(t);
    assert!(listing.len() > 10, "{listing:?}");
    assert_eq!(listing, self::listing(c));
}

/// Everything a loader reads of `model` through the shared traits, as text: each subgraph with
/// its inputs and outputs; each tensor's name, type, shape, shape signature, data,
/// quantization and sparsity; each operator's kind, tensors and custom options; the signatures
/// with their tensor maps, and the metadata entries with their bytes.
fn full_listing<'a, M: ModelView<'a>>(model: M) -> Vec<String> {
    use flatmodel::graph::{DimensionView, MetadataView, SignatureView, SparsityView, TensorMapView};
    let mut out = Vec::new();
    for sg in model.subgraph_list().unwrap_or_default() {
        out.push(format!("subgraph {:?} {:?} {:?}", sg.name(), ints(sg.inputs()), ints(sg.outputs())));
        for t in sg.tensors().unwrap_or_default() {
            let data = model.tensor_data(&t).unwrap();
            let q = t.quantization().map(|q| {
                let floats = |v: Option<flatmodel::wire::Vector<'_, f32>>| v.map(|v| v.iter().collect::<Vec<_>>());
                let longs = q.zero_point.map(|v| v.iter().collect::<Vec<_>>());
                (floats(q.min), floats(q.max), floats(q.scale), longs, q.quantized_dimension)
            });
            let sparsity = t.sparsity().map(|s| {
                let dims: Vec<_> = s
                    .dim_metadata()
                    .into_iter()
                    .flatten()
                    .map(|d| {
                        let values =
                            |v: Option<flatmodel::graph::IndexValues<'_>>| v.map(|v| v.into_iter().collect::<Vec<_>>());
                        (d.format(), d.dense_size(), values(d.array_segments()), values(d.array_indices()))
                    })
                    .collect();
                (ints(s.traversal_order()), ints(s.block_map()), dims)
            });
            out.push(format!(
                "tensor {:?} {:?} {} {} {:?} {q:?} {sparsity:?} {}",
                t.name(),
                t.element_type().name,
                ints(t.shape()),
                ints(t.shape_signature()),
                data,
                t.is_variable()
            ));
        }
        for op in sg.operators().unwrap_or_default() {
            let kind = model.operator_kind(&op).unwrap();
            let custom = model.custom_options(&op).unwrap();
            let tensors = (ints(op.inputs()), ints(op.outputs()), ints(op.intermediates()));
            out.push(format!("operator {kind} {tensors:?} {custom:?}"));
        }
    }
    for sig in model.signature_list().unwrap_or_default() {
        let maps = |m: Option<flatmodel::wire::TableVector<'a, <M::Signature as SignatureView<'a>>::TensorMap>>| {
            m.into_iter().flatten().map(|t| (t.name(), t.tensor_index())).collect::<Vec<_>>()
        };
        out.push(format!(
            "signature {:?} {} {:?} {:?}",
            sig.key(),
            sig.subgraph_index(),
            maps(sig.inputs()),
            maps(sig.outputs())
        ));
    }
    for meta in model.metadata_list().unwrap_or_default() {
        out.push(format!("metadata {:?} {:?}", meta.name(), model.buffer_data(meta.buffer()).unwrap()));
    }
    out
}

/// The TFLite file a corpus Circle 0.10 file was converted from (its `.conversion.json` names
/// it), in `tflite_dir`.
fn source_of(circle_file: &Path, tflite_dir: &Path) -> std::path::PathBuf {
    let conversion = support::read_json(&support::reference(circle_file, "conversion.json").unwrap());
    tflite_dir.join(conversion["source"].as_str().unwrap())
}

/// Compares each Circle 0.10 file in `dir` with its TFLite source in `tflite_dir`; returns how
/// many were compared and how many listings held signatures.
fn compare_with_sources(dir: &Path, tflite_dir: &Path) -> (usize, usize) {
    let (mut checked, mut with_signatures, mut failures) = (0, 0, Vec::new());
    for file in support::files_with_suffix(dir, ".circle") {
        if support::reference(&file, "conversion.json").is_none() {
            continue;
        }
        let (c_bytes, t_bytes) = (std::fs::read(&file).unwrap(), std::fs::read(source_of(&file, tflite_dir)).unwrap());
        let c = full_listing(circle::Model::parse_structure(&c_bytes).unwrap());
        let t = full_listing(tflite::Model::parse_structure(&t_bytes).unwrap());
        if let Some(i) = (0..c.len().max(t.len())).find(|&i| c.get(i) != t.get(i)) {
            failures.push(format!("{}: line {i}: {:?} vs TFLite's {:?}", file.display(), c.get(i), t.get(i)));
        }
        with_signatures += usize::from(c.iter().any(|l| l.starts_with("signature ")));
        checked += 1;
    }
    assert!(failures.is_empty(), "{} of {checked} differ:\n{}", failures.len(), failures.join("\n"));
    (checked, with_signatures)
}

/// A Circle 0.10 file reads, through the shared traits, exactly as the TFLite file it was
/// converted from: names, shapes, shape signatures, types, data, quantization, sparsity,
/// operators, signatures and metadata.
#[test]
fn circle_0_10_files_list_the_same_graph_as_their_tflite_sources() {
    let dir = support::testdata();
    let (checked, with_signatures) = compare_with_sources(&dir.join("circle"), &dir.join("tflite"));
    assert_eq!((checked, with_signatures), (1, 1));
    let Some(corpus) = support::corpus() else {
        return;
    };
    let (checked, with_signatures) = compare_with_sources(&corpus.join("circle-0.10"), &corpus.join("tflite"));
    assert!(checked >= 30 && with_signatures >= 5, "{checked} compared, {with_signatures} with signatures");
}

/// The listing sees a difference (so the test above can fail).
#[test]
fn the_full_listing_tells_models_apart() {
    let dir = support::testdata();
    let c_bytes = std::fs::read(dir.join("circle/c010_sine_float.circle")).unwrap();
    let other = std::fs::read(dir.join("tflite/tf_convnet_fp16.tflite")).unwrap();
    let c = full_listing(circle::Model::parse(&c_bytes).unwrap());
    assert!(c.len() > 15 && c.iter().any(|l| l.starts_with("metadata Some(\"min_runtime_version\")")), "{c:?}");
    assert_ne!(c, full_listing(tflite::Model::parse(&other).unwrap()));
}

/// The shared rules on signatures and metadata hold for Circle 0.10, located in schema terms.
#[test]
fn circle_signature_and_metadata_indices_are_checked() {
    use flatmodel::schema::TableType;
    let bytes = std::fs::read(support::testdata().join("circle/c010_sine_float.circle")).unwrap();
    let model = circle::Model::parse(&bytes).unwrap();
    let slot =
        |desc: &flatmodel::schema::TableDesc, name: &str| desc.fields.iter().find(|f| f.name == name).unwrap().slot;
    // (`subgraph_index` holds the default 0, so it is not stored to break.)
    let sig = model.signature_defs().unwrap().get(0).unwrap();
    let map = sig.outputs().unwrap().get(0).unwrap();
    let at_tensor = map.raw().field(slot(circle::TensorMap::desc(), "tensor_index"));
    let meta = model.metadata().unwrap().get(0).unwrap();
    let at_buffer = meta.raw().field(slot(circle::Metadata::desc(), "buffer"));
    for (at, path) in
        [(at_tensor, "Model.signature_defs[0].outputs[0].tensor_index"), (at_buffer, "Model.metadata[0].buffer")]
    {
        let mut broken = bytes.clone();
        let at = at.unwrap_or_else(|| panic!("{path} is stored"));
        broken[at..at + 4].copy_from_slice(&1000u32.to_le_bytes());
        let e = circle::Model::parse(&broken).unwrap_err();
        assert_eq!(e.kind(), flatmodel::ErrorKind::IndexOutOfRange, "{path}: {e}");
        assert_eq!(e.location().to_string(), path, "{e}");
    }
}

/// Every tensor and operator of `model`, as text, through the shared traits only.
fn listing<'a, M: ModelView<'a>>(model: M) -> Vec<String> {
    let mut out = Vec::new();
    for sg in model.subgraph_list().unwrap().iter() {
        for t in sg.tensors().unwrap().iter() {
            let data = model.tensor_data(&t).unwrap();
            let e = t.element_type();
            out.push(format!("{:?} {:?} {:?} {:?}", t.name(), e.name, ints(t.shape()), data));
        }
        for op in sg.operators().unwrap().iter() {
            let kind = model.operator_kind(&op).unwrap();
            let custom = model.custom_options(&op).unwrap();
            out.push(format!("{kind} {:?} {:?} {custom:?}", ints(op.inputs()), ints(op.outputs())));
        }
    }
    out
}

// ---- crafted Circle files (slots from circle.fbs: Model version 0, operator_codes 1,
// subgraphs 2, buffers 4; OperatorCode builtin_code 0, custom_code 1, version 2,
// builtin_code (int32) 3; SubGraph tensors..operators 0..3; Tensor shape 0, type 1;
// Operator opcode_index 0, inputs 1, outputs 2, builtin_options_type 3, builtin_options 4) ----

/// An operator code: slot 0's byte, the extended int32 code, the custom code.
type Code = (u8, Option<i32>, Option<&'static [u8]>);

/// One operator code per entry of `codes` (slot 0 byte, extended code, custom code), and a
/// subgraph of 5 tensors whose tensor 0 has type `tensor_type`, chained through one operator per
/// code; operator `i` has `builtin_options_type` `union_types[i]` with an empty table as value.
fn crafted(codes: &[Code], tensor_type: u8, union_types: &[u8]) -> Vec<u8> {
    let mut b = Bytes::with_identifier(b"CIR0");
    let model_vt = b.vtable(&[0, 4, 8, 0, 12], 16);
    let model = b.table(model_vt, &[0; 12]);
    b.patch(0, model);
    let code_list = b.offsets(codes.len());
    b.patch(model + 4, code_list);
    for (i, &(slot0, extended, custom)) in codes.iter().enumerate() {
        // Slot 3 (the int32 code) only when given, as revision 0 writers leave it out.
        let vt = b.vtable(&[4, if custom.is_some() { 8 } else { 0 }, 0, if extended.is_some() { 12 } else { 0 }], 16);
        let mut inline = vec![slot0, 0, 0, 0, 0, 0, 0, 0];
        inline.extend_from_slice(&extended.unwrap_or(0).to_le_bytes());
        let code = b.table(vt, &inline);
        b.patch(code_list + 4 + 4 * i, code);
        if let Some(name) = custom {
            let s = b.string(name);
            b.patch(code + 8, s);
        }
    }
    let subgraphs = b.offsets(1);
    b.patch(model + 8, subgraphs);
    let sg_vt = b.vtable(&[4, 8, 12, 16], 20);
    let sg = b.table(sg_vt, &[0; 16]);
    b.patch(subgraphs + 4, sg);
    let n = codes.len() + 1;
    let tensors = b.offsets(n);
    b.patch(sg + 4, tensors);
    for i in 0..n {
        let vt = b.vtable(&[4, 8], 12);
        let ty = if i == 0 { tensor_type } else { 0 };
        let t = b.table(vt, &[0, 0, 0, 0, ty, 0, 0, 0]);
        b.patch(tensors + 4 + 4 * i, t);
        let shape = b.ints(&[1]);
        b.patch(t + 4, shape);
    }
    let inputs = b.ints(&[0]);
    b.patch(sg + 8, inputs);
    let outputs = b.ints(&[codes.len() as i32]);
    b.patch(sg + 12, outputs);
    let ops = b.offsets(codes.len());
    b.patch(sg + 16, ops);
    for i in 0..codes.len() {
        let has_union = union_types.get(i).is_some_and(|&t| t != 0);
        let vt = b.vtable(&[4, 8, 12, if has_union { 16 } else { 0 }, if has_union { 20 } else { 0 }], 24);
        let mut inline = (i as u32).to_le_bytes().to_vec();
        inline.extend_from_slice(&[0; 8]);
        inline.extend_from_slice(&[union_types.get(i).copied().unwrap_or(0), 0, 0, 0]);
        inline.extend_from_slice(&[0; 4]);
        let op = b.table(vt, &inline);
        b.patch(ops + 4 + 4 * i, op);
        let ins = b.ints(&[i as i32]);
        b.patch(op + 8, ins);
        let outs = b.ints(&[i as i32 + 1]);
        b.patch(op + 12, outs);
        if has_union {
            let empty_vt = b.vtable(&[], 4);
            let value = b.table(empty_vt, &[]);
            b.patch(op + 20, value);
        }
    }
    let buffers = b.offsets(1);
    b.patch(model + 12, buffers);
    let empty_vt = b.vtable(&[], 4);
    let sentinel = b.table(empty_vt, &[]);
    b.patch(buffers + 4, sentinel);
    b.buf
}

fn kinds(bytes: &[u8]) -> Vec<String> {
    let model = circle::Model::parse(bytes).unwrap_or_else(|e| panic!("{e}"));
    (0..model.operator_code_count()).map(|i| model.operator_kind_at(i).unwrap().to_string()).collect()
}

#[test]
fn operator_codes_follow_circles_rule_not_tflites_max() {
    let bytes = crafted(
        &[
            (3, None, None),           // CONV_2D in slot 0
            (254, None, None),         // revision 0's ubyte 254: INSTANCE_NORM, -2 as a signed byte
            (0xFC, Some(-4), None),    // 0.4+: -4 in both slots, BCQ_GATHER
            (127, Some(150), None),    // 0.4+: 127 defers to the int32, 150 is TFLite's GELU
            (127, Some(-8), None),     // 0.10: RUN_MODEL
            (127, Some(4000), None),   // a code no revision names: a number, not an error
            (32, None, Some(b"Sinh")), // CUSTOM with its name
        ],
        0,
        &[],
    );
    assert_eq!(
        kinds(&bytes),
        ["CONV_2D", "INSTANCE_NORM", "BCQ_GATHER", "GELU", "RUN_MODEL", "BuiltinOperator(4000)", "CUSTOM:Sinh"]
    );
    // TFLite's max() rule would read slot 0 = -2 with builtin_code 0 as 0 (ADD).
    let model = circle::Model::parse(&bytes).unwrap();
    let code = model.operator_codes().unwrap().get(1).unwrap();
    assert_eq!(code.deprecated_builtin_code(), -2);
    assert_eq!(code.builtin_operator(), circle::BuiltinOperator::INSTANCE_NORM);
}

#[test]
fn later_revision_types_are_named_and_unknown_ones_are_numbers() {
    // Tensor type -1 is Circle 0.8's UINT4; union type 254 InstanceNormOptions, 251 GRUOptions,
    // 240 no revision's.
    let bytes = crafted(&[(254, None, None), (0xFB, Some(-5), None), (3, None, None)], 0xFF, &[254, 251, 240]);
    let model = circle::Model::parse(&bytes).unwrap_or_else(|e| panic!("{e}"));
    let sg = model.subgraphs().unwrap().get(0).unwrap();
    let t0 = sg.tensors().unwrap().get(0).unwrap();
    assert_eq!(t0.element_type().name, Some("UINT4"));
    assert_eq!(t0.element_type().size, None);
    let ops: Vec<_> = SubGraphView::operators(&sg).unwrap().iter().collect();
    assert!(matches!(ops[0].builtin_options(), circle::BuiltinOptions::InstanceNormOptions(_)));
    assert!(matches!(ops[1].builtin_options(), circle::BuiltinOptions::GRUOptions(_)));
    assert_eq!(ops[2].builtin_options_type(), 240);
    assert_eq!(ops[2].builtin_options().tag(), 240);
    assert_eq!(ops[2].builtin_options().type_name(), None);
    assert_eq!(kinds(&bytes)[1], "GRU");
}

#[test]
fn broken_indices_are_located_in_schema_terms() {
    let mut bytes = crafted(&[(3, None, None)], 0, &[]);
    // Point the operator's output at a tensor that does not exist.
    let model = circle::Model::parse(&bytes).unwrap();
    let op = SubGraphView::operators(&model.subgraphs().unwrap().get(0).unwrap()).unwrap().get(0).unwrap();
    let outputs = OperatorView::outputs(&op).unwrap();
    let at = outputs.as_slice().as_ptr() as usize - bytes.as_ptr() as usize;
    bytes[at..at + 4].copy_from_slice(&9i32.to_le_bytes());
    let e = circle::Model::parse(&bytes).unwrap_err();
    assert_eq!(e.to_string().split(" at byte").next(), Some("index out of range"), "{e}");
    assert_eq!(e.location().to_string(), "Model.subgraphs[0].operators[0].outputs[0]");
    // The structure alone is still valid.
    assert!(circle::Model::parse_structure(&bytes).is_ok());
    // A TFLite identifier is not a Circle file.
    bytes[4..8].copy_from_slice(b"TFL3");
    assert_eq!(circle::Model::parse(&bytes).unwrap_err().kind(), flatmodel::ErrorKind::WrongIdentifier);
    assert_eq!(flatmodel::detect(&bytes), Some(flatmodel::Format::Tflite));
}

/// The operator of a model from `support::custom_op_model`.
fn only_operator<'a>(model: &circle::Model<'a>) -> circle::Operator<'a> {
    SubGraphView::operators(&model.subgraphs().unwrap().get(0).unwrap()).unwrap().get(0).unwrap()
}

#[test]
fn large_custom_options_are_checked_and_read_like_tflites() {
    let (good, _) = support::custom_op_model(b"CIR0", None, 5, b"HELLO");
    let model = circle::Model::parse(&good).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(model.custom_options(&only_operator(&model)).unwrap(), Some(&b"HELLO"[..]));
    let end = good.len() as u64;
    for (offset, size) in [(end - 5, 6), (end, 1), (u64::MAX - 2, 5), (2, u64::MAX)] {
        let (bytes, op) = support::custom_op_model(b"CIR0", Some(offset), size, b"HELLO");
        let err = circle::Model::parse(&bytes).unwrap_err();
        assert_eq!(err.kind(), flatmodel::ErrorKind::OutOfBounds, "offset {offset} size {size}");
        assert_eq!(err.location().to_string(), "Model.subgraphs[0].operators[0].large_custom_options_offset");
        assert_eq!(err.offset(), op as u64);
        let model = circle::Model::parse_structure(&bytes).unwrap();
        assert_eq!(model.custom_options(&only_operator(&model)).unwrap_err().kind(), flatmodel::ErrorKind::OutOfBounds);
    }
}

/// A `RUN_MODEL` operator's reference is read from its options, with where it sits.
#[test]
fn run_model_references_are_read() {
    let bytes = support::run_model_circle(Some(b"sub/next.circle"));
    let model = circle::Model::parse(&bytes).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(kinds(&bytes), ["RUN_MODEL"]);
    let mut refs = Vec::new();
    model.for_each_run_model(|r| refs.push(r));
    assert_eq!(
        refs,
        [circle::RunModelRef { subgraph: 0, operator: 0, location: Some("sub/next.circle"), signature: None }]
    );
    let (other, mut none) = (crafted(&[(3, None, None)], 0, &[]), Vec::new());
    circle::Model::parse(&other).unwrap().for_each_run_model(|r| none.push(r));
    assert!(none.is_empty());
}

/// The type-80 caveat of `docs/circle.md` §2.2: writers of January 2020 put InstanceNormOptions
/// at union type 80, which later revisions gave UniqueOptions. A file in revision 0's encoding
/// dumps with revision 0's schema, which names no member 80 (the number is kept, as before 0.10
/// views existed); 0.10's names read it as UniqueOptions.
#[test]
fn type_80_reads_as_revision_0_read_it() {
    let bytes = crafted(&[(254, None, None)], 0, &[80]);
    let model = circle::Model::parse(&bytes).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(model.revision(), circle::Revision::Zero);
    assert_eq!(kinds(&bytes), ["INSTANCE_NORM"]);
    let dump = |root| {
        let mut text = String::new();
        flatmodel::dump::dump_table(&mut text, root, &flatmodel::verify::Options::DEFAULT).unwrap();
        serde_json::from_str::<Value>(&text).unwrap()
    };
    let r0 = dump(model.dump_root().unwrap());
    assert_eq!(r0["subgraphs"][0]["operators"][0]["builtin_options_type"], json!(80));
    // Revision 0's schema names slot 0 `builtin_code`, a byte enum without INSTANCE_NORM: the
    // number, as flatc prints it with that schema.
    assert_eq!(r0["operator_codes"][0]["builtin_code"], json!(-2));
    let later = dump(model.dump_root_as(circle::Revision::Later).unwrap());
    assert_eq!(later["subgraphs"][0]["operators"][0]["builtin_options_type"], json!("UniqueOptions"));
    assert_eq!(later["operator_codes"][0]["deprecated_builtin_code"], json!(-2));
}
