//! The runtime profiles: each check of LiteRT's and TensorFlow Lite Micro's, recreated on the
//! project's testdata models by editing the one value it is about. Each model stays valid for
//! `Model::parse` (what every reader needs); one runtime refuses it, at the named path, and the
//! other loads it, as the runtimes' sources and their Python packages do (see
//! `src/formats/tflite/runtime.rs`).

use crate::planus_support;

use flatmodel::graph::{Runtime, Warning};
use flatmodel::{tflite, Error, ErrorKind};
use planus_support::{bytes, model, t};

/// What `runtime` says of `m`, which must parse.
fn verdict(m: &t::Model, runtime: Runtime) -> Result<(), Error> {
    let data = bytes(m);
    let parsed = tflite::Model::parse(&data).unwrap_or_else(|e| panic!("the edited model must parse: {e}"));
    parsed.check_runtime(runtime)
}

/// `runtime` refuses `m` with `text` at a path containing `path`; the other runtime loads it.
#[track_caller]
fn only_refused_by(m: &t::Model, runtime: Runtime, text: &'static str, path: &str) {
    let e = verdict(m, runtime).expect_err("refused");
    assert_eq!(e.kind(), ErrorKind::Rule(text), "{e}");
    assert!(e.location().to_string().contains(path), "{e} is not at {path}");
    for other in Runtime::ALL.into_iter().filter(|&r| r != runtime) {
        assert_eq!(verdict(m, other), Ok(()), "{other} must load it");
    }
}

fn subgraph(m: &mut t::Model) -> &mut t::SubGraph {
    &mut m.subgraphs.as_mut().unwrap()[0]
}

fn tensor(m: &mut t::Model, i: usize) -> &mut t::Tensor {
    &mut subgraph(m).tensors.as_mut().unwrap()[i]
}

/// The first tensor of the subgraph with more than one scale, and its index.
fn per_channel(m: &mut t::Model) -> (usize, &mut t::Tensor) {
    let tensors = subgraph(m).tensors.as_mut().unwrap();
    tensors
        .iter_mut()
        .enumerate()
        .find(|(_, t)| t.quantization.as_ref().and_then(|q| q.scale.as_ref()).is_some_and(|s| s.len() > 1))
        .expect("a per-channel quantized tensor")
}

/// The first tensor without constant data (an activation), and its index.
fn activation(m: &mut t::Model) -> (usize, &mut t::Tensor) {
    let empty: Vec<u32> = (0..m.buffers.as_ref().unwrap().len() as u32)
        .filter(|&b| m.buffers.as_ref().unwrap()[b as usize].data.is_none())
        .collect();
    let tensors = subgraph(m).tensors.as_mut().unwrap();
    tensors.iter_mut().enumerate().find(|(_, t)| empty.contains(&t.buffer)).expect("an activation")
}

#[test]
fn the_testdata_models_load_in_both_runtimes() {
    for name in ["sine_float", "tf_convnet_int8_full", "tf_convnet_buffer_offset", "mp_face_detection_short_range"] {
        let path = format!("{}/testdata/tflite/{name}.tflite", env!("CARGO_MANIFEST_DIR"));
        let data = std::fs::read(path).unwrap();
        let parsed = tflite::Model::parse(&data).unwrap();
        for runtime in Runtime::ALL {
            assert_eq!(parsed.check_runtime(runtime), Ok(()), "{name} in {runtime}");
        }
    }
}

#[test]
fn a_quantized_dimension_past_the_rank_is_litert_only() {
    // TFLite Micro's person-detection model: rank-1 biases with quantized_dimension 3.
    let mut m = model("tf_convnet_int8_full");
    let (i, t) = per_channel(&mut m);
    t.quantization.as_mut().unwrap().quantized_dimension = t.shape.as_ref().unwrap().len() as i32;
    let path = format!("tensors[{i}].quantization.quantized_dimension");
    only_refused_by(&m, Runtime::LiteRt, "quantized_dimension must be less than the tensor's rank", &path);
}

#[test]
fn litert_checks_the_dimension_of_a_single_scale_too() {
    let mut m = model("tf_convnet_int8_full");
    let (i, t) = per_channel(&mut m);
    let q = t.quantization.as_mut().unwrap();
    q.scale = Some(vec![0.5]);
    q.zero_point = Some(vec![0]);
    q.quantized_dimension = -1;
    let path = format!("tensors[{i}].quantization");
    only_refused_by(&m, Runtime::LiteRt, "quantized_dimension must be less than the tensor's rank", &path);
}

#[test]
fn one_zero_point_for_many_scales_is_litert_only() {
    // TFLite Micro gives every channel the one zero point.
    let mut m = model("tf_convnet_int8_full");
    let (i, t) = per_channel(&mut m);
    t.quantization.as_mut().unwrap().zero_point = Some(vec![0]);
    let path = format!("tensors[{i}].quantization.zero_point");
    only_refused_by(&m, Runtime::LiteRt, "quantization scale and zero_point differ in length", &path);
}

#[test]
fn scales_without_zero_points_are_litert_only() {
    // TFLite Micro drops the quantization of such a tensor.
    let mut m = model("tf_convnet_int8_full");
    let (i, t) = per_channel(&mut m);
    t.quantization.as_mut().unwrap().zero_point = None;
    let path = format!("tensors[{i}].quantization.zero_point");
    only_refused_by(&m, Runtime::LiteRt, "quantization scale without zero_point", &path);
}

