//! The checks for each kind of object and field: tables, strings, vectors, structs, unions.
//!
//! A table is checked in two steps. [`Verifier::enter_table`] reads its vtable once and checks
//! every present field's bytes against the table's [`SlotLayout`]s in one tight loop (inside
//! the table, aligned); after that, absent and inline fields cost nothing more, and offset
//! fields only need their target followed.

use super::{Name, VResult, Verifier, VerifyTable, VerifyUnion};
use crate::error::ErrorKind;
use crate::wire;

/// What one vtable slot of a table type holds: its inline size, alignment and name.
#[derive(Clone, Copy, Debug)]
pub struct SlotLayout {
    size: u16,
    align_mask: u16,
    name: Name,
}

static UNUSED: &str = "?";

impl SlotLayout {
    /// A slot no field of this schema revision uses (any bytes allowed).
    pub const UNUSED: SlotLayout = SlotLayout { size: 0, align_mask: 0, name: &UNUSED };

    /// A slot holding `size` bytes aligned to `align` (a power of two), named `name`.
    pub const fn new(size: usize, align: usize, name: Name) -> Self {
        let size = if size > u16::MAX as usize { u16::MAX } else { size as u16 };
        let align = if align == 0 || align > 1 << 15 { 1 } else { align as u16 };
        SlotLayout { size, align_mask: align.wrapping_sub(1), name }
    }
}

/// A table being verified: its position and the field offsets of its `N` schema slots (0 for
/// absent fields, including slots past the end of its vtable).
#[derive(Clone, Copy)]
pub struct TableCheck<const N: usize> {
    pos: usize,
    voffsets: [u16; N],
}

impl<const N: usize> TableCheck<N> {
    /// The field offset of `slot` within the table; 0 when absent.
    #[inline(always)]
    fn voffset(&self, slot: u16) -> usize {
        self.voffsets.get(usize::from(slot)).map_or(0, |&v| usize::from(v))
    }

