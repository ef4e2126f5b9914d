//! A `.ptd` file: its `FH01` header, the verified FlatTensor, and its segments and named data
//! resolved to bytes (`docs/executorch.md` §3.9).

use super::header::HeaderFault;
use super::{DataSegment, FlatTensor, Header, NamedData, TensorLayout, IDENTIFIER};
use crate::container::{in_range, locate, verified_root, with_error_slot, Checked, Container, Fault, Segment, Walk};
use crate::error::{Error, ErrorKind};
use crate::verify::{Fail, Options, Stats};
use crate::wire::{has_identifier, to_u64};

/// The root of the paths in rule errors (fields are named by the schema's constants).
static TENSOR: &str = "FlatTensor";
static MAGIC: &str = "FH01.magic";

/// A verified `.ptd` file.
#[derive(Clone, Copy)]
pub struct PtdFile<'a> {
    bytes: &'a [u8],
    header: Header,
    tensor: FlatTensor<'a>,
}

impl core::fmt::Debug for PtdFile<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PtdFile").field("len", &self.bytes.len()).field("header", &self.header).finish_non_exhaustive()
    }
}

crate::container::entry_points!(
    PtdFile,
    "an ExecuTorch data file (`.ptd`: a FlatTensor, identifier `FT01`, with an `FH01` header)",
    "every segment inside the segment data, every named datum's segment index, unique keys, each \
     tensor layout's bytes inside its segment and its segment aligned for its element type"
);

impl<'a> Container<'a> for PtdFile<'a> {
    /// The `FH01` header, then the FlatTensor flatbuffer (the file's first
    /// `flatbuffer_offset + flatbuffer_size` bytes).
    fn structure(bytes: &'a [u8], options: &Options) -> Result<(Self, Stats), Error> {
        let header = match PtdFile::frame(bytes) {
            Ok(header) => header,
            Err((kind, at, field)) => return Err(Error::header(kind, at, field)),
        };
        let flatbuffer = bytes.get(header.flatbuffer_range()).unwrap_or(bytes);
        let (tensor, stats) = verified_root(flatbuffer, Some(IDENTIFIER), options, 0)?;
        Ok((PtdFile { bytes, header, tensor }, stats))
    }

    fn rules(&self, options: &Options) -> Result<(), Error> {
        with_error_slot(&TENSOR, |error| {
            self.check(&mut Walk::new(options, self.bytes.len(), (&TENSOR, self.root_offset()), error))
        })
    }
}

impl<'a> PtdFile<'a> {
    /// The whole file.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The `FH01` header.
    pub fn header(&self) -> Header {
        self.header
    }

