//! The runtime profiles of TFLite models: the checks LiteRT and TensorFlow Lite Micro make when
//! they load a model, beyond the rules every reader needs (which [`Model::parse`] applies). A
//! model can pass every rule and still be refused by one runtime and run by the other:
//! TFLite Micro's own person-detection example carries rank-1 bias tensors with
//! `quantized_dimension = 3`, which LiteRT refuses and TFLite Micro never reads.
//!
//! Out of a profile's scope: custom operators (a build registers its own), the checks each
//! kernel makes when it prepares (the shapes and types an operator accepts), and the options of
//! each builtin operator.
//!
//! How they relate to `docs/tflite.md`: the checks of TFLite's offline verifier (§1.6) and the
//! index, range and sparsity rules of §1.5 stay model rules, since a reader needs them; §1.5's
//! quantization and variable-data rules are LiteRT's, so they are its profile here (§1.8).
//! Sources, read for each check below: LiteRT f67457790c9c (`tflite/core/interpreter_builder.cc`
//! `ParseTensors` and `ParseQuantization`, `tflite/util.cc` `BytesRequired`,
//! `tflite/core/subgraph.cc` `SetTensorParametersReadOnly`, `tflite/core/kernels/register.cc`),
//! tflite-micro 90b983c2 (`micro_allocator.cc`, `micro_interpreter.cc`, `memory_helpers.cc`,
//! `python/tflite_micro/python_ops_resolver.cc`). `tests/formats/litert_agreement.rs` and
//! `cli/tests/cli/tflm_agreement.rs` compare the verdicts with both runtimes' Python interpreters.

use super::runtime_ops::{LITERT_BUILTINS, TFLM_KERNELS};
use super::{BuiltinOperator, Model, Tensor, TensorType};
use crate::error::{Error, ErrorKind};
use crate::graph::checker::path::{BUFFER, INNER, IS_VARIABLE, OPCODE_INDEX, OPERATORS, OPERATOR_CODES, OUTER};
use crate::graph::checker::path::{BUILTIN_CODE, CUSTOM_OPTIONS, SHAPE, TENSOR_TYPE};
use crate::graph::checker::path::{SUBGRAPHS, TENSORS};
use crate::graph::scratch::BitSet;
use crate::graph::{affine_refusal, Checked, Checker, ModelView, Runtime, Site, TensorView, VARIABLE_DATA};
use crate::verify::Options;
use crate::wire::to_u64;

impl<'a> Model<'a> {
    /// Whether `runtime` would load this model: `Err` names the first of its own load-time
    /// checks that fails, and where. [`Model::check_runtime_with`] with the default limits.
    ///
    /// [`Model::parse`] keeps to what every reader needs to read the model safely; this adds
    /// what one runtime refuses on top (LiteRT's quantization and constant-data checks and its
    /// operator versions, TFLite Micro's kernels and tensor types). Custom operators, builtin
    /// options and the kernels' own preparation checks are out of scope.
    pub fn check_runtime(&self, runtime: Runtime) -> Result<(), Error> {
        self.check_runtime_with(runtime, &Options::DEFAULT)
    }

    /// [`Model::check_runtime`], charging the walk (a unit per operator code, operator, tensor
    /// and dimension) to the apparent-size budget of `options`; on a model
    /// [`Model::parse_with`] accepted with the same `options` it never runs out.
    pub fn check_runtime_with(&self, runtime: Runtime, options: &Options) -> Result<(), Error> {
        crate::graph::runtime_check(*self, runtime, options)
    }
}

macro_rules! sites {
    ($($id:ident = $text:expr, $path:expr;)*) => {$(static $id: Site = Site::new(ErrorKind::Rule($text), $path);)*};
}

/// The path of field `field` of the tensor being checked.
const fn tensor(field: u8) -> [u8; 4] {
    [SUBGRAPHS | OUTER, TENSORS | INNER, field, 0]
}

sites! {
    UNKNOWN_TYPE = "unknown tensor type", tensor(TENSOR_TYPE);
    UNSIZED_TYPE = "no size for tensors of this type (STRING, VARIANT, INT2, UINT4, FLOAT8)",
        tensor(TENSOR_TYPE);
    EXTERNAL_WITH_DATA = "a tensor in an external buffer cannot also have constant data", tensor(BUFFER);
    UNSIZED_VARIABLE = "a STRING, RESOURCE or VARIANT tensor cannot be variable", tensor(IS_VARIABLE);
    OVERFLOW = "the shape's element or byte count overflows (a negative dimension counts as huge)", tensor(SHAPE);
    SHORT_DATA = "constant data shorter than the shape and type need", tensor(BUFFER);
    LITERT_OP = "no builtin kernel for this operator at this version",
        [OPERATOR_CODES | OUTER, BUILTIN_CODE, 0, 0];
    TFLM_OP = "no kernel for this builtin operator", [SUBGRAPHS | OUTER, OPERATORS | INNER, OPCODE_INDEX, 0];
    BUILTIN_CUSTOM_OPTIONS = "a builtin operator cannot have custom_options",
        [SUBGRAPHS | OUTER, OPERATORS | INNER, CUSTOM_OPTIONS, 0];
}

