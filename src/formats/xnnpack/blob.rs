//! An XNNPACK delegate blob: the `XH00` header (or none, for a bare `XN01` flatbuffer), the
//! verified XNNGraph, and its constants resolved to bytes (`docs/executorch.md` §3.7, §3.8).

use super::header::HeaderFault;
use super::{ConstantDataOffset, Header, XNNGraph, HEADER_MAGIC, IDENTIFIER, NAMED};
use crate::container::{locate, verified_root, with_error_slot, Checked, Container, Fault, Segment, Walk};
use crate::error::{Error, ErrorKind};
use crate::verify::{Fail, Name, Options, Stats};
use crate::wire::{has_identifier, to_u64};

/// The root of the paths in rule errors (fields are named by the schema's constants), and the
/// header's field an unrecognised blob is located at.
pub(super) static GRAPH: &str = "XNNGraph";
static MAGIC: &str = "XH00.magic";

/// A blob's parts: its `XH00` header (none for a bare XNNGraph), the XNNGraph flatbuffer, the
/// constant region.
type Parts<'a> = (Option<Header>, &'a [u8], &'a [u8]);

/// Where a constant's bytes live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Constant<'a> {
    /// In the blob's constant region.
    Inline(&'a [u8]),
    /// In named data (the program's, or a `.ptd` file's) under this key; `size` is the number
    /// of bytes the graph reads there.
    Named {
        /// The key (the SHA-256 of the bytes, in hex, as ExecuTorch writes it; `scale_` before
        /// it for the scales of a quantized weight).
        key: &'a str,
        /// `ConstantDataOffset.size`.
        size: u64,
    },
}

/// A verified XNNPACK delegate blob.
#[derive(Clone, Copy)]
pub struct Blob<'a> {
    bytes: &'a [u8],
    header: Option<Header>,
    graph: XNNGraph<'a>,
    region: &'a [u8],
}

impl core::fmt::Debug for Blob<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Blob").field("len", &self.bytes.len()).field("header", &self.header).finish_non_exhaustive()
    }
}

crate::container::entry_points!(
    Blob,
    "an XNNPACK delegate blob (an `XH00` header, or none for a bare `XN01` XNNGraph)",
    "value ids, node inputs and outputs, constant indices and inline constant ranges, and \
     quantization parameters against their tensors; a bare XNNGraph has no constant region, so \
     its inline ranges are not checked"
);

impl<'a> Container<'a> for Blob<'a> {
    /// The `XH00` header (when there is one), then the XNNGraph flatbuffer it frames.
    fn structure(bytes: &'a [u8], options: &Options) -> Result<(Self, Stats), Error> {
        let (header, flatbuffer, region) = match Blob::frame(bytes) {
            Ok(parts) => parts,
            Err((kind, at, field)) => return Err(Error::header(kind, at, field)),
        };
        let base = header.map_or(0, |h| u64::from(h.flatbuffer_offset));
        let (graph, stats) = verified_root(flatbuffer, Some(IDENTIFIER), options, base)?;
        Ok((Blob { bytes, header, graph, region }, stats))
    }

    fn rules(&self, options: &Options) -> Result<(), Error> {
        with_error_slot(&GRAPH, |error| {
            self.check(&mut Walk::new(options, self.bytes.len(), (&GRAPH, self.root_offset()), error))
        })
    }
}

impl<'a> Blob<'a> {
    /// The whole blob.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The `XH00` header; `None` for a bare XNNGraph.
    pub fn header(&self) -> Option<Header> {
        self.header
    }

