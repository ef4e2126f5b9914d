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
use crate::graph::checker::path::{BUFFER, FORMAT, INNER, OPERATORS, OUTER, QUANTIZATION};
use crate::graph::checker::path::{SUBGRAPHS, TENSORS};
use crate::graph::checker::path_fields;
use crate::graph::{Checked, Checker, FormatRules, Runtime, Site, Warning, CALLED_SUBGRAPH};
use crate::wire::{TableVector, UnionMember, Vector};

/// TFLite's own path codes, in the order of their fields in [`PATHS`].
const SPARSITY: u8 = FORMAT;
const SIGNATURE_DEFS: u8 = FORMAT + 1;
const SUBGRAPH_INDEX: u8 = FORMAT + 2;
const TENSOR_INDEX: u8 = FORMAT + 3;
const METADATA: u8 = FORMAT + 4;
const BUILTIN_OPTIONS_2: u8 = FORMAT + 5;
const DIM_METADATA: u8 = FORMAT + 6;
const TRAVERSAL_ORDER: u8 = FORMAT + 7;
const DETAILS: u8 = FORMAT + 8;
const SIGNATURE_INPUTS: u8 = FORMAT + 9;
const SIGNATURE_OUTPUTS: u8 = FORMAT + 10;
const METADATA_BUFFER: u8 = FORMAT + 11;
/// `Tensor.type`, for the runtime profiles.
pub(super) const TENSOR_TYPE: u8 = FORMAT + 12;
/// `OperatorCode.builtin_code`, for the runtime profiles.
pub(super) const BUILTIN_CODE: u8 = FORMAT + 13;
/// `Tensor.shape`, for the runtime profiles.
pub(super) const SHAPE: u8 = FORMAT + 14;
/// `Operator.custom_options`, for the runtime profiles.
pub(super) const CUSTOM_OPTIONS: u8 = FORMAT + 15;

/// The fields of the path codes: the shared ones, then TFLite's own.
static PATHS: &[[u8; 2]] = path_fields!(crate::tflite;
    Tensor.sparsity, Model.signature_defs, SignatureDef.subgraph_index, TensorMap.tensor_index, Model.metadata,
    Operator.builtin_options_2, SparsityParameters.dim_metadata, SparsityParameters.traversal_order,
    QuantizationParameters.details, SignatureDef.inputs, SignatureDef.outputs, Metadata.buffer, Tensor.type,
    OperatorCode.builtin_code, Tensor.shape, Operator.custom_options,
);

macro_rules! sites {
    ($($id:ident = $kind:expr, $path:expr;)*) => {$(static $id: Site = Site::new($kind, $path);)*};
}

use ErrorKind::{IndexOutOfRange as RANGE, Rule};

/// The path of a tensor's sparsity field `field`.
const fn sparsity(field: u8) -> [u8; 4] {
    [SUBGRAPHS | OUTER, TENSORS | INNER, SPARSITY, field]
}

