//! The malformed models others publish to test their loaders, and the TFLite CVE classes that a
//! reader can catch statically, recreated from the project's testdata models: each is rejected
//! with a named error, or (a runtime-value bug, which only the runtime can judge) accepted and
//! said to be so here, with the reason.
//!
//! Sources: OpenVINO's TFLite frontend test generators (`generate_malformed_indices`,
//! `generate_oob_builtin_opcode`, `generate_sparse_oob`, `generate_bad_buffer_size`,
//! `generate_oob_quantized_dimension`), TensorFlow Lite Micro's fuzz seeds (`int32_max_dim`,
//! `multidim_overflow`, `malicious_gather`), the MNN converter's crashes on out-of-range indices,
//! TensorFlow's 8-byte `\x18\0\0\0TFL3` file, and the CVE classes of `docs/tflite.md` §1.6. The
//! models are edited through planus's owned types (generated from the project's schema in
//! `benches/peers/`), so each attack changes exactly the values it names.

use crate::planus_support;

use flatmodel::graph::Runtime;
use flatmodel::{tflite, ErrorKind};
use planus_support::{bytes, model, t};

/// `model` is rejected with `kind` at a path that contains `path`.
#[track_caller]
fn rejected(model: &t::Model, kind: ErrorKind, path: &str) {
    let data = bytes(model);
    let e = match tflite::Model::parse(&data) {
        Ok(_) => panic!("accepted; expected {kind:?} at {path}"),
        Err(e) => e,
    };
    assert_eq!(e.kind(), kind, "{e}");
    assert!(e.location().to_string().contains(path), "{e} is not at {path}");
}

/// `model` is accepted (the values are for the runtime to judge).
#[track_caller]
fn accepted(model: &t::Model) {
    let data = bytes(model);
    if let Err(e) = tflite::Model::parse(&data) {
        panic!("rejected: {e}");
    }
}

fn subgraph(m: &mut t::Model) -> &mut t::SubGraph {
    &mut m.subgraphs.as_mut().unwrap()[0]
}

fn operator(m: &mut t::Model, i: usize) -> &mut t::Operator {
    &mut subgraph(m).operators.as_mut().unwrap()[i]
}

fn tensor(m: &mut t::Model, i: usize) -> &mut t::Tensor {
    &mut subgraph(m).tensors.as_mut().unwrap()[i]
}

/// Adds an operator code (`deprecated` is the code's byte, `builtin` the operator); its index.
fn add_code(m: &mut t::Model, deprecated: i8, builtin: t::BuiltinOperator) -> u32 {
    let codes = m.operator_codes.get_or_insert_with(Vec::new);
    codes.push(t::OperatorCode {
        deprecated_builtin_code: deprecated,
        builtin_code: builtin,
        version: 1,
        custom_code: None,
    });
    (codes.len() - 1) as u32
}

/// The testdata models the attacks start from read back unchanged through planus, so what
/// fails below fails for the edit alone.
#[test]
fn the_unedited_models_are_accepted() {
    for name in ["sine_float", "tf_convnet_int8_full", "mp_face_detection_full_range_sparse"] {
        accepted(&model(name));
    }
}

// ---- OpenVINO's TFLite frontend generators -------------------------------------------------

#[test]
fn malformed_indices() {
    let mut m = model("sine_float");
    let n = subgraph(&mut m).tensors.as_ref().unwrap().len() as i32;
    operator(&mut m, 0).inputs.as_mut().unwrap()[0] = n;
    rejected(&m, ErrorKind::IndexOutOfRange, "Model.subgraphs[0].operators[0].inputs[0]");
    let mut m = model("sine_float");
    operator(&mut m, 2).outputs.as_mut().unwrap()[0] = -2;
    rejected(&m, ErrorKind::IndexOutOfRange, "Model.subgraphs[0].operators[2].outputs[0]");
}

#[test]
fn oob_builtin_opcode() {
    let mut m = model("sine_float");
    operator(&mut m, 1).opcode_index = 7;
    rejected(&m, ErrorKind::IndexOutOfRange, "Model.subgraphs[0].operators[1].opcode_index");
    // (A builtin code past the schema's last is a newer writer's operator and is read as a raw
    // number: `tests/formats/crafted.rs` covers unknown enum values and union types.)
}

#[test]
fn sparse_oob() {
    let mut m = model("mp_face_detection_full_range_sparse");
    let mut edited = false;
    'tensors: for tensor in subgraph(&mut m).tensors.as_mut().unwrap() {
        let Some(sparsity) = tensor.sparsity.as_mut() else { continue };
        for dm in sparsity.dim_metadata.as_mut().unwrap() {
            let indices = match dm.array_indices.as_mut() {
                Some(t::SparseIndexVector::Uint8Vector(v)) => {
                    v.values.as_mut().map(|v| (v.len(), v.first_mut().map(|x| *x = u8::MAX)))
                }
                Some(t::SparseIndexVector::Uint16Vector(v)) => {
                    v.values.as_mut().map(|v| (v.len(), v.first_mut().map(|x| *x = u16::MAX)))
                }
                Some(t::SparseIndexVector::Int32Vector(v)) => {
                    v.values.as_mut().map(|v| (v.len(), v.first_mut().map(|x| *x = i32::MAX)))
                }
                None => None,
            };
            if let Some((len, Some(()))) = indices {
                assert!(len > 0);
                edited = true;
                break 'tensors;
            }
        }
    }
    assert!(edited, "the model has a sparse tensor with indices");
    rejected(&m, ErrorKind::Rule("array_indices out of the dimension's range"), "sparsity");
}

