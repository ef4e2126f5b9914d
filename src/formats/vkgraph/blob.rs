//! A Vulkan delegate blob: the `VH00` header (or none, for a bare legacy `VK00` flatbuffer),
//! the verified VkGraph, and its constants resolved to bytes (`docs/executorch.md` §3.1,
//! §3.2).

use super::header::HeaderFault;
use super::{
    GraphTypes, Header, OperatorCall, ValueList, VkBytes, VkGraph, VkTensor, VkValue, HEADER_MAGIC, IDENTIFIER,
};
use crate::container::{
    check_ids, in_range, locate, verified_root, verified_root_in, with_error_slot, Checked, Container, Fault, Segment,
    Walk,
};
use crate::error::{Error, ErrorKind};
use crate::verify::{Fail, Name, Options, Stats};
use crate::wire::{has_identifier, to_u64, TableVector};

/// The root of the paths in rule errors (fields are named by the schema's constants), and the
/// header's field an unrecognised blob is located at.
static GRAPH: &str = "VkGraph";
static MAGIC: &str = "VH00.magic";

/// `VkBytes.offset` meaning "the bytes are the program's named data under `named_key`".
const NAMED: u64 = u64::MAX;

/// A blob's parts: its `VH00` header (none for a bare VkGraph), the VkGraph flatbuffer, the raw
/// constant bytes.
type Parts<'a> = (Option<Header>, &'a [u8], &'a [u8]);

/// Where a constant's bytes live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Constant<'a> {
    /// In the blob's raw-bytes region.
    Inline(&'a [u8]),
    /// In the program's named data, under this key (ExecuTorch 1.5); `length` is what the graph
    /// expects the named data to hold.
    Named {
        /// The key (the SHA-256 of the bytes, in hex, as ExecuTorch writes it).
        key: &'a str,
        /// `VkBytes.length`.
        length: u64,
    },
}

/// A verified Vulkan delegate blob.
#[derive(Clone, Copy)]
pub struct Blob<'a> {
    bytes: &'a [u8],
    header: Option<Header>,
    graph: VkGraph<'a>,
    raw: &'a [u8],
}

impl core::fmt::Debug for Blob<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Blob").field("len", &self.bytes.len()).field("header", &self.header).finish_non_exhaustive()
    }
}

crate::container::entry_points!(
    Blob,
    "a Vulkan delegate blob (a `VH00` header, or none for a bare `VK00` VkGraph)",
    "every value index, constant index and inline constant range in range; a bare VkGraph has no \
     raw bytes, so its inline ranges are not checked"
);