sites! {
    METADATA_BUFFER_INDEX = RANGE, [METADATA | OUTER, METADATA_BUFFER, 0, 0];
    DETAILS_TENSOR = RANGE, [SUBGRAPHS | OUTER, TENSORS | INNER, QUANTIZATION, DETAILS];
    SIGNATURE_SUBGRAPH = RANGE, [SIGNATURE_DEFS | OUTER, SUBGRAPH_INDEX, 0, 0];
    SIGNATURE_INPUT = RANGE, [SIGNATURE_DEFS | OUTER, SIGNATURE_INPUTS | INNER, TENSOR_INDEX, 0];
    SIGNATURE_OUTPUT = RANGE, [SIGNATURE_DEFS | OUTER, SIGNATURE_OUTPUTS | INNER, TENSOR_INDEX, 0];
    CALLED_SUBGRAPH_2 = RANGE, [SUBGRAPHS | OUTER, OPERATORS | INNER, BUILTIN_OPTIONS_2, 0];
    NO_ORDER = Rule("sparsity needs traversal_order and dim_metadata"), sparsity(TRAVERSAL_ORDER);
    LENGTHS = Rule("dim_metadata and traversal_order lengths disagree"), sparsity(DIM_METADATA);
    TOO_DEEP = Rule("sparsity has more than 64 traversed dimensions"), sparsity(TRAVERSAL_ORDER);
    BLOCK_MAP = Rule("block_map length must equal the block rank"), sparsity(TRAVERSAL_ORDER);
    PERMUTATION = Rule("traversal_order is not a permutation"), sparsity(TRAVERSAL_ORDER);
    DENSE = Rule("DENSE dimension size disagrees with the shape"), sparsity(DIM_METADATA);
    UNKNOWN_TYPE = Rule("unknown DimensionType"), sparsity(DIM_METADATA);
    SPARSE_SIZE = Rule("sparse tensor data size does not match its sparsity"),
        [SUBGRAPHS | OUTER, TENSORS | INNER, BUFFER, 0];
    NO_SEGMENTS = Rule("SPARSE_CSR needs array_segments"), sparsity(DIM_METADATA);
    NO_INDICES = Rule("SPARSE_CSR needs array_indices"), sparsity(DIM_METADATA);
    CSR_TOO_LARGE = Rule("sparsity too large"), sparsity(DIM_METADATA);
    SEGMENT_COUNT = Rule("array_segments length must be the element count plus one"), sparsity(DIM_METADATA);
    SEGMENT_ORDER = Rule("array_segments must be non-negative and non-decreasing"), sparsity(DIM_METADATA);
    INDEX_COUNT = Rule("array_indices length must equal the last segment"), sparsity(DIM_METADATA);
    INDEX_RANGE = Rule("array_indices out of the dimension's range"), sparsity(DIM_METADATA);
}

impl<'a> FormatRules<'a> for Model<'a> {
    const VERSION: u32 = 3;

    const PATHS: &'static [[u8; 2]] = PATHS;

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
        let Some(metadata) = self.metadata() else { return Ok(()) };
        let count = metadata.len();
        for i in 0..count {
            let Some(meta) = metadata.get(i) else { continue };
            // The entry, and what the warnings' duplicate-name scan may spend on it.
            c.charge(duplicate_scan_cost(count, i, meta.name()).saturating_add(1))?;
            if usize::try_from(meta.buffer()).map_or(true, |b| b >= c.buffers()) {
                c.outer = i;
                return Err(c.fail(&METADATA_BUFFER_INDEX, meta.raw().position()));
            }
        }
        Ok(())
    }

    /// Block-wise and multi-axis details name other tensors of the subgraph (-1: none).
    fn tensor_rules(&self, c: &mut Checker<'a, Self>, tensor: &Tensor<'a>, count: usize, _data: &[u8]) -> Checked {
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
                return Err(c.fail(&DETAILS_TENSOR, tensor.raw().position()));
            }
        }
        Ok(())
    }

    /// Data in an external buffer is not in the file; sparse data follows its sparsity.
    fn data_rules(&self, c: &mut Checker<'a, Self>, tensor: &Tensor<'a>, data: &[u8]) -> Checked<bool> {
        if tensor.external_buffer() != 0 {
            return Ok(true);
        }
        let Some(sparsity) = tensor.sparsity() else { return Ok(false) };
        let (at, element_size) = (tensor.raw().position(), super::element_size(tensor.type_()));
        sparsity_rules(c, &sparsity, Tensor::shape(tensor), element_size, data.len(), at)?;
        Ok(true)
    }

    fn called_subgraphs(op: &Operator<'a>, f: &mut dyn FnMut(i64, &'static Site)) {
        for_each_called_subgraph(op, f);
    }

    fn graph_rules(&self, c: &mut Checker<'a, Self>, subgraphs: &TableVector<'a, SubGraph<'a>>) -> Checked {
        signature_rules(*self, c, subgraphs)
    }

    /// With the `nested-metadata` feature, `TFLITE_METADATA` and `CONVERSION_METADATA`.
    #[cfg(feature = "nested-metadata")]
    fn nested_rules(&self, options: &crate::verify::Options) -> Result<(), crate::Error> {
        super::metadata::nested_rules(self, options)
    }

    fn runtime_rules(
        &self,
        c: &mut Checker<'a, Self>,
        runtime: Runtime,
        each: &mut crate::graph::Refusals<'_>,
    ) -> Checked {
        super::runtime::rules(*self, c, runtime, each)
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

/// The sparsity rules of the tensor at byte `at`, of shape `shape`, whose data is `data_len`
/// bytes.
#[inline(never)]
fn sparsity_rules<'a>(
    c: &mut Checker<'a, Model<'a>>,
    sp: &SparsityParameters<'a>,
    shape: Option<Vector<'a, i32>>,
    element_size: Option<u64>,
    data_len: usize,
    at: usize,
) -> Checked {
    let (Some(order), Some(dims)) = (sp.traversal_order(), sp.dim_metadata()) else {
        return Err(c.fail(&NO_ORDER, at));
    };
    c.charge(order.len().saturating_mul(2))?;
    let count = sparse_elements(c, &order, &dims, sp.block_map(), shape).map_err(|site| c.fail(site, at))?;
    // A size past `u64` (a saturated count, or its product with the element size) matches no
    // data.
    if element_size.is_some_and(|e| count.checked_mul(e) != Some(data_len as u64)) {
        return Err(c.fail(&SPARSE_SIZE, at));
    }
    Ok(())
}