/// The last tensor type code both runtimes convert (`ConvertTensorType`: FLOAT32, 0, to
/// FLOAT8_E5M2, 22).
const LAST_TYPE: i8 = 22;

/// Where each refusal goes: `None` to stop at the first, else a callback per refusal.
type Each<'e> = crate::graph::Refusals<'e>;

/// `runtime`'s checks of `model`, each refusal reported through [`Checker::refuse`].
pub(super) fn rules<'a>(
    model: Model<'a>,
    c: &mut Checker<'a, Model<'a>>,
    runtime: Runtime,
    each: &mut Each<'_>,
) -> Checked {
    match runtime {
        Runtime::LiteRt => {
            litert_operator_codes(model, c, each)?;
            for_each_tensor(model, c, each, litert_tensor)
        }
        Runtime::Tflm => {
            for_each_tensor(model, c, each, tflm_tensor)?;
            tflm_operators(model, c, each)
        }
    }
}

/// LiteRT's `InterpreterBuilder` resolves every operator code, used or not, to a builtin kernel
/// at its version (CUSTOM codes are resolved when the interpreter prepares, out of scope here).
fn litert_operator_codes<'a>(model: Model<'a>, c: &mut Checker<'a, Model<'a>>, each: &mut Each<'_>) -> Checked {
    let Some(codes) = model.operator_codes() else { return Ok(()) };
    for i in 0..codes.len() {
        c.charge(1)?;
        let Some(code) = codes.get(i) else { continue };
        let op = code.builtin_operator();
        if op != BuiltinOperator::CUSTOM && !LITERT_BUILTINS.resolves(op, code.version()) {
            c.outer = i;
            c.refuse_about(&LITERT_OP, code.raw().position(), op.name(), each)?;
        }
    }
    Ok(())
}

/// LiteRT's `ParseTensors` and `ParseQuantization`, and the sizes `Subgraph` checks.
fn litert_tensor<'a>(
    model: Model<'a>,
    c: &mut Checker<'a, Model<'a>>,
    tensor: &Tensor<'a>,
    each: &mut Each<'_>,
) -> Checked {
    let at = tensor.raw().position();
    let t = tensor.type_();
    if !(0..=LAST_TYPE).contains(&t.0) {
        return c.refuse(&UNKNOWN_TYPE, at, each);
    }
    let shape = tensor.shape();
    if let Some(site) = TensorView::quantization(tensor).and_then(|q| affine_refusal(&q, shape)) {
        c.refuse(site, at, each)?;
    }
    let constant = constant_bytes(model, tensor);
    if constant.is_some() && tensor.is_variable() {
        c.refuse(&VARIABLE_DATA, at, each)?;
    }
    if constant.is_some() && tensor.external_buffer() != 0 {
        c.refuse(&EXTERNAL_WITH_DATA, at, each)?;
    }
    if matches!(t, TensorType::STRING | TensorType::RESOURCE | TensorType::VARIANT) {
        return match tensor.is_variable() {
            true => c.refuse(&UNSIZED_VARIABLE, at, each),
            false => Ok(()),
        };
    }
    c.charge(shape.map_or(0, |s| s.len()))?;
    let Some(required) = bytes_required(t, shape) else {
        return c.refuse(&OVERFLOW, at, each);
    };
    let checked = tensor.sparsity().is_none() && tensor.external_buffer() == 0;
    if checked && constant.is_some_and(|stored| to_u64(stored) < required) {
        return c.refuse(&SHORT_DATA, at, each);
    }
    Ok(())
}

/// How many bytes of constant data LiteRT finds for `tensor`, `None` when it has none: a
/// buffer other than 0 with a `data` vector (even an empty one), or else an external range.
fn constant_bytes(model: Model<'_>, tensor: &Tensor<'_>) -> Option<usize> {
    let index = tensor.buffer();
    let buffer = model.buffer_ref(usize::try_from(index).ok().filter(|&i| i != 0)?)?;
    match buffer.data {
        Some(data) => Some(data.len()),
        None if buffer.offset > 1 => usize::try_from(buffer.size).ok(),
        None => None,
    }
}

