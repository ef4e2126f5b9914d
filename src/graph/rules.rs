//! The model-level rules every TFLite-family reader enforces (FORMATS.md 1.5, 1.6 and 2), and
//! the ones a careful reader adds: index ranges, external data ranges (buffers and large custom
//! options), data sizes, quantization
//! consistency, dataflow, and control-flow calls without cycles. A format adds its own rules
//! through [`FormatRules`]'s hooks.
//!
//! The checks walk the model as a runtime would load it, so a file whose tables are shared by
//! many offsets is a large model; the walk is charged against the same apparent-size budget as
//! the structural verifier, which keeps the work linear in the file size.

use super::scratch::{BitSet, Scratch};
use super::{ModelView, OperatorKind, OperatorView, QuantView, SubGraphView, TensorView};
use crate::container::{path_error, Budget, Segment};
use crate::error::{Error, ErrorKind, Location};
use crate::verify::{Name, Options};
use crate::wire::{TableVector, Vector};

macro_rules! names {
    ($($id:ident = $s:literal),* $(,)?) => {$(pub(crate) static $id: &str = $s;)*};
}

names! {
    MODEL = "Model", VERSION = "version", SUBGRAPHS = "subgraphs", BUFFERS = "buffers",
    OPERATORS = "operators", INPUTS = "inputs", OUTPUTS = "outputs", INTERMEDIATES = "intermediates",
    TENSORS = "tensors", BUFFER = "buffer", OPCODE_INDEX = "opcode_index", OPERATOR_CODES = "operator_codes",
    CUSTOM_CODE = "custom_code", QUANTIZATION = "quantization", SCALE = "scale", ZERO_POINT = "zero_point",
    QUANTIZED_DIMENSION = "quantized_dimension", OFFSET = "offset", IS_VARIABLE = "is_variable",
    LARGE_CUSTOM_OPTIONS = "large_custom_options_offset",
}

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
}

/// One step of the path to an error: a field and an element index.
pub(crate) type Step = Segment;

/// What a format adds to the shared rules; every hook defaults to "nothing more".
pub(crate) trait FormatRules<'a>: ModelView<'a> {
    /// The `Model.version` the format's files carry.
    const VERSION: u32;

    /// Whether operator code `index` is a CUSTOM operator without a `custom_code` (what the
    /// rules ask of [`ModelView::operator_kind_at`], without naming the operator).
    fn custom_without_code(&self, index: usize) -> bool {
        matches!(self.operator_kind_at(index), Some(OperatorKind::Custom { name: "", .. }))
    }

    /// The element type code of `tensor` and its bytes per element (what the rules ask of
    /// [`TensorView::element_type`], without naming the type).
    fn element_size(tensor: &Self::Tensor) -> (i8, Option<u64>) {
        let e = tensor.element_type();
        (e.code, e.size)
    }

    /// Rules on model-level fields only this format has, after the buffers are checked.
    fn model_rules(&self, _c: &mut Checker<'a, Self>) -> Checked {
        Ok(())
    }

    /// Rules on a tensor's quantization beyond scales and zero points (at `here`, offset `at`).
    fn quantization_rules(
        &self,
        _c: &mut Checker<'a, Self>,
        _tensor: &Self::Tensor,
        _count: usize,
        _at: usize,
        _here: &[Step; 2],
    ) -> Checked {
        Ok(())
    }

    /// Checks the non-empty `data` of a tensor whose layout the format defines itself (sparse
    /// or external tensors); `Ok(true)` when it did, which skips the dense size check.
    fn data_rules(
        &self,
        _c: &mut Checker<'a, Self>,
        _tensor: &Self::Tensor,
        _data: &[u8],
        _here: &[Step; 2],
    ) -> Checked<bool> {
        Ok(false)
    }

    /// Calls `f(subgraph_index, options_field)` for every subgraph `op` calls.
    fn called_subgraphs(_op: &Self::Operator, _f: &mut dyn FnMut(i64, Name)) {}

    /// Rules on model-level tables that point into subgraphs (signatures), after them.
    fn graph_rules(&self, _c: &mut Checker<'a, Self>, _subgraphs: &TableVector<'a, Self::SubGraph>) -> Checked {
        Ok(())
    }