/// How many elements the levels of a sparsity (traversed in `order`, described by `dims`)
/// store for a tensor of shape `shape`, or the site of the rule they break.
fn sparse_elements<'a>(
    c: &mut Checker<'a, Model<'a>>,
    order: &Vector<'a, i32>,
    dims: &TableVector<'a, super::DimensionMetadata<'a>>,
    block_map: Option<Vector<'a, i32>>,
    shape: Option<Vector<'a, i32>>,
) -> Result<u64, &'static Site> {
    let rank = shape.map_or(0, |s| s.len());
    let total = order.len();
    if dims.len() != total || total < rank {
        return Err(&LENGTHS);
    }
    if total > 64 {
        return Err(&TOO_DEEP);
    }
    let block = total.saturating_sub(rank);
    if block > 0 && block_map.map_or(0, |b| b.len()) != block {
        return Err(&BLOCK_MAP);
    }
    if !is_permutation(order, rank, total) {
        return Err(&PERMUTATION);
    }
    let mut count: u64 = 1;
    for k in 0..total {
        let Some(dm) = dims.get(k) else { continue };
        // Sizes are non-negative `int`s, so `u32` holds them (and divides without a 64-bit
        // division routine).
        let size = u32::try_from(dm.dense_size()).ok();
        // The dense extent of the dimension traversed at level `k`: a block level's is its
        // own size (the permutation keeps block levels after the tensor's own).
        let extent = if k < rank { block_extent(order, dims, block_map, shape, k, rank) } else { size };
        count = match dm.format() {
            DimensionType::DENSE => {
                let Some(size) = size.filter(|&s| s != 0 && extent.is_none_or(|e| e == s)) else {
                    return Err(&DENSE);
                };
                count.saturating_mul(u64::from(size))
            }
            DimensionType::SPARSE_CSR => csr_rules(c, &dm, count, extent.unwrap_or(u32::MAX))?,
            _ => return Err(&UNKNOWN_TYPE),
        };
    }
    Ok(count)
}

/// The dense extent of the tensor dimension traversed at level `k` (below `rank`): its size in
/// the shape, divided by its block size when `block_map` blocks it (the size of the level that
/// traverses its first block).
fn block_extent<'a>(
    order: &Vector<'a, i32>,
    dims: &TableVector<'a, super::DimensionMetadata<'a>>,
    block_map: Option<Vector<'a, i32>>,
    shape: Option<Vector<'a, i32>>,
    k: usize,
    rank: usize,
) -> Option<u32> {
    let d = order.get(k)?;
    let full = u32::try_from(shape?.get(usize::try_from(d).ok()?)?).ok()?;
    let Some(b) = block_map.and_then(|m| m.iter().position(|x| x == d)) else {
        return Some(full);
    };
    let value = i32::try_from(rank.checked_add(b)?).ok()?;
    let level = order.iter().position(|o| o == value)?;
    full.checked_div(u32::try_from(dims.get(level)?.dense_size()).ok()?)
}