#[test]
fn bad_buffer_size() {
    let mut m = model("sine_float");
    // Tensor 5 (`sequential/dense/MatMul`, FLOAT32 [16, 1]) holds 64 bytes in buffer 5.
    let buffer = tensor(&mut m, 4).buffer as usize;
    let data = m.buffers.as_mut().unwrap()[buffer].data.as_mut().unwrap();
    data.truncate(data.len() - 4);
    rejected(&m, ErrorKind::Rule("tensor data size does not match its shape and type"), "tensors[4]");
}

#[test]
fn oob_quantized_dimension() {
    let mut m = model("tf_convnet_int8_full");
    let tensors = subgraph(&mut m).tensors.as_mut().unwrap();
    let (i, tensor) = tensors
        .iter_mut()
        .enumerate()
        .find(|(_, t)| t.quantization.as_ref().and_then(|q| q.scale.as_ref()).is_some_and(|s| s.len() > 1))
        .expect("a per-channel quantized tensor");
    let rank = tensor.shape.as_ref().unwrap().len() as i32;
    tensor.quantization.as_mut().unwrap().quantized_dimension = rank;
    // Safe to read (no reader indexes scales by it), run by TFLite Micro, refused by LiteRT.
    accepted(&m);
    let data = bytes(&m);
    let e = tflite::Model::parse(&data).unwrap().check_runtime(Runtime::LiteRt).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Rule("quantized_dimension must be less than the tensor's rank"), "{e}");
    assert!(e.location().to_string().contains(&format!("tensors[{i}].quantization.quantized_dimension")), "{e}");
}

// ---- TensorFlow Lite Micro's fuzz seeds ----------------------------------------------------

#[test]
fn int32_max_dim() {
    // A constant tensor whose shape claims INT32_MAX elements: its data cannot match.
    let mut m = model("sine_float");
    tensor(&mut m, 4).shape = Some(vec![i32::MAX, 1]);
    rejected(&m, ErrorKind::Rule("tensor data size does not match its shape and type"), "tensors[4]");
    // The same on an activation (no data): accepted. Its size is the arena planner's to refuse
    // (flatmodel's own sizes of it, in `inspect`, use checked arithmetic).
    let mut m = model("sine_float");
    tensor(&mut m, 7).shape = Some(vec![i32::MAX, i32::MAX]);
    accepted(&m);
}

#[test]
fn multidim_overflow() {
    // 65536^4 elements overflow 64 bits: the size guard refuses rather than wrapping to a
    // small count that the 64 bytes of data would match.
    let mut m = model("sine_float");
    tensor(&mut m, 4).shape = Some(vec![65536, 65536, 65536, 65536]);
    rejected(&m, ErrorKind::Rule("tensor data size does not match its shape and type"), "tensors[4]");
    // A negative dimension on a constant tensor.
    let mut m = model("sine_float");
    tensor(&mut m, 4).shape = Some(vec![-16, -1]);
    rejected(&m, ErrorKind::Rule("tensor data size does not match its shape and type"), "tensors[4]");
}

#[test]
fn malicious_gather() {
    // GATHER with constant negative indices: structurally valid. Whether an index is in range
    // depends on the params tensor's runtime shape along the axis, which the runtime checks
    // (TFLM and LiteRT do, in Eval); flatmodel accepts it.
    let mut m = model("sine_float");
    let code = add_code(&mut m, 36, t::BuiltinOperator::Gather);
    // Tensor 2 (`dense_2/BiasAdd`, FLOAT32 [1]) reinterpreted as INT32 indices: -1.
    let buffer = tensor(&mut m, 2).buffer as usize;
    tensor(&mut m, 2).type_ = t::TensorType::Int32;
    m.buffers.as_mut().unwrap()[buffer].data = Some((-1i32).to_le_bytes().to_vec());
    let op = operator(&mut m, 2);
    op.opcode_index = code;
    op.inputs = Some(vec![8, 2]);
    op.builtin_options = Some(t::BuiltinOptions::GatherOptions(Box::new(t::GatherOptions { axis: 0, batch_dims: 0 })));
    accepted(&m);
}

// ---- MNN, TensorFlow, and the CVE classes of `docs/tflite.md` §1.6 ---------------------------