    /// Calls `f` for format-specific advisory findings, charging `c` for the work; the rules
    /// must have charged at least as much for the same model (so a model they accepted never
    /// runs out here).
    fn warnings(&self, _c: &mut Checker<'a, Self>, _f: &mut dyn FnMut(Warning)) -> Checked {
        Ok(())
    }
}

/// A broken rule or a spent budget, whose error the [`Checker`] keeps: the rules pass this
/// zero-sized failure up, so that each `?` is a test of a flag rather than a copy of an
/// [`Error`] (which costs code at every step on small targets).
pub(crate) struct Failed;

/// What a rule returns: a value, or [`Failed`] with the error kept in the [`Checker`].
pub(crate) type Checked<T = ()> = Result<T, Failed>;

/// The rule walk over one model: where to report and how much work is left.
pub(crate) struct Checker<'a, M> {
    model: M,
    buffers: usize,
    budget: Budget,
    /// The error of the last failure.
    error: Option<Error>,
    _file: core::marker::PhantomData<&'a [u8]>,
}

impl<'a, M: FormatRules<'a>> Checker<'a, M> {
    /// A walk over `model` with the work budget `options` give its file.
    fn new(model: M, options: &Options) -> Self {
        Checker {
            model,
            buffers: model.buffer_count().unwrap_or(0),
            budget: Budget::new(options, model.file().len(), &MODEL),
            error: None,
            _file: core::marker::PhantomData,
        }
    }

    /// `outcome` with a failure's error.
    fn finish(&mut self, outcome: Checked) -> Result<(), Error> {
        outcome.map_err(|Failed| {
            // Every `Failed` is made by `fail`, which keeps its error.
            self.error.take().unwrap_or(Error::new(ErrorKind::Rule("model rule failed"), 0, Location::at(&MODEL)))
        })
    }
}

/// Checks every rule; the first broken one is the error.
pub(crate) fn check<'a, M: FormatRules<'a>>(model: M, options: &Options) -> Result<(), Error> {
    let mut c = Checker::new(model, options);
    let outcome = check_all(&mut c);
    c.finish(outcome)
}

#[inline(never)]
fn check_all<'a, M: FormatRules<'a>>(c: &mut Checker<'a, M>) -> Checked {
    let model = c.model;
    c.model_rules()?;
    let Some(subgraphs) = model.subgraph_list() else {
        return Err(c.rule("a model needs subgraphs", 0, &[(&SUBGRAPHS, None)]));
    };
    for (s, subgraph) in subgraphs.iter().enumerate() {
        c.subgraph_rules(s, &subgraph, subgraphs.len())?;
    }
    model.graph_rules(c, &subgraphs)?;
    c.no_call_cycles(&subgraphs)?;
    Ok(())
}

/// Calls `f` for each advisory finding of `model`, charging the walk (per subgraph visit: its
/// tensors, its inputs, and each operator with its inputs and outputs) to the budget `options`
/// give the file. Every quantity charged here the rules charge too, at least as much, so on a
/// model that passed [`check`] with the same options this never runs out.
pub(crate) fn warnings<'a, M: FormatRules<'a>>(
    model: M,
    options: &Options,
    mut f: impl FnMut(Warning),
) -> Result<(), Error> {
    let mut c = Checker::new(model, options);
    let outcome = all_warnings(&mut c, &mut f);
    c.finish(outcome)
}

fn all_warnings<'a, M: FormatRules<'a>>(c: &mut Checker<'a, M>, f: &mut dyn FnMut(Warning)) -> Checked {
    let model = c.model;
    for (s, sg) in model.subgraph_list().into_iter().flat_map(|v| v.iter()).enumerate() {
        let Some(ops) = sg.operators().filter(|o| !o.is_empty()) else { continue };
        let count = sg.tensors().map_or(0, |t| t.len());
        c.charge(count)?;
        c.charge(sg.inputs().map_or(0, |i| i.len()))?;
        let index = |i: usize| u32::try_from(i).unwrap_or(u32::MAX);
        let outcome = dataflow(
            model,
            &sg,
            &ops,
            count,
            |units| c.charge(units),
            |o, j| f(Warning::UnproducedInput { subgraph: index(s), operator: index(o), input: index(j) }),
        );
        if let Err(Stop::Budget(failed)) = outcome {
            return Err(failed);
        }
    }
    if model.buffer_data(0).is_ok_and(|d| !d.is_empty()) {
        f(Warning::SentinelBufferNotEmpty);
    }
    model.warnings(c, f)
}

