//! The `FH01` header ExecuTorch inserts at byte 8 of a `.ptd` file (`docs/executorch.md` §3.9),
//! read with zerocopy and checked with overflow-safe arithmetic; errors name the field at fault.

use crate::error::{Error, ErrorKind};
use crate::verify::Name;
use crate::wire::to_u64;
use core::ops::Range;
use zerocopy::little_endian::{U32, U64};
use zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};

/// The magic at file offset 8.
pub const HEADER_MAGIC: [u8; 4] = *b"FH01";

/// Where the header starts in the file (after the root offset and the file identifier).
const AT: usize = 8;

/// The shortest header a reader accepts: the fields below.
const MIN_LENGTH: u32 = 40;

macro_rules! fields {
    ($($id:ident = $s:literal),* $(,)?) => {$(static $id: &str = $s;)*};
}

fields! {
    MAGIC = "FH01.magic", LENGTH = "FH01.length", FLATBUFFER_OFFSET = "FH01.flatbuffer_offset",
    FLATBUFFER_SIZE = "FH01.flatbuffer_size", SEGMENT_BASE_OFFSET = "FH01.segment_base_offset",
    SEGMENT_DATA_SIZE = "FH01.segment_data_size",
}

/// A broken header rule: the error's kind, offset and field.
pub(crate) type HeaderFault = (ErrorKind, u64, Name);

/// The header as it lies in the file.
#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct Wire {
    magic: [u8; 4],
    length: U32,
    flatbuffer_offset: U64,
    flatbuffer_size: U64,
    segment_base_offset: U64,
    segment_data_size: U64,
}

/// A checked `FH01` header: where the FlatTensor's tables end and the segments lie, as file
/// offsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The header's length from its magic (the writer's is 40).
    pub length: u32,
    /// The header's end, padded (the writer's is 48): the flatbuffer's tables follow it.
    pub flatbuffer_offset: u64,
    /// The flatbuffer's length without the header: the flatbuffer is the file's first
    /// `flatbuffer_offset + flatbuffer_size` bytes.
    pub flatbuffer_size: u64,
    /// Where the segments start; `DataSegment.offset` counts from here.
    pub segment_base_offset: u64,
    /// The segments' total size.
    pub segment_data_size: u64,
}

impl Header {
    /// Reads and checks the header at byte 8 of `file`: at least 40 bytes long, the
    /// flatbuffer after it and inside the file, the segments after the flatbuffer and inside
    /// the file.
    pub fn parse(file: &[u8]) -> Result<Header, Error> {
        Header::read(file).map_err(|(kind, at, field)| Error::header(kind, at, field))
    }

    /// [`Header::parse`], failing with the error's kind, offset and field.
    pub(crate) fn read(file: &[u8]) -> Result<Header, HeaderFault> {
        let Some(Ok((wire, _))) = file.get(AT..).map(Wire::ref_from_prefix) else {
            return Err((ErrorKind::Truncated, to_u64(file.len()), &LENGTH));
        };
        if wire.magic != HEADER_MAGIC {
            return Err((ErrorKind::WrongIdentifier, 8, &MAGIC));
        }
        let header = Header {
            length: wire.length.get(),
            flatbuffer_offset: wire.flatbuffer_offset.get(),
            flatbuffer_size: wire.flatbuffer_size.get(),
            segment_base_offset: wire.segment_base_offset.get(),
            segment_data_size: wire.segment_data_size.get(),
        };
        header.check(to_u64(file.len()))?;
        Ok(header)
    }

    /// The header's rules, every sum checked.
    fn check(&self, len: u64) -> Result<(), HeaderFault> {
        let rule = ErrorKind::Rule;
        if self.length < MIN_LENGTH {
            return Err((rule("the header is at least 40 bytes"), 12, &LENGTH));
        }
        // 8 + a u32 cannot overflow a u64.
        if self.flatbuffer_offset < 8 + u64::from(self.length) {
            return Err((rule("the flatbuffer's tables must start after the header"), 16, &FLATBUFFER_OFFSET));
        }
        let flatbuffer_end = self.flatbuffer_offset.checked_add(self.flatbuffer_size).filter(|&e| e <= len);
        let Some(flatbuffer_end) = flatbuffer_end else {
            return Err((ErrorKind::OutOfBounds, 24, &FLATBUFFER_SIZE));
        };
        if self.segment_base_offset < flatbuffer_end {
            return Err((rule("the segments must start after the flatbuffer"), 32, &SEGMENT_BASE_OFFSET));
        }
        match self.segment_base_offset.checked_add(self.segment_data_size) {
            Some(end) if end <= len => Ok(()),
            _ => Err((ErrorKind::OutOfBounds, 40, &SEGMENT_DATA_SIZE)),
        }
    }

    /// Where the flatbuffer lies: the file's first bytes, header included.
    pub fn flatbuffer_range(&self) -> Range<usize> {
        0..to_index(self.flatbuffer_offset.saturating_add(self.flatbuffer_size))
    }
}

/// `value` as an index; [`Header::parse`] checked it against the file's length, so this
/// saturates only for headers it would have refused.
fn to_index(value: u64) -> usize {
    usize::try_from(value).unwrap_or(usize::MAX)
}
