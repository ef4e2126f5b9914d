//! Checked reads of scalars and offsets at byte positions.

use super::Scalar;
use zerocopy::FromBytes;

/// Reads a `T` at `pos`, or `None` when it does not fit in `buf`.
#[inline(always)]
pub fn read_scalar<T: Scalar>(buf: &[u8], pos: usize) -> Option<T> {
    let bytes = buf.get(pos..)?;
    let (wire, _) = T::Wire::read_from_prefix(bytes).ok()?;
    Some(T::from_wire(wire))
}

/// Reads a little-endian `u32` at `pos`.
#[inline(always)]
pub fn read_u32(buf: &[u8], pos: usize) -> Option<u32> {
    let b = buf.get(pos..)?.first_chunk::<4>()?;
    Some(u32::from_le_bytes(*b))
}

/// Reads a little-endian `u16` at `pos`.
#[inline(always)]
pub(crate) fn read_u16(buf: &[u8], pos: usize) -> Option<u16> {
    let b = buf.get(pos..)?.first_chunk::<2>()?;
    Some(u16::from_le_bytes(*b))
}

/// Follows the unsigned offset stored at `pos`: the position it points to, unchecked against
/// the buffer's length but free of overflow.
#[inline(always)]
pub fn read_uoffset(buf: &[u8], pos: usize) -> Option<usize> {
    let off = read_u32(buf, pos)?;
    pos.checked_add(usize::try_from(off).ok()?)
}

/// The table whose soffset is at `pos`: the position of its vtable.
#[inline(always)]
pub(crate) fn vtable_position(buf: &[u8], pos: usize) -> Option<usize> {
    let b = buf.get(pos..)?.first_chunk::<4>()?;
    // vtable = table - soffset, in i64 (which holds both, and their difference, on any target)
    let vt = i64::try_from(pos).ok()?.wrapping_sub(i64::from(i32::from_le_bytes(*b)));
    usize::try_from(vt).ok()
}

/// The field offset vtable `slots` (the part after its two sizes) give `slot`; 0 when the field
/// is absent or the vtable is too short to hold the slot. The one vtable decoder: the views
/// and the verifier both read slots through it.
#[inline(always)]
pub(crate) fn voffset(slots: &[u8], slot: usize) -> usize {
    // `2 * slot + 2` cannot wrap for a slot read from a `u16`, so this is one bounds check.
    let at = slot.wrapping_mul(2);
    match slots.get(at..at.wrapping_add(2)).and_then(|s| s.first_chunk::<2>()) {
        Some(b) => usize::from(u16::from_le_bytes(*b)),
        None => 0,
    }
}

/// The element bytes of the vector (or string) whose length prefix is at `at`, and its length.
///
/// Only for verified vectors: the verifier checked `at + 4 + len * elem_size` without
/// overflow, so the wrapping arithmetic here is exact; the slice bounds check still guards
/// every access.
#[inline]
pub(crate) fn vector_bytes_at(buf: &[u8], at: usize, elem_size: usize) -> Option<(&[u8], usize)> {
    let len = usize::try_from(read_u32(buf, at)?).ok()?;
    let start = at.wrapping_add(4);
    let bytes = buf.get(start..start.wrapping_add(len.wrapping_mul(elem_size)))?;
    Some((bytes, len))
}

/// Where `part` starts in `whole`, when it lies inside it (an empty `part` at `whole`'s end
/// included); `None` for a slice from elsewhere, such as the static empty slice an absent
/// vector reads as. Error offsets counted through it never depend on where the input sits in
/// memory.
pub(crate) fn position_in(whole: &[u8], part: &[u8]) -> Option<usize> {
    let start = part.as_ptr().addr().checked_sub(whole.as_ptr().addr())?;
    (start.checked_add(part.len())? <= whole.len()).then_some(start)
}
