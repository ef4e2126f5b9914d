//! The model-level rules every TFLite-family reader needs (`docs/tflite.md` §1.5 and §1.6,
//! `docs/circle.md` §2.5), and the ones a careful reader adds: index ranges, external data ranges
//! (buffers and large custom options), data sizes, dataflow, and control-flow calls without cycles;
//! with signatures and metadata (`tables.rs`), sparsity (`sparsity.rs`) and the calls control-flow
//! options make (`calls.rs`), which TFLite and Circle store alike. A format adds its own rules
//! through [`FormatRules`]'s hooks (quantization details; Circle: quantization consistency), and
//! its runtime profiles, whose refusals are warnings here, through [`FormatRules::runtime_rules`].
//!
//! The checks walk the model as a runtime would load it, so a file whose tables are shared by
//! many offsets is a large model; the walk is charged against the same apparent-size budget as
//! the structural verifier, which keeps the work linear in the file size.

use super::buffers::{Buffers, Stored};
use super::checker::path::{BUFFER, BUFFERS, CUSTOM_CODE, INPUTS, INTERMEDIATES, IS_VARIABLE, OFFSET, OPCODE_INDEX};
use super::checker::path::{BUILTIN_OPTIONS, LARGE_CUSTOM_OPTIONS, OPERATORS, OPERATOR_CODES, OUTPUTS, QUANTIZATION};
use super::checker::path::{DETAILS, ELEMENT, INNER, OPERATOR_INPUTS, OPERATOR_OUTPUTS, OUTER};
use super::checker::path::{QUANTIZED_DIMENSION, SCALE, SUBGRAPHS, TENSORS, VERSION, ZERO_POINT};
use super::checker::{Checked, Checker, Failed, Site};
use super::runtime::Refusals;
use super::scratch::BitSet;
use super::{ModelView, OperatorView, QuantView, Runtime, SubGraphView, TensorView};
use crate::error::{Error, ErrorKind};
use crate::verify::{Options, VerifyTable};
use crate::wire::{to_u64, Table, TableVector, Vector};
use core::ops::Range;

/// Element type code of strings, the same in TFLite and Circle.
const STRING: i8 = 5;

/// An advisory finding: the model is usable, but a reader or runtime may object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Warning {
    /// `buffers[0]` should be the empty sentinel; TFLite only warns.
    SentinelBufferNotEmpty,
    /// Two metadata entries share a name; lookups by name take the first.
    DuplicateMetadataName,
    /// An operator reads a tensor that is no constant, variable or subgraph input and that no
    /// earlier operator produces. TFLite's offline verifier rejects this; its runtime loads it
    /// (NPU compilers such as Vela use such tensors as scratch memory).
    UnproducedInput {
        /// The subgraph.
        subgraph: u32,
        /// The operator within it.
        operator: u32,
        /// The position in the operator's inputs.
        input: u32,
    },
    /// A runtime would refuse to load the model: `error` names the check and where it fails
    /// (the error [`crate::tflite::Model::check_runtime`] returns for the first such finding).
    RuntimeRefuses {
        /// The runtime.
        runtime: Runtime,
        /// The check that fails and where.
        error: Error,
        /// The operator the check is about (a missing kernel's), by its schema name.
        operator: Option<&'static str>,
    },
}

/// What a format adds to the shared rules; every hook defaults to "nothing more".
pub(crate) trait FormatRules<'a>: ModelView<'a> + VerifyTable {
    /// The `Model.version` the format's files carry.
    const VERSION: u32;

    /// The fields of the path codes, code 1 first ([`super::checker::path_fields!`]).
    const PATHS: &'static [[u8; 2]];

    /// `Model.buffers` as raw tables (both formats store `Buffer`'s fields in the same slots).
    fn buffer_tables(&self) -> Option<TableVector<'a, Table<'a>>>;

    /// Whether operator code `index` is a CUSTOM operator without a `custom_code` (what the
    /// rules ask of [`ModelView::operator_kind_at`], without naming the operator).
    fn custom_without_code(&self, index: usize) -> bool;

    /// The element type code of `tensor` and its bytes per element (what the rules ask of
    /// [`TensorView::element_type`], without naming the type).
    fn element_size(tensor: &Self::Tensor) -> (i8, Option<u64>);

    /// The format's own rules on a tensor (the one at [`Checker::outer`] and [`Checker::inner`]
    /// of the subgraph, which has `count` tensors, whose constant data is `data`).
    fn tensor_rules(&self, _c: &mut Checker<'a, Self>, _tensor: &Self::Tensor, _count: usize, _data: &[u8]) -> Checked {
        Ok(())
    }

