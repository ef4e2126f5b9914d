//! The header ExecuTorch writes before a delegate's flatbuffer (`VH00` for Vulkan, `XH00` for
//! XNNPACK; `docs/executorch.md` §3.1, §3.7): read with zerocopy and checked with
//! overflow-safe arithmetic, errors naming the field at fault. Each format keeps its own
//! `Header` type, with its own names for the data region; this is the reading they share.

use crate::error::ErrorKind;
use crate::verify::Name;
use crate::wire::to_u64;
use core::ops::Range;
use zerocopy::little_endian::{U16, U32, U64};
use zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};

/// The smallest `header_size` a reader accepts (the fields below end at byte 30).
const MIN_HEADER_SIZE: u16 = 30;

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
    data_offset: U32,
    data_size: U64,
}

/// One format's header: its magic, the names its errors give each field, and how its rule on
/// the data region reads.
pub(crate) struct Layout {
    /// The magic at bytes 4..8.
    pub magic: [u8; 4],
    /// The fields' names, in wire order: magic, header size, flatbuffer offset and size, data
    /// region offset and size.
    pub names: [Name; 6],
    /// The rule broken when the data region starts inside the flatbuffer.
    pub data_after_flatbuffer: &'static str,
}

/// A header's fields, checked: the flatbuffer after the header and not empty, the data region
/// after the flatbuffer, both inside the blob.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fields {
    pub header_size: u16,
    pub flatbuffer_offset: u32,
    pub flatbuffer_size: u32,
    pub data_offset: u32,
    pub data_size: u64,
}

/// Reads and checks the header of `layout` at the start of `blob`.
pub(crate) fn read(blob: &[u8], layout: &Layout) -> Result<Fields, HeaderFault> {
    let [magic, header_size, flatbuffer_offset, flatbuffer_size, data_offset, data_size] = layout.names;
    let Ok((wire, _)) = Wire::ref_from_prefix(blob) else {
        return Err((ErrorKind::Truncated, to_u64(blob.len()), header_size));
    };
    if wire.magic != layout.magic {
        return Err((ErrorKind::WrongIdentifier, 4, magic));
    }
    let fields = Fields {
        header_size: wire.header_size.get(),
        flatbuffer_offset: wire.flatbuffer_offset.get(),
        flatbuffer_size: wire.flatbuffer_size.get(),
        data_offset: wire.data_offset.get(),
        data_size: wire.data_size.get(),
    };
    let len = to_u64(blob.len());
    let rule = ErrorKind::Rule;
    if fields.header_size < MIN_HEADER_SIZE {
        return Err((rule("header_size must be at least 30"), 8, header_size));
    }
    if fields.flatbuffer_offset < u32::from(fields.header_size) {
        return Err((rule("the flatbuffer must start after the header"), 10, flatbuffer_offset));
    }
    if fields.flatbuffer_size == 0 {
        return Err((rule("flatbuffer_size must not be 0"), 14, flatbuffer_size));
    }
    // Two u32s cannot overflow a u64; the data region's u32 + u64 can.
    let flatbuffer_end = u64::from(fields.flatbuffer_offset).saturating_add(u64::from(fields.flatbuffer_size));
    if flatbuffer_end > len {
        return Err((ErrorKind::OutOfBounds, 14, flatbuffer_size));
    }
    if u64::from(fields.data_offset) < flatbuffer_end {
        return Err((rule(layout.data_after_flatbuffer), 18, data_offset));
    }
    match u64::from(fields.data_offset).checked_add(fields.data_size) {
        Some(end) if end <= len => Ok(fields),
        _ => Err((ErrorKind::OutOfBounds, 22, data_size)),
    }
}

/// `start..start + len` as indices; [`read`] checked the sum against the blob's length, so
/// this saturates only for headers it would have refused.
pub(crate) fn range(start: u64, len: u64) -> Range<usize> {
    let start = usize::try_from(start).unwrap_or(usize::MAX);
    let end = usize::try_from(len).map_or(usize::MAX, |len| start.saturating_add(len));
    start..end
}