/// LiteRT's `BytesRequired` for a tensor of type `t` and `shape`, with its overflow test (on
/// 64-bit `size_t`, dimensions converted from `int` as C++ does, so -1 is 2^64 - 1): `None`
/// when it fails. Sub-byte types are packed, two or four to a byte.
fn bytes_required(t: TensorType, shape: Option<crate::wire::Vector<'_, i32>>) -> Option<u64> {
    // `size_t * size_t` as LiteRT's `MultiplyAndCheckOverflow` tests it.
    fn multiply(a: u64, b: u64) -> Option<u64> {
        let product = a.wrapping_mul(b);
        let overflows = (a | b) >> 32 != 0 && a != 0 && product.checked_div(a) != Some(b);
        (!overflows).then_some(product)
    }
    let mut count: u64 = 1;
    for d in shape.unwrap_or_default() {
        count = multiply(count, i64::from(d).cast_unsigned())?;
    }
    let packed = matches!(t, TensorType::INT4 | TensorType::UINT4 | TensorType::INT2);
    let size = if packed { 1 } else { super::element_size(t).unwrap_or(1) };
    let bytes = multiply(size, count)?;
    Some(match t {
        TensorType::INT4 | TensorType::UINT4 => bytes.div_ceil(2),
        TensorType::INT2 => bytes.div_ceil(4),
        _ => bytes,
    })
}

/// TFLite Micro's `MicroAllocator` converts every tensor's type and sizes it: its size table
/// has no STRING, VARIANT, INT2, UINT4 or FLOAT8 types. It does not check quantization
/// parameters (it reads the scales, and one zero point for all channels when the counts
/// differ), nor constant data sizes, nor variable tensors with data.
fn tflm_tensor<'a>(_: Model<'a>, c: &mut Checker<'a, Model<'a>>, tensor: &Tensor<'a>, each: &mut Each<'_>) -> Checked {
    let t = tensor.type_();
    let at = tensor.raw().position();
    if !(0..=LAST_TYPE).contains(&t.0) {
        return c.refuse(&UNKNOWN_TYPE, at, each);
    }
    let no_size = [TensorType::STRING, TensorType::VARIANT, TensorType::INT2, TensorType::UINT4];
    if no_size.contains(&t) || matches!(t, TensorType::FLOAT8_E4M3FN | TensorType::FLOAT8_E5M2) {
        return c.refuse(&UNSIZED_TYPE, at, each);
    }
    Ok(())
}

/// TFLite Micro's `MicroInterpreter` finds a kernel for every operator (by code, any
/// version), and refuses builtin operators that carry custom options. A missing kernel is
/// reported at the first operator that needs it (at every one when the operator codes are more
/// than a [`BitSet`] holds).
fn tflm_operators<'a>(model: Model<'a>, c: &mut Checker<'a, Model<'a>>, each: &mut Each<'_>) -> Checked {
    let mut missing = BitSet::new();
    let tracked = (model.operator_code_count() <= BitSet::CAPACITY).then_some(&mut missing);
    tflm_operators_with(model, c, each, tracked)
}

/// [`tflm_operators`], with the set of operator codes already reported missing.
fn tflm_operators_with<'a>(
    model: Model<'a>,
    c: &mut Checker<'a, Model<'a>>,
    each: &mut Each<'_>,
    mut reported: Option<&mut BitSet>,
) -> Checked {
    let Some(subgraphs) = model.subgraphs() else { return Ok(()) };
    for s in 0..subgraphs.len() {
        let Some(ops) = subgraphs.get(s).and_then(|sg| sg.operators()) else { continue };
        for o in 0..ops.len() {
            c.charge(1)?;
            let Some(op) = ops.get(o) else { continue };
            let Some(code) = model.operator_code(&op) else { continue };
            let builtin = code.builtin_operator();
            if builtin == BuiltinOperator::CUSTOM {
                continue;
            }
            (c.outer, c.inner) = (s, o);
            let at = op.raw().position();
            if !TFLM_KERNELS.contains(builtin) {
                let index = usize::try_from(op.opcode_index()).unwrap_or(usize::MAX);
                if reported.as_ref().is_some_and(|r| r.contains(index)) {
                    continue;
                }
                if let Some(r) = reported.as_mut() {
                    r.insert(index);
                }
                c.refuse_about(&TFLM_OP, at, builtin.name(), each)?;
            } else if op.custom_options().is_some() {
                c.refuse_about(&BUILTIN_CUSTOM_OPTIONS, at, builtin.name(), each)?;
            }
        }
    }
    Ok(())
}

/// Calls `check` on every tensor of every subgraph, with [`Checker::outer`] and
/// [`Checker::inner`] naming it, charging a unit each.
fn for_each_tensor<'a>(
    model: Model<'a>,
    c: &mut Checker<'a, Model<'a>>,
    each: &mut Each<'_>,
    check: fn(Model<'a>, &mut Checker<'a, Model<'a>>, &Tensor<'a>, &mut Each<'_>) -> Checked,
) -> Checked {
    let Some(subgraphs) = model.subgraphs() else { return Ok(()) };
    for s in 0..subgraphs.len() {
        let Some(tensors) = subgraphs.get(s).and_then(|sg| sg.tensors()) else { continue };
        for t in 0..tensors.len() {
            c.charge(1)?;
            let Some(tensor) = tensors.get(t) else { continue };
            (c.outer, c.inner) = (s, t);
            check(model, c, &tensor, each)?;
        }
    }
    Ok(())
}