impl<'a, M: FormatRules<'a>> Checker<'a, M> {
    /// How many buffers the model has.
    pub(crate) fn buffers(&self) -> usize {
        self.buffers
    }

    /// Keeps `error` as the walk's error.
    #[cold]
    pub(crate) fn fail(&mut self, error: Error) -> Failed {
        self.error = Some(error);
        Failed
    }

    /// An error of `kind` at `offset`, at `Model.<path>`.
    #[cold]
    pub(crate) fn error(&mut self, kind: ErrorKind, offset: usize, path: &[Step]) -> Failed {
        self.fail(path_error(kind, offset as u64, &MODEL, path, &[]))
    }

    /// An error at `Model.<path>`, at element `element` of the innermost step.
    #[cold]
    fn element_error(&mut self, kind: ErrorKind, offset: usize, path: &[Step], element: usize) -> Failed {
        match path.split_last() {
            Some((&(name, _), outer)) => {
                self.fail(path_error(kind, offset as u64, &MODEL, outer, &[(name, Some(element))]))
            }
            None => self.error(kind, offset, path),
        }
    }

    /// A broken model rule, named by `rule`.
    #[cold]
    pub(crate) fn rule(&mut self, rule: &'static str, offset: usize, path: &[Step]) -> Failed {
        self.error(ErrorKind::Rule(rule), offset, path)
    }

    /// Counts `units` of work against the budget.
    pub(crate) fn charge(&mut self, units: usize) -> Checked {
        match self.budget.charge(units as u64, 0) {
            Ok(()) => Ok(()),
            Err(e) => Err(self.fail(e)),
        }
    }

    fn model_rules(&mut self) -> Checked {
        let m = self.model;
        if m.schema_version() != M::VERSION {
            return Err(self.rule(version_rule(M::VERSION), m.position(), &[(&VERSION, None)]));
        }
        let Some(count) = m.buffer_count() else {
            return Err(self.rule("a model needs buffers", m.position(), &[(&BUFFERS, None)]));
        };
        self.charge(count)?;
        for i in 0..count {
            let Some(buffer) = m.buffer_ref(i) else { continue };
            let external = buffer.data.is_none() && buffer.offset > 1;
            if external && super::external_range(m.file(), buffer.offset, buffer.size).is_none() {
                let at = usize::try_from(buffer.offset).unwrap_or(usize::MAX);
                return Err(self.error(ErrorKind::OutOfBounds, at, &[(&BUFFERS, Some(i)), (&OFFSET, None)]));
            }
        }
        m.model_rules(self)?;
        for i in 0..m.operator_code_count() {
            self.charge(1)?;
            if m.custom_without_code(i) {
                let path = [(&OPERATOR_CODES, Some(i)), (&CUSTOM_CODE, None)];
                return Err(self.rule("a CUSTOM operator needs a custom_code", m.operator_code_position(i), &path));
            }
        }
        if m.subgraph_list().is_some_and(|s| s.is_empty()) {
            return Err(self.rule("a model needs at least one subgraph", m.position(), &[(&SUBGRAPHS, None)]));
        }
        Ok(())
    }

    fn subgraph_rules(&mut self, s: usize, sg: &M::SubGraph, subgraphs: usize) -> Checked {
        let tensors = sg.tensors();
        let count = tensors.map_or(0, |t| t.len());
        let at = sg.position();
        for (field, list) in [(&INPUTS, sg.inputs()), (&OUTPUTS, sg.outputs())] {
            self.indices_in_range(list, count, at, &[(&SUBGRAPHS, Some(s)), (field, None)])?;
        }
        for (t, tensor) in tensors.into_iter().flat_map(|v| v.iter()).enumerate() {
            self.charge(1)?;
            self.tensor_rules(&tensor, count, &[(&SUBGRAPHS, Some(s)), (&TENSORS, Some(t))])?;
        }
        let Some(ops) = sg.operators() else {
            return Err(self.rule("a subgraph needs operators", at, &[(&SUBGRAPHS, Some(s)), (&OPERATORS, None)]));
        };
        let codes = self.model.operator_code_count();
        for (o, op) in ops.iter().enumerate() {
            self.charge(1)?;
            let here = [(&SUBGRAPHS, Some(s)), (&OPERATORS, Some(o))];
            let op_at = op.position();
            if usize::try_from(op.opcode_index()).map_or(true, |i| i >= codes) {
                let path = [here[0], here[1], (&OPCODE_INDEX, None)];
                return Err(self.error(ErrorKind::IndexOutOfRange, op_at, &path));
            }
            for (field, list) in [(&INPUTS, op.inputs()), (&OUTPUTS, op.outputs())] {
                if list.is_none() {
                    return Err(self.rule(
                        "an operator needs inputs and outputs",
                        op_at,
                        &[here[0], here[1], (field, None)],
                    ));
                }
                self.indices_in_range(list, count, op_at, &[here[0], here[1], (field, None)])?;
            }
            self.indices_in_range(op.intermediates(), count, op_at, &[here[0], here[1], (&INTERMEDIATES, None)])?;
            if super::large_custom_options_range(self.model.file(), &op) == Some(None) {
                let path = [here[0], here[1], (&LARGE_CUSTOM_OPTIONS, None)];
                return Err(self.error(ErrorKind::OutOfBounds, op_at, &path));
            }
            self.called_subgraphs_in_range(&op, subgraphs, &here)?;
        }
        self.dataflow(s, sg, &ops, count)?;
        Ok(())
    }

    /// Every index is -1 (an omitted optional tensor) or names one of `count` tensors.
    fn indices_in_range(&mut self, list: Option<Vector<'a, i32>>, count: usize, at: usize, path: &[Step]) -> Checked {
        let Some(list) = list else { return Ok(()) };
        self.charge(list.len())?;
        for (i, index) in list.iter().enumerate() {
            if index != -1 && usize::try_from(index).map_or(true, |x| x >= count) {
                return Err(self.element_error(ErrorKind::IndexOutOfRange, at, path, i));
            }
        }
        Ok(())
    }

    fn tensor_rules(&mut self, tensor: &M::Tensor, count: usize, here: &[Step; 2]) -> Checked {
        let at = tensor.position();
        let buffer = tensor.buffer();
        if usize::try_from(buffer).map_or(true, |b| b >= self.buffers) {
            return Err(self.error(ErrorKind::IndexOutOfRange, at, &[here[0], here[1], (&BUFFER, None)]));
        }
        let data = match self.model.tensor_data(tensor) {
            Ok(data) => data,
            Err(e) => return Err(self.fail(e)),
        };
        let shape = tensor.shape();
        let model = self.model;
        model.quantization_rules(self, tensor, count, at, here)?;
        if let Some(q) = tensor.quantization() {
            self.quantization_rules(&q, shape, at, here)?;
        }
        if tensor.is_variable() && !data.is_empty() {
            return Err(self.rule(
                "a variable tensor cannot have constant data",
                at,
                &[here[0], here[1], (&IS_VARIABLE, None)],
            ));
        }
        if data.is_empty() || model.data_rules(self, tensor, data, here)? {
            return Ok(());
        }
        let data_path = [here[0], here[1], (&BUFFER, None)];
        let Some(shape) = shape else { return Ok(()) };
        self.charge(shape.len())?;
        let (code, size) = M::element_size(tensor);
        if code == STRING {
            return if string_layout_ok(data) {
                Ok(())
            } else {
                Err(self.rule("STRING tensor data has a malformed offset table", at, &data_path))
            };
        }
        let Some(size) = size else { return Ok(()) };
        let expected = shape.iter().try_fold(size, |acc, d| acc.checked_mul(u64::try_from(d).ok()?));
        if expected != Some(data.len() as u64) {
            return Err(self.rule("tensor data size does not match its shape and type", at, &data_path));
        }
        Ok(())
    }

    fn quantization_rules(
        &mut self,
        q: &QuantView<'a>,
        shape: Option<Vector<'a, i32>>,
        at: usize,
        here: &[Step; 2],
    ) -> Checked {
        let path = |f: Name| [here[0], here[1], (&QUANTIZATION, None), (f, None)];
        let Some(scale) = q.scale.filter(|s| !s.is_empty()) else { return Ok(()) };
        let Some(zero_point) = q.zero_point else {
            return Err(self.rule("quantization scale without zero_point", at, &path(&ZERO_POINT)));
        };
        self.charge(scale.len())?;
        if zero_point.len() != scale.len() {
            return Err(self.rule("quantization scale and zero_point differ in length", at, &path(&ZERO_POINT)));
        }
        if scale.len() == 1 {
            return Ok(());
        }
        let rank = shape.map_or(0, |s| s.len());
        let dim = usize::try_from(q.quantized_dimension).ok().filter(|&d| d < rank);
        let Some(dim) = dim else {
            return Err(self.rule(
                "quantized_dimension must be less than the tensor's rank",
                at,
                &path(&QUANTIZED_DIMENSION),
            ));
        };
        let extent = shape.and_then(|s| s.get(dim)).and_then(|d| usize::try_from(d).ok());
        if extent != Some(scale.len()) {
            return Err(self.rule("per-axis scale count differs from the quantized dimension", at, &path(&SCALE)));
        }
        Ok(())
    }

    fn called_subgraphs_in_range(&mut self, op: &M::Operator, subgraphs: usize, here: &[Step; 2]) -> Checked {
        let mut bad = None;
        M::called_subgraphs(op, &mut |index, field| {
            if bad.is_none() && usize::try_from(index).map_or(true, |i| i >= subgraphs) {
                bad = Some(field);
            }
        });
        match bad {
            None => Ok(()),
            Some(field) => {
                Err(self.error(ErrorKind::IndexOutOfRange, op.position(), &[here[0], here[1], (field, None)]))
            }
        }
    }

    /// TFLite's dataflow rule for outputs: no operator writes a constant, a variable, a
    /// subgraph input, or a tensor an earlier operator wrote (which would be a cycle). Inputs
    /// nothing produces are only warnings (see [`Warning::UnproducedInput`]).
    fn dataflow(&mut self, s: usize, sg: &M::SubGraph, ops: &TableVector<'a, M::Operator>, count: usize) -> Checked {
        // The walk's other quantities (inputs and outputs) were charged by `indices_in_range`.
        self.charge(count)?;
        match dataflow(self.model, sg, ops, count, |_| Ok(()), |_, _| {}) {
            Ok(()) => Ok(()),
            Err(Stop::Budget(e)) => Err(e),
            Err(Stop::ProducedTwice { op, output, at }) => {
                let path = [(&SUBGRAPHS, Some(s)), (&OPERATORS, Some(op)), (&OUTPUTS, Some(output))];
                Err(self.rule("operator output is a constant, a variable, an input or produced twice", at, &path))
            }
        }
    }

    /// Control-flow operators must not call their own subgraph, directly or not: a runtime
    /// would recurse forever (CVE-2021-29591). Kahn's algorithm over the call graph: if no
    /// order of the subgraphs puts every callee after its callers, there is a cycle. Callees are
    /// read from the operators again rather than stored, so this needs only two numbers per
    /// subgraph.
    fn no_call_cycles(&mut self, subgraphs: &TableVector<'a, M::SubGraph>) -> Checked {
        let n = subgraphs.len();
        let (Some(mut indegree), Some(mut ready)) = (Scratch::<u32, 256>::new(n, 0), Scratch::<u32, 256>::new(n, 0))
        else {
            return Ok(()); // more subgraphs than fit without a heap: not checked
        };
        let (indegree, ready) = (indegree.as_mut_slice(), ready.as_mut_slice());
        let callees = |sg: &M::SubGraph, f: &mut dyn FnMut(usize)| {
            for op in sg.operators().into_iter().flat_map(|v| v.iter()) {
                M::called_subgraphs(&op, &mut |callee, _| {
                    if let Ok(c) = usize::try_from(callee) {
                        f(c);
                    }
                });
            }
        };
        for sg in subgraphs.iter() {
            self.charge(sg.operators().map_or(0, |o| o.len()).saturating_mul(2))?;
            callees(&sg, &mut |c| {
                if let Some(d) = indegree.get_mut(c) {
                    *d = d.saturating_add(1);
                }
            });
        }
        let mut pending = 0usize;
        for (s, &d) in indegree.iter().enumerate() {
            if d == 0 {
                if let (Some(slot), Ok(s)) = (ready.get_mut(pending), u32::try_from(s)) {
                    *slot = s;
                    pending = pending.saturating_add(1);
                }
            }
        }
        let mut ordered = 0usize;
        while let Some(s) = pending.checked_sub(1).and_then(|top| ready.get(top).copied()) {
            pending = pending.saturating_sub(1);
            ordered = ordered.saturating_add(1);
            let Some(sg) = subgraphs.get(s as usize) else { continue };
            callees(&sg, &mut |c| {
                if let Some(d) = indegree.get_mut(c) {
                    *d = d.saturating_sub(1);
                    if *d == 0 {
                        if let (Some(slot), Ok(c)) = (ready.get_mut(pending), u32::try_from(c)) {
                            *slot = c;
                            pending = pending.saturating_add(1);
                        }
                    }
                }
            });
        }
        if ordered != n {
            return Err(self.rule("control-flow subgraphs call each other in a cycle", 0, &[(&SUBGRAPHS, None)]));
        }
        Ok(())
    }
}

