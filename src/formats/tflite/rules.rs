//! The model-level rules TFLite readers enforce (FORMATS.md 1.2-1.6), and the ones a careful
//! reader adds: index ranges, external data ranges, quantization and sparsity consistency,
//! signature indices, metadata buffers, and control-flow subgraph indices without cycles.
//!
//! The checks walk the model as a runtime would load it, so a file whose tables are shared by
//! many offsets is a large model; the walk is charged against the same apparent-size budget as
//! the structural verifier, which keeps the work linear in the file size.

use super::scratch::{BitSet, Scratch};
use super::{BuiltinOperator, Model, Operator, SubGraph, Tensor, TensorType};
use super::{BuiltinOptions, BuiltinOptions2, DimensionType, SparseIndexVector, SparsityParameters};
use crate::error::{Error, ErrorKind, Location};
use crate::verify::{Name, Options};
use crate::wire::Vector;

macro_rules! names {
    ($($id:ident = $s:literal),* $(,)?) => {$(static $id: &str = $s;)*};
}

names! {
    MODEL = "Model", VERSION = "version", SUBGRAPHS = "subgraphs", BUFFERS = "buffers",
    OPERATORS = "operators", INPUTS = "inputs", OUTPUTS = "outputs", INTERMEDIATES = "intermediates",
    TENSORS = "tensors", BUFFER = "buffer", OPCODE_INDEX = "opcode_index", OPERATOR_CODES = "operator_codes",
    CUSTOM_CODE = "custom_code", QUANTIZATION = "quantization", SCALE = "scale", ZERO_POINT = "zero_point",
    QUANTIZED_DIMENSION = "quantized_dimension", SPARSITY = "sparsity", SIGNATURE_DEFS = "signature_defs",
    SUBGRAPH_INDEX = "subgraph_index", TENSOR_INDEX = "tensor_index", METADATA = "metadata",
    OFFSET = "offset", BUILTIN_OPTIONS = "builtin_options",
    BUILTIN_OPTIONS_2 = "builtin_options_2", DIM_METADATA = "dim_metadata",
    TRAVERSAL_ORDER = "traversal_order", IS_VARIABLE = "is_variable", DETAILS = "details",
}

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
type Step = (Name, Option<usize>);

struct Checker<'a> {
    model: Model<'a>,
    buffers: usize,
    work: u64,
    budget: u64,
}

/// Checks every rule; the first broken one is the error.
pub(crate) fn check(model: Model<'_>, options: &Options) -> Result<(), Error> {
    let mut c = Checker {
        model,
        buffers: model.buffers().map_or(0, |b| b.len()),
        work: 0,
        budget: options.apparent_size_budget(model.file().len()),
    };
    c.model_rules()?;
    let Some(subgraphs) = model.subgraphs() else {
        return Err(c.rule("a model needs subgraphs", 0, &[(&SUBGRAPHS, None)]));
    };
    for (s, subgraph) in subgraphs.iter().enumerate() {
        c.subgraph_rules(s, &subgraph, subgraphs.len())?;
    }
    c.signature_rules(&subgraphs)?;
    c.no_call_cycles(&subgraphs)?;
    Ok(())
}

/// Calls `f` for each advisory finding of `model` (a model that passed [`check`]).
pub(crate) fn warnings(model: Model<'_>, mut f: impl FnMut(Warning)) {
    for (s, sg) in model.subgraphs().into_iter().flat_map(|v| v.iter()).enumerate() {
        let count = sg.tensors().map_or(0, |t| t.len());
        let Some(ops) = sg.operators() else { continue };
        let _ = dataflow(model, &sg, &ops, count, |o, j| {
            let index = |i: usize| u32::try_from(i).unwrap_or(u32::MAX);
            f(Warning::UnproducedInput { subgraph: index(s), operator: index(o), input: index(j) });
        });
    }
    if model.buffer_data(0).is_ok_and(|d| !d.is_empty()) {
        f(Warning::SentinelBufferNotEmpty);
    }
    if let Some(meta) = model.metadata() {
        let names = || meta.iter().filter_map(|m| m.name());
        let duplicate = names().enumerate().any(|(i, a)| names().skip(i.saturating_add(1)).take(64).any(|b| a == b));
        if duplicate {
            f(Warning::DuplicateMetadataName);
        }
    }
}

