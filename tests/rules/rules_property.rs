//! The model rules checked against what a runtime does with the values: for any edit of a real
//! model's indices and sizes that `tflite::Model::parse` accepts, every index and size a runtime
//! would use is in range (tensor, buffer and opcode indices, subgraph indices in control-flow
//! options, signature tensor indices, data sizes and ranges), and where the LiteRT profile
//! accepts it too, the quantization lengths LiteRT indexes.
//!
//! The models are edited through planus's owned types (generated from the project's schema in
//! `benches/peers/`), and the invariants are checked on that owned tree, not through flatmodel,
//! so a rule flatmodel lacks shows up as an accepted model that breaks one.

use crate::planus_support;

use flatmodel::graph::Runtime;
use planus_support::{bytes, model, t};
use proptest::prelude::*;

/// One edit: which value (`site`, taken modulo the places of its kind) gets which value.
#[derive(Clone, Debug)]
enum Edit {
    OperatorTensor { site: usize, output: bool, value: i32 },
    OpcodeIndex { site: usize, value: u32 },
    TensorBuffer { site: usize, value: u32 },
    SubgraphTensor { site: usize, output: bool, value: i32 },
    ShapeDim { site: usize, value: i32 },
    ShapeLen { site: usize, len: usize },
    QuantizedDimension { site: usize, value: i32 },
    ScaleLen { site: usize, len: usize },
    ZeroPointLen { site: usize, len: usize },
    DataLen { site: usize, len: usize },
    BufferRange { site: usize, offset: u64, size: u64 },
    ControlFlow { site: usize, kind: u8, a: i32, b: i32 },
    SignatureSubgraph { site: usize, value: u32 },
    SignatureTensor { site: usize, value: u32 },
    MetadataBuffer { site: usize, value: u32 },
}

/// Values near the edges that matter: -1 (omitted), 0, small, and the extremes.
fn interesting() -> impl Strategy<Value = i32> {
    prop_oneof![Just(-1), Just(-2), Just(0), 1..24i32, Just(i32::MAX), Just(i32::MIN), any::<i32>()]
}

fn edit() -> impl Strategy<Value = Edit> {
    let site = 0..64usize;
    let small = 0..24u32;
    prop_oneof![
        (site.clone(), any::<bool>(), interesting()).prop_map(|(site, output, value)| Edit::OperatorTensor {
            site,
            output,
            value
        }),
        (site.clone(), small.clone()).prop_map(|(site, value)| Edit::OpcodeIndex { site, value }),
        (site.clone(), small.clone()).prop_map(|(site, value)| Edit::TensorBuffer { site, value }),
        (site.clone(), any::<bool>(), interesting()).prop_map(|(site, output, value)| Edit::SubgraphTensor {
            site,
            output,
            value
        }),
        (site.clone(), interesting()).prop_map(|(site, value)| Edit::ShapeDim { site, value }),
        (site.clone(), 0..6usize).prop_map(|(site, len)| Edit::ShapeLen { site, len }),
        (site.clone(), interesting()).prop_map(|(site, value)| Edit::QuantizedDimension { site, value }),
        (site.clone(), 0..40usize).prop_map(|(site, len)| Edit::ScaleLen { site, len }),
        (site.clone(), 0..40usize).prop_map(|(site, len)| Edit::ZeroPointLen { site, len }),
        (site.clone(), 0..300usize).prop_map(|(site, len)| Edit::DataLen { site, len }),
        (
            site.clone(),
            prop_oneof![Just(0u64), Just(1), 2..8000u64, Just(u64::MAX)],
            prop_oneof![Just(0u64), 1..8000u64, Just(u64::MAX)]
        )
            .prop_map(|(site, offset, size)| Edit::BufferRange { site, offset, size }),
        (site.clone(), 0..3u8, interesting(), interesting()).prop_map(|(site, kind, a, b)| Edit::ControlFlow {
            site,
            kind,
            a,
            b
        }),
        (site.clone(), small.clone()).prop_map(|(site, value)| Edit::SignatureSubgraph { site, value }),
        (site.clone(), 0..40u32).prop_map(|(site, value)| Edit::SignatureTensor { site, value }),
        (site, small).prop_map(|(site, value)| Edit::MetadataBuffer { site, value }),
    ]
}

