//! The checks for each kind of object and field: tables, strings, vectors, structs, unions.

use super::{Name, VResult, Verifier, VerifyTable, VerifyUnion};
use crate::error::ErrorKind;
use crate::wire;

/// A table being verified: its position, the slot area of its vtable, its inline size.
#[derive(Clone, Copy)]
pub struct TableCheck<'b> {
    pos: usize,
    slots: &'b [u8],
    inline_len: usize,
}

impl TableCheck<'_> {
    /// The field offset of `slot` within the table; 0 when absent.
    #[inline(always)]
    fn voffset(&self, slot: u16) -> usize {
        let at = usize::from(slot).wrapping_mul(2);
        match self.slots.get(at..).and_then(|s| s.first_chunk::<2>()) {
            Some(b) => usize::from(u16::from_le_bytes(*b)),
            None => 0,
        }
    }
}

/// Memo tags: what kind of object, and which table or union type.
const TAG_TABLE: u32 = 1 << 16;
const TAG_TABLE_VECTOR: u32 = 2 << 16;
const TAG_STRING: u32 = 3 << 16;
const TAG_STRING_VECTOR: u32 = 4 << 16;
const TAG_UNION_VECTOR: u32 = 5 << 16;

/// Strings shorter than this are re-checked rather than looked up in the memo.
const MEMO_MIN_STRING: usize = 64;

