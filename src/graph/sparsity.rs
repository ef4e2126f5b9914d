//! The sparsity rules (`docs/tflite.md` §1.5): a sparse tensor's traversal order, block map
//! and per-dimension metadata must describe exactly the data it stores, as LiteRT's `Verify`
//! checks them. Both TFLite and Circle (0.1 and later) store sparsity in the same tables.

use super::checker::path::{BUFFER, DIM_METADATA, INNER, OUTER, SPARSITY, SUBGRAPHS, TENSORS, TRAVERSAL_ORDER};
use super::checker::{Checked, Checker, Site};
use super::{DimensionView, FormatRules, SparsityView};
use crate::error::ErrorKind::Rule;
use crate::wire::{to_u64, FromTable, Table, TableVector, Vector};

/// The path of a tensor's sparsity field `field`.
const fn sparsity(field: u8) -> [u8; 4] {
    [SUBGRAPHS | OUTER, TENSORS | INNER, SPARSITY, field]
}

macro_rules! sites {
    ($($id:ident = $kind:expr, $path:expr;)*) => {$(static $id: Site = Site::new($kind, $path);)*};
}

sites! {
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

/// `DimensionType` codes, the same in both schemas.
const DENSE_FORMAT: i8 = 0;
const SPARSE_CSR: i8 = 1;

/// The sparsity rules of the tensor at byte `at`, of shape `shape`, whose data is `data_len`
/// bytes.
#[inline(never)]
pub(super) fn sparsity_rules<'a, M: FormatRules<'a>, S: SparsityView<'a>>(
    c: &mut Checker<'a, M>,
    sp: &S,
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
    if element_size.is_some_and(|e| count.checked_mul(e) != Some(to_u64(data_len))) {
        return Err(c.fail(&SPARSE_SIZE, at));
    }
    Ok(())
}

/// How many elements the levels of a sparsity (traversed in `order`, described by `dims`)
/// store for a tensor of shape `shape`, or the site of the rule they break.
fn sparse_elements<'a, M: FormatRules<'a>, D: DimensionView<'a> + FromTable<'a>>(
    c: &mut Checker<'a, M>,
    order: &Vector<'a, i32>,
    dims: &TableVector<'a, D>,
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
            DENSE_FORMAT => {
                let Some(size) = size.filter(|&s| s != 0 && extent.is_none_or(|e| e == s)) else {
                    return Err(&DENSE);
                };
                count.saturating_mul(u64::from(size))
            }
            SPARSE_CSR => csr_rules(c, &dm, count, extent.unwrap_or(u32::MAX))?,
            _ => return Err(&UNKNOWN_TYPE),
        };
    }
    Ok(count)
}

/// The dense extent of the tensor dimension traversed at level `k` (below `rank`): its size in
/// the shape, divided by its block size when `block_map` blocks it (the size of the level that
/// traverses its first block).
fn block_extent<'a, D: DimensionView<'a> + FromTable<'a>>(
    order: &Vector<'a, i32>,
    dims: &TableVector<'a, D>,
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
fn csr_rules<'a, M: FormatRules<'a>, D: DimensionView<'a>>(
    c: &mut Checker<'a, M>,
    dm: &D,
    parents: u64,
    dim: u32,
) -> Result<u64, &'static Site> {
    let segments = dm.array_segments().ok_or(&NO_SEGMENTS)?;
    let indices = dm.array_indices().ok_or(&NO_INDICES)?;
    c.charge(segments.len().saturating_add(indices.len())).map_err(|_| &CSR_TOO_LARGE)?;
    if to_u64(segments.len()) != parents.saturating_add(1) {
        return Err(&SEGMENT_COUNT);
    }
    let last = segments.non_decreasing_last().ok_or(&SEGMENT_ORDER)?;
    if usize::try_from(last).ok() != Some(indices.len()) {
        return Err(&INDEX_COUNT);
    }
    if !indices.all_below(dim) {
        return Err(&INDEX_RANGE);
    }
    Ok(to_u64(indices.len()))
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

/// `DimensionMetadata.array_segments`' value slot, the same in both schemas (a test checks it).
pub(crate) const ARRAY_SEGMENTS: u16 = 3;

/// `DimensionMetadata.array_indices`' value slot, the same in both schemas (a test checks it).
pub(crate) const ARRAY_INDICES: u16 = 5;

/// The slot of `values` in each member of `SparseIndexVector` (a test checks it).
const VALUES: u16 = 0;