/// The `site`-th (modulo their number) of `items`, if there are any.
fn nth<T>(items: &mut [T], site: usize) -> Option<&mut T> {
    let n = items.len();
    items.get_mut(site.checked_rem(n)?)
}

fn operators(m: &mut t::Model) -> Vec<&mut t::Operator> {
    m.subgraphs.iter_mut().flatten().flat_map(|s| s.operators.iter_mut().flatten()).collect()
}

fn tensors(m: &mut t::Model) -> Vec<&mut t::Tensor> {
    m.subgraphs.iter_mut().flatten().flat_map(|s| s.tensors.iter_mut().flatten()).collect()
}

fn set_nth(list: &mut Option<Vec<i32>>, site: usize, value: i32) {
    if let Some(v) = list.as_mut().and_then(|l| nth(l, site)) {
        *v = value;
    }
}

fn resize<T: Clone + Default>(list: &mut Option<Vec<T>>, len: usize) {
    let v = list.get_or_insert_with(Vec::new);
    let fill = v.first().cloned().unwrap_or_default();
    v.resize(len, fill);
}

fn apply(m: &mut t::Model, e: &Edit) {
    match *e {
        Edit::OperatorTensor { site, output, value } => {
            if let Some(op) = nth(&mut operators(m), site / 4) {
                set_nth(if output { &mut op.outputs } else { &mut op.inputs }, site, value);
            }
        }
        Edit::OpcodeIndex { site, value } => {
            if let Some(op) = nth(&mut operators(m), site) {
                op.opcode_index = value;
            }
        }
        Edit::TensorBuffer { site, value } => {
            if let Some(t) = nth(&mut tensors(m), site) {
                t.buffer = value;
            }
        }
        Edit::SubgraphTensor { site, output, value } => {
            if let Some(s) = m.subgraphs.as_mut().and_then(|s| nth(s, 0)) {
                set_nth(if output { &mut s.outputs } else { &mut s.inputs }, site, value);
            }
        }
        Edit::ShapeDim { site, value } => {
            if let Some(t) = nth(&mut tensors(m), site / 4) {
                set_nth(&mut t.shape, site, value);
            }
        }
        Edit::ShapeLen { site, len } => {
            if let Some(t) = nth(&mut tensors(m), site) {
                resize(&mut t.shape, len);
            }
        }
        Edit::QuantizedDimension { site, value } => {
            if let Some(q) = nth(&mut tensors(m), site).and_then(|t| t.quantization.as_mut()) {
                q.quantized_dimension = value;
            }
        }
        Edit::ScaleLen { site, len } => {
            if let Some(t) = nth(&mut tensors(m), site) {
                resize(&mut t.quantization.get_or_insert_with(Default::default).scale, len);
            }
        }
        Edit::ZeroPointLen { site, len } => {
            if let Some(t) = nth(&mut tensors(m), site) {
                resize(&mut t.quantization.get_or_insert_with(Default::default).zero_point, len);
            }
        }
        Edit::DataLen { site, len } => {
            if let Some(b) = m.buffers.as_mut().and_then(|b| nth(b, site)) {
                resize(&mut b.data, len);
            }
        }
        Edit::BufferRange { site, offset, size } => {
            if let Some(b) = m.buffers.as_mut().and_then(|b| nth(b, site)) {
                (b.data, b.offset, b.size) = (None, offset, size);
            }
        }
        Edit::ControlFlow { site, kind, a, b } => {
            let code = match kind {
                0 => (119, t::BuiltinOperator::While),
                1 => (118, t::BuiltinOperator::If),
                _ => (127, t::BuiltinOperator::CallOnce), // codes past 127 keep the placeholder
            };
            let codes = m.operator_codes.get_or_insert_with(Vec::new);
            codes.push(t::OperatorCode {
                deprecated_builtin_code: code.0,
                builtin_code: code.1,
                version: 1,
                custom_code: None,
            });
            let index = (codes.len() - 1) as u32;
            if let Some(op) = nth(&mut operators(m), site) {
                op.opcode_index = index;
                op.builtin_options = Some(match kind {
                    0 => t::BuiltinOptions::WhileOptions(Box::new(t::WhileOptions {
                        cond_subgraph_index: a,
                        body_subgraph_index: b,
                    })),
                    1 => t::BuiltinOptions::IfOptions(Box::new(t::IfOptions {
                        then_subgraph_index: a,
                        else_subgraph_index: b,
                    })),
                    _ => t::BuiltinOptions::CallOnceOptions(Box::new(t::CallOnceOptions { init_subgraph_index: a })),
                });
            }
        }
        Edit::SignatureSubgraph { site, value } => {
            if let Some(s) = m.signature_defs.as_mut().and_then(|s| nth(s, site)) {
                s.subgraph_index = value;
            }
        }
        Edit::SignatureTensor { site, value } => {
            if let Some(s) = m.signature_defs.as_mut().and_then(|s| nth(s, 0)) {
                let maps = if site % 2 == 0 { &mut s.inputs } else { &mut s.outputs };
                if let Some(map) = maps.as_mut().and_then(|v| nth(v, site / 2)) {
                    map.tensor_index = value;
                }
            }
        }
        Edit::MetadataBuffer { site, value } => {
            if let Some(md) = m.metadata.as_mut().and_then(|v| nth(v, site)) {
                md.buffer = value;
            }
        }
    }
}

