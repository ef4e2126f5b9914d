//! The `XH00` header of an XNNPACK delegate blob (`docs/executorch.md` §3.7), read with zerocopy
//! and checked with overflow-safe arithmetic; errors name the field at fault.

use crate::error::{Error, ErrorKind};
use crate::verify::Name;
use crate::wire::to_u64;
use core::ops::Range;
use zerocopy::little_endian::{U16, U32, U64};
use zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};

/// The magic at bytes 4..8 of a blob with a header (a bare XNNGraph has `XN01` there).
pub const HEADER_MAGIC: [u8; 4] = *b"XH00";

/// The smallest `header_size` a reader accepts (the fields below end at byte 30).
const MIN_HEADER_SIZE: u16 = 30;

macro_rules! fields {
    ($($id:ident = $s:literal),* $(,)?) => {$(static $id: &str = $s;)*};
}

fields! {
    MAGIC = "XH00.magic", HEADER_SIZE = "XH00.header_size", FLATBUFFER_OFFSET = "XH00.flatbuffer_offset",
    FLATBUFFER_SIZE = "XH00.flatbuffer_size", CONSTANT_DATA_OFFSET = "XH00.constant_data_offset", CONSTANT_DATA_SIZE = "XH00.constant_data_size",
}

/// A broken header rule: the error's kind, offset and field.
pub(crate) type HeaderFault = (ErrorKind, u64, Name);

/// The header as it lies in the blob.
#[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
struct Wire {
    padding: [u8; 4],
    magic: [u8; 4],
    header_size: U16,
    flatbuffer_offset: U32,
    flatbuffer_size: U32,
    constant_data_offset: U32,
    constant_data_size: U64,
}

/// A checked `XH00` header: where the XNNGraph flatbuffer and the constant region lie, as
/// offsets from the start of the blob.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The header's length (the writer's is 30).
    pub header_size: u16,
    /// Where the XNNGraph flatbuffer starts.
    pub flatbuffer_offset: u32,
    /// The flatbuffer's length.
    pub flatbuffer_size: u32,
    /// Where the constant region starts.
    pub constant_data_offset: u32,
    /// The constant region's length.
    pub constant_data_size: u64,
}

impl Header {
    /// Reads and checks the header at the start of `blob`: `header_size >= 30`, the flatbuffer
    /// after the header and not empty, the constant region after the flatbuffer, both inside `blob`.
    pub fn parse(blob: &[u8]) -> Result<Header, Error> {
        Header::read(blob).map_err(|(kind, at, field)| Error::header(kind, at, field))
    }

    /// [`Header::parse`], failing with the error's kind, offset and field (small, so that no
    /// error is built and moved until a caller builds one).
    pub(crate) fn read(blob: &[u8]) -> Result<Header, HeaderFault> {
        let Ok((wire, _)) = Wire::ref_from_prefix(blob) else {
            return Err((ErrorKind::Truncated, to_u64(blob.len()), &HEADER_SIZE));
        };
        if wire.magic != HEADER_MAGIC {
            return Err((ErrorKind::WrongIdentifier, 4, &MAGIC));
        }
        let header = Header {
            header_size: wire.header_size.get(),
            flatbuffer_offset: wire.flatbuffer_offset.get(),
            flatbuffer_size: wire.flatbuffer_size.get(),
            constant_data_offset: wire.constant_data_offset.get(),
            constant_data_size: wire.constant_data_size.get(),
        };
        header.check(to_u64(blob.len()))?;
        Ok(header)
    }

    /// The header's rules.
    fn check(&self, len: u64) -> Result<(), HeaderFault> {
        let rule = ErrorKind::Rule;
        if self.header_size < MIN_HEADER_SIZE {
            return Err((rule("header_size must be at least 30"), 8, &HEADER_SIZE));
        }
        if self.flatbuffer_offset < u32::from(self.header_size) {
            return Err((rule("the flatbuffer must start after the header"), 10, &FLATBUFFER_OFFSET));
        }
        if self.flatbuffer_size == 0 {
            return Err((rule("flatbuffer_size must not be 0"), 14, &FLATBUFFER_SIZE));
        }
        // Two u32s cannot overflow a u64; the constant region's u32 + u64 can.
        let flatbuffer_end = u64::from(self.flatbuffer_offset).saturating_add(u64::from(self.flatbuffer_size));
        if flatbuffer_end > len {
            return Err((ErrorKind::OutOfBounds, 14, &FLATBUFFER_SIZE));
        }
        if u64::from(self.constant_data_offset) < flatbuffer_end {
            return Err((rule("the constant region must start after the flatbuffer"), 18, &CONSTANT_DATA_OFFSET));
        }
        match u64::from(self.constant_data_offset).checked_add(self.constant_data_size) {
            Some(end) if end <= len => Ok(()),
            _ => Err((ErrorKind::OutOfBounds, 22, &CONSTANT_DATA_SIZE)),
        }
    }

    /// Where the XNNGraph flatbuffer lies in the blob.
    pub fn flatbuffer_range(&self) -> Range<usize> {
        range(u64::from(self.flatbuffer_offset), u64::from(self.flatbuffer_size))
    }

    /// Where the constant region lies in the blob.
    pub fn constant_data_range(&self) -> Range<usize> {
        range(u64::from(self.constant_data_offset), self.constant_data_size)
    }
}

/// `start..start + len` as indices; [`Header::parse`] checked the sum against the blob's length,
/// so this saturates only for headers it would have refused.
fn range(start: u64, len: u64) -> Range<usize> {
    let start = usize::try_from(start).unwrap_or(usize::MAX);
    let end = usize::try_from(len).map_or(usize::MAX, |len| start.saturating_add(len));
    start..end
}