    /// The position of the present field in `slot`.
    #[inline(always)]
    fn field(&self, slot: u16) -> Option<usize> {
        match self.voffset(slot) {
            0 => None,
            v => Some(self.pos.wrapping_add(v)),
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
    /// Checks the table at `pos` (its soffset, vtable and inline size) and every present
    /// field's inline bytes against `layout`, then enters it. Pair with
    /// [`Verifier::leave_table`].
    #[inline(always)]
    pub fn enter_table<const N: usize>(&mut self, pos: usize, layout: &[SlotLayout; N]) -> VResult<TableCheck<N>> {
        self.aligned(pos, 4)?;
        let Some(vt) = wire::vtable_position(self.buf, pos) else {
            return Err(self.fail(ErrorKind::OutOfBounds, pos));
        };
        self.aligned(vt, 2)?;
        let header = vt.checked_add(4).and_then(|end| self.buf.get(vt..end));
        let Some(&[a, b, c, d]) = header else {
            return Err(self.fail(ErrorKind::BadVtable, vt));
        };
        let vt_len = usize::from(u16::from_le_bytes([a, b]));
        let inline_len = usize::from(u16::from_le_bytes([c, d]));
        if vt_len < 4 || vt_len % 2 != 0 || inline_len < 4 {
            return Err(self.fail(ErrorKind::BadVtable, vt));
        }
        let Some(slot_bytes) = vt.checked_add(vt_len).and_then(|end| self.buf.get(vt.wrapping_add(4)..end)) else {
            return Err(self.fail(ErrorKind::BadVtable, vt));
        };
        self.check_range(pos, inline_len)?;

        // Every present field lies after the soffset, inside the table, aligned.
        let check_alignment = self.opts.check_alignment;
        let mut voffsets = [0u16; N];
        let mut bad = false;
        let (slots, _) = slot_bytes.as_chunks::<2>();
        for ((dst, raw), slot) in voffsets.iter_mut().zip(slots).zip(layout) {
            let v = u16::from_le_bytes(*raw);
            *dst = v;
            let v = usize::from(v);
            let end = v.wrapping_add(usize::from(slot.size));
            let misaligned = check_alignment && pos.wrapping_add(v) & usize::from(slot.align_mask) != 0;
            bad |= v != 0 && (v < 4 || end > inline_len || misaligned);
        }
        if bad {
            return Err(self.bad_field(pos, inline_len, &voffsets, layout));
        }

        self.depth = self.depth.saturating_add(1);
        if self.depth > self.opts.max_depth {
            return Err(self.fail(ErrorKind::DepthLimit, pos));
        }
        self.stats.tables = self.stats.tables.saturating_add(1);
        if self.stats.tables > self.opts.max_tables {
            return Err(self.fail(ErrorKind::TableLimit, pos));
        }
        self.charge(u64::try_from(N).unwrap_or(u64::MAX).saturating_add(1), pos)?;
        Ok(TableCheck { pos, voffsets })
    }

    /// The error for the first field `enter_table` found outside its table or misaligned.
    #[cold]
    #[inline(never)]
    fn bad_field<const N: usize>(
        &mut self,
        pos: usize,
        inline_len: usize,
        voffsets: &[u16; N],
        layout: &[SlotLayout; N],
    ) -> super::Fail {
        for (&v, slot) in voffsets.iter().zip(layout) {
            let v = usize::from(v);
            if v == 0 {
                continue;
            }
            let at = pos.saturating_add(v);
            if v < 4 || v.saturating_add(usize::from(slot.size)) > inline_len {
                self.fail(ErrorKind::FieldOutsideTable, at);
                return self.unwind(slot.name);
            }
            if at & usize::from(slot.align_mask) != 0 {
                self.fail(ErrorKind::Misaligned, at);
                return self.unwind(slot.name);
            }
        }
        self.fail(ErrorKind::FieldOutsideTable, pos)
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
        // The bytes and the NUL after them.
        let Some(with_nul) = start.checked_add(len).and_then(|end| self.buf.get(start..=end)) else {
            return Err(self.fail(ErrorKind::OutOfBounds, pos));
        };
        let Some((&0, bytes)) = with_nul.split_last() else {
            return Err(self.fail(ErrorKind::UnterminatedString, start.saturating_add(len)));
        };
        self.stats.strings = self.stats.strings.saturating_add(1);
        if len >= MEMO_MIN_STRING && self.memoized(pos, TAG_STRING) {
            return self.charge(1, pos);
        }
        self.charge(1u64.saturating_add(u64::try_from(len / 16).unwrap_or(u64::MAX)), pos)?;
        // Most names are ASCII, which a word-at-a-time scan settles.
        if !bytes.is_ascii() {
            if let Err(e) = core::str::from_utf8(bytes) {
                return Err(self.fail(ErrorKind::InvalidUtf8, start.saturating_add(e.valid_up_to())));
            }
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
            let checked = match self.deref(at) {
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

    /// Follows the uoffset at `at`, which is known to be aligned.
    #[inline(always)]
    fn deref(&mut self, at: usize) -> VResult<usize> {
        match wire::read_uoffset(self.buf, at) {
            Some(t) if t < self.buf.len() => Ok(t),
            Some(_) => Err(self.fail(ErrorKind::OutOfBounds, at)),
            None => Err(self.fail(ErrorKind::Truncated, at)),
        }
    }

    /// Verifies the vector of `T` tables at `pos`.
    pub fn table_vector<T: VerifyTable>(&mut self, pos: usize) -> VResult {
        self.offset_vector(pos, TAG_TABLE_VECTOR | u32::from(T::ID), |v, t| v.table::<T>(t)).map(drop)
    }

    /// Verifies the vector of strings at `pos`.
    pub fn string_vector(&mut self, pos: usize) -> VResult {
        self.offset_vector(pos, TAG_STRING_VECTOR, |v, t| v.string(t)).map(drop)
    }

    /// Checks that field `slot`, marked `required`, is present.
    #[inline(always)]
    pub fn field_required<const N: usize>(&mut self, t: &TableCheck<N>, slot: u16, name: Name) -> VResult {
        if t.voffset(slot) != 0 {
            return Ok(());
        }
        self.fail(ErrorKind::MissingRequired, t.pos);
        Err(self.unwind(name))
    }

    /// Follows offset field `slot` (already checked by `enter_table`) to its target.
    #[inline(always)]
    fn field_target<const N: usize>(&mut self, t: &TableCheck<N>, slot: u16, required: bool) -> VResult<Option<usize>> {
        match t.field(slot) {
            Some(at) => self.deref(at).map(Some),
            None if required => Err(self.fail(ErrorKind::MissingRequired, t.pos)),
            None => Ok(None),
        }
    }

    /// Checks offset field `slot` and the object it points to with `check`.
    #[inline(always)]
    pub fn field_offset<const N: usize>(
        &mut self,
        t: &TableCheck<N>,
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
    pub fn field_union<U: VerifyUnion, const N: usize>(
        &mut self,
        t: &TableCheck<N>,
        slot: u16,
        name: Name,
        required: bool,
    ) -> VResult {
        let outcome = self.union_field_inner::<U, N>(t, slot, required);
        outcome.map_err(|_| self.unwind(name))
    }

    fn union_field_inner<U: VerifyUnion, const N: usize>(
        &mut self,
        t: &TableCheck<N>,
        slot: u16,
        required: bool,
    ) -> VResult {
        let tag = match t.field(slot.wrapping_sub(1)) {
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
    pub fn field_union_vector<U: VerifyUnion, const N: usize>(
        &mut self,
        t: &TableCheck<N>,
        slot: u16,
        name: Name,
        required: bool,
    ) -> VResult {
        let outcome = self.union_vector_inner::<U, N>(t, slot, required);
        outcome.map_err(|_| self.unwind(name))
    }

    fn union_vector_inner<U: VerifyUnion, const N: usize>(
        &mut self,
        t: &TableCheck<N>,
        slot: u16,
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
        let len = self.offset_vector(values, TAG_UNION_VECTOR | u32::from(U::ID), |v, pos| match tags.next() {
            Some(&tag) if tag != 0 => U::verify(v, tag, pos),
            _ => Err(v.fail(ErrorKind::UnionMismatch, pos)),
        })?;
        if len != types.len() {
            return Err(self.fail(ErrorKind::UnionMismatch, values));
        }
        Ok(())
    }
}