/// Bytes per element of a fixed-size tensor type, `None` for the others (strings, packed
/// 4-bit, resources, variants).
fn element_size(ty: t::TensorType) -> Option<u64> {
    use t::TensorType as T;
    Some(match ty {
        T::Float32 | T::Int32 | T::Uint32 => 4,
        T::Float16 | T::Int16 | T::Uint16 | T::Bfloat16 => 2,
        T::Uint8 | T::Int8 | T::Bool => 1,
        T::Int64 | T::Uint64 | T::Float64 | T::Complex64 => 8,
        T::Complex128 => 16,
        _ => return None,
    })
}

/// Every index and size of `m` a runtime would use is in range; `file_len` is its size.
fn check_in_range(m: &t::Model, file_len: u64, per_channel: bool) -> Result<(), String> {
    let in_range = |i: i64, n: usize| (0..n as i64).contains(&i);
    let optional = |i: i32, n: usize| i == -1 || in_range(i.into(), n);
    let subgraphs = m.subgraphs.as_deref().unwrap_or_default();
    let buffers = m.buffers.as_deref().unwrap_or_default();
    let codes = m.operator_codes.as_deref().unwrap_or_default().len();
    for (s, sg) in subgraphs.iter().enumerate() {
        let tensors = sg.tensors.as_deref().unwrap_or_default();
        let n = tensors.len();
        for (k, &i) in sg.inputs.iter().flatten().chain(sg.outputs.iter().flatten()).enumerate() {
            if !optional(i, n) {
                return Err(format!("subgraph {s} input/output {k} = {i} of {n} tensors"));
            }
        }
        for (o, op) in sg.operators.iter().flatten().enumerate() {
            if !in_range(op.opcode_index.into(), codes) {
                return Err(format!("subgraph {s} op {o}: opcode_index {} of {codes}", op.opcode_index));
            }
            let lists = [&op.inputs, &op.outputs, &op.intermediates];
            if let Some(i) = lists.iter().copied().flatten().flatten().find(|&&i| !optional(i, n)) {
                return Err(format!("subgraph {s} op {o}: tensor index {i} of {n}"));
            }
            let called: Vec<i32> = match &op.builtin_options {
                Some(t::BuiltinOptions::WhileOptions(w)) => vec![w.cond_subgraph_index, w.body_subgraph_index],
                Some(t::BuiltinOptions::IfOptions(w)) => vec![w.then_subgraph_index, w.else_subgraph_index],
                Some(t::BuiltinOptions::CallOnceOptions(w)) => vec![w.init_subgraph_index],
                _ => vec![],
            };
            if let Some(i) = called.iter().find(|&&i| !in_range(i.into(), subgraphs.len())) {
                return Err(format!("subgraph {s} op {o}: calls subgraph {i} of {}", subgraphs.len()));
            }
        }
        for (k, tensor) in tensors.iter().enumerate() {
            let Some(buffer) = buffers.get(tensor.buffer as usize) else {
                return Err(format!("subgraph {s} tensor {k}: buffer {} of {}", tensor.buffer, buffers.len()));
            };
            let shape = tensor.shape.as_deref().unwrap_or_default();
            // Scales indexed along a dimension: what LiteRT reads, so what its profile answers for
            // (TFLite Micro leaves them to each kernel).
            if let Some(q) = tensor.quantization.as_ref().filter(|_| per_channel) {
                let scales = q.scale.as_deref().unwrap_or_default().len();
                if scales > 0 {
                    let zero_points = q.zero_point.as_deref().unwrap_or_default().len();
                    if zero_points != scales {
                        return Err(format!("subgraph {s} tensor {k}: {scales} scales, {zero_points} zero points"));
                    }
                    if scales > 1 && !shape.is_empty() {
                        let dim = usize::try_from(q.quantized_dimension).ok().and_then(|d| shape.get(d));
                        if dim.is_none_or(|&d| d as i64 != scales as i64) {
                            return Err(format!(
                                "subgraph {s} tensor {k}: {scales} scales along dimension {} of {shape:?}",
                                q.quantized_dimension
                            ));
                        }
                    }
                }
            }
            // Buffer 0 is the empty sentinel: a tensor on it has no data, whatever it holds
            // (`docs/tflite.md` §1.3; LiteRT reads no data for buffer 0).
            let data = if tensor.buffer == 0 { &[][..] } else { buffer.data.as_deref().unwrap_or_default() };
            let elements = shape.iter().try_fold(1u64, |n, &d| n.checked_mul(u64::try_from(d).ok()?));
            if let (false, Some(size), None, Some(_)) =
                (data.is_empty(), element_size(tensor.type_), &tensor.sparsity, &tensor.shape)
            {
                if elements.and_then(|e| e.checked_mul(size)) != Some(data.len() as u64) {
                    return Err(format!("subgraph {s} tensor {k}: {} data bytes for {shape:?}", data.len()));
                }
            }
        }
    }
    for (b, buffer) in buffers.iter().enumerate() {
        if buffer.offset > 1 && buffer.offset.checked_add(buffer.size).is_none_or(|end| end > file_len) {
            return Err(format!("buffer {b}: {}+{} past the file's {file_len} bytes", buffer.offset, buffer.size));
        }
    }
    for (g, sig) in m.signature_defs.iter().flatten().enumerate() {
        let Some(sg) = subgraphs.get(sig.subgraph_index as usize) else {
            return Err(format!("signature {g}: subgraph {} of {}", sig.subgraph_index, subgraphs.len()));
        };
        let n = sg.tensors.as_deref().unwrap_or_default().len();
        if let Some(map) = sig.inputs.iter().chain(sig.outputs.iter()).flatten().find(|m| m.tensor_index as usize >= n)
        {
            return Err(format!("signature {g}: tensor {} of {n}", map.tensor_index));
        }
    }
    if let Some(md) = m.metadata.iter().flatten().find(|md| md.buffer as usize >= buffers.len()) {
        return Err(format!("metadata {:?}: buffer {} of {}", md.name, md.buffer, buffers.len()));
    }
    Ok(())
}