impl<'a> Checker<'a> {
    /// An error of `kind` at `offset`, at `Model.<path>`.
    #[cold]
    fn error(&self, kind: ErrorKind, offset: usize, path: &[Step]) -> Error {
        self.error_at(kind, offset, path, None)
    }

    /// An error at `Model.<path>`, element `element` of the innermost step when given.
    #[cold]
    fn error_at(&self, kind: ErrorKind, offset: usize, path: &[Step], element: Option<usize>) -> Error {
        let mut location = Location::at(&MODEL);
        for (depth, (name, index)) in path.iter().rev().enumerate() {
            let index = if depth == 0 { element.or(*index) } else { *index };
            location.push_outer(name, index.and_then(|i| u32::try_from(i).ok()));
        }
        Error::new(kind, offset as u64, location)
    }

    #[cold]
    fn rule(&self, rule: &'static str, offset: usize, path: &[Step]) -> Error {
        self.error(ErrorKind::Rule(rule), offset, path)
    }

    fn charge(&mut self, units: usize) -> Result<(), Error> {
        self.work = self.work.saturating_add(units as u64);
        if self.work > self.budget {
            return Err(self.error(ErrorKind::ApparentSizeLimit, 0, &[]));
        }
        Ok(())
    }

    fn model_rules(&mut self) -> Result<(), Error> {
        let m = self.model;
        if m.version() != 3 {
            return Err(self.rule("Model.version must be 3", m.raw().position(), &[(&VERSION, None)]));
        }
        let Some(buffers) = m.buffers() else {
            return Err(self.rule("a model needs buffers", m.raw().position(), &[(&BUFFERS, None)]));
        };
        self.charge(buffers.len())?;
        for (i, buffer) in buffers.iter().enumerate() {
            if buffer.data().is_none() && buffer.offset() > 1 {
                let in_file = super::model::external_range(m.file(), buffer.offset(), buffer.size()).is_some();
                if !in_file {
                    let at = usize::try_from(buffer.offset()).unwrap_or(usize::MAX);
                    return Err(self.error(ErrorKind::OutOfBounds, at, &[(&BUFFERS, Some(i)), (&OFFSET, None)]));
                }
            }
        }
        for (i, meta) in m.metadata().into_iter().flat_map(|v| v.iter()).enumerate() {
            self.charge(1)?;
            if usize::try_from(meta.buffer()).map_or(true, |b| b >= self.buffers) {
                let path = [(&METADATA, Some(i)), (&BUFFER, None)];
                return Err(self.error(ErrorKind::IndexOutOfRange, meta.raw().position(), &path));
            }
        }
        for (i, code) in m.operator_codes().into_iter().flat_map(|v| v.iter()).enumerate() {
            self.charge(1)?;
            if code.builtin_operator() == BuiltinOperator::CUSTOM && code.custom_code().is_none_or(str::is_empty) {
                let path = [(&OPERATOR_CODES, Some(i)), (&CUSTOM_CODE, None)];
                return Err(self.rule("a CUSTOM operator needs a custom_code", code.raw().position(), &path));
            }
        }
        if m.subgraphs().is_some_and(|s| s.is_empty()) {
            return Err(self.rule("a model needs at least one subgraph", m.raw().position(), &[(&SUBGRAPHS, None)]));
        }
        Ok(())
    }