/// `SparseIndexVector`'s member tags, the same in both schemas (a test checks them):
/// `Int32Vector`, `Uint16Vector`, `Uint8Vector`.
const I32: u8 = 1;
const U16: u8 = 2;
const U8: u8 = 3;

/// The sparse index vector in union field `slot` of a `DimensionMetadata` table: the `values`
/// of its member (the widths of the three the schemas name; a member from a newer writer is not
/// read).
pub(crate) fn index_values(dm: Table<'_>, slot: u16) -> Option<IndexValues<'_>> {
    let width = match dm.union_tag(slot) {
        I32 => 4,
        U16 => 2,
        U8 => 1,
        _ => return None,
    };
    let (bytes, len) = dm.raw_table(slot)?.raw_vector(VALUES, width)?;
    Some(IndexValues { bytes, width, len })
}

/// The values of a sparse index vector as stored: little-endian `int`s, `ushort`s or `ubyte`s.
/// `for i in values` reads them widened, as [`IndexValues::get`] does; the default is empty.
#[derive(Clone, Copy, Debug)]
pub struct IndexValues<'a> {
    bytes: &'a [u8],
    width: usize,
    len: usize,
}

/// No values, over no bytes.
impl Default for IndexValues<'_> {
    fn default() -> Self {
        IndexValues { bytes: &[], width: 1, len: 0 }
    }
}

impl<'a> IndexValues<'a> {
    /// The values in order, widened.
    pub fn iter(&self) -> IndexIter<'a> {
        IndexIter { values: *self, next: 0 }
    }
}

impl<'a> IntoIterator for IndexValues<'a> {
    type Item = i32;
    type IntoIter = IndexIter<'a>;

    fn into_iter(self) -> IndexIter<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for &IndexValues<'a> {
    type Item = i32;
    type IntoIter = IndexIter<'a>;

    fn into_iter(self) -> IndexIter<'a> {
        self.iter()
    }
}

/// The values of an [`IndexValues`], widened, in order ([`IndexValues::iter`]).
#[derive(Clone, Debug)]
pub struct IndexIter<'a> {
    values: IndexValues<'a>,
    /// The index of the next value.
    next: usize,
}

impl Iterator for IndexIter<'_> {
    type Item = i32;

    fn next(&mut self) -> Option<i32> {
        let i = self.next;
        if i >= self.values.len {
            return None;
        }
        self.next = i.saturating_add(1);
        Some(self.values.get(i))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.values.len.saturating_sub(self.next);
        (left, Some(left))
    }
}

impl ExactSizeIterator for IndexIter<'_> {}

impl core::iter::FusedIterator for IndexIter<'_> {}

impl IndexValues<'_> {
    /// How many values.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Value `i`, widened (0 past the end).
    pub fn get(&self, i: usize) -> i32 {
        let at = i.saturating_mul(self.width);
        let value = self.bytes.get(at..).and_then(|b| match self.width {
            4 => b.first_chunk().map(|b| i32::from_le_bytes(*b)),
            2 => b.first_chunk().map(|b| i32::from(u16::from_le_bytes(*b))),
            _ => b.first().map(|&b| i32::from(b)),
        });
        value.unwrap_or(0)
    }
}