    /// The XNNGraph.
    pub fn graph(&self) -> XNNGraph<'a> {
        self.graph
    }

    /// The constant region after the flatbuffer (empty for a bare XNNGraph).
    pub fn constant_region(&self) -> &'a [u8] {
        self.region
    }

    /// Where constant `index` (`XNNGraph.constant_data[index]`) lives.
    pub fn constant(&self, index: usize) -> Result<Constant<'a>, Error> {
        with_error_slot(&GRAPH, |error| {
            self.lookup(index).map_err(|(kind, tail)| self.entry_fault(error, kind, index, tail))
        })
    }

    /// The bytes of constant `index`, looking named constants up with `named` (named data of
    /// the program, or of a `.ptd` file); a named constant `named` lacks, or whose data is
    /// shorter than the size the graph gives, is an error naming its key. The bytes returned
    /// are the size the graph gives. Constant work plus one call of `named`.
    pub fn constant_data(&self, index: usize, named: impl Fn(&str) -> Option<&'a [u8]>) -> Result<&'a [u8], Error> {
        with_error_slot(&GRAPH, |error| self.constant_data_in(index, named, error))
    }

    /// [`Blob::parse`] for a blob nested in a program, failing with its error written into
    /// `error`.
    #[cfg(feature = "nested-xnnpack")]
    pub(crate) fn parse_in(bytes: &'a [u8], error: &mut Error) -> Checked<Self> {
        // A nested blob is read with the default limits, as `Blob::parse` reads it.
        let options = &Options::DEFAULT;
        let (header, flatbuffer, region) =
            Blob::frame(bytes).map_err(|(kind, at, field)| locate(error, kind, at, field, &[]))?;
        let base = header.map_or(0, |h| u64::from(h.flatbuffer_offset));
        let (graph, _) = crate::container::verified_root_in(flatbuffer, Some(IDENTIFIER), options, base, error)?;
        let blob = Blob { bytes, header, graph, region };
        blob.check(&mut Walk::new(options, bytes.len(), (&GRAPH, blob.root_offset()), error))?;
        Ok(blob)
    }

    /// The blob's parts: its `XH00` header (when there is one), the XNNGraph flatbuffer and the
    /// constant region after it; or why the header is refused.
    fn frame(bytes: &'a [u8]) -> Result<Parts<'a>, HeaderFault> {
        if has_identifier(bytes, HEADER_MAGIC) {
            let header = Header::read(bytes)?;
            match (bytes.get(header.flatbuffer_range()), bytes.get(header.constant_data_range())) {
                (Some(flatbuffer), Some(region)) => Ok((Some(header), flatbuffer, region)),
                _ => Err((ErrorKind::OutOfBounds, 10, &MAGIC)),
            }
        } else if has_identifier(bytes, IDENTIFIER) {
            Ok((None, bytes, &[]))
        } else {
            let kind = if bytes.len() < 8 { ErrorKind::Truncated } else { ErrorKind::WrongIdentifier };
            Err((kind, 4, &MAGIC))
        }
    }

    /// [`Blob::constant_data`], failing with its error written into `error`.
    pub(crate) fn constant_data_in(
        &self,
        index: usize,
        named: impl Fn(&str) -> Option<&'a [u8]>,
        error: &mut Error,
    ) -> Checked<&'a [u8]> {
        let (kind, tail) = match self.lookup(index) {
            Ok(Constant::Inline(data)) => return Ok(data),
            Ok(Constant::Named { key, size }) => match named(key) {
                Some(data) => match usize::try_from(size).ok().and_then(|n| data.get(..n)) {
                    Some(data) => return Ok(data),
                    None => {
                        (ErrorKind::Rule("named data shorter than its size"), Some(&ConstantDataOffset::NAMED_KEY_NAME))
                    }
                },
                None => (ErrorKind::NotFound, Some(&ConstantDataOffset::NAMED_KEY_NAME)),
            },
            Err(fault) => fault,
        };
        Err(self.entry_fault(error, kind, index, tail))
    }

    /// Where entry `index` of `constant_data` lives, or the error's kind and the entry's field
    /// it is located at (none: the entry itself).
    pub(super) fn lookup(&self, index: usize) -> Result<Constant<'a>, Fault> {
        let Some(entry) = self.graph.constant_data().and_then(|l| l.get(index)) else {
            return Err((ErrorKind::IndexOutOfRange, None));
        };
        let (offset, size) = (entry.offset(), entry.size());
        let key = entry.named_key().filter(|k| !k.is_empty());
        if offset == NAMED {
            return match key {
                Some(key) => Ok(Constant::Named { key, size }),
                None => Err((
                    ErrorKind::Rule("a named constant needs a named_key"),
                    Some(&ConstantDataOffset::NAMED_KEY_NAME),
                )),
            };
        }
        if key.is_some() {
            return Err((
                ErrorKind::Rule("a named_key needs offset UINT64_MAX"),
                Some(&ConstantDataOffset::NAMED_KEY_NAME),
            ));
        }
        let range =
            usize::try_from(offset).ok().and_then(|start| Some(start..start.checked_add(usize::try_from(size).ok()?)?));
        match range.and_then(|r| self.region.get(r)) {
            Some(data) => Ok(Constant::Inline(data)),
            None => Err((ErrorKind::OutOfBounds, Some(&ConstantDataOffset::SIZE_NAME))),
        }
    }

    /// Whether entry `index` resolves, as the rules require: in a bare XNNGraph, which carries
    /// no constant region, inline ranges are not checked.
    pub(super) fn resolves(&self, index: usize, error: &mut Error) -> Checked {
        match self.lookup(index) {
            Err((ErrorKind::OutOfBounds, _)) if self.header.is_none() => Ok(()),
            Err((kind, tail)) => Err(self.entry_fault(error, kind, index, tail)),
            Ok(_) => Ok(()),
        }
    }

    /// Fails with an error at `XNNGraph.constant_data[index]`, or at its `tail` field.
    #[cold]
    fn entry_fault(&self, error: &mut Error, kind: ErrorKind, index: usize, tail: Option<Name>) -> Fail {
        let list = &XNNGraph::CONSTANT_DATA_NAME;
        let path: [Segment; 2] = [(list, Some(index)), (tail.unwrap_or(list), None)];
        let at = self.root_offset();
        locate(error, kind, at, &GRAPH, path.get(..if tail.is_some() { 2 } else { 1 }).unwrap_or_default())
    }

    /// The blob offset of the graph's root table, where its errors are located.
    pub(super) fn root_offset(&self) -> u64 {
        let at = self.header.map_or(0, |h| u64::from(h.flatbuffer_offset));
        at.saturating_add(to_u64(self.graph.raw().position()))
    }
}
