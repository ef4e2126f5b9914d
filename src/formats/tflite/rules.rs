//! The model rules only TFLite has, on top of the shared ones in `crate::graph`: metadata,
//! block-wise quantization details, sparsity, external buffers, signatures, and the
//! control-flow options that call subgraphs.

use super::{BlockwiseQuantization, MultiAxisQuantization};
use super::{BuiltinOperator, Model, Operator, QuantizationDetails, SubGraph, Tensor};
use super::{BuiltinOptions, BuiltinOptions2, DimensionType, SparseIndexVector, SparsityParameters};
use super::{CallOnceOptions, CallOptions, IfOptions, WhileOptions};
use super::{StableHLOCompositeOptions, StablehloCaseOptions, StablehloCustomCallOptions, StablehloReduceOptions};
use super::{StablehloReduceWindowOptions, StablehloScatterOptions, StablehloSortOptions, StablehloWhileOptions};
use crate::error::ErrorKind;
use crate::graph::{Checked, Checker, FormatRules, Step, Warning};
use crate::verify::Name;
use crate::wire::{TableVector, Vector};

macro_rules! names {
    ($($id:ident = $s:literal),* $(,)?) => {$(static $id: &str = $s;)*};
}

names! {
    INPUTS = "inputs", OUTPUTS = "outputs", BUFFER = "buffer", QUANTIZATION = "quantization",
    SPARSITY = "sparsity", SIGNATURE_DEFS = "signature_defs", SUBGRAPH_INDEX = "subgraph_index",
    TENSOR_INDEX = "tensor_index", METADATA = "metadata", BUILTIN_OPTIONS = "builtin_options",
    BUILTIN_OPTIONS_2 = "builtin_options_2", DIM_METADATA = "dim_metadata",
    TRAVERSAL_ORDER = "traversal_order", DETAILS = "details",
}

impl<'a> FormatRules<'a> for Model<'a> {
    const VERSION: u32 = 3;

    fn custom_without_code(&self, index: usize) -> bool {
        let code = self.operator_codes().and_then(|c| c.get(index));
        code.is_some_and(|c| {
            c.builtin_operator() == BuiltinOperator::CUSTOM && c.custom_code().unwrap_or("").is_empty()
        })
    }

    fn element_size(tensor: &Tensor<'a>) -> (i8, Option<u64>) {
        let t = tensor.type_();
        (t.0, super::element_size(t))
    }

    fn model_rules(&self, c: &mut Checker<'a, Self>) -> Checked {
        let count = self.metadata().map_or(0, |m| m.len());
        for (i, meta) in self.metadata().into_iter().flat_map(|v| v.iter()).enumerate() {
            // The entry, and what the warnings' duplicate-name scan may spend on it.
            c.charge(duplicate_scan_cost(count, i, meta.name()).saturating_add(1))?;
            if usize::try_from(meta.buffer()).map_or(true, |b| b >= c.buffers()) {
                let path = [(&METADATA, Some(i)), (&BUFFER, None)];
                return Err(c.error(ErrorKind::IndexOutOfRange, meta.raw().position(), &path));
            }
        }
        Ok(())
    }

    /// Block-wise and multi-axis details name other tensors of the subgraph (-1: none).
    fn quantization_rules(
        &self,
        c: &mut Checker<'a, Self>,
        tensor: &Tensor<'a>,
        count: usize,
        at: usize,
        here: &[Step; 2],
    ) -> Checked {
        let Some(q) = Tensor::quantization(tensor) else { return Ok(()) };
        let (table, tag) = (q.raw(), q.details_type());
        let named = match table.union_member::<QuantizationDetails, BlockwiseQuantization>(DETAILS_SLOT, tag) {
            Some(b) => Some((b.scales(), b.zero_points())),
            None => table
                .union_member::<QuantizationDetails, MultiAxisQuantization>(DETAILS_SLOT, tag)
                .map(|m| (m.scales(), m.zero_points())),
        };
        if let Some((scales, zero_points)) = named {
            let valid = |i: i32| usize::try_from(i).is_ok_and(|i| i < count);
            if !valid(scales) || (zero_points != -1 && !valid(zero_points)) {
                let path = [here[0], here[1], (&QUANTIZATION, None), (&DETAILS, None)];
                return Err(c.error(ErrorKind::IndexOutOfRange, at, &path));
            }
        }
        Ok(())
    }

    /// Data in an external buffer is not in the file; sparse data follows its sparsity.
    fn data_rules(
        &self,
        c: &mut Checker<'a, Self>,
        tensor: &Tensor<'a>,
        data: &[u8],
        here: &[Step; 2],
    ) -> Checked<bool> {
        if tensor.external_buffer() != 0 {
            return Ok(true);
        }
        let Some(sparsity) = tensor.sparsity() else { return Ok(false) };
        let at = tensor.raw().position();
        sparsity_rules(c, &sparsity, Tensor::shape(tensor), super::element_size(tensor.type_()), data.len(), at, here)?;
        Ok(true)
    }

    fn called_subgraphs(op: &Operator<'a>, f: &mut dyn FnMut(i64, Name)) {
        for_each_called_subgraph(op, f);
    }

    fn graph_rules(&self, c: &mut Checker<'a, Self>, subgraphs: &TableVector<'a, SubGraph<'a>>) -> Checked {
        signature_rules(*self, c, subgraphs)
    }

    /// Metadata names repeated within [`DUPLICATE_WINDOW`] entries, each entry charged as
    /// `model_rules` charged it.
    fn warnings(&self, c: &mut Checker<'a, Self>, f: &mut dyn FnMut(Warning)) -> Checked {
        let Some(meta) = self.metadata() else { return Ok(()) };
        let name = |i: usize| meta.get(i).and_then(|m| m.name());
        for i in 0..meta.len() {
            let a = name(i);
            c.charge(duplicate_scan_cost(meta.len(), i, a))?;
            let Some(a) = a else { continue };
            let later = i.saturating_add(1)..i.saturating_add(DUPLICATE_WINDOW).saturating_add(1).min(meta.len());
            if later.into_iter().any(|j| name(j) == Some(a)) {
                f(Warning::DuplicateMetadataName);
                break;
            }
        }
        Ok(())
    }
}