#[test]
fn out_of_range_indices_everywhere_a_loader_follows_one() {
    let mut m = model("sine_float");
    subgraph(&mut m).inputs.as_mut().unwrap()[0] = 99;
    rejected(&m, ErrorKind::IndexOutOfRange, "Model.subgraphs[0].inputs[0]");
    let mut m = model("sine_float");
    subgraph(&mut m).outputs.as_mut().unwrap()[0] = -5;
    rejected(&m, ErrorKind::IndexOutOfRange, "Model.subgraphs[0].outputs[0]");
    let mut m = model("sine_float");
    tensor(&mut m, 3).buffer = 1000;
    rejected(&m, ErrorKind::IndexOutOfRange, "Model.subgraphs[0].tensors[3].buffer");
}

#[test]
fn tensorflows_eight_byte_file() {
    let e = tflite::Model::parse(b"\x18\0\0\0TFL3").unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::OutOfBounds | ErrorKind::Truncated), "{e}");
}

#[test]
fn a_tensor_both_input_and_output_of_an_operator() {
    // CVE-2020-15210: an operator writing the tensor it reads.
    let mut m = model("sine_float");
    let input = operator(&mut m, 1).inputs.as_ref().unwrap()[0];
    operator(&mut m, 1).outputs = Some(vec![input]);
    rejected(
        &m,
        ErrorKind::Rule("operator output is a constant, a variable, an input or produced twice"),
        "operators[1].outputs[0]",
    );
}

#[test]
fn a_while_body_that_calls_itself() {
    // CVE-2021-29591: a WHILE whose body is its own subgraph loops forever.
    let mut m = model("sine_float");
    let code = add_code(&mut m, 119, t::BuiltinOperator::While);
    let op = operator(&mut m, 2);
    op.opcode_index = code;
    op.builtin_options = Some(t::BuiltinOptions::WhileOptions(Box::new(t::WhileOptions {
        cond_subgraph_index: 0,
        body_subgraph_index: 0,
    })));
    rejected(&m, ErrorKind::Rule("control-flow subgraphs call each other in a cycle"), "Model.subgraphs");
    // A body index past the subgraphs.
    let mut m2 = m.clone();
    let op = operator(&mut m2, 2);
    op.builtin_options = Some(t::BuiltinOptions::WhileOptions(Box::new(t::WhileOptions {
        cond_subgraph_index: 0,
        body_subgraph_index: 3,
    })));
    rejected(&m2, ErrorKind::IndexOutOfRange, "Model.subgraphs[0].operators[2].builtin_options");
}

#[test]
fn sparsity_that_expands_past_its_data() {
    let mut m = model("mp_face_detection_full_range_sparse");
    let (i, buffer) = subgraph(&mut m)
        .tensors
        .as_ref()
        .unwrap()
        .iter()
        .enumerate()
        .find(|(_, t)| t.sparsity.is_some())
        .map(|(i, t)| (i, t.buffer as usize))
        .unwrap();
    let data = m.buffers.as_mut().unwrap()[buffer].data.as_mut().unwrap();
    data.truncate(data.len() / 2);
    rejected(&m, ErrorKind::Rule("sparse tensor data size does not match its sparsity"), &format!("tensors[{i}]"));
}

/// Values in operator options that a runtime divides by or allocates with: zero strides
/// (CVE-2020-15207 class), zero filter sizes, zero block sizes. They are properties of one
/// kernel's parameters, which the kernels check when they are prepared (LiteRT's and TFLM's
/// `Prepare` refuse them), so flatmodel accepts them: the options are read, never computed
/// with.
#[test]
fn zero_strides_filters_and_block_sizes_are_the_kernels_to_refuse() {
    let mut m = model("tf_convnet_int8_full");
    let mut edited = 0;
    for op in subgraph(&mut m).operators.as_mut().unwrap() {
        match &mut op.builtin_options {
            Some(t::BuiltinOptions::Conv2DOptions(o)) => {
                (o.stride_w, o.stride_h) = (0, 0);
                edited += 1;
            }
            Some(t::BuiltinOptions::Pool2DOptions(o)) => {
                (o.filter_width, o.filter_height, o.stride_w) = (0, 0, 0);
                edited += 1;
            }
            _ => {}
        }
    }
    assert!(edited > 0, "the model has convolutions or pools");
    accepted(&m);
}

/// An axis in a constant tensor out of its input's rank (CVE-2020-15212 class, for REDUCE and
/// friends): the rank is known only once shapes are propagated, so this is the runtime's check
/// (LiteRT's `ResizeTempAxis` and TFLM's reduce kernels refuse it); flatmodel accepts it.
#[test]
fn an_axis_out_of_range_in_a_constant_tensor_is_the_runtimes_to_refuse() {
    let mut m = model("sine_float");
    let code = add_code(&mut m, 40, t::BuiltinOperator::Mean);
    let buffer = tensor(&mut m, 2).buffer as usize;
    tensor(&mut m, 2).type_ = t::TensorType::Int32;
    m.buffers.as_mut().unwrap()[buffer].data = Some(7i32.to_le_bytes().to_vec());
    let op = operator(&mut m, 2);
    op.opcode_index = code;
    op.inputs = Some(vec![8, 2]);
    op.builtin_options = Some(t::BuiltinOptions::ReducerOptions(Box::new(t::ReducerOptions { keep_dims: false })));
    accepted(&m);
}
