//! Tables: a position, its vtable, and field reads by slot.

use super::bytes::{read_u16, vector_bytes_at};
use super::{broken, FromStruct, FromTable, FromUnion, Scalar, Seal, UnionMember};
use super::{StrVector, StructVector, TableVector, UnionVector, Vector};

/// A table in a buffer: the position of its soffset and the slot area of its vtable.
///
/// Only this crate makes one, over a table its verifier accepted, and only this crate reads
/// fields through it: outside code gets one from a view's `raw()` for its position and field
/// positions, and reads the fields through the typed views.
#[derive(Clone, Copy)]
pub struct Table<'a> {
    buf: &'a [u8],
    pos: usize,
    /// The vtable's field offsets (after its two size fields).
    slots: &'a [u8],
}

/// The table's position and vtable length, not the buffer's bytes.
impl core::fmt::Debug for Table<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Table").field("pos", &self.pos).field("slots", &(self.slots.len() / 2)).finish_non_exhaustive()
    }
}

impl<'a> Table<'a> {
    /// The table at `pos` in verified bytes. The verifier checked the vtable lies in the
    /// buffer, so the wrapping arithmetic is exact; the slice bounds checks still guard reads.
    #[inline]
    pub(crate) fn verified(buf: &'a [u8], pos: usize) -> Option<Self> {
        let soffset = buf.get(pos..).and_then(|b| b.first_chunk::<4>()).map(|b| i32::from_le_bytes(*b));
        let Some(soffset) = soffset else { return broken(None) };
        let vt = pos.wrapping_add_signed((soffset as isize).wrapping_neg());
        let vt_len = read_u16(buf, vt).map(usize::from);
        match vt_len.and_then(|len| buf.get(vt.wrapping_add(4)..vt.wrapping_add(len))) {
            Some(slots) => Some(Table { buf, pos, slots }),
            None => broken(None),
        }
    }