/// Checks one SPARSE_CSR level over `parents` elements, whose indices run below `dim`; returns
/// the element count after it.
fn csr_rules<'a>(
    c: &mut Checker<'a, Model<'a>>,
    dm: &super::DimensionMetadata<'a>,
    parents: u64,
    dim: u32,
) -> Result<u64, &'static Site> {
    let segments = index_values(dm, ARRAY_SEGMENTS).ok_or(&NO_SEGMENTS)?;
    let indices = index_values(dm, ARRAY_INDICES).ok_or(&NO_INDICES)?;
    c.charge(segments.len().saturating_add(indices.len())).map_err(|_| &CSR_TOO_LARGE)?;
    if segments.len() as u64 != parents.saturating_add(1) {
        return Err(&SEGMENT_COUNT);
    }
    let mut previous = 0;
    for i in 0..segments.len() {
        let s = segments.get(i);
        if s < previous {
            return Err(&SEGMENT_ORDER);
        }
        previous = s;
    }
    if usize::try_from(previous).ok() != Some(indices.len()) {
        return Err(&INDEX_COUNT);
    }
    if (0..indices.len()).any(|i| u32::try_from(indices.get(i)).map_or(true, |i| i >= dim)) {
        return Err(&INDEX_RANGE);
    }
    Ok(indices.len() as u64)
}

fn signature_rules<'a>(
    model: Model<'a>,
    c: &mut Checker<'a, Model<'a>>,
    subgraphs: &TableVector<'a, SubGraph<'a>>,
) -> Checked {
    let Some(signatures) = model.signature_defs() else { return Ok(()) };
    for i in 0..signatures.len() {
        let Some(sig) = signatures.get(i) else { continue };
        c.charge(1)?;
        c.outer = i;
        let Some(sg) = usize::try_from(sig.subgraph_index()).ok().and_then(|s| subgraphs.get(s)) else {
            return Err(c.fail(&SIGNATURE_SUBGRAPH, sig.raw().position()));
        };
        let count = sg.tensors().map_or(0, |t| t.len());
        tensor_maps(c, sig.inputs(), count, &SIGNATURE_INPUT)?;
        tensor_maps(c, sig.outputs(), count, &SIGNATURE_OUTPUT)?;
    }
    Ok(())
}