impl<'b> Verifier<'b> {
    /// Checks the table at `pos` (its soffset, vtable and inline size) and enters it; `slots`
    /// is how many fields its schema declares. Pair with [`Verifier::leave_table`].
    #[inline(always)]
    pub fn enter_table(&mut self, pos: usize, slots: u16) -> VResult<TableCheck<'b>> {
        self.aligned(pos, 4)?;
        let Some(vt) = wire::vtable_position(self.buf, pos) else {
            return Err(self.fail(ErrorKind::OutOfBounds, pos));
        };
        self.aligned(vt, 2)?;
        let (Some(vt_len), Some(inline_len)) = (
            wire::read_scalar::<u16>(self.buf, vt),
            vt.checked_add(2).and_then(|p| wire::read_scalar::<u16>(self.buf, p)),
        ) else {
            return Err(self.fail(ErrorKind::BadVtable, vt));
        };
        let (vt_len, inline_len) = (usize::from(vt_len), usize::from(inline_len));
        if vt_len < 4 || vt_len % 2 != 0 || inline_len < 4 {
            return Err(self.fail(ErrorKind::BadVtable, vt));
        }
        let Some(slot_bytes) = vt.checked_add(vt_len).and_then(|end| self.buf.get(vt.wrapping_add(4)..end)) else {
            return Err(self.fail(ErrorKind::BadVtable, vt));
        };
        self.check_range(pos, inline_len)?;
        self.depth = self.depth.saturating_add(1);
        if self.depth > self.opts.max_depth {
            return Err(self.fail(ErrorKind::DepthLimit, pos));
        }
        self.stats.tables = self.stats.tables.saturating_add(1);
        if self.stats.tables > self.opts.max_tables {
            return Err(self.fail(ErrorKind::TableLimit, pos));
        }
        self.charge(u64::from(slots).saturating_add(1), pos)?;
        Ok(TableCheck { pos, slots: slot_bytes, inline_len })
    }

    /// Leaves a table entered with [`Verifier::enter_table`].
    #[inline(always)]
    pub fn leave_table(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Verifies the table of type `T` at `pos`, once however many offsets share it.
    #[inline(always)]
    pub fn table<T: VerifyTable>(&mut self, pos: usize) -> VResult {
        if self.memoized(pos, TAG_TABLE | u32::from(T::ID)) {
            return self.charge(1, pos);
        }
        T::verify(self, pos)
    }

    /// Checks the string at `pos`: length, bounds, NUL terminator, UTF-8.
    #[inline]
    pub fn string(&mut self, pos: usize) -> VResult {
        self.aligned(pos, 4)?;
        let Some(len) = wire::read_u32(self.buf, pos).and_then(|n| usize::try_from(n).ok()) else {
            return Err(self.fail(ErrorKind::Truncated, pos));
        };
        let start = pos.wrapping_add(4);
        let Some(bytes) = start.checked_add(len).and_then(|end| self.buf.get(start..end)) else {
            return Err(self.fail(ErrorKind::OutOfBounds, pos));
        };
        let end = start.wrapping_add(len);
        if self.buf.get(end) != Some(&0) {
            return Err(self.fail(ErrorKind::UnterminatedString, end));
        }
        self.stats.strings = self.stats.strings.saturating_add(1);
        if len >= MEMO_MIN_STRING && self.memoized(pos, TAG_STRING) {
            return self.charge(1, pos);
        }
        self.charge(1u64.saturating_add(u64::try_from(len / 16).unwrap_or(u64::MAX)), pos)?;
        if let Err(e) = core::str::from_utf8(bytes) {
            return Err(self.fail(ErrorKind::InvalidUtf8, start.saturating_add(e.valid_up_to())));
        }
        Ok(())
    }

    /// Checks the vector at `pos` whose elements are `elem_size` bytes; returns its length.
    #[inline(always)]
    pub fn vector(&mut self, pos: usize, elem_size: usize) -> VResult<usize> {
        self.aligned(pos, 4)?;
        let Some(len) = wire::read_u32(self.buf, pos).and_then(|n| usize::try_from(n).ok()) else {
            return Err(self.fail(ErrorKind::Truncated, pos));
        };
        match len.checked_mul(elem_size) {
            Some(size) => self.check_range(pos.wrapping_add(4), size)?,
            None => return Err(self.fail(ErrorKind::OutOfBounds, pos)),
        }
        self.stats.vectors = self.stats.vectors.saturating_add(1);
        self.charge(1, pos)?;
        Ok(len)
    }

    /// Verifies each element of the vector of offsets at `pos` with `element`.
    #[inline(always)]
    fn offset_vector(
        &mut self,
        pos: usize,
        tag: u32,
        mut element: impl FnMut(&mut Self, usize) -> VResult,
    ) -> VResult<usize> {
        let len = self.vector(pos, 4)?;
        if self.memoized(pos, tag) {
            return Ok(len);
        }
        self.charge(u64::try_from(len).unwrap_or(u64::MAX), pos)?;
        let mut at = pos.wrapping_add(4);
        for i in 0..len {
            let checked = match self.uoffset(at) {
                Ok(target) => element(self, target),
                Err(f) => Err(f),
            };
            if checked.is_err() {
                return Err(self.unwind_index(i));
            }
            at = at.wrapping_add(4);
        }
        Ok(len)
    }

    /// Verifies the vector of `T` tables at `pos`.
    pub fn table_vector<T: VerifyTable>(&mut self, pos: usize) -> VResult {
        self.offset_vector(pos, TAG_TABLE_VECTOR | u32::from(T::ID), |v, t| v.table::<T>(t)).map(drop)
    }

    /// Verifies the vector of strings at `pos`.
    pub fn string_vector(&mut self, pos: usize) -> VResult {
        self.offset_vector(pos, TAG_STRING_VECTOR, |v, t| v.string(t)).map(drop)
    }

    /// The offset of field `slot` if present, checking it lies inside the table.
    #[inline(always)]
    fn field_position(&mut self, t: &TableCheck<'_>, slot: u16, size: usize, align: usize) -> VResult<Option<usize>> {
        let voff = t.voffset(slot);
        if voff == 0 {
            return Ok(None);
        }
        if voff < 4 || voff.saturating_add(size) > t.inline_len {
            return Err(self.fail(ErrorKind::FieldOutsideTable, t.pos.saturating_add(voff)));
        }
        let at = t.pos.wrapping_add(voff);
        self.aligned(at, align)?;
        Ok(Some(at))
    }

    /// Checks scalar (or inline struct) field `slot` of `size` bytes aligned to `align`.
    #[inline(always)]
    pub fn field_inline(
        &mut self,
        t: &TableCheck<'_>,
        slot: u16,
        size: usize,
        align: usize,
        name: Name,
        required: bool,
    ) -> VResult {
        match self.field_position(t, slot, size, align) {
            Ok(Some(_)) => Ok(()),
            Ok(None) if required => {
                self.fail(ErrorKind::MissingRequired, t.pos);
                Err(self.unwind(name))
            }
            Ok(None) => Ok(()),
            Err(_) => Err(self.unwind(name)),
        }
    }

    /// Follows offset field `slot` to the object it points to.
    #[inline(always)]
    fn field_target(&mut self, t: &TableCheck<'_>, slot: u16, required: bool) -> VResult<Option<usize>> {
        match self.field_position(t, slot, 4, 4)? {
            Some(at) => self.uoffset(at).map(Some),
            None if required => Err(self.fail(ErrorKind::MissingRequired, t.pos)),
            None => Ok(None),
        }
    }

    /// Checks offset field `slot` and the object it points to with `check`.
    #[inline(always)]
    pub fn field_offset(
        &mut self,
        t: &TableCheck<'_>,
        slot: u16,
        name: Name,
        required: bool,
        check: impl FnOnce(&mut Self, usize) -> VResult,
    ) -> VResult {
        let outcome = match self.field_target(t, slot, required) {
            Ok(Some(target)) => check(self, target),
            Ok(None) => Ok(()),
            Err(f) => Err(f),
        };
        outcome.map_err(|_| self.unwind(name))
    }

    /// Checks union field whose type is in `slot - 1` and whose value is in `slot`.
    #[inline]
    pub fn field_union<U: VerifyUnion>(
        &mut self,
        t: &TableCheck<'_>,
        slot: u16,
        name: Name,
        required: bool,
    ) -> VResult {
        let outcome = self.union_field_inner::<U>(t, slot, required);
        outcome.map_err(|_| self.unwind(name))
    }

    fn union_field_inner<U: VerifyUnion>(&mut self, t: &TableCheck<'_>, slot: u16, required: bool) -> VResult {
        let tag = match self.field_position(t, slot.wrapping_sub(1), 1, 1)? {
            Some(at) => self.buf.get(at).copied().unwrap_or(0),
            None => 0,
        };
        let value = self.field_target(t, slot, required)?;
        match (tag, value) {
            (0, None) => Ok(()),
            (_, Some(pos)) if tag != 0 => U::verify(self, tag, pos),
            _ => Err(self.fail(ErrorKind::UnionMismatch, t.pos)),
        }
    }

    /// Checks union-vector field: a `[ubyte]` of types in `slot - 1`, offsets in `slot`.
    pub fn field_union_vector<U: VerifyUnion>(
        &mut self,
        t: &TableCheck<'_>,
        slot: u16,
        id: u16,
        name: Name,
        required: bool,
    ) -> VResult {
        let outcome = self.union_vector_inner::<U>(t, slot, id, required);
        outcome.map_err(|_| self.unwind(name))
    }

    fn union_vector_inner<U: VerifyUnion>(
        &mut self,
        t: &TableCheck<'_>,
        slot: u16,
        id: u16,
        required: bool,
    ) -> VResult {
        let types = match self.field_target(t, slot.wrapping_sub(1), required)? {
            Some(p) => {
                let n = self.vector(p, 1)?;
                self.buf.get(p.wrapping_add(4)..).and_then(|b| b.get(..n)).unwrap_or(&[])
            }
            None => &[],
        };
        let Some(values) = self.field_target(t, slot, required)? else {
            if types.is_empty() {
                return Ok(());
            }
            return Err(self.fail(ErrorKind::UnionMismatch, t.pos));
        };
        let mut tags = types.iter();
        let len = self.offset_vector(values, TAG_UNION_VECTOR | u32::from(id), |v, pos| match tags.next() {
            Some(&tag) if tag != 0 => U::verify(v, tag, pos),
            _ => Err(v.fail(ErrorKind::UnionMismatch, pos)),
        })?;
        if len != types.len() {
            return Err(self.fail(ErrorKind::UnionMismatch, values));
        }
        Ok(())
    }
}