/// How many later metadata entries each name is compared with when looking for duplicates.
const DUPLICATE_WINDOW: usize = 64;

/// The work of comparing entry `i` of `count` metadata entries, named `name`, with the later
/// ones in its window: a unit per comparison plus one per 16 bytes of the name.
fn duplicate_scan_cost(count: usize, i: usize, name: Option<&str>) -> usize {
    let Some(name) = name else { return 0 };
    let compared = count.saturating_sub(i.saturating_add(1)).min(DUPLICATE_WINDOW);
    compared.saturating_mul((name.len() / 16).saturating_add(1))
}

fn sparsity_rules<'a>(
    c: &mut Checker<'a, Model<'a>>,
    sp: &SparsityParameters<'a>,
    shape: Option<Vector<'a, i32>>,
    element_size: Option<u64>,
    data_len: usize,
    at: usize,
    here: &[Step; 2],
) -> Checked {
    let path = |f: Name| [here[0], here[1], (&SPARSITY, None), (f, None)];
    let (Some(order), Some(dims)) = (sp.traversal_order(), sp.dim_metadata()) else {
        return Err(c.rule("sparsity needs traversal_order and dim_metadata", at, &path(&TRAVERSAL_ORDER)));
    };
    let rank = shape.map_or(0, |s| s.len());
    let total = order.len();
    c.charge(total.saturating_mul(2))?;
    if dims.len() != total || total < rank {
        return Err(c.rule("dim_metadata and traversal_order lengths disagree", at, &path(&DIM_METADATA)));
    }
    if total > 64 {
        return Err(c.rule("sparsity has more than 64 traversed dimensions", at, &path(&TRAVERSAL_ORDER)));
    }
    let block = total.saturating_sub(rank);
    let block_map = sp.block_map();
    if block > 0 && block_map.map_or(0, |b| b.len()) != block {
        return Err(c.rule("block_map length must equal the block rank", at, &path(&TRAVERSAL_ORDER)));
    }
    // The first `rank` entries permute 0..rank, the rest permute rank..total.
    if !is_permutation(&order, 0, rank) || !is_permutation(&order, rank, total) {
        return Err(c.rule("traversal_order is not a permutation", at, &path(&TRAVERSAL_ORDER)));
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
                    return Err(c.rule("DENSE dimension size disagrees with the shape", at, &path(&DIM_METADATA)));
                }
                count = count.saturating_mul(size.unwrap_or(0));
            }
            DimensionType::SPARSE_CSR => {
                let next = csr_rules(c, &dm, count, dim_extent.unwrap_or(u64::MAX))
                    .map_err(|rule| c.rule(rule, at, &path(&DIM_METADATA)))?;
                count = next;
            }
            _ => return Err(c.rule("unknown DimensionType", at, &path(&DIM_METADATA))),
        }
    }
    let expected = element_size.and_then(|e| count.checked_mul(e));
    if expected.is_some_and(|e| e != data_len as u64) {
        return Err(c.rule(
            "sparse tensor data size does not match its sparsity",
            at,
            &[here[0], here[1], (&BUFFER, None)],
        ));
    }
    Ok(())
}

/// Checks one SPARSE_CSR level over `parents` elements; returns the element count after it.
fn csr_rules<'a>(
    c: &mut Checker<'a, Model<'a>>,
    dm: &super::DimensionMetadata<'a>,
    parents: u64,
    dim: u64,
) -> Result<u64, &'static str> {
    let segments = index_values(dm.array_segments()).ok_or("SPARSE_CSR needs array_segments")?;
    let indices = index_values(dm.array_indices()).ok_or("SPARSE_CSR needs array_indices")?;
    c.charge(segments.len().saturating_add(indices.len())).map_err(|_| "sparsity too large")?;
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