/// The rule text for a wrong `Model.version`.
fn version_rule(version: u32) -> &'static str {
    match version {
        0 => "Model.version must be 0",
        3 => "Model.version must be 3",
        _ => "Model.version is not the format's",
    }
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
/// holds a value. `charge` is called with each operator's work (one plus its inputs and
/// outputs); the tensors and the subgraph's inputs are the caller's to charge.
fn dataflow<'a, M: ModelView<'a>>(
    model: M,
    sg: &M::SubGraph,
    ops: &TableVector<'a, M::Operator>,
    count: usize,
    mut charge: impl FnMut(usize) -> Checked,
    mut unproduced: impl FnMut(usize, usize),
) -> Result<(), Stop> {
    let Some(mut available) = BitSet::new(count) else {
        return Ok(()); // more tensors than fit without a heap: not checked
    };
    for (t, tensor) in sg.tensors().into_iter().flat_map(|v| v.iter()).enumerate() {
        let buffer = usize::try_from(tensor.buffer()).ok().and_then(|b| model.buffer_ref(b));
        let constant = tensor.buffer() != 0 && buffer.is_some_and(|b| b.data.is_some() || b.offset > 1);
        if constant || tensor.is_variable() {
            available.insert(t);
        }
    }
    for i in sg.inputs().into_iter().flat_map(|v| v.iter()) {
        if let Ok(i) = usize::try_from(i) {
            available.insert(i);
        }
    }
    for (o, op) in ops.iter().enumerate() {
        let (inputs, outputs) = (op.inputs(), op.outputs());
        let units = inputs.map_or(0, |v| v.len()).saturating_add(outputs.map_or(0, |v| v.len()));
        charge(units.saturating_add(1)).map_err(Stop::Budget)?;
        for (j, input) in inputs.into_iter().flat_map(|v| v.iter()).enumerate() {
            let held = input == -1 || usize::try_from(input).is_ok_and(|i| available.contains(i));
            if !held {
                unproduced(o, j);
            }
        }
        for (j, output) in outputs.into_iter().flat_map(|v| v.iter()).enumerate() {
            let Ok(output) = usize::try_from(output) else { continue };
            if available.contains(output) {
                return Err(Stop::ProducedTwice { op: o, output: j, at: op.position() });
            }
            available.insert(output);
        }
    }
    Ok(())
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
    if table_end > data.len() as u64 || read(1) != Some(table_end) {
        return false;
    }
    let mut previous = table_end;
    let count = usize::try_from(n).unwrap_or(usize::MAX);
    for i in 1..=count {
        let Some(off) = i.checked_add(1).and_then(read) else { return false };
        if off < previous || off > data.len() as u64 {
            return false;
        }
        previous = off;
    }
    previous == data.len() as u64
}
