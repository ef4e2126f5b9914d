//! The CviModel container header (`docs/cvimodel.md` §4.1), read in place with zerocopy.
//!
//! ```text
//! offset size field
//!  0     8    magic `CviModel` (no NUL)
//!  8     4    u32 body_size: the flatbuffer's length
//! 12     1    major
//! 13     1    minor
//! 14    16    md5 of everything after the header
//! 30    16    chip, NUL-padded (absent in version 1.0)
//! 46     2    padding (30 in version 1.0)
//! ```

use crate::error::{Error, ErrorKind, Result};
use crate::verify::Name;
use core::ops::Range;
use zerocopy::little_endian::U32;
use zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};

/// The magic at byte 0 of every cvimodel file.
pub const MAGIC: [u8; 8] = *b"CviModel";

/// The header's size for every version but 1.0.
pub const HEADER_SIZE: usize = 48;

/// The header's size for version 1.0, which has no chip field.
pub const HEADER_SIZE_V1_0: usize = 32;

/// The 48-byte header (version 1.1 and later), as it lies in the file.
#[derive(FromBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug)]
#[repr(C)]
pub struct RawHeader {
    /// `CviModel`.
    pub magic: [u8; 8],
    /// The flatbuffer body's length.
    pub body_size: U32,
    /// Format major version.
    pub major: u8,
    /// Format minor version.
    pub minor: u8,
    /// MD5 of everything after the header.
    pub md5: [u8; 16],
    /// Target chip, NUL-padded.
    pub chip: [u8; 16],
    /// Padding (`AA` from the tools, `Cv` from the compiler).
    pub padding: [u8; 2],
}

/// The 32-byte header of version 1.0, as it lies in the file (no chip field).
#[derive(FromBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug)]
#[repr(C)]
pub struct RawHeaderV1_0 {
    /// `CviModel`.
    pub magic: [u8; 8],
    /// The flatbuffer body's length.
    pub body_size: U32,
    /// Format major version (1).
    pub major: u8,
    /// Format minor version (0).
    pub minor: u8,
    /// MD5 of everything after the header.
    pub md5: [u8; 16],
    /// Padding.
    pub padding: [u8; 2],
}

const _: () = assert!(core::mem::size_of::<RawHeader>() == HEADER_SIZE);
const _: () = assert!(core::mem::size_of::<RawHeaderV1_0>() == HEADER_SIZE_V1_0);

static F_HEADER: &str = "CviModel";
static F_MAGIC: &str = "CviModel.magic";
static F_BODY_SIZE: &str = "CviModel.body_size";
static F_MAJOR: &str = "CviModel.major";
static F_CHIP: &str = "CviModel.chip";

/// Why a header is rejected: the kind, byte offset and field of its [`Error`].
pub(super) type HeaderFault = (ErrorKind, u64, Name);

/// A parsed header: every field, whichever of the two layouts the file uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The magic (always [`MAGIC`] once parsed).
    pub magic: [u8; 8],
    /// The flatbuffer body's length in bytes.
    pub body_size: u32,
    /// Format major version.
    pub major: u8,
    /// Format minor version.
    pub minor: u8,
    /// The stored MD5 of everything after the header (some tools leave it unset).
    pub md5: [u8; 16],
    /// The chip field, NUL-padded; `None` in a version 1.0 header (runtimes then assume `cv183x`).
    pub chip: Option<[u8; 16]>,
    /// The padding bytes.
    pub padding: [u8; 2],
}

impl Header {
    /// Reads the header at the start of `file`: checks the magic, the version and that the
    /// header fits. (The body's extent is checked by [`Header::body_range`].)
    pub fn parse(file: &[u8]) -> Result<Header> {
        Header::read(file).map_err(|(kind, offset, field)| Error::header(kind, offset, field))
    }

    /// [`Header::parse`], failing with the parts of its error (kind, offset, field): small, so
    /// that the caller builds the one [`Error`] where it returns it.
    pub(super) fn read(file: &[u8]) -> core::result::Result<Header, HeaderFault> {
        let len = u64::try_from(file.len()).unwrap_or(u64::MAX);
        match file.get(..MAGIC.len()) {
            None => return Err((ErrorKind::Truncated, len, &F_MAGIC)),
            Some(m) if m != MAGIC => return Err((ErrorKind::BadHeader, 0, &F_MAGIC)),
            Some(_) => {}
        }
        let (short, _) = RawHeaderV1_0::ref_from_prefix(file).map_err(|_| (ErrorKind::Truncated, len, &F_HEADER))?;
        if short.major != 1 {
            return Err((ErrorKind::BadHeader, 12, &F_MAJOR));
        }
        // The two layouts agree up to the md5; version 1.0 has no chip before its padding.
        let (chip, padding) = if short.minor == 0 {
            (None, short.padding)
        } else {
            let (h, _) = RawHeader::ref_from_prefix(file).map_err(|_| (ErrorKind::Truncated, len, &F_CHIP))?;
            (Some(h.chip), h.padding)
        };
        Ok(Header {
            magic: short.magic,
            body_size: short.body_size.get(),
            major: short.major,
            minor: short.minor,
            md5: short.md5,
            chip,
            padding,
        })
    }

    /// The header's size in the file: 32 for version 1.0, else 48.
    pub fn size(&self) -> usize {
        if self.chip.is_some() {
            HEADER_SIZE
        } else {
            HEADER_SIZE_V1_0
        }
    }

    /// The chip name up to its first NUL (`cv183x`, `cv182x`, `cv181x`, `cv180x`), or `None`
    /// in a version 1.0 header or when the bytes are not UTF-8.
    pub fn chip_name(&self) -> Option<&str> {
        let chip = self.chip.as_ref()?;
        let end = chip.iter().position(|&b| b == 0).unwrap_or(chip.len());
        core::str::from_utf8(chip.get(..end)?).ok()
    }

    /// Where the flatbuffer body lies in a file of `file_len` bytes: right after the header,
    /// `body_size` bytes, which must end within the file.
    pub fn body_range(&self, file_len: usize) -> Result<Range<usize>> {
        self.body(file_len).map_err(|(kind, offset, field)| Error::header(kind, offset, field))
    }

    /// [`Header::body_range`], failing with the parts of its error.
    pub(super) fn body(&self, file_len: usize) -> core::result::Result<Range<usize>, HeaderFault> {
        let start = self.size();
        let end =
            usize::try_from(self.body_size).ok().and_then(|n| start.checked_add(n)).filter(|&end| end <= file_len);
        match end {
            Some(end) => Ok(start..end),
            None => Err((ErrorKind::OutOfBounds, 8, &F_BODY_SIZE)),
        }
    }
}