    fn subgraph_rules(&mut self, s: usize, sg: &SubGraph<'a>, subgraphs: usize) -> Result<(), Error> {
        let tensors = sg.tensors();
        let count = tensors.map_or(0, |t| t.len());
        let at = sg.raw().position();
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
        let codes = self.model.operator_codes().map_or(0, |c| c.len());
        for (o, op) in ops.iter().enumerate() {
            self.charge(1)?;
            let here = [(&SUBGRAPHS, Some(s)), (&OPERATORS, Some(o))];
            let op_at = op.raw().position();
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
            self.called_subgraphs_in_range(&op, subgraphs, &here)?;
        }
        self.dataflow(s, sg, &ops, count)?;
        Ok(())
    }

    /// Every index is -1 (an omitted optional tensor) or names one of `count` tensors.
    fn indices_in_range(
        &mut self,
        list: Option<Vector<'a, i32>>,
        count: usize,
        at: usize,
        path: &[Step],
    ) -> Result<(), Error> {
        let Some(list) = list else { return Ok(()) };
        self.charge(list.len())?;
        for (i, index) in list.iter().enumerate() {
            if index != -1 && usize::try_from(index).map_or(true, |x| x >= count) {
                return Err(self.error_at(ErrorKind::IndexOutOfRange, at, path, Some(i)));
            }
        }
        Ok(())
    }

    fn tensor_rules(&mut self, tensor: &Tensor<'a>, count: usize, here: &[Step; 2]) -> Result<(), Error> {
        let at = tensor.raw().position();
        let buffer = tensor.buffer();
        if usize::try_from(buffer).map_or(true, |b| b >= self.buffers) {
            return Err(self.error(ErrorKind::IndexOutOfRange, at, &[here[0], here[1], (&BUFFER, None)]));
        }
        let data = self.model.tensor_data(tensor)?;
        let shape = tensor.shape();
        if let Some(q) = tensor.quantization() {
            self.quantization_rules(&q, shape, count, at, here)?;
        }
        if tensor.is_variable() && !data.is_empty() {
            return Err(self.rule(
                "a variable tensor cannot have constant data",
                at,
                &[here[0], here[1], (&IS_VARIABLE, None)],
            ));
        }
        if data.is_empty() || tensor.external_buffer() != 0 {
            return Ok(());
        }
        let data_path = [here[0], here[1], (&BUFFER, None)];
        if let Some(sparsity) = tensor.sparsity() {
            return self.sparsity_rules(&sparsity, shape, tensor.type_(), data.len(), at, here);
        }
        let Some(shape) = shape else { return Ok(()) };
        self.charge(shape.len())?;
        if tensor.type_() == TensorType::STRING {
            return if string_layout_ok(data) {
                Ok(())
            } else {
                Err(self.rule("STRING tensor data has a malformed offset table", at, &data_path))
            };
        }
        let Some(elem) = super::element_size(tensor.type_()) else { return Ok(()) };
        let expected = shape.iter().try_fold(elem, |acc, d| acc.checked_mul(u64::try_from(d).ok()?));
        if expected != Some(data.len() as u64) {
            return Err(self.rule("tensor data size does not match its shape and type", at, &data_path));
        }
        Ok(())
    }