    /// The buffer the table lives in.
    pub fn buffer(&self) -> &'a [u8] {
        self.buf
    }

    /// The byte position of the table (its soffset) in the buffer.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// The absolute position of field `slot`, or `None` when the field is absent.
    #[inline]
    pub fn field(&self, slot: u16) -> Option<usize> {
        // The verifier read the same slot through the same decoder; `pos + voffset` stays
        // inside the (verified) table.
        match super::voffset(self.slots, usize::from(slot)) {
            0 => None,
            voff => Some(self.pos.wrapping_add(voff)),
        }
    }

    /// Whether field `slot` is present.
    pub fn has(&self, slot: u16) -> bool {
        self.field(slot).is_some()
    }

    /// Scalar field `slot`, or `default` when absent.
    #[inline]
    pub(crate) fn scalar<T: Scalar>(&self, slot: u16, default: T) -> T {
        match self.field(slot) {
            None => default,
            Some(p) => match super::read_scalar(self.buf, p) {
                Some(v) => v,
                None => broken(default),
            },
        }
    }

    /// The position an offset field `slot` points to.
    #[inline]
    fn target(&self, slot: u16) -> Option<usize> {
        let p = self.field(slot)?;
        // The verifier checked `p + offset` lies in the buffer.
        match super::read_u32(self.buf, p) {
            Some(off) => Some(p.wrapping_add(off as usize)),
            None => broken(None),
        }
    }

    /// Table field `slot`.
    #[inline]
    pub(crate) fn table<T: FromTable<'a>>(&self, slot: u16) -> Option<T> {
        let t = self.target(slot)?;
        Table::verified(self.buf, t).map(|t| T::from_table(t, Seal))
    }

    /// The raw table of field `slot`, whatever its type.
    #[inline]
    pub(crate) fn raw_table(&self, slot: u16) -> Option<Table<'a>> {
        Table::verified(self.buf, self.target(slot)?)
    }

    /// Struct field `slot` (stored inline).
    #[inline]
    pub(crate) fn structure<S: FromStruct<'a>>(&self, slot: u16) -> Option<S> {
        let p = self.field(slot)?;
        match self.buf.get(p..).and_then(|b| b.get(..S::SIZE)) {
            Some(b) => Some(S::from_bytes(b, Seal)),
            None => broken(None),
        }
    }

    /// The bytes of vector field `slot` whose elements are `elem_size` bytes, and its length.
    #[inline]
    fn vector_bytes(&self, slot: u16, elem_size: usize) -> Option<(&'a [u8], usize)> {
        let t = self.target(slot)?;
        match vector_bytes_at(self.buf, t, elem_size) {
            Some(v) => Some(v),
            None => broken(None),
        }
    }

    /// Vector field `slot` of `elem_size`-byte elements: its bytes and its length.
    #[inline]
    pub(crate) fn raw_vector(&self, slot: u16, elem_size: usize) -> Option<(&'a [u8], usize)> {
        self.vector_bytes(slot, elem_size)
    }

    /// String field `slot`.
    #[inline]
    pub(crate) fn string(&self, slot: u16) -> Option<&'a str> {
        super::utf8::verified_str(self.buf, self.target(slot)?)
    }

    /// The bytes of string field `slot`, without UTF-8 decoding.
    #[inline]
    pub(crate) fn string_bytes(&self, slot: u16) -> Option<&'a [u8]> {
        self.vector_bytes(slot, 1).map(|(b, _)| b)
    }

    /// Scalar vector field `slot`, as a zero-copy slice.
    #[inline]
    pub(crate) fn vector<T: Scalar>(&self, slot: u16) -> Option<Vector<'a, T>> {
        // `bytes` holds exactly the vector's elements, so the cast cannot fail.
        let (bytes, _) = self.vector_bytes(slot, T::SIZE)?;
        match Vector::from_bytes(bytes) {
            Some(v) => Some(v),
            None => broken(None),
        }
    }

    /// Table vector field `slot`.
    #[inline]
    pub(crate) fn table_vector<T: FromTable<'a>>(&self, slot: u16) -> Option<TableVector<'a, T>> {
        let t = self.target(slot)?;
        let len = self.vector_len(t)?;
        Some(TableVector::new(self.buf, t.checked_add(4)?, len))
    }

    /// String vector field `slot`.
    #[inline]
    pub(crate) fn string_vector(&self, slot: u16) -> Option<StrVector<'a>> {
        let t = self.target(slot)?;
        let len = self.vector_len(t)?;
        Some(StrVector::new(self.buf, t.checked_add(4)?, len))
    }

    /// Struct vector field `slot`.
    #[inline]
    pub(crate) fn struct_vector<S: FromStruct<'a>>(&self, slot: u16) -> Option<StructVector<'a, S>> {
        let (bytes, _) = self.vector_bytes(slot, S::SIZE)?;
        Some(StructVector::new(bytes))
    }

    /// Union field whose type is in slot `value_slot - 1` and whose value is in `value_slot`.
    #[inline]
    pub(crate) fn union<U: FromUnion<'a>>(&self, value_slot: u16) -> U {
        let tag = self.scalar::<u8>(value_slot.wrapping_sub(1), 0);
        let pos = if tag == 0 { None } else { self.target(value_slot) };
        U::from_union(tag, super::UnionValue::new(self.buf, pos), Seal)
    }

    /// Union field `value_slot` as its member `T`, given the field's type `tag`: `None` unless
    /// `tag` is `T`'s (nothing is read then).
    #[inline]
    pub(crate) fn union_member<U, T: UnionMember<'a, U>>(&self, value_slot: u16, tag: u8) -> Option<T> {
        if tag != T::TAG {
            return None;
        }
        self.table(value_slot)
    }

    /// The type tag of the union whose value is in `value_slot`.
    #[inline]
    pub(crate) fn union_tag(&self, value_slot: u16) -> u8 {
        self.scalar::<u8>(value_slot.wrapping_sub(1), 0)
    }

    /// Union vector field: types in `value_slot - 1`, values in `value_slot`.
    #[inline]
    pub(crate) fn union_vector<U: FromUnion<'a>>(&self, value_slot: u16) -> Option<UnionVector<'a, U>> {
        let types = self.vector::<u8>(value_slot.wrapping_sub(1))?.as_slice();
        let t = self.target(value_slot)?;
        let len = self.vector_len(t)?;
        if len != types.len() {
            return broken(None);
        }
        Some(UnionVector::new(self.buf, types, t.checked_add(4)?))
    }

    #[inline]
    fn vector_len(&self, at: usize) -> Option<usize> {
        match super::read_u32(self.buf, at).and_then(|n| usize::try_from(n).ok()) {
            Some(n) => Some(n),
            None => broken(None),
        }
    }
}