fn signature_rules<'a>(
    model: Model<'a>,
    c: &mut Checker<'a, Model<'a>>,
    subgraphs: &TableVector<'a, SubGraph<'a>>,
) -> Checked {
    for (i, sig) in model.signature_defs().into_iter().flat_map(|v| v.iter()).enumerate() {
        c.charge(1)?;
        let here = (&SIGNATURE_DEFS, Some(i));
        let Some(sg) = usize::try_from(sig.subgraph_index()).ok().and_then(|s| subgraphs.get(s)) else {
            return Err(c.error(ErrorKind::IndexOutOfRange, sig.raw().position(), &[here, (&SUBGRAPH_INDEX, None)]));
        };
        let count = sg.tensors().map_or(0, |t| t.len());
        for (field, maps) in [(&INPUTS, sig.inputs()), (&OUTPUTS, sig.outputs())] {
            for (j, map) in maps.into_iter().flat_map(|v| v.iter()).enumerate() {
                c.charge(1)?;
                if usize::try_from(map.tensor_index()).map_or(true, |t| t >= count) {
                    let path = [here, (field, Some(j)), (&TENSOR_INDEX, None)];
                    return Err(c.error(ErrorKind::IndexOutOfRange, map.raw().position(), &path));
                }
            }
        }
    }
    Ok(())
}

/// `Operator.builtin_options`' value slot (a test checks it against the schema).
const OPTIONS: u16 = 4;

/// `QuantizationParameters.details`' value slot (a test checks it against the schema).
const DETAILS_SLOT: u16 = 5;

/// `Operator.builtin_options_2`' value slot (a test checks it against the schema).
const OPTIONS_2: u16 = 12;

/// Calls `f(subgraph_index, options_field)` for every subgraph `op` calls. Reads only the
/// control-flow members of the options unions, without building the unions' values.
fn for_each_called_subgraph(op: &Operator<'_>, f: &mut dyn FnMut(i64, Name)) {
    let (table, tag) = (op.raw(), op.builtin_options_type());
    let mut call = |index: i64| f(index, &BUILTIN_OPTIONS);
    if let Some(o) = table.union_member::<BuiltinOptions, CallOptions>(OPTIONS, tag) {
        call(i64::from(o.subgraph()));
    } else if let Some(o) = table.union_member::<BuiltinOptions, IfOptions>(OPTIONS, tag) {
        call(i64::from(o.then_subgraph_index()));
        call(i64::from(o.else_subgraph_index()));
    } else if let Some(o) = table.union_member::<BuiltinOptions, WhileOptions>(OPTIONS, tag) {
        call(i64::from(o.cond_subgraph_index()));
        call(i64::from(o.body_subgraph_index()));
    } else if let Some(o) = table.union_member::<BuiltinOptions, CallOnceOptions>(OPTIONS, tag) {
        call(i64::from(o.init_subgraph_index()));
    }
    let tag = op.builtin_options_2_type();
    let mut call = |index: i64| f(index, &BUILTIN_OPTIONS_2);
    if let Some(o) = table.union_member::<BuiltinOptions2, StablehloWhileOptions>(OPTIONS_2, tag) {
        call(i64::from(o.cond_subgraph_index()));
        call(i64::from(o.body_subgraph_index()));
    } else if let Some(o) = table.union_member::<BuiltinOptions2, StablehloSortOptions>(OPTIONS_2, tag) {
        call(i64::from(o.comparator_subgraph_index()));
    } else if let Some(o) = table.union_member::<BuiltinOptions2, StablehloReduceOptions>(OPTIONS_2, tag) {
        call(i64::from(o.body_subgraph_index()));
    } else if let Some(o) = table.union_member::<BuiltinOptions2, StablehloReduceWindowOptions>(OPTIONS_2, tag) {
        call(i64::from(o.body_subgraph_index()));
    } else if let Some(o) = table.union_member::<BuiltinOptions2, StablehloScatterOptions>(OPTIONS_2, tag) {
        call(i64::from(o.update_computation_subgraph_index()));
    } else if let Some(o) = table.union_member::<BuiltinOptions2, StablehloCustomCallOptions>(OPTIONS_2, tag) {
        o.called_computations().into_iter().flat_map(|v| v.iter()).map(i64::from).for_each(call);
    } else if let Some(o) = table.union_member::<BuiltinOptions2, StableHLOCompositeOptions>(OPTIONS_2, tag) {
        call(i64::from(o.decomposition_subgraph_index()));
    } else if let Some(o) = table.union_member::<BuiltinOptions2, StablehloCaseOptions>(OPTIONS_2, tag) {
        o.branch_subgraph_indices().into_iter().flat_map(|v| v.iter()).map(i64::from).for_each(call);
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

#[cfg(test)]
mod tests {
    use super::{Operator, DETAILS_SLOT, OPTIONS, OPTIONS_2};
    use crate::schema::TableType;
    use crate::tflite::QuantizationParameters;

    #[test]
    fn the_options_slots_are_the_schemas() {
        let slot = |name| Operator::desc().fields.iter().find(|f| f.name == name).map(|f| f.slot);
        assert_eq!(slot("builtin_options"), Some(OPTIONS));
        assert_eq!(slot("builtin_options_2"), Some(OPTIONS_2));
        let slot = QuantizationParameters::desc().fields.iter().find(|f| f.name == "details").map(|f| f.slot);
        assert_eq!(slot, Some(DETAILS_SLOT));
    }
}