    /// The FlatTensor's root view.
    pub fn flat_tensor(&self) -> FlatTensor<'a> {
        self.tensor
    }

    /// The `FT01` identifier, then the `FH01` header; or why the file is refused.
    fn frame(bytes: &'a [u8]) -> Result<Header, HeaderFault> {
        if !has_identifier(bytes, IDENTIFIER) {
            let kind = if bytes.len() < 8 { ErrorKind::Truncated } else { ErrorKind::WrongIdentifier };
            return Err((kind, 4, &MAGIC));
        }
        Header::read(bytes)
    }

    /// The bytes of segment `index` and their file offset.
    pub fn segment(&self, index: usize) -> Result<(usize, &'a [u8]), Error> {
        with_error_slot(&TENSOR, |error| {
            self.segment_range(index).map_err(|fault| self.segment_fault(error, index, fault))
        })
    }

    /// [`PtdFile::segment`], failing with the error's kind and, past `segments[index]`, its
    /// field.
    fn segment_range(&self, index: usize) -> Result<(usize, &'a [u8]), Fault> {
        let Some(segment) = self.tensor.segments().and_then(|s| s.get(index)) else {
            return Err((ErrorKind::IndexOutOfRange, None));
        };
        let (offset, size) = (segment.offset(), segment.size());
        let end = offset.checked_add(size).filter(|&end| end <= self.header.segment_data_size);
        // The header checked base + data size against the file, so these sums stay inside it.
        let range = end.and_then(|end| {
            let start = usize::try_from(self.header.segment_base_offset.checked_add(offset)?).ok()?;
            let end = usize::try_from(self.header.segment_base_offset.checked_add(end)?).ok()?;
            Some((start, self.bytes.get(start..end)?))
        });
        range.ok_or((ErrorKind::OutOfBounds, Some(&DataSegment::SIZE_NAME)))
    }

    /// Fails with an error at `FlatTensor.segments[index]`, or at its field the fault names.
    #[cold]
    fn segment_fault(&self, error: &mut Error, index: usize, (kind, field): Fault) -> Fail {
        let path = [(&FlatTensor::SEGMENTS_NAME, Some(index)), (field.unwrap_or(&DataSegment::SIZE_NAME), None)];
        self.fail(error, kind, path.get(..if field.is_some() { 2 } else { 1 }).unwrap_or_default())
    }

    /// The first named datum with key `key`, and its bytes (its whole segment): a scan of
    /// `FlatTensor.named_data`, linear in the file times the length of `key`.
    pub fn named_data(&self, key: &str) -> Option<(NamedData<'a>, &'a [u8])> {
        let list = self.tensor.named_data()?;
        let entry = (0..list.len()).find_map(|i| list.get(i).filter(|d| d.key() == Some(key)))?;
        let (_, bytes) = self.segment_range(usize::try_from(entry.segment_index()).ok()?).ok()?;
        Some((entry, bytes))
    }

    /// The file's rules, charged against the apparent-size budget: every segment inside the
    /// segment data; every named datum with a key no other has, a segment that exists and, with
    /// a tensor layout, that layout's bytes inside the segment, aligned for its element type.
    fn check(&self, walk: &mut Walk<'_>) -> Checked {
        let segments = self.tensor.segments().map_or(0, |s| s.len());
        walk.charge(segments)?;
        for i in 0..segments {
            self.segment_range(i).map_err(|fault| self.segment_fault(walk.error(), i, fault))?;
        }
        let list = self.tensor.named_data();
        let named = list.map_or(0, |l| l.len());
        for i in 0..named {
            let Some(entry) = list.and_then(|l| l.get(i)) else { continue };
            walk.charge(1)?;
            walk.enter(0, (&FlatTensor::NAMED_DATA_NAME, Some(i)));
            let Some(key) = entry.key().filter(|k| !k.is_empty()) else {
                return Err(walk.fail(ErrorKind::Rule("a named datum needs a key"), &[(&NamedData::KEY_NAME, None)]));
            };
            // Earlier keys, each compared at the cost of its length.
            for j in 0..i {
                let other = list.and_then(|l| l.get(j)).and_then(|d| d.key());
                walk.charge(key.len().saturating_add(1))?;
                if other == Some(key) {
                    return Err(walk.fail(ErrorKind::Rule("keys must be unique"), &[(&NamedData::KEY_NAME, None)]));
                }
            }
            let index = usize::try_from(entry.segment_index()).unwrap_or(usize::MAX);
            let Ok((at, bytes)) = self.segment_range(index) else {
                let field = &NamedData::SEGMENT_INDEX_NAME;
                return Err(walk.fail(ErrorKind::IndexOutOfRange, &[(field, None)]));
            };
            if let Some(layout) = entry.tensor_layout() {
                walk.enter(1, (&NamedData::TENSOR_LAYOUT_NAME, None));
                check_layout(walk, &layout, at, bytes.len())?;
            }
        }
        Ok(())
    }

    /// The byte offset of the FlatTensor's root table, where its rule errors are located.
    fn root_offset(&self) -> u64 {
        to_u64(self.tensor.raw().position())
    }

    /// Fails with an error at `FlatTensor.<path>`, at the root table.
    #[cold]
    fn fail(&self, error: &mut Error, kind: ErrorKind, path: &[Segment]) -> Fail {
        locate(error, kind, self.root_offset(), &TENSOR, path)
    }
}

/// A tensor layout against the segment holding it (file offset `at`, `len` bytes): sizes not
/// negative, `dim_order` a permutation of the dimensions, the elements' bytes inside the
/// segment, the segment aligned for the element type. A scalar type this schema does not name
/// has no size: only its dimensions are checked.
fn check_layout(walk: &mut Walk<'_>, layout: &TensorLayout<'_>, at: usize, len: usize) -> Checked {
    let sizes = layout.sizes().unwrap_or_default();
    let order = layout.dim_order().unwrap_or_default();
    walk.charge(sizes.len().saturating_mul(order.len().saturating_add(1)))?;
    let mut elements = Some(1u64);
    for size in sizes {
        elements = elements.and_then(|e| e.checked_mul(u64::try_from(size).ok()?));
        if size < 0 {
            let rule = ErrorKind::Rule("tensor sizes must not be negative");
            return Err(walk.fail(rule, &[(&TensorLayout::SIZES_NAME, None)]));
        }
    }
    let permutation = order.len() == sizes.len()
        && order
            .iter()
            .enumerate()
            .all(|(i, d)| in_range(d, sizes.len()) && !order.iter().take(i).any(|earlier| earlier == d));
    if !permutation {
        let rule = ErrorKind::Rule("dim_order must order each dimension once");
        return Err(walk.fail(rule, &[(&TensorLayout::DIM_ORDER_NAME, None)]));
    }
    let Some(element) = crate::pte::ScalarType(layout.scalar_type().0).element_size() else {
        return Ok(());
    };
    if elements.and_then(|e| e.checked_mul(element)).is_none_or(|bytes| bytes > to_u64(len)) {
        let rule = ErrorKind::Rule("the tensor's bytes exceed its segment");
        return Err(walk.fail(rule, &[(&TensorLayout::SIZES_NAME, None)]));
    }
    if to_u64(at).checked_rem(element).is_some_and(|r| r != 0) {
        return Err(walk.fail(ErrorKind::Misaligned, &[(&TensorLayout::SCALAR_TYPE_NAME, None)]));
    }
    Ok(())
}