    /// Checks the non-empty `data` of a tensor whose layout the format defines itself (an
    /// external tensor's); `Ok(true)` when it did, which skips the sparsity and dense size
    /// checks.
    fn data_rules(&self, _c: &mut Checker<'a, Self>, _tensor: &Self::Tensor, _data: &[u8]) -> Checked<bool> {
        Ok(false)
    }

    /// Calls `f(subgraph_index, site)` for every subgraph `op` calls, `site` being where an
    /// index out of range is reported (the options field that holds it).
    fn called_subgraphs(_op: &Self::Operator, _f: &mut dyn FnMut(i64, &'static Site)) {}

    /// Applies `runtime`'s own load-time checks, reporting each refusal with
    /// [`Checker::refuse`] and `each`; charges `c` no more than the rules charge for the same
    /// model (a unit per tensor, operator and operator code).
    fn runtime_rules(&self, _c: &mut Checker<'a, Self>, _runtime: Runtime, _each: &mut Refusals<'_>) -> Checked {
        Ok(())
    }

    /// Verifies the flatbuffers the model nests (in metadata entries), after every other rule
    /// passed: each with a budget of its own from `options`, its error located through the
    /// model.
    fn nested_rules(&self, _options: &Options) -> Result<(), Error> {
        Ok(())
    }
}

macro_rules! sites {
    ($($id:ident = $kind:expr, $path:expr;)*) => {$(static $id: Site = Site::new($kind, $path);)*};
}

/// A broken rule named by its text.
const fn rule(text: &'static str) -> ErrorKind {
    ErrorKind::Rule(text)
}

use ErrorKind::{IndexOutOfRange as RANGE, OutOfBounds as BOUNDS};

sites! {
    VERSION_0 = rule("Model.version must be 0"), [VERSION, 0, 0, 0];
    VERSION_3 = rule("Model.version must be 3"), [VERSION, 0, 0, 0];
    VERSION_OTHER = rule("Model.version is not the format's"), [VERSION, 0, 0, 0];
    NO_BUFFERS = rule("a model needs buffers"), [BUFFERS, 0, 0, 0];
    BUFFER_RANGE = BOUNDS, [BUFFERS | OUTER, OFFSET, 0, 0];
    NO_CUSTOM_CODE = rule("a CUSTOM operator needs a custom_code"), [OPERATOR_CODES | OUTER, CUSTOM_CODE, 0, 0];
    NO_SUBGRAPH = rule("a model needs at least one subgraph"), [SUBGRAPHS, 0, 0, 0];
    NO_SUBGRAPHS = rule("a model needs subgraphs"), [SUBGRAPHS, 0, 0, 0];
    SUBGRAPH_INPUT = RANGE, [SUBGRAPHS | OUTER, INPUTS | ELEMENT, 0, 0];
    SUBGRAPH_OUTPUT = RANGE, [SUBGRAPHS | OUTER, OUTPUTS | ELEMENT, 0, 0];
    NO_OPERATORS = rule("a subgraph needs operators"), [SUBGRAPHS | OUTER, OPERATORS, 0, 0];
    OPCODE = RANGE, [SUBGRAPHS | OUTER, OPERATORS | INNER, OPCODE_INDEX, 0];
    NO_INPUTS = rule("an operator needs inputs and outputs"), [SUBGRAPHS | OUTER, OPERATORS | INNER, OPERATOR_INPUTS, 0];
    NO_OUTPUTS = rule("an operator needs inputs and outputs"), [SUBGRAPHS | OUTER, OPERATORS | INNER, OPERATOR_OUTPUTS, 0];
    OP_INPUT = RANGE, [SUBGRAPHS | OUTER, OPERATORS | INNER, OPERATOR_INPUTS | ELEMENT, 0];
    OP_OUTPUT = RANGE, [SUBGRAPHS | OUTER, OPERATORS | INNER, OPERATOR_OUTPUTS | ELEMENT, 0];
    OP_INTERMEDIATE = RANGE, [SUBGRAPHS | OUTER, OPERATORS | INNER, INTERMEDIATES | ELEMENT, 0];
    LARGE_OPTIONS = BOUNDS, [SUBGRAPHS | OUTER, OPERATORS | INNER, LARGE_CUSTOM_OPTIONS, 0];
    PRODUCED_TWICE = rule("operator output is a constant, a variable, an input or produced twice"),
        [SUBGRAPHS | OUTER, OPERATORS | INNER, OPERATOR_OUTPUTS | ELEMENT, 0];
    TENSOR_BUFFER = RANGE, [SUBGRAPHS | OUTER, TENSORS | INNER, BUFFER, 0];
    STRING_LAYOUT = rule("STRING tensor data has a malformed offset table"), [SUBGRAPHS | OUTER, TENSORS | INNER, BUFFER, 0];
    DATA_SIZE = rule("tensor data size does not match its shape and type"), [SUBGRAPHS | OUTER, TENSORS | INNER, BUFFER, 0];
    NO_ZERO_POINT = rule("quantization scale without zero_point"),
        [SUBGRAPHS | OUTER, TENSORS | INNER, QUANTIZATION, ZERO_POINT];
    ZERO_POINTS = rule("quantization scale and zero_point differ in length"),
        [SUBGRAPHS | OUTER, TENSORS | INNER, QUANTIZATION, ZERO_POINT];
    QUANTIZED_DIM = rule("quantized_dimension must be less than the tensor's rank"),
        [SUBGRAPHS | OUTER, TENSORS | INNER, QUANTIZATION, QUANTIZED_DIMENSION];
    SCALES = rule("per-axis scale count differs from the quantized dimension"),
        [SUBGRAPHS | OUTER, TENSORS | INNER, QUANTIZATION, SCALE];
    CYCLE = rule("control-flow subgraphs call each other in a cycle"), [SUBGRAPHS, 0, 0, 0];
    UNTRACKED_CALLER = rule("subgraphs past the 4,096th may not call others"),
        [SUBGRAPHS | OUTER, OPERATORS | INNER, 0, 0];
}

/// Where a variable tensor with constant data is reported (a rule of Circle's, LiteRT's refusal).
pub(crate) static VARIABLE_DATA: Site = Site::new(
    rule("a variable tensor cannot have constant data"),
    [SUBGRAPHS | OUTER, TENSORS | INNER, IS_VARIABLE, 0],
);

/// Where a quantization detail naming a tensor out of range is reported.
static DETAILS_TENSOR: Site = Site::new(RANGE, [SUBGRAPHS | OUTER, TENSORS | INNER, QUANTIZATION, DETAILS]);

/// The rule on quantization details that name other tensors of the subgraph (block-wise: the
/// scales and zero points tensors, -1 for none), given the `named` (scales, zero points) of the
/// tensor at byte `at`, whose subgraph has `count` tensors.
pub(crate) fn details_tensors<'a, M: FormatRules<'a>>(
    c: &mut Checker<'a, M>,
    at: usize,
    named: Option<(i32, i32)>,
    count: usize,
) -> Checked {
    let Some((scales, zero_points)) = named else { return Ok(()) };
    let valid = |i: i32| usize::try_from(i).is_ok_and(|i| i < count);
    if !valid(scales) || (zero_points != -1 && !valid(zero_points)) {
        return Err(c.fail(&DETAILS_TENSOR, at));
    }
    Ok(())
}

/// Where a called subgraph out of range in `Operator.builtin_options` is reported.
pub(crate) static CALLED_SUBGRAPH: Site = Site::new(RANGE, [SUBGRAPHS | OUTER, OPERATORS | INNER, BUILTIN_OPTIONS, 0]);

/// Checks every rule, then the nested flatbuffers; the first broken one is the error.
pub(crate) fn check<'a, M: FormatRules<'a>>(model: M, options: &Options) -> Result<(), Error> {
    let mut c = Checker::new(model, options);
    let outcome = check_all(&mut c);
    c.finish(outcome)?;
    model.nested_rules(options)
}

#[inline(never)]
fn check_all<'a, M: FormatRules<'a>>(c: &mut Checker<'a, M>) -> Checked {
    let model = c.model;
    model_rules(c)?;
    let Some(subgraphs) = model.subgraph_list() else {
        return Err(c.fail(&NO_SUBGRAPHS, 0));
    };
    let mut calls = false;
    for s in 0..subgraphs.len() {
        let Some(subgraph) = subgraphs.get(s) else { continue };
        c.outer = s;
        calls |= subgraph_rules(c, &subgraph, subgraphs.len())?;
    }
    super::tables::signature_rules(c, &subgraphs)?;
    if !calls {
        return charge_call_walk(c, &subgraphs);
    }
    no_call_cycles(c, &subgraphs)
}

/// What [`no_call_cycles`] charges, and all it can find, when no operator calls a subgraph: its
/// one round reads every operator, a unit each, and finds no cycle. Charged a subgraph at a
/// time, the budget runs out (or not) as it would an operator at a time, with the same error.
fn charge_call_walk<'a, M: FormatRules<'a>>(
    c: &mut Checker<'a, M>,
    subgraphs: &TableVector<'a, M::SubGraph>,
) -> Checked {
    for s in 0..subgraphs.len() {
        c.charge(subgraphs.get(s).and_then(|sg| sg.operators()).map_or(0, |o| o.len()))?;
    }
    Ok(())
}

/// Calls `f` for each advisory finding of `model`, charging the walk (per subgraph visit: its
/// tensors, its inputs, and each operator with its inputs and outputs) to the budget `options`
/// give the file, then each runtime's refusals, each runtime's walk to a budget of its own.
/// Every quantity charged here the rules charge too, at least as much, so on a model that
/// passed [`check`] with the same options this never runs out.
pub(crate) fn warnings<'a, M: FormatRules<'a>>(
    model: M,
    options: &Options,
    mut f: impl FnMut(Warning),
) -> Result<(), Error> {
    let mut c = Checker::new(model, options);
    let outcome = all_warnings(&mut c, &mut f);
    c.finish(outcome)?;
    for runtime in Runtime::ALL {
        let mut c = Checker::new(model, options);
        let mut report = |error, operator| f(Warning::RuntimeRefuses { runtime, error, operator });
        let outcome = model.runtime_rules(&mut c, runtime, &mut Some(&mut report));
        c.finish(outcome)?;
    }
    Ok(())
}

/// Whether `runtime` would load `model`: its first refusal as the error, charged to the budget
/// `options` give the file.
pub(crate) fn runtime_check<'a, M: FormatRules<'a>>(
    model: M,
    runtime: Runtime,
    options: &Options,
) -> Result<(), Error> {
    let mut c = Checker::new(model, options);
    let outcome = model.runtime_rules(&mut c, runtime, &mut None);
    c.finish(outcome)
}

fn all_warnings<'a, M: FormatRules<'a>>(c: &mut Checker<'a, M>, f: &mut dyn FnMut(Warning)) -> Checked {
    let model = c.model;
    for (s, sg) in model.subgraph_list().into_iter().flatten().enumerate() {
        let Some(ops) = sg.operators().filter(|o| !o.is_empty()) else { continue };
        let count = sg.tensors().map_or(0, |t| t.len());
        c.charge(count)?;
        c.charge(sg.inputs().map_or(0, |i| i.len()))?;
        let index = |i: usize| u32::try_from(i).unwrap_or(u32::MAX);
        let outcome = dataflow(
            c.buffer_list(),
            &sg,
            &ops,
            (count, &mut BitSet::new(), false),
            |_, units| c.charge(units),
            |o, j| f(Warning::UnproducedInput { subgraph: index(s), operator: index(o), input: index(j) }),
        );
        if let Err(Stop::Budget(failed)) = outcome {
            return Err(failed);
        }
    }
    if model.buffer_data(0).is_ok_and(|d| !d.is_empty()) {
        f(Warning::SentinelBufferNotEmpty);
    }
    super::tables::duplicate_metadata(c, f)
}

fn model_rules<'a, M: FormatRules<'a>>(c: &mut Checker<'a, M>) -> Checked {
    let m = c.model;
    let at = m.position();
    if m.schema_version() != M::VERSION {
        let site = match M::VERSION {
            0 => &VERSION_0,
            3 => &VERSION_3,
            _ => &VERSION_OTHER,
        };
        return Err(c.fail(site, at));
    }
    let Some(count) = m.buffer_count() else {
        return Err(c.fail(&NO_BUFFERS, at));
    };
    c.charge(count)?;
    for i in 0..count {
        let Some(Stored::External { offset, size }) = c.stored(i) else { continue };
        if super::external_range(m.file(), offset, size).is_none() {
            c.outer = i;
            return Err(c.fail(&BUFFER_RANGE, usize::try_from(offset).unwrap_or(usize::MAX)));
        }
    }
    super::tables::metadata_rules(c)?;
    for i in 0..m.operator_code_count() {
        c.charge(1)?;
        if m.custom_without_code(i) {
            c.outer = i;
            return Err(c.fail(&NO_CUSTOM_CODE, m.operator_code_position(i)));
        }
    }
    if m.subgraph_list().is_some_and(|s| s.is_empty()) {
        return Err(c.fail(&NO_SUBGRAPH, at));
    }
    Ok(())
}

/// The rules of subgraph [`Checker::outer`] of `subgraphs`; whether one of its operators calls
/// a subgraph.
#[inline(never)]
fn subgraph_rules<'a, M: FormatRules<'a>>(c: &mut Checker<'a, M>, sg: &M::SubGraph, subgraphs: usize) -> Checked<bool> {
    let tensors = sg.tensors();
    let count = tensors.map_or(0, |t| t.len());
    let at = sg.position();
    indices_in_range(c, sg.inputs(), count, at, &SUBGRAPH_INPUT)?;
    indices_in_range(c, sg.outputs(), count, at, &SUBGRAPH_OUTPUT)?;
    // The tensors that hold values before any operator runs, for the dataflow walk's first
    // window: found here rather than by reading every tensor again.
    let mut available = BitSet::new();
    for t in 0..count {
        let Some(tensor) = tensors.and_then(|v| v.get(t)) else { continue };
        c.inner = t;
        if tensor_rules(c, &tensor, count)? {
            available.insert(t);
        }
    }
    let Some(ops) = sg.operators() else {
        return Err(c.fail(&NO_OPERATORS, at));
    };
    let codes = c.model.operator_code_count();
    let mut calls = false;
    for o in 0..ops.len() {
        let Some(op) = ops.get(o) else { continue };
        c.charge(1)?;
        c.inner = o;
        let at = op.position();
        if usize::try_from(op.opcode_index()).map_or(true, |i| i >= codes) {
            return Err(c.fail(&OPCODE, at));
        }
        let (inputs, outputs) = (op.inputs(), op.outputs());
        if inputs.is_none() {
            return Err(c.fail(&NO_INPUTS, at));
        }
        indices_in_range(c, inputs, count, at, &OP_INPUT)?;
        if outputs.is_none() {
            return Err(c.fail(&NO_OUTPUTS, at));
        }
        indices_in_range(c, outputs, count, at, &OP_OUTPUT)?;
        indices_in_range(c, op.intermediates(), count, at, &OP_INTERMEDIATE)?;
        if super::large_custom_options_range(c.model.file(), &op) == Some(None) {
            return Err(c.fail(&LARGE_OPTIONS, at));
        }
        let mut bad = None;
        M::called_subgraphs(&op, &mut |index, site| {
            calls = true;
            if bad.is_none() && usize::try_from(index).map_or(true, |i| i >= subgraphs) {
                bad = Some(site);
            }
        });
        if let Some(site) = bad {
            return Err(c.fail(site, at));
        }
    }
    // The dataflow walk's other quantities (inputs and outputs) were charged above, for its
    // first window; the windows after it (a subgraph of more than 4,096 tensors) are charged
    // as they go.
    c.charge(count)?;
    let buffers = c.buffer_list();
    let charge = |window, units| if window == 0 { Ok(()) } else { c.charge(units) };
    match dataflow(buffers, sg, &ops, (count, &mut available, true), charge, |_, _| {}) {
        Ok(()) => Ok(calls),
        Err(Stop::Budget(e)) => Err(e),
        Err(Stop::ProducedTwice { op, output, at }) => {
            (c.inner, c.element) = (op, output);
            Err(c.fail(&PRODUCED_TWICE, at))
        }
    }
}

/// Every index is -1 (an omitted optional tensor) or names one of `count` tensors.
fn indices_in_range<'a, M: FormatRules<'a>>(
    c: &mut Checker<'a, M>,
    list: Option<Vector<'a, i32>>,
    count: usize,
    at: usize,
    site: &'static Site,
) -> Checked {
    let Some(list) = list else { return Ok(()) };
    c.charge(list.len())?;
    for (i, index) in list.iter().enumerate() {
        if index != -1 && usize::try_from(index).map_or(true, |x| x >= count) {
            c.element = i;
            return Err(c.fail(site, at));
        }
    }
    Ok(())
}

/// The rules of tensor [`Checker::inner`] of subgraph [`Checker::outer`], which has `count`
/// tensors; whether the tensor holds a value before any operator runs (it is a constant, with a
/// buffer other than 0 that has data, or a variable), which the dataflow walk starts from.
#[inline(never)]
fn tensor_rules<'a, M: FormatRules<'a>>(c: &mut Checker<'a, M>, tensor: &M::Tensor, count: usize) -> Checked<bool> {
    let at = tensor.position();
    let model = c.model;
    let buffer = tensor.buffer();
    let Some(stored) = usize::try_from(buffer).ok().filter(|&b| b < c.buffers()) else {
        return Err(c.fail(&TENSOR_BUFFER, at));
    };
    // Buffer 0 holds no tensor's data; the others' ranges `model_rules` checked.
    let stored = if buffer == 0 { None } else { c.stored(stored) };
    let (constant, data) = match stored {
        Some(Stored::Inline(data)) => (true, data),
        Some(Stored::External { offset, size }) => {
            (true, super::external_range(model.file(), offset, size).unwrap_or(&[]))
        }
        Some(Stored::Nothing) | None => (false, &[][..]),
    };
    let held = constant || tensor.is_variable();
    let shape = tensor.shape();
    // The tensor and its shape (read here, or by the runtime profiles, which walk every shape).
    c.charge(shape.map_or(0, |s| s.len()).saturating_add(1))?;
    model.tensor_rules(c, tensor, count, data)?;
    if data.is_empty() || model.data_rules(c, tensor, data)? {
        return Ok(held);
    }
    let (code, size) = M::element_size(tensor);
    if let Some(sparsity) = tensor.sparsity() {
        super::sparsity::sparsity_rules(c, &sparsity, shape, size, data.len(), at)?;
        return Ok(held);
    }
    let Some(shape) = shape else { return Ok(held) };
    if code == STRING {
        return if string_layout_ok(data) { Ok(held) } else { Err(c.fail(&STRING_LAYOUT, at)) };
    }
    let Some(size) = size else { return Ok(held) };
    let expected = shape.iter().try_fold(size, |acc, d| acc.checked_mul(u64::try_from(d).ok()?));
    if expected != Some(to_u64(data.len())) {
        return Err(c.fail(&DATA_SIZE, at));
    }
    Ok(held)
}

/// The first of LiteRT's checks of affine quantization (`InterpreterBuilder::ParseQuantization`,
/// `docs/tflite.md` §1.5) that `q`, on a tensor of shape `shape`, breaks: non-empty scales need as
/// many zero points, a `quantized_dimension` within the rank (unless the shape is empty), and one
/// scale or one per slice along that dimension. Circle's rules and LiteRT's profile both use it.
pub(crate) fn affine_refusal(q: &QuantView<'_>, shape: Option<Vector<'_, i32>>) -> Option<&'static Site> {
    let scales = q.scale.map_or(0, |s| s.len());
    if scales == 0 {
        return None;
    }
    let Some(zero_point) = q.zero_point else { return Some(&NO_ZERO_POINT) };
    if zero_point.len() != scales {
        return Some(&ZERO_POINTS);
    }
    let rank = shape.map_or(0, |s| s.len());
    let Ok(dim) = usize::try_from(q.quantized_dimension) else { return Some(&QUANTIZED_DIM) };
    if rank == 0 {
        return None;
    }
    if dim >= rank {
        return Some(&QUANTIZED_DIM);
    }
    let extent = shape.and_then(|s| s.get(dim)).and_then(|d| usize::try_from(d).ok());
    if scales != 1 && extent != Some(scales) {
        return Some(&SCALES);
    }
    None
}

/// Control-flow operators must not call their own subgraph, directly or not: a runtime
/// would recurse forever (CVE-2021-29591). The call graph is peeled from its roots: each round
/// takes away every subgraph no remaining subgraph calls; a round that takes none away, with
/// subgraphs left, leaves a cycle. Callees are read from the operators again each round rather
/// than stored, so this needs two bits per subgraph, on the stack: the first
/// [`BitSet::CAPACITY`] subgraphs are tracked, and one past them may call nothing (a subgraph
/// that calls nothing is on no cycle). Each round is charged to the budget; real models need
/// one round per level of nesting.
#[inline(never)]
fn no_call_cycles<'a, M: FormatRules<'a>>(c: &mut Checker<'a, M>, subgraphs: &TableVector<'a, M::SubGraph>) -> Checked {
    let n = subgraphs.len();
    let tracked = n.min(BitSet::CAPACITY);
    let (mut gone, mut called) = (BitSet::new(), BitSet::new());
    // The first round reads every subgraph, the untracked ones to see that they call nothing;
    // the rounds after it, the tracked subgraphs left.
    let (mut left, mut read) = (tracked, n);
    while left > 0 {
        called.clear();
        for s in (0..read).filter(|&s| !gone.contains(s)) {
            let mut untracked_call = None;
            let ops = subgraphs.get(s).and_then(|sg| sg.operators());
            calls::<M>(c, ops, |o, at, callee| {
                if s < tracked {
                    called.insert(callee);
                } else if untracked_call.is_none() {
                    untracked_call = Some((o, at));
                }
            })?;
            if let Some((o, at)) = untracked_call {
                (c.outer, c.inner) = (s, o);
                return Err(c.fail(&UNTRACKED_CALLER, at));
            }
        }
        read = tracked;
        let before = left;
        for s in 0..tracked {
            if !gone.contains(s) && !called.contains(s) {
                gone.insert(s);
                left = left.saturating_sub(1);
            }
        }
        if left == before {
            return Err(c.fail(&CYCLE, 0));
        }
    }
    Ok(())
}

/// Calls `f(operator index, its byte position, callee)` for each subgraph each of `ops` calls
/// (a callee that is no index: `usize::MAX`), charging each operator and its callees.
fn calls<'a, M: FormatRules<'a>>(
    c: &mut Checker<'a, M>,
    ops: Option<TableVector<'a, M::Operator>>,
    mut f: impl FnMut(usize, usize, usize),
) -> Checked {
    let Some(ops) = ops else { return Ok(()) };
    for o in 0..ops.len() {
        let Some(op) = ops.get(o) else { continue };
        let mut callees = 1usize;
        M::called_subgraphs(&op, &mut |callee, _| {
            callees = callees.saturating_add(1);
            f(o, op.position(), usize::try_from(callee).unwrap_or(usize::MAX));
        });
        c.charge(callees)?;
    }
    Ok(())
}

/// Why [`dataflow`] stopped.
enum Stop {
    /// Output `output` of operator `op` (at byte `at`) already holds a value.
    ProducedTwice { op: usize, output: usize, at: usize },
    /// The work budget ran out.
    Budget(Failed),
}

/// Walks the operators of `sg` in order, tracking which tensors hold values: constants,
/// variables and subgraph inputs from the start, then each operator's outputs. Calls
/// `unproduced(op, input)` for inputs that hold nothing yet; stops at an output that already
/// holds a value.
///
/// The walk tracks [`BitSet::CAPACITY`] tensors at a time, on the stack: a subgraph of more
/// tensors is walked once per window of that many, each walk judging the indices in its window
/// (and the first, the indices in none). The first output produced twice is the same as one
/// walk over all tensors would find; `unproduced` is called in operator order within each
/// window. `charge(window, units)` is called with each window's work: per operator, one plus
/// its inputs and outputs; and for each window after the first, its tensors and the
/// subgraph's inputs (the caller charges those of the first).
///
/// `tensors` is the subgraph's tensor count, the set the walk tracks a window's tensors in, and
/// whether the caller already put the first window's constants and variables in it (else the
/// walk reads them from the tensors and `buffers`).
fn dataflow<'a, S: SubGraphView<'a>>(
    buffers: Buffers<'a>,
    sg: &S,
    ops: &TableVector<'a, S::Operator>,
    (count, available, mut found_first): (usize, &mut BitSet, bool),
    mut charge: impl FnMut(usize, usize) -> Checked,
    mut unproduced: impl FnMut(usize, usize),
) -> Result<(), Stop> {
    // The first output produced twice so far: (operator, output, byte position), kept as three
    // numbers (an `Option` of the tuple costs Cortex-M firmware a `memmove`).
    let (mut op, mut output, mut at) = (usize::MAX, usize::MAX, 0);
    let mut start = 0usize;
    loop {
        let window = start..start.saturating_add(BitSet::CAPACITY).min(count);
        let end = window.end;
        if start > 0 {
            let inputs = sg.inputs().map_or(0, |i| i.len());
            charge(start, window.len().saturating_add(inputs)).map_err(Stop::Budget)?;
        }
        if !core::mem::take(&mut found_first) {
            available.clear();
            held_from_start(buffers, sg, available, window.clone());
        }
        let found = dataflow_window(sg, ops, available, (window, count), &mut charge, &mut unproduced)?;
        if let Some((o, j, position)) = found {
            if o < op || (o == op && j < output) {
                (op, output, at) = (o, j, position);
            }
        }
        if end >= count {
            break;
        }
        start = end;
    }
    if op == usize::MAX {
        return Ok(());
    }
    Err(Stop::ProducedTwice { op, output, at })
}

/// Adds to `available` (which holds tensor `window.start + i` as `i`) the tensors of `window`
/// of `sg` that hold values before any operator runs: constants (a buffer other than 0 with
/// data) and variables.
fn held_from_start<'a, S: SubGraphView<'a>>(
    buffers: Buffers<'a>,
    sg: &S,
    available: &mut BitSet,
    window: Range<usize>,
) {
    let start = window.start;
    let tensors = sg.tensors();
    for t in window {
        let Some(tensor) = tensors.and_then(|v| v.get(t)) else { continue };
        let buffer = usize::try_from(tensor.buffer()).ok().and_then(|b| buffers.stored(b));
        let constant = tensor.buffer() != 0 && matches!(buffer, Some(Stored::Inline(_) | Stored::External { .. }));
        if constant || tensor.is_variable() {
            available.insert(t.wrapping_sub(start));
        }
    }
}

/// One walk of [`dataflow`], over the tensors of `window` of the subgraph's `count`
/// (`available` holding tensor `window.start + i` as `i`, the window's tensors that hold values
/// from the start already in it): the first output in it produced twice, as (operator, output,
/// byte position).
fn dataflow_window<'a, S: SubGraphView<'a>>(
    sg: &S,
    ops: &TableVector<'a, S::Operator>,
    available: &mut BitSet,
    (window, count): (Range<usize>, usize),
    charge: &mut impl FnMut(usize, usize) -> Checked,
    unproduced: &mut impl FnMut(usize, usize),
) -> Result<Option<(usize, usize, usize)>, Stop> {
    let start = window.start;
    // A tensor index in the window, as a position in `available`.
    let slot = |index: i32| usize::try_from(index).ok().filter(|i| window.contains(i)).map(|i| i.wrapping_sub(start));
    for i in sg.inputs().unwrap_or_default().iter() {
        if let Some(i) = slot(i) {
            available.insert(i);
        }
    }
    for o in 0..ops.len() {
        let Some(op) = ops.get(o) else { continue };
        let inputs = op.inputs().unwrap_or_default();
        let outputs = op.outputs().unwrap_or_default();
        charge(start, inputs.len().saturating_add(outputs.len()).saturating_add(1)).map_err(Stop::Budget)?;
        for (j, input) in inputs.iter().enumerate() {
            let held = match slot(input) {
                Some(i) => available.contains(i),
                // In another window, or in none: judged by the first window (-1 names no tensor).
                None => input == -1 || start > 0 || usize::try_from(input).is_ok_and(|i| i < count),
            };
            if !held {
                unproduced(o, j);
            }
        }
        for (j, output) in outputs.iter().enumerate() {
            let Some(output) = slot(output) else { continue };
            if available.contains(output) {
                return Ok(Some((o, j, op.position())));
            }
            available.insert(output);
        }
    }
    Ok(None)
}

/// TFLite's STRING data layout (Circle keeps it): `[u32 n][u32 offsets x (n+1)][bytes]`,
/// offsets starting right after the table, non-decreasing, the last equal to the data size.
fn string_layout_ok(data: &[u8]) -> bool {
    let read = |i: usize| -> Option<u64> {
        let at = i.checked_mul(4)?;
        let b = data.get(at..)?.first_chunk::<4>()?;
        Some(u64::from(u32::from_le_bytes(*b)))
    };
    let Some(n) = read(0) else { return false };
    let Some(table_end) = n.checked_add(2).and_then(|x| x.checked_mul(4)) else { return false };
    if table_end > to_u64(data.len()) || read(1) != Some(table_end) {
        return false;
    }
    let mut previous = table_end;
    let count = usize::try_from(n).unwrap_or(usize::MAX);
    for i in 1..=count {
        let Some(off) = i.checked_add(1).and_then(read) else { return false };
        if off < previous || off > to_u64(data.len()) {
            return false;
        }
        previous = off;
    }
    previous == to_u64(data.len())
}

/// [`check`], writing a failure into `error` in place (the rules' error is built there, never
/// returned through a call: see [`crate::container::parse_into`]).
pub(crate) fn check_into<'a, M: FormatRules<'a>>(
    model: M,
    options: &Options,
    error: &mut Error,
) -> crate::container::Checked {
    let mut c = Checker::new(model, options);
    let outcome = check_all(&mut c);
    c.finish_into(outcome, error)?;
    model.nested_rules(options).map_err(|e| {
        error.copy_from(&e);
        crate::verify::Fail
    })
}