/// The values of an [`IndexValues`] as stored, by width: what lets the checks over every value
/// run as one tight loop per width instead of decoding the width at each value.
enum Stored<'a> {
    /// Little-endian `int`s.
    I32(&'a [[u8; 4]]),
    /// Little-endian `ushort`s.
    U16(&'a [[u8; 2]]),
    /// `ubyte`s.
    U8(&'a [u8]),
}

impl<'a> IndexValues<'a> {
    /// The values as stored (`bytes` holds exactly `len` values of `width` bytes).
    fn stored(&self) -> Stored<'a> {
        match self.width {
            4 => Stored::I32(self.bytes.as_chunks().0),
            2 => Stored::U16(self.bytes.as_chunks().0),
            _ => Stored::U8(self.bytes),
        }
    }

    /// The last value when the values are non-negative and never decrease (0 when there are
    /// none); `None` when one is negative or smaller than the one before it.
    fn non_decreasing_last(&self) -> Option<i32> {
        match self.stored() {
            Stored::I32(v) => non_decreasing_last(v.iter().map(|b| i32::from_le_bytes(*b))),
            Stored::U16(v) => non_decreasing_last(v.iter().map(|b| i32::from(u16::from_le_bytes(*b)))),
            Stored::U8(v) => non_decreasing_last(v.iter().map(|&b| i32::from(b))),
        }
    }

    /// Whether every value lies in `0..dim`.
    ///
    /// The largest value, read as unsigned, decides: a negative `int` read as unsigned is at
    /// least 2^31, past any valid value, so comparing it with `dim` capped at 2^31 rejects it
    /// and keeps the verdict on the others. A maximum (no early exit) is what compilers turn
    /// into a few wide instructions per many values.
    fn all_below(&self, dim: u32) -> bool {
        let largest = match self.stored() {
            Stored::I32(v) => v.iter().fold(0, |m, b| m.max(u32::from_le_bytes(*b))),
            Stored::U16(v) => u32::from(v.iter().fold(0, |m, b| m.max(u16::from_le_bytes(*b)))),
            Stored::U8(v) => u32::from(v.iter().fold(0, |m, &b| m.max(b))),
        };
        self.is_empty() || largest < dim.min(1 << 31)
    }
}

/// The last of `values` when none is negative or smaller than the one before (0 when there
/// are none).
fn non_decreasing_last(values: impl Iterator<Item = i32>) -> Option<i32> {
    let mut previous = 0;
    for value in values {
        if value < previous {
            return None;
        }
        previous = value;
    }
    Some(previous)
}

#[cfg(test)]
mod tests {
    use super::{IndexValues, ARRAY_INDICES, ARRAY_SEGMENTS, I32, U16, U8, VALUES};
    use crate::schema::{TableDesc, TableType};
    use crate::wire::UnionMember;
    use std::vec::Vec;

    fn slot(desc: &TableDesc, name: &str) -> Option<u16> {
        desc.fields.iter().find(|f| f.name == name).map(|f| f.slot)
    }

    macro_rules! same_in {
        ($m:ident) => {{
            use crate::$m::{DimensionMetadata, Int32Vector, SparseIndexVector, Uint16Vector, Uint8Vector};
            assert_eq!(slot(DimensionMetadata::desc(), "array_segments"), Some(ARRAY_SEGMENTS));
            assert_eq!(slot(DimensionMetadata::desc(), "array_indices"), Some(ARRAY_INDICES));
            for desc in [Int32Vector::desc(), Uint16Vector::desc(), Uint8Vector::desc()] {
                assert_eq!(slot(desc, "values"), Some(VALUES));
            }
            assert_eq!(<Int32Vector<'static> as UnionMember<'static, SparseIndexVector<'static>>>::TAG, I32);
            assert_eq!(<Uint16Vector<'static> as UnionMember<'static, SparseIndexVector<'static>>>::TAG, U16);
            assert_eq!(<Uint8Vector<'static> as UnionMember<'static, SparseIndexVector<'static>>>::TAG, U8);
            assert_eq!(crate::$m::DimensionType::DENSE.0, super::DENSE_FORMAT);
            assert_eq!(crate::$m::DimensionType::SPARSE_CSR.0, super::SPARSE_CSR);
        }};
    }

    /// Index values of `width` bytes holding `values` (truncated to the width, little-endian).
    fn stored(values: &[i64], width: usize) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes().into_iter().take(width)).collect()
    }

    /// The checks over whole vectors agree with the value-by-value definitions, at every width,
    /// for negative values, values at and past the bounds, and no values.
    #[test]
    fn whole_vector_checks_agree_with_each_value() {
        let cases: [&[i64]; 9] = [
            &[],
            &[0],
            &[0, 0, 3, 3, 7],
            &[1, 2, 1],
            &[-1, 0],
            &[0, 5, -3],
            &[255, 254],
            &[0, 65_535, 70_000],
            &[0, 2_147_483_647],
        ];
        for values in cases {
            for width in [1, 2, 4] {
                let bytes = stored(values, width);
                let v = IndexValues { bytes: &bytes, width, len: values.len() };
                let read: Vec<i32> = v.iter().collect();
                let mut previous = Some(0);
                for &x in &read {
                    previous = previous.filter(|&p| x >= p).map(|_| x);
                }
                assert_eq!(v.non_decreasing_last(), previous, "{values:?} at width {width}");
                for dim in [0, 1, 3, 5, 6, 255, 256, 65_536, 1 << 31, u32::MAX] {
                    let each = read.iter().all(|&x| u32::try_from(x).is_ok_and(|x| x < dim));
                    assert_eq!(v.all_below(dim), each, "{values:?} at width {width} below {dim}");
                }
            }
        }
    }

    #[test]
    fn the_sparsity_slots_and_tags_are_both_schemas() {
        same_in!(tflite);
        same_in!(circle);
    }
}