impl<'a> Container<'a> for Blob<'a> {
    /// The `VH00` header (when there is one), then the VkGraph flatbuffer it frames.
    fn structure(bytes: &'a [u8], options: &Options) -> Result<(Self, Stats), Error> {
        let (header, flatbuffer, raw) = match Blob::frame(bytes) {
            Ok(parts) => parts,
            Err((kind, at, field)) => return Err(Error::header(kind, at, field)),
        };
        let base = header.map_or(0, |h| u64::from(h.flatbuffer_offset));
        let (graph, stats) = verified_root(flatbuffer, Some(IDENTIFIER), options, base)?;
        Ok((Blob { bytes, header, graph, raw }, stats))
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

    /// The `VH00` header; `None` for a bare legacy VkGraph.
    pub fn header(&self) -> Option<Header> {
        self.header
    }

    /// The VkGraph.
    pub fn graph(&self) -> VkGraph<'a> {
        self.graph
    }

    /// The raw constant bytes after the flatbuffer (empty for a bare VkGraph).
    pub fn raw_bytes(&self) -> &'a [u8] {
        self.raw
    }

    /// Where constant `index` (`VkGraph.constants[index]`) lives.
    pub fn constant(&self, index: usize) -> Result<Constant<'a>, Error> {
        with_error_slot(&GRAPH, |error| self.resolve(self.graph.constants(), &VkGraph::CONSTANTS_NAME, index, error))
    }

    /// Where shader `index` (`VkGraph.shaders[index]`) lives; shaders resolve like constants.
    pub fn shader(&self, index: usize) -> Result<Constant<'a>, Error> {
        with_error_slot(&GRAPH, |error| self.resolve(self.graph.shaders(), &VkGraph::SHADERS_NAME, index, error))
    }

    /// The bytes of constant `index`, looking named constants up with `named` (the program's
    /// named data, for a blob from a `.pte`); a named constant whose data `named` lacks, or
    /// whose data is not the length the graph gives, is an error naming its key. Constant work
    /// plus one call of `named`.
    pub fn constant_data(&self, index: usize, named: impl Fn(&str) -> Option<&'a [u8]>) -> Result<&'a [u8], Error> {
        with_error_slot(&GRAPH, |error| self.constant_data_in(index, named, error))
    }

    /// [`Blob::parse`] for a blob nested in a program, failing with its error written into
    /// `error`.
    pub(crate) fn parse_in(bytes: &'a [u8], error: &mut Error) -> Checked<Self> {
        // A nested blob is read with the default limits, as `Blob::parse` reads it.
        let options = &Options::DEFAULT;
        let (blob, _) = Blob::structure_in(bytes, options, error)?;
        blob.check(&mut Walk::new(options, bytes.len(), (&GRAPH, blob.root_offset()), error))?;
        Ok(blob)
    }

    /// [`Container::structure`], failing with its error written into `error` (the same steps,
    /// so that a blob nested in a program moves no error).
    fn structure_in(bytes: &'a [u8], options: &Options, error: &mut Error) -> Checked<(Self, Stats)> {
        let (header, flatbuffer, raw) =
            Blob::frame(bytes).map_err(|(kind, at, field)| locate(error, kind, at, field, &[]))?;
        let base = header.map_or(0, |h| u64::from(h.flatbuffer_offset));
        let (graph, stats) = verified_root_in(flatbuffer, Some(IDENTIFIER), options, base, error)?;
        Ok((Blob { bytes, header, graph, raw }, stats))
    }

    /// The blob's parts: its `VH00` header (when there is one), the VkGraph flatbuffer and the
    /// raw bytes after it; or why the header is refused.
    fn frame(bytes: &'a [u8]) -> Result<Parts<'a>, HeaderFault> {
        if has_identifier(bytes, HEADER_MAGIC) {
            let header = Header::read(bytes)?;
            match (bytes.get(header.flatbuffer_range()), bytes.get(header.bytes_range())) {
                (Some(flatbuffer), Some(raw)) => Ok((Some(header), flatbuffer, raw)),
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
        let (kind, tail) = match self.lookup(self.graph.constants(), index) {
            Ok(Constant::Inline(data)) => return Ok(data),
            Ok(Constant::Named { key, length }) => match named(key) {
                Some(data) if to_u64(data.len()) == length => return Ok(data),
                Some(_) => (ErrorKind::Rule("named data length differs"), Some(&VkBytes::NAMED_KEY_NAME)),
                None => (ErrorKind::NotFound, Some(&VkBytes::NAMED_KEY_NAME)),
            },
            Err(fault) => fault,
        };
        Err(self.entry_fault(error, kind, &VkGraph::CONSTANTS_NAME, index, tail))
    }

    fn resolve(
        &self,
        list: Option<TableVector<'a, VkBytes<'a>>>,
        field: Name,
        index: usize,
        error: &mut Error,
    ) -> Checked<Constant<'a>> {
        self.lookup(list, index).map_err(|(kind, tail)| self.entry_fault(error, kind, field, index, tail))
    }

    /// Where entry `index` of `list` (constants or shaders) lives, or the error's kind and the
    /// entry's field it is located at (none: the entry itself).
    fn lookup(&self, list: Option<TableVector<'a, VkBytes<'a>>>, index: usize) -> Result<Constant<'a>, Fault> {
        let Some(entry) = list.and_then(|l| l.get(index)) else {
            return Err((ErrorKind::IndexOutOfRange, None));
        };
        let (offset, length) = (entry.offset(), entry.length());
        if offset == NAMED {
            return match entry.named_key().filter(|k| !k.is_empty()) {
                Some(key) => Ok(Constant::Named { key, length }),
                None => Err((ErrorKind::Rule("a named constant needs a named_key"), Some(&VkBytes::NAMED_KEY_NAME))),
            };
        }
        let range = usize::try_from(offset)
            .ok()
            .and_then(|start| Some(start..start.checked_add(usize::try_from(length).ok()?)?));
        match range.and_then(|r| self.raw.get(r)) {
            Some(data) => Ok(Constant::Inline(data)),
            None => Err((ErrorKind::OutOfBounds, Some(&VkBytes::LENGTH_NAME))),
        }
    }

    /// Whether entry `index` of `list` resolves, as [`Blob::check`] requires: in a bare VkGraph,
    /// which carries no raw bytes, inline ranges are not checked.
    fn resolves(
        &self,
        list: Option<TableVector<'a, VkBytes<'a>>>,
        field: Name,
        index: usize,
        error: &mut Error,
    ) -> Checked {
        match self.lookup(list, index) {
            Err((ErrorKind::OutOfBounds, _)) if self.header.is_none() => Ok(()),
            Err((kind, tail)) => Err(self.entry_fault(error, kind, field, index, tail)),
            Ok(_) => Ok(()),
        }
    }

    /// Fails with an error at `VkGraph.<list>[index]`, or at its `tail` field.
    #[cold]
    fn entry_fault(&self, error: &mut Error, kind: ErrorKind, list: Name, index: usize, tail: Option<Name>) -> Fail {
        let path = [(list, Some(index)), (tail.unwrap_or(list), None)];
        self.fail(error, kind, path.get(..if tail.is_some() { 2 } else { 1 }).unwrap_or_default())
    }

    /// Fails with an error at `VkGraph.<path>`, at the graph's root table.
    #[cold]
    fn fail(&self, error: &mut Error, kind: ErrorKind, path: &[Segment]) -> Fail {
        locate(error, kind, self.root_offset(), &GRAPH, path)
    }

    /// The blob offset of the graph's root table, where its errors are located.
    fn root_offset(&self) -> u64 {
        let at = self.header.map_or(0, |h| u64::from(h.flatbuffer_offset));
        at.saturating_add(to_u64(self.graph.raw().position()))
    }

    /// The graph's index rules: value ids in `input_ids`, `output_ids`, operator arguments and
    /// value lists name values; constant ids name constants; every constant and shader
    /// resolves. The walk is charged against the apparent-size budget, as shared vectors can
    /// make it longer than the file.
    #[inline(never)]
    fn check(&self, walk: &mut Walk<'_>) -> Checked {
        let g = self.graph;
        let values = g.values().map_or(0, |v| v.len());
        let constants = g.constants().map_or(0, |c| c.len());
        check_ids(walk, g.input_ids(), values, &VkGraph::INPUT_IDS_NAME)?;
        check_ids(walk, g.output_ids(), values, &VkGraph::OUTPUT_IDS_NAME)?;
        let chain = g.chain();
        for c in 0..chain.map_or(0, |v| v.len()) {
            let Some(call) = chain.and_then(|v| v.get(c)) else { continue };
            walk.charge(1)?;
            walk.enter(0, (&VkGraph::CHAIN_NAME, Some(c)));
            check_ids(walk, call.args(), values, &OperatorCall::ARGS_NAME)?;
        }
        let list = g.values();
        for v in 0..values {
            let Some(value) = list.and_then(|l| l.get(v)) else { continue };
            walk.charge(1)?;
            walk.enter(0, (&VkGraph::VALUES_NAME, Some(v)));
            // Only two members hold indices: each is looked up by its tag, not the whole union
            // decoded.
            let (table, tag) = (value.raw(), value.value_type());
            if let Some(t) = table.union_member::<GraphTypes, VkTensor>(VkValue::VALUE_SLOT, tag) {
                let id = t.constant_id();
                if id >= 0 && !in_range(id, constants) {
                    return Err(walk.fail(
                        ErrorKind::IndexOutOfRange,
                        &[(&VkValue::VALUE_NAME, None), (&VkTensor::CONSTANT_ID_NAME, None)],
                    ));
                }
            } else if let Some(l) = table.union_member::<GraphTypes, ValueList>(VkValue::VALUE_SLOT, tag) {
                check_ids(walk, l.items(), values, &ValueList::ITEMS_NAME)?;
            }
        }
        // A bare VkGraph carries no raw bytes: its inline ranges cannot be checked, only its
        // named keys.
        for (list, field) in [(g.constants(), &VkGraph::CONSTANTS_NAME), (g.shaders(), &VkGraph::SHADERS_NAME)] {
            let n = list.map_or(0, |l| l.len());
            walk.charge(n)?;
            for i in 0..n {
                self.resolves(list, field, i, walk.error())?;
            }
        }
        Ok(())
    }
}
