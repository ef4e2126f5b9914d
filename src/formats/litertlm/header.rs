//! The 32-byte header at the start of a `.litertlm` file (`docs/litertlm.md` §8.1), read with
//! zerocopy and checked with overflow-safe arithmetic; errors name the field at fault.

use crate::error::{Error, ErrorKind};
use crate::verify::Name;
use crate::wire::to_u64;
use core::ops::Range;
use zerocopy::little_endian::{U32, U64};
use zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};

/// The magic at file offset 0.
pub const MAGIC: [u8; 8] = *b"LITERTLM";

/// The header's length: the metadata flatbuffer starts here.
pub const HEADER_LENGTH: u64 = 32;

macro_rules! fields {
    ($($id:ident = $s:literal),* $(,)?) => {$(static $id: &str = $s;)*};
}

fields! { MAGIC_FIELD = "LITERTLM.magic", HEADER_END = "LITERTLM.header_end" }

/// A broken header rule: the error's kind, offset and field.
pub(crate) type HeaderFault = (ErrorKind, u64, Name);

/// The header as it lies in the file.
#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct Wire {
    magic: [u8; 8],
    major: U32,
    minor: U32,
    patch: U32,
    reserved: [u8; 4],
    header_end: U64,
}

/// A checked `.litertlm` header: the file's version and where its metadata flatbuffer ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The major version (bytes 8..12; 1 in the files LiteRT-LM writes today).
    pub major: u32,
    /// The minor version (bytes 12..16).
    pub minor: u32,
    /// The patch version (bytes 16..20).
    pub patch: u32,
    /// Bytes 20..24, which align the header end to 8 bytes (zero as written; not checked).
    pub reserved: [u8; 4],
    /// Where the metadata flatbuffer ends (bytes 24..32): it lies in `[32, header_end)`.
    pub header_end: u64,
}

impl Header {
    /// Reads and checks the header at the start of `file`: the `LITERTLM` magic, and a header
    /// end after byte 32 and inside the file.
    pub fn parse(file: &[u8]) -> Result<Header, Error> {
        Header::read(file).map_err(|(kind, at, field)| Error::header(kind, at, field))
    }

    /// [`Header::parse`], failing with the error's kind, offset and field.
    pub(crate) fn read(file: &[u8]) -> Result<Header, HeaderFault> {
        if file.get(..MAGIC.len()).is_some_and(|m| m != MAGIC) {
            return Err((ErrorKind::WrongIdentifier, 0, &MAGIC_FIELD));
        }
        let Ok((wire, _)) = Wire::ref_from_prefix(file) else {
            let field = if file.len() < MAGIC.len() { &MAGIC_FIELD } else { &HEADER_END };
            return Err((ErrorKind::Truncated, to_u64(file.len()), field));
        };
        let header = Header {
            major: wire.major.get(),
            minor: wire.minor.get(),
            patch: wire.patch.get(),
            reserved: wire.reserved,
            header_end: wire.header_end.get(),
        };
        if header.header_end <= HEADER_LENGTH {
            let rule = ErrorKind::Rule("the metadata must end after the 32-byte header");
            return Err((rule, 24, &HEADER_END));
        }
        if header.header_end > to_u64(file.len()) {
            return Err((ErrorKind::OutOfBounds, 24, &HEADER_END));
        }
        Ok(header)
    }

    /// Where the metadata flatbuffer lies: `[32, header_end)`.
    pub fn metadata_range(&self) -> Range<usize> {
        // Both ends are inside the file (checked by `read`), so they fit a `usize`.
        32..usize::try_from(self.header_end).unwrap_or(usize::MAX)
    }
}
