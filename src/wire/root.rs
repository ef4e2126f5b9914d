//! Buffer-level framing: the root offset, file identifiers, size prefixes.

use super::bytes::{read_u32, read_uoffset};

/// A 4-byte file identifier, such as `TFL3`.
pub type Identifier = [u8; 4];

/// The position of the root table: the unsigned offset at byte 0.
pub fn root_position(buf: &[u8]) -> Option<usize> {
    read_uoffset(buf, 0)
}

/// Whether `buf` carries `id` at bytes 4..8 (false, never a panic, when `buf` is shorter).
pub fn has_identifier(buf: &[u8], id: Identifier) -> bool {
    buf.get(4..8) == Some(&id[..])
}

/// For a size-prefixed buffer (a `u32` length, then the flatbuffer), the flatbuffer it frames.
///
/// None of the model formats this crate reads is size-prefixed; this is for callers that embed
/// them that way.
pub fn size_prefixed(buf: &[u8]) -> Option<&[u8]> {
    let len = usize::try_from(read_u32(buf, 0)?).ok()?;
    buf.get(4..)?.get(..len)
}