    fn quantization_rules(
        &mut self,
        q: &super::QuantizationParameters<'a>,
        shape: Option<Vector<'a, i32>>,
        count: usize,
        at: usize,
        here: &[Step; 2],
    ) -> Result<(), Error> {
        let path = |f: Name| [here[0], here[1], (&QUANTIZATION, None), (f, None)];
        // Block-wise and multi-axis details name other tensors of the subgraph (-1: none).
        let named = match q.details() {
            super::QuantizationDetails::BlockwiseQuantization(b) => Some((b.scales(), b.zero_points())),
            super::QuantizationDetails::MultiAxisQuantization(m) => Some((m.scales(), m.zero_points())),
            _ => None,
        };
        if let Some((scales, zero_points)) = named {
            let valid = |i: i32| usize::try_from(i).is_ok_and(|i| i < count);
            if !valid(scales) || (zero_points != -1 && !valid(zero_points)) {
                return Err(self.error(ErrorKind::IndexOutOfRange, at, &path(&DETAILS)));
            }
        }
        let Some(scale) = q.scale().filter(|s| !s.is_empty()) else { return Ok(()) };
        let Some(zero_point) = q.zero_point() else {
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
        let dim = usize::try_from(q.quantized_dimension()).ok().filter(|&d| d < rank);
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

    fn sparsity_rules(
        &mut self,
        sp: &SparsityParameters<'a>,
        shape: Option<Vector<'a, i32>>,
        ty: TensorType,
        data_len: usize,
        at: usize,
        here: &[Step; 2],
    ) -> Result<(), Error> {
        let path = |f: Name| [here[0], here[1], (&SPARSITY, None), (f, None)];
        let (Some(order), Some(dims)) = (sp.traversal_order(), sp.dim_metadata()) else {
            return Err(self.rule("sparsity needs traversal_order and dim_metadata", at, &path(&TRAVERSAL_ORDER)));
        };
        let rank = shape.map_or(0, |s| s.len());
        let total = order.len();
        self.charge(total.saturating_mul(2))?;
        if dims.len() != total || total < rank {
            return Err(self.rule("dim_metadata and traversal_order lengths disagree", at, &path(&DIM_METADATA)));
        }
        if total > 64 {
            return Err(self.rule("sparsity has more than 64 traversed dimensions", at, &path(&TRAVERSAL_ORDER)));
        }
        let block = total.saturating_sub(rank);
        let block_map = sp.block_map();
        if block > 0 && block_map.map_or(0, |b| b.len()) != block {
            return Err(self.rule("block_map length must equal the block rank", at, &path(&TRAVERSAL_ORDER)));
        }
        // The first `rank` entries permute 0..rank, the rest permute rank..total.
        if !is_permutation(&order, 0, rank) || !is_permutation(&order, rank, total) {
            return Err(self.rule("traversal_order is not a permutation", at, &path(&TRAVERSAL_ORDER)));
        }
        // The dense extent of the dimension traversed at level `k` (for block levels, the
        // block size itself, which its own dense_size gives).
        let level_of =
            |value: usize| (0..total).find(|&j| order.get(j).and_then(|o| usize::try_from(o).ok()) == Some(value));
        let extent = |k: usize| -> Option<u64> {
            let d = usize::try_from(order.get(k)?).ok()?;
            if d >= rank {
                return u64::try_from(dims.get(k)?.dense_size()).ok();
            }
            let full = u64::try_from(shape?.get(d)?).ok()?;
            match block_map.and_then(|m| m.iter().position(|x| usize::try_from(x).ok() == Some(d))) {
                Some(b) => {
                    let inner = dims.get(level_of(rank.checked_add(b)?)?)?.dense_size();
                    full.checked_div(u64::try_from(inner).ok()?)
                }
                None => Some(full),
            }
        };
        let mut count: u64 = 1;
        for (k, dm) in dims.iter().enumerate() {
            let dim_extent = extent(k);
            match dm.format() {
                DimensionType::DENSE => {
                    let size = u64::try_from(dm.dense_size()).ok();
                    if size.is_none_or(|s| s == 0) || (k < rank && dim_extent.is_some() && size != dim_extent) {
                        return Err(self.rule(
                            "DENSE dimension size disagrees with the shape",
                            at,
                            &path(&DIM_METADATA),
                        ));
                    }
                    count = count.saturating_mul(size.unwrap_or(0));
                }
                DimensionType::SPARSE_CSR => {
                    let next = self
                        .csr_rules(&dm, count, dim_extent.unwrap_or(u64::MAX))
                        .map_err(|rule| self.rule(rule, at, &path(&DIM_METADATA)))?;
                    count = next;
                }
                _ => return Err(self.rule("unknown DimensionType", at, &path(&DIM_METADATA))),
            }
        }
        let expected = super::element_size(ty).and_then(|e| count.checked_mul(e));
        if expected.is_some_and(|e| e != data_len as u64) {
            return Err(self.rule(
                "sparse tensor data size does not match its sparsity",
                at,
                &[here[0], here[1], (&BUFFER, None)],
            ));
        }
        Ok(())
    }

    /// Checks one SPARSE_CSR level over `parents` elements; returns the element count after it.
    fn csr_rules(&mut self, dm: &super::DimensionMetadata<'a>, parents: u64, dim: u64) -> Result<u64, &'static str> {
        let segments = index_values(dm.array_segments()).ok_or("SPARSE_CSR needs array_segments")?;
        let indices = index_values(dm.array_indices()).ok_or("SPARSE_CSR needs array_indices")?;
        self.charge(segments.len().saturating_add(indices.len())).map_err(|_| "sparsity too large")?;
        if segments.len() as u64 != parents.saturating_add(1) {
            return Err("array_segments length must be the element count plus one");
        }
        let mut previous = 0i64;
        for s in segments.iter() {
            if s < previous {
                return Err("array_segments must be non-negative and non-decreasing");
            }
            previous = s;
        }
        if u64::try_from(previous).ok() != Some(indices.len() as u64) {
            return Err("array_indices length must equal the last segment");
        }
        if indices.iter().any(|i| u64::try_from(i).map_or(true, |i| i >= dim)) {
            return Err("array_indices out of the dimension's range");
        }
        Ok(indices.len() as u64)
    }

    fn called_subgraphs_in_range(
        &mut self,
        op: &Operator<'a>,
        subgraphs: usize,
        here: &[Step; 2],
    ) -> Result<(), Error> {
        let mut bad = None;
        for_each_called_subgraph(op, |index, second| {
            if bad.is_none() && usize::try_from(index).map_or(true, |i| i >= subgraphs) {
                bad = Some(second);
            }
        });
        match bad {
            None => Ok(()),
            Some(second) => {
                let field = if second { &BUILTIN_OPTIONS_2 } else { &BUILTIN_OPTIONS };
                Err(self.error(ErrorKind::IndexOutOfRange, op.raw().position(), &[here[0], here[1], (field, None)]))
            }
        }
    }

    fn signature_rules(&mut self, subgraphs: &crate::wire::TableVector<'a, SubGraph<'a>>) -> Result<(), Error> {
        for (i, sig) in self.model.signature_defs().into_iter().flat_map(|v| v.iter()).enumerate() {
            self.charge(1)?;
            let here = (&SIGNATURE_DEFS, Some(i));
            let Some(sg) = usize::try_from(sig.subgraph_index()).ok().and_then(|s| subgraphs.get(s)) else {
                return Err(self.error(
                    ErrorKind::IndexOutOfRange,
                    sig.raw().position(),
                    &[here, (&SUBGRAPH_INDEX, None)],
                ));
            };
            let count = sg.tensors().map_or(0, |t| t.len());
            for (field, maps) in [(&INPUTS, sig.inputs()), (&OUTPUTS, sig.outputs())] {
                for (j, map) in maps.into_iter().flat_map(|v| v.iter()).enumerate() {
                    self.charge(1)?;
                    if usize::try_from(map.tensor_index()).map_or(true, |t| t >= count) {
                        let path = [here, (field, Some(j)), (&TENSOR_INDEX, None)];
                        return Err(self.error(ErrorKind::IndexOutOfRange, map.raw().position(), &path));
                    }
                }
            }
        }
        Ok(())
    }
}

impl<'a> Checker<'a> {
    /// TFLite's dataflow rule for outputs: no operator writes a constant, a variable, a
    /// subgraph input, or a tensor an earlier operator wrote (which would be a cycle). Inputs
    /// nothing produces are only warnings (see [`Warning::UnproducedInput`]).
    fn dataflow(
        &mut self,
        s: usize,
        sg: &SubGraph<'a>,
        ops: &crate::wire::TableVector<'a, Operator<'a>>,
        count: usize,
    ) -> Result<(), Error> {
        self.charge(count)?;
        dataflow(self.model, sg, ops, count, |_, _| {}).map_err(|(o, j, at)| {
            let path = [(&SUBGRAPHS, Some(s)), (&OPERATORS, Some(o)), (&OUTPUTS, Some(j))];
            self.rule("operator output is a constant, a variable, an input or produced twice", at, &path)
        })
    }

    /// Control-flow operators must not call their own subgraph, directly or not: a runtime
    /// would recurse forever (CVE-2021-29591). Kahn's algorithm over the call graph: if no
    /// order of the subgraphs puts every callee after its callers, there is a cycle. Callees are
    /// read from the operators again rather than stored, so this needs only two numbers per
    /// subgraph.
    fn no_call_cycles(&mut self, subgraphs: &crate::wire::TableVector<'a, SubGraph<'a>>) -> Result<(), Error> {
        let n = subgraphs.len();
        let (Some(mut indegree), Some(mut ready)) = (Scratch::<u32, 256>::new(n, 0), Scratch::<u32, 256>::new(n, 0))
        else {
            return Ok(()); // more subgraphs than fit without a heap: not checked
        };
        let (indegree, ready) = (indegree.as_mut_slice(), ready.as_mut_slice());
        let callees = |sg: &SubGraph<'a>, f: &mut dyn FnMut(usize)| {
            for op in sg.operators().into_iter().flat_map(|v| v.iter()) {
                for_each_called_subgraph(&op, |callee, _| {
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

/// Walks the operators of `sg` in order, tracking which tensors hold values: constants,
/// variables and subgraph inputs from the start, then each operator's outputs. Calls
/// `unproduced(op, input)` for inputs that hold nothing yet; fails with `(op, output, offset)` on
/// an output that already holds a value.
fn dataflow<'a>(
    model: Model<'a>,
    sg: &SubGraph<'a>,
    ops: &crate::wire::TableVector<'a, Operator<'a>>,
    count: usize,
    mut unproduced: impl FnMut(usize, usize),
) -> Result<(), (usize, usize, usize)> {
    let Some(mut available) = BitSet::new(count) else {
        return Ok(()); // more tensors than fit without a heap: not checked
    };
    let buffers = model.buffers();
    for (t, tensor) in sg.tensors().into_iter().flat_map(|v| v.iter()).enumerate() {
        let buffer = buffers.and_then(|b| b.get(usize::try_from(tensor.buffer()).ok()?));
        let constant = tensor.buffer() != 0 && buffer.is_some_and(|b| b.data().is_some() || b.offset() > 1);
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
        for (j, input) in op.inputs().into_iter().flat_map(|v| v.iter()).enumerate() {
            let held = input == -1 || usize::try_from(input).is_ok_and(|i| available.contains(i));
            if !held {
                unproduced(o, j);
            }
        }
        for (j, output) in op.outputs().into_iter().flat_map(|v| v.iter()).enumerate() {
            let Ok(output) = usize::try_from(output) else { continue };
            if available.contains(output) {
                return Err((o, j, op.raw().position()));
            }
            available.insert(output);
        }
    }
    Ok(())
}

/// Calls `f(subgraph_index, in_builtin_options_2)` for every subgraph `op` calls.
fn for_each_called_subgraph(op: &Operator<'_>, mut f: impl FnMut(i64, bool)) {
    match op.builtin_options() {
        BuiltinOptions::CallOptions(o) => f(i64::from(o.subgraph()), false),
        BuiltinOptions::IfOptions(o) => {
            f(i64::from(o.then_subgraph_index()), false);
            f(i64::from(o.else_subgraph_index()), false);
        }
        BuiltinOptions::WhileOptions(o) => {
            f(i64::from(o.cond_subgraph_index()), false);
            f(i64::from(o.body_subgraph_index()), false);
        }
        BuiltinOptions::CallOnceOptions(o) => f(i64::from(o.init_subgraph_index()), false),
        _ => {}
    }
    match op.builtin_options_2() {
        BuiltinOptions2::StablehloWhileOptions(o) => {
            f(i64::from(o.cond_subgraph_index()), true);
            f(i64::from(o.body_subgraph_index()), true);
        }
        BuiltinOptions2::StablehloSortOptions(o) => f(i64::from(o.comparator_subgraph_index()), true),
        BuiltinOptions2::StablehloReduceOptions(o) => f(i64::from(o.body_subgraph_index()), true),
        BuiltinOptions2::StablehloReduceWindowOptions(o) => f(i64::from(o.body_subgraph_index()), true),
        BuiltinOptions2::StablehloScatterOptions(o) => f(i64::from(o.update_computation_subgraph_index()), true),
        BuiltinOptions2::StablehloCustomCallOptions(o) => {
            for c in o.called_computations().into_iter().flat_map(|v| v.iter()) {
                f(i64::from(c), true);
            }
        }
        BuiltinOptions2::StableHLOCompositeOptions(o) => f(i64::from(o.decomposition_subgraph_index()), true),
        BuiltinOptions2::StablehloCaseOptions(o) => {
            for c in o.branch_subgraph_indices().into_iter().flat_map(|v| v.iter()) {
                f(i64::from(c), true);
            }
        }
        _ => {}
    }
}

/// Whether `order[from..to]` is a permutation of `from..to` (spans of at most 64).
fn is_permutation(order: &Vector<'_, i32>, from: usize, to: usize) -> bool {
    let mut seen = 0u64;
    for k in from..to {
        let Some(v) = order.get(k).and_then(|v| usize::try_from(v).ok()) else { return false };
        let Some(bit) = v.checked_sub(from).filter(|&b| v < to && b < 64) else { return false };
        let mask = 1u64 << bit;
        if seen & mask != 0 {
            return false;
        }
        seen |= mask;
    }
    true
}

/// The values of a sparse index vector, widened.
fn index_values<'a>(v: SparseIndexVector<'a>) -> Option<IndexValues<'a>> {
    match v {
        SparseIndexVector::Int32Vector(t) => t.values().map(IndexValues::I32),
        SparseIndexVector::Uint16Vector(t) => t.values().map(IndexValues::U16),
        SparseIndexVector::Uint8Vector(t) => t.values().map(IndexValues::U8),
        _ => None,
    }
}

#[derive(Clone, Copy)]
enum IndexValues<'a> {
    I32(Vector<'a, i32>),
    U16(Vector<'a, u16>),
    U8(Vector<'a, u8>),
}

impl<'a> IndexValues<'a> {
    fn len(&self) -> usize {
        match self {
            IndexValues::I32(v) => v.len(),
            IndexValues::U16(v) => v.len(),
            IndexValues::U8(v) => v.len(),
        }
    }

    fn iter(&self) -> impl Iterator<Item = i64> + 'a {
        let (a, b, c) = match *self {
            IndexValues::I32(v) => (Some(v), None, None),
            IndexValues::U16(v) => (None, Some(v), None),
            IndexValues::U8(v) => (None, None, Some(v)),
        };
        let a = a.into_iter().flat_map(|v| v.iter()).map(i64::from);
        let b = b.into_iter().flat_map(|v| v.iter()).map(i64::from);
        let c = c.into_iter().flat_map(|v| v.iter()).map(i64::from);
        a.chain(b).chain(c)
    }
}

/// TFLite's STRING data layout: `[u32 n][u32 offsets x (n+1)][bytes]`, offsets starting right
/// after the table, non-decreasing, the last equal to the data size.
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
