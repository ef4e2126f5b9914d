//! The `eh00` extended header ExecuTorch inserts at byte 8 of a program with segments
//! (`docs/executorch.md` §3.4), read with zerocopy; errors name the field at fault.

use crate::error::{Error, ErrorKind};
use crate::verify::Name;
use crate::wire::to_u64;
use zerocopy::little_endian::{U32, U64};
use zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};

/// The magic at file offset 8.
pub const EXTENDED_HEADER_MAGIC: [u8; 4] = *b"eh00";

/// Where the header starts in the file (after the root offset and the file identifier).
const AT: usize = 8;

/// The shortest header a reader accepts: magic, length, `program_size`, `segment_base_offset`.
const MIN_LENGTH: u32 = 24;

/// The length from which `segment_data_size` is present.
const WITH_DATA_SIZE: u32 = 32;

macro_rules! fields {
    ($($id:ident = $s:literal),* $(,)?) => {$(static $id: &str = $s;)*};
}

fields! {
    LENGTH = "eh00.length", PROGRAM_SIZE = "eh00.program_size",
    SEGMENT_BASE_OFFSET = "eh00.segment_base_offset", SEGMENT_DATA_SIZE = "eh00.segment_data_size",
}

/// A broken header rule: the error's kind, offset and field.
pub(crate) type HeaderFault = (ErrorKind, u64, Name);

/// The header as it lies in the file.
#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct Wire {
    magic: [u8; 4],
    length: U32,
    program_size: U64,
    segment_base_offset: U64,
}

/// A checked extended header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExtendedHeader {
    /// The header's length (the writer's is 32).
    pub length: u32,
    /// The flatbuffer's bytes, this header included.
    pub program_size: u64,
    /// The file offset segments are measured from.
    pub segment_base_offset: u64,
    /// The segments' total size, when the header is long enough to hold it.
    pub segment_data_size: Option<u64>,
}

impl ExtendedHeader {
    /// The header of `file`, `None` when bytes 8..12 are not `eh00` (a program without
    /// segments), or an error when it is there but inconsistent with the file.
    pub fn parse(file: &[u8]) -> Result<Option<ExtendedHeader>, Error> {
        ExtendedHeader::read(file).map_err(|(kind, at, field)| Error::header(kind, at, field))
    }

    /// [`ExtendedHeader::parse`], failing with the error's kind, offset and field (small, so
    /// that no error is built and moved until a caller builds one).
    pub(crate) fn read(file: &[u8]) -> Result<Option<ExtendedHeader>, HeaderFault> {
        let Some(rest) = file.get(AT..).filter(|r| r.starts_with(&EXTENDED_HEADER_MAGIC)) else {
            return Ok(None);
        };
        let Ok((wire, after)) = Wire::ref_from_prefix(rest) else {
            return Err((ErrorKind::Truncated, to_u64(file.len()), &LENGTH));
        };
        let length = wire.length.get();
        if length < MIN_LENGTH {
            return Err((ErrorKind::Rule("the extended header is at least 24 bytes"), 12, &LENGTH));
        }
        let segment_data_size = if length >= WITH_DATA_SIZE {
            let Ok((size, _)) = U64::read_from_prefix(after) else {
                return Err((ErrorKind::Truncated, to_u64(file.len()), &SEGMENT_DATA_SIZE));
            };
            Some(size.get())
        } else {
            None
        };
        let header = ExtendedHeader {
            length,
            program_size: wire.program_size.get(),
            segment_base_offset: wire.segment_base_offset.get(),
            segment_data_size,
        };
        header.check(to_u64(file.len()))?;
        Ok(Some(header))
    }

    fn check(&self, len: u64) -> Result<(), HeaderFault> {
        let header_end = to_u64(AT).saturating_add(u64::from(self.length));
        if self.program_size < header_end || self.program_size > len {
            return Err((ErrorKind::OutOfBounds, 16, &PROGRAM_SIZE));
        }
        if self.segment_base_offset < self.program_size || self.segment_base_offset > len {
            return Err((ErrorKind::OutOfBounds, 24, &SEGMENT_BASE_OFFSET));
        }
        match self.segment_data_size.map(|size| self.segment_base_offset.checked_add(size)) {
            Some(None) => Err((ErrorKind::OutOfBounds, 32, &SEGMENT_DATA_SIZE)),
            Some(Some(end)) if end > len => Err((ErrorKind::OutOfBounds, 32, &SEGMENT_DATA_SIZE)),
            _ => Ok(()),
        }
    }
}