#[test]
fn a_scale_count_off_the_dimension_is_litert_only() {
    let mut m = model("tf_convnet_int8_full");
    let (i, t) = per_channel(&mut m);
    let q = t.quantization.as_mut().unwrap();
    q.scale.as_mut().unwrap().pop();
    q.zero_point.as_mut().unwrap().pop();
    let path = format!("tensors[{i}].quantization.scale");
    only_refused_by(&m, Runtime::LiteRt, "per-axis scale count differs from the quantized dimension", &path);
}

#[test]
fn a_variable_tensor_with_data_is_litert_only() {
    // TFLite Micro gives the variable a buffer of its own.
    let mut m = model("sine_float");
    tensor(&mut m, 4).is_variable = true;
    only_refused_by(&m, Runtime::LiteRt, "a variable tensor cannot have constant data", "tensors[4].is_variable");
}

#[test]
fn an_empty_data_vector_is_short_data_for_litert() {
    // LiteRT reads a present data vector, even an empty one, as the tensor's constant data.
    let mut m = model("sine_float");
    let buffer = tensor(&mut m, 4).buffer as usize;
    m.buffers.as_mut().unwrap()[buffer].data = Some(Vec::new());
    only_refused_by(&m, Runtime::LiteRt, "constant data shorter than the shape and type need", "tensors[4].buffer");
}

#[test]
fn a_negative_dimension_overflows_litert_s_byte_count() {
    // [-1, 16] is 2^64 - 1 elements times 16 in LiteRT's `size_t` arithmetic.
    let mut m = model("sine_float");
    let (i, t) = activation(&mut m);
    t.shape = Some(vec![-1, 16]);
    let path = format!("tensors[{i}].shape");
    only_refused_by(
        &m,
        Runtime::LiteRt,
        "the shape's element or byte count overflows (a negative dimension counts as huge)",
        &path,
    );
}

#[test]
fn an_operator_version_litert_lacks_is_litert_only() {
    // TFLite Micro ignores operator versions.
    let mut m = model("sine_float");
    m.operator_codes.as_mut().unwrap()[0].version = 99;
    only_refused_by(
        &m,
        Runtime::LiteRt,
        "no builtin kernel for this operator at this version",
        "operator_codes[0].builtin_code",
    );
}

#[test]
fn an_operator_tflm_lacks_is_tflm_only() {
    let mut m = model("sine_float");
    let code = &mut m.operator_codes.as_mut().unwrap()[0];
    (code.builtin_code, code.deprecated_builtin_code, code.version) = (t::BuiltinOperator::Tile, 69, 1);
    let op = subgraph(&mut m).operators.as_ref().unwrap().iter().position(|o| o.opcode_index == 0).unwrap();
    let path = format!("operators[{op}].opcode_index");
    only_refused_by(&m, Runtime::Tflm, "no kernel for this builtin operator", &path);
}

#[test]
fn custom_options_on_a_builtin_are_tflm_only() {
    // LiteRT only logs "Found builtin operator ... with custom options".
    let mut m = model("sine_float");
    subgraph(&mut m).operators.as_mut().unwrap()[0].custom_options = Some(vec![1, 2, 3]);
    only_refused_by(&m, Runtime::Tflm, "a builtin operator cannot have custom_options", "operators[0].custom_options");
}

#[test]
fn string_tensors_are_tflm_only() {
    let mut m = model("sine_float");
    let (i, t) = activation(&mut m);
    t.type_ = t::TensorType::String;
    let path = format!("tensors[{i}].type");
    only_refused_by(
        &m,
        Runtime::Tflm,
        "no size for tensors of this type (STRING, VARIANT, INT2, UINT4, FLOAT8)",
        &path,
    );
}

#[test]
fn refusals_are_warnings_with_the_runtime_and_the_error_check_runtime_returns() {
    let mut m = model("sine_float");
    tensor(&mut m, 4).is_variable = true;
    subgraph(&mut m).operators.as_mut().unwrap()[0].custom_options = Some(vec![1]);
    let data = bytes(&m);
    let parsed = tflite::Model::parse(&data).unwrap();
    let (mut refusals, mut texts) = (Vec::new(), Vec::new());
    parsed
        .for_each_warning(|w| {
            if let Warning::RuntimeRefuses { runtime, error, operator } = w {
                refusals.push((runtime, error, operator));
                texts.push(w.to_string());
            }
        })
        .unwrap();
    let first = |r| parsed.check_runtime(r).unwrap_err();
    // The operator a TFLite Micro refusal is about is named (sine_float's operators are all
    // fully connected).
    let expected = [
        (Runtime::LiteRt, first(Runtime::LiteRt), None),
        (Runtime::Tflm, first(Runtime::Tflm), Some("FULLY_CONNECTED")),
    ];
    assert_eq!(refusals, expected);
    assert!(
        texts[0].starts_with("Model.subgraphs[0].tensors[4].is_variable: LiteRT refuses the model"),
        "{}",
        texts[0]
    );
    assert!(texts[1].contains("custom_options: FULLY_CONNECTED (byte"), "{}", texts[1]);
}