/// Each of a signature's `maps` names one of the `count` tensors of its subgraph.
#[inline(never)]
fn tensor_maps<'a>(
    c: &mut Checker<'a, Model<'a>>,
    maps: Option<TableVector<'a, super::TensorMap<'a>>>,
    count: usize,
    site: &'static Site,
) -> Checked {
    let Some(maps) = maps else { return Ok(()) };
    for j in 0..maps.len() {
        let Some(map) = maps.get(j) else { continue };
        c.charge(1)?;
        if usize::try_from(map.tensor_index()).map_or(true, |t| t >= count) {
            c.inner = j;
            return Err(c.fail(site, map.raw().position()));
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

/// A field of a control-flow options table that holds subgraph indices.
struct Call {
    /// Whether the options are `builtin_options_2`'s (else `builtin_options`').
    second: bool,
    /// The options table's tag in its union.
    tag: u8,
    /// The field's slot in the options table.
    slot: u16,
    /// Whether the field is a vector of indices (else one `int`).
    vector: bool,
}

macro_rules! calls {
    ($($second:literal $union:ident $table:ident . $field:literal @ $slot:literal $($vector:ident)?;)*) => {
        /// The fields of the control-flow options that call subgraphs, in the order they are
        /// reported.
        static CALLS: [Call; [$($slot),*].len()] = [$(Call {
            second: $second,
            tag: <$table<'static> as crate::wire::UnionMember<'static, $union<'static>>>::TAG,
            slot: $slot,
            vector: calls!(@vector $($vector)?),
        }),*];

        /// The type and field name of each of [`CALLS`], to check its slots against the schema.
        #[cfg(test)]
        fn call_fields() -> impl Iterator<Item = (&'static crate::schema::TableDesc, &'static str)> {
            use crate::schema::TableType;
            [$(($table::desc(), $field)),*].into_iter()
        }
    };
    (@vector vector) => { true };
    (@vector) => { false };
}

calls! {
    false BuiltinOptions CallOptions."subgraph" @0;
    false BuiltinOptions IfOptions."then_subgraph_index" @0;
    false BuiltinOptions IfOptions."else_subgraph_index" @1;
    false BuiltinOptions WhileOptions."cond_subgraph_index" @0;
    false BuiltinOptions WhileOptions."body_subgraph_index" @1;
    false BuiltinOptions CallOnceOptions."init_subgraph_index" @0;
    true BuiltinOptions2 StablehloWhileOptions."cond_subgraph_index" @0;
    true BuiltinOptions2 StablehloWhileOptions."body_subgraph_index" @1;
    true BuiltinOptions2 StablehloSortOptions."comparator_subgraph_index" @2;
    true BuiltinOptions2 StablehloReduceOptions."body_subgraph_index" @1;
    true BuiltinOptions2 StablehloReduceWindowOptions."body_subgraph_index" @5;
    true BuiltinOptions2 StablehloScatterOptions."update_computation_subgraph_index" @6;
    true BuiltinOptions2 StablehloCustomCallOptions."called_computations" @4 vector;
    true BuiltinOptions2 StableHLOCompositeOptions."decomposition_subgraph_index" @1;
    true BuiltinOptions2 StablehloCaseOptions."branch_subgraph_indices" @0 vector;
}

/// Calls `f(subgraph_index, site)` for every subgraph `op` calls. Reads only the control-flow
/// members of the options unions, without building the unions' values. (`CallOptions.subgraph`
/// is a `uint`, read as an `int` like the others: a value past `i32::MAX` is out of range
/// either way.)
fn for_each_called_subgraph(op: &Operator<'_>, f: &mut dyn FnMut(i64, &'static Site)) {
    let table = op.raw();
    let tags = [op.builtin_options_type(), op.builtin_options_2_type()];
    for call in &CALLS {
        let (slot, site) = if call.second { (OPTIONS_2, &CALLED_SUBGRAPH_2) } else { (OPTIONS, &CALLED_SUBGRAPH) };
        if tags.get(usize::from(call.second)) != Some(&call.tag) {
            continue;
        }
        let Some(options) = table.raw_table(slot) else { continue };
        if call.vector {
            for index in options.vector::<i32>(call.slot).map_or(Vector::empty(), |v| v).iter() {
                f(i64::from(index), site);
            }
        } else {
            f(i64::from(options.scalar::<i32>(call.slot, 0)), site);
        }
    }
}

/// Whether `order` (its `total` entries, at most 64) permutes `0..rank` in its first `rank`
/// entries and `rank..total` in the rest: each entry lies in its span and none repeats.
fn is_permutation(order: &Vector<'_, i32>, rank: usize, total: usize) -> bool {
    let mut seen = 0u64;
    for k in 0..total {
        let span = if k < rank { 0..rank } else { rank..total };
        let v = order.get(k).and_then(|v| usize::try_from(v).ok());
        let Some(v) = v.filter(|&v| span.contains(&v) && v < 64) else { return false };
        let mask = 1u64 << v;
        if seen & mask != 0 {
            return false;
        }
        seen |= mask;
    }
    true
}

/// `DimensionMetadata.array_segments`' value slot (a test checks it against the schema).
const ARRAY_SEGMENTS: u16 = 3;

/// `DimensionMetadata.array_indices`' value slot (a test checks it against the schema).
const ARRAY_INDICES: u16 = 5;

/// The slot of `values` in each member of `SparseIndexVector` (a test checks it).
const VALUES: u16 = 0;

/// The sparse index vector in union field `slot` of `dm`: the `values` of its member (the
/// widths of the three the schema names; a member from a newer writer is not read).
fn index_values<'a>(dm: &super::DimensionMetadata<'a>, slot: u16) -> Option<IndexValues<'a>> {
    const I32: u8 = <super::Int32Vector<'static> as UnionMember<'static, SparseIndexVector<'static>>>::TAG;
    const U16: u8 = <super::Uint16Vector<'static> as UnionMember<'static, SparseIndexVector<'static>>>::TAG;
    const U8: u8 = <super::Uint8Vector<'static> as UnionMember<'static, SparseIndexVector<'static>>>::TAG;
    let table = dm.raw();
    let width = match table.union_tag(slot) {
        I32 => 4,
        U16 => 2,
        U8 => 1,
        _ => return None,
    };
    let (bytes, len) = table.raw_table(slot)?.raw_vector(VALUES, width)?;
    Some(IndexValues { bytes, width, len })
}

/// The values of a sparse index vector as stored: little-endian `int`s, `ushort`s or `ubyte`s.
#[derive(Clone, Copy)]
struct IndexValues<'a> {
    bytes: &'a [u8],
    width: usize,
    len: usize,
}