/// The originals are accepted and meet every invariant, so the property starts from truth.
#[test]
fn the_unedited_models_meet_every_invariant() {
    for name in MODELS {
        let m = model(name);
        let data = bytes(&m);
        assert!(flatmodel::tflite::Model::parse(&data).is_ok(), "{name}");
        check_in_range(&m, data.len() as u64, true).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// The invariants are not vacuous: each kind of out-of-range value breaks one.
#[test]
fn the_invariants_catch_out_of_range_values() {
    let bad = [
        Edit::OperatorTensor { site: 0, output: false, value: 99 },
        Edit::OperatorTensor { site: 0, output: true, value: -7 },
        Edit::OpcodeIndex { site: 0, value: 9 },
        Edit::TensorBuffer { site: 0, value: 99 },
        Edit::SubgraphTensor { site: 0, output: false, value: 99 },
        Edit::ShapeDim { site: 16, value: 3 },
        Edit::ScaleLen { site: 4, len: 3 },
        Edit::DataLen { site: 5, len: 7 },
        Edit::BufferRange { site: 1, offset: 8000, size: 64 },
        Edit::ControlFlow { site: 0, kind: 0, a: 0, b: 5 },
        Edit::SignatureSubgraph { site: 0, value: 3 },
        Edit::SignatureTensor { site: 0, value: 39 },
    ];
    for e in bad {
        let mut m = model("sine_float");
        apply(&mut m, &e);
        let data = bytes(&m);
        assert!(check_in_range(&m, data.len() as u64, true).is_err(), "{e:?} broke no invariant");
        let verdict = flatmodel::tflite::Model::parse(&data);
        if let Edit::ScaleLen { .. } = e {
            assert!(check_in_range(&m, data.len() as u64, false).is_ok(), "{e:?} is about scales alone");
            let litert = verdict.map(|m| m.check_runtime(Runtime::LiteRt));
            assert!(matches!(litert, Ok(Err(_))), "{e:?}: parsed, and refused by the LiteRT profile");
        } else {
            assert!(verdict.is_err(), "{e:?} was accepted");
        }
    }
}

/// The models edited: a float MLP with a signature and a quantized convnet with per-channel
/// scales. (A model whose data lies past its flatbuffer, addressed by `Buffer.offset`, would lose
/// that data when re-serialized.)
const MODELS: [&str; 2] = ["sine_float", "tf_convnet_int8_full"];

#[test]
fn what_the_rules_accept_a_runtime_can_index() {
    use proptest::test_runner::{Config, TestRunner};
    let originals = MODELS.map(model);
    let mut runner = TestRunner::new(Config { cases: 2000, failure_persistence: None, ..Config::default() });
    let (accepted, rejected) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
    let strategy = (0..MODELS.len(), proptest::collection::vec(edit(), 1..4));
    let outcome = runner.run(&strategy, |(which, edits)| {
        let mut m = originals[which].clone();
        for e in &edits {
            apply(&mut m, e);
        }
        let data = bytes(&m);
        let Ok(parsed) = flatmodel::tflite::Model::parse(&data) else {
            rejected.set(rejected.get() + 1);
            return Ok(());
        };
        accepted.set(accepted.get() + 1);
        let litert = parsed.check_runtime(Runtime::LiteRt).is_ok();
        match check_in_range(&m, data.len() as u64, litert) {
            Ok(()) => Ok(()),
            Err(broken) => {
                Err(TestCaseError::fail(format!("{} with {edits:?} was accepted, but {broken}", MODELS[which])))
            }
        }
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
    let (accepted, rejected) = (accepted.get(), rejected.get());
    eprintln!("edited models: {accepted} accepted, {rejected} rejected");
    assert!(accepted > 100 && rejected > 100, "vacuous: {accepted} accepted, {rejected} rejected");
}