impl IndexValues<'_> {
    fn len(&self) -> usize {
        self.len
    }

    /// Value `i`, widened (0 past the end).
    fn get(&self, i: usize) -> i32 {
        let at = i.saturating_mul(self.width);
        let value = self.bytes.get(at..).and_then(|b| match self.width {
            4 => b.first_chunk().map(|b| i32::from_le_bytes(*b)),
            2 => b.first_chunk().map(|b| i32::from(u16::from_le_bytes(*b))),
            _ => b.first().map(|&b| i32::from(b)),
        });
        value.unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::{Operator, ARRAY_INDICES, ARRAY_SEGMENTS, DETAILS_SLOT, OPTIONS, OPTIONS_2, VALUES};
    use crate::schema::{TableDesc, TableType};
    use crate::tflite::{DimensionMetadata, Int32Vector, QuantizationParameters, Uint16Vector, Uint8Vector};

    #[test]
    #[cfg(not(feature = "numeric-paths"))]
    #[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)] // in tests a panic is a failure
    fn path_codes_name_their_fields() {
        use super::TRAVERSAL_ORDER;
        use super::{BUILTIN_CODE, CUSTOM_OPTIONS, SHAPE, TENSOR_TYPE};
        use super::{BUILTIN_OPTIONS_2, DETAILS, DIM_METADATA, FORMAT, METADATA, METADATA_BUFFER, PATHS};
        use super::{SIGNATURE_DEFS, SIGNATURE_INPUTS, SIGNATURE_OUTPUTS, SPARSITY, SUBGRAPH_INDEX, TENSOR_INDEX};
        use crate::verify::VerifyTable;
        let codes = [
            (SPARSITY, "sparsity"),
            (SIGNATURE_DEFS, "signature_defs"),
            (SUBGRAPH_INDEX, "subgraph_index"),
            (TENSOR_INDEX, "tensor_index"),
            (METADATA, "metadata"),
            (BUILTIN_OPTIONS_2, "builtin_options_2"),
            (DIM_METADATA, "dim_metadata"),
            (TRAVERSAL_ORDER, "traversal_order"),
            (DETAILS, "details"),
            (SIGNATURE_INPUTS, "inputs"),
            (SIGNATURE_OUTPUTS, "outputs"),
            (METADATA_BUFFER, "buffer"),
            (TENSOR_TYPE, "type"),
            (BUILTIN_CODE, "builtin_code"),
            (SHAPE, "shape"),
            (CUSTOM_OPTIONS, "custom_options"),
        ];
        let schema = crate::tflite::Model::schema();
        for (code, name) in codes {
            let [table, at] = PATHS[usize::from(code) - 1];
            let (_, first, _) = schema.table_fields(u16::from(table));
            assert_eq!(schema.names.get(first + usize::from(at)), Some(name), "code {code}");
        }
        assert_eq!(PATHS.len(), usize::from(FORMAT) - 1 + codes.len());
    }

    #[test]
    fn the_control_flow_slots_are_the_schemas() {
        let mut checked = 0;
        for (call, (desc, name)) in super::CALLS.iter().zip(super::call_fields()) {
            let slot = desc.fields.iter().find(|f| f.name == name).map(|f| f.slot);
            assert_eq!(slot, Some(call.slot), "{}.{name}", desc.name);
            checked += 1;
        }
        assert_eq!(checked, super::CALLS.len());
    }

    #[test]
    fn the_options_slots_are_the_schemas() {
        let slot = |name| Operator::desc().fields.iter().find(|f| f.name == name).map(|f| f.slot);
        assert_eq!(slot("builtin_options"), Some(OPTIONS));
        assert_eq!(slot("builtin_options_2"), Some(OPTIONS_2));
        let slot = QuantizationParameters::desc().fields.iter().find(|f| f.name == "details").map(|f| f.slot);
        assert_eq!(slot, Some(DETAILS_SLOT));
        let slot = |desc: &TableDesc, name| desc.fields.iter().find(|f| f.name == name).map(|f| f.slot);
        assert_eq!(slot(DimensionMetadata::desc(), "array_segments"), Some(ARRAY_SEGMENTS));
        assert_eq!(slot(DimensionMetadata::desc(), "array_indices"), Some(ARRAY_INDICES));
        for desc in [Int32Vector::desc(), Uint16Vector::desc(), Uint8Vector::desc()] {
            assert_eq!(slot(desc, "values"), Some(VALUES), "{}", desc.name);
        }
    }
}
