//! The checks for each kind of object and field: tables, strings, vectors, structs, unions.
//!
//! A table is checked in two steps. [`Verifier::enter_table`] reads its vtable once and checks
//! every present field's bytes against the table's [`SlotLayout`]s in one tight loop (inside
//! the table, aligned); after that, absent and inline fields cost nothing more, and offset
//! fields only need their target followed.

use super::{Name, VResult, Verifier, VerifyTable, VerifyUnion};
use crate::error::ErrorKind;
use crate::wire;

/// What each vtable slot of a table type holds: inline size, alignment and name, as three
/// arrays so the check in [`Verifier::enter_table`] runs over plain numbers.
#[derive(Clone, Copy, Debug)]
pub struct TableLayout<const N: usize> {
    sizes: [u16; N],
    align_masks: [u16; N],
    names: [Name; N],
    /// The widest slot alignment minus one: the table position bits the alignment checks
    /// depend on (the cache key's position class).
    pos_mask: u16,
    /// Whether a check of this layout may be remembered by vtable (alignments up to 256, which
    /// the cache key's position class covers).
    cacheable: bool,
}

static UNUSED: &str = "?";

impl<const N: usize> TableLayout<N> {
    /// A layout whose slots are all unused (any bytes allowed), to fill in with [`Self::slot`].
    pub const fn new() -> Self {
        TableLayout { sizes: [0; N], align_masks: [0; N], names: [&UNUSED; N], pos_mask: 0, cacheable: true }
    }

    /// The layout with `slot` holding `size` bytes aligned to `align` (a power of two), named
    /// `name`. Slots past `N` are ignored.
    #[allow(clippy::indexing_slicing)] // guarded by `slot < N`; evaluated at compile time
    pub const fn slot(mut self, slot: usize, size: usize, align: usize, name: Name) -> Self {
        if slot < N {
            self.sizes[slot] = if size > u16::MAX as usize { u16::MAX } else { size as u16 };
            self.align_masks[slot] = if align == 0 || align > 1 << 15 { 0 } else { align.wrapping_sub(1) as u16 };
            self.names[slot] = name;
            self.pos_mask |= self.align_masks[slot];
            self.cacheable = self.cacheable && align <= 256;
        }
        self
    }
}

impl<const N: usize> Default for TableLayout<N> {
    fn default() -> Self {
        Self::new()
    }
}

/// A table being verified: its position and its vtable's field offsets.
#[derive(Clone, Copy)]
pub struct TableCheck<'b> {
    pos: usize,
    slots: &'b [u8],
}

impl TableCheck<'_> {
    /// The field offset of `slot` within the table; 0 when absent.
    #[inline(always)]
    fn voffset(&self, slot: u16) -> usize {
        // `at + 2` cannot wrap, so the one bounds check is `at + 2 <= slots.len()`.
        let at = usize::from(slot).wrapping_mul(2);
        match self.slots.get(at..at.wrapping_add(2)).and_then(|s| s.first_chunk::<2>()) {
            Some(b) => usize::from(u16::from_le_bytes(*b)),
            None => 0,
        }
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

/// Strings this long are looked up in the memo from the start, so a shared long string is
/// validated once however many offsets point at it (real names are far shorter).
const MEMO_ALWAYS_STRING: usize = 256;

/// Whether `bytes` are all ASCII: for names (mostly under 64 bytes), a branch-light OR of
/// 8-byte words, the last one overlapping the others, instead of a loop over the tail bytes.
#[inline(always)]
fn is_ascii(bytes: &[u8]) -> bool {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    if let Some(last) = bytes.last_chunk::<8>() {
        let (words, _) = bytes.as_chunks::<8>();
        let any = words.iter().fold(u64::from_le_bytes(*last), |acc, w| acc | u64::from_le_bytes(*w));
        return any & HIGH == 0;
    }
    if let (Some(first), Some(last)) = (bytes.first_chunk::<4>(), bytes.last_chunk::<4>()) {
        return (u32::from_le_bytes(*first) | u32::from_le_bytes(*last)) & 0x8080_8080 == 0;
    }
    bytes.iter().fold(0, |acc, &b| acc | b) < 0x80
}

impl<'b> Verifier<'b> {
    /// Checks the table at `pos` (its soffset, vtable and inline size) and every present
    /// field's inline bytes against `layout` (the table type `id`'s slots), then enters it.
    /// Pair with [`Verifier::leave_table`].
    ///
    /// The field check depends only on the vtable, the table type and the table's position
    /// modulo its widest field alignment (at most 256), and writers share vtables between many
    /// tables, so it is done once per such triple and remembered in a small cache.
    #[inline(always)]
    pub fn enter_table<const N: usize>(
        &mut self,
        pos: usize,
        id: u16,
        layout: &TableLayout<N>,
    ) -> VResult<TableCheck<'b>> {
        self.aligned(pos, 4)?;
        let Some(vt) = wire::vtable_position(self.buf, pos) else {
            return Err(self.fail(ErrorKind::OutOfBounds, pos));
        };
        let header = vt.checked_add(4).and_then(|end| self.buf.get(vt..end));
        let Some(&[a, b, c, d]) = header else {
            return Err(self.fail(ErrorKind::BadVtable, vt));
        };
        let vt_len = usize::from(u16::from_le_bytes([a, b]));
        let inline_len = usize::from(u16::from_le_bytes([c, d]));
        let Some(slots) = vt.checked_add(vt_len).and_then(|end| self.buf.get(vt.wrapping_add(4)..end)) else {
            return Err(self.fail(ErrorKind::BadVtable, vt));
        };
        self.check_range(pos, inline_len)?;
        // Key: a marker bit, the vtable position, the table type, the position's alignment class.
        let class = u64::try_from(pos & usize::from(layout.pos_mask) & 0xff).unwrap_or(0);
        let key = u64::try_from(vt)
            .ok()
            .filter(|&vt| vt < 1 << 38 && layout.cacheable)
            .map(|vt| 1 << 63 | vt << 24 | u64::from(id) << 8 | class);
        let entry = key.map_or(0, |k| (k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 57) as usize);
        if key.is_none() || self.vtables.get(entry).copied() != key {
            self.check_fields(pos, vt, vt_len, inline_len, slots, layout)?;
            if let (Some(k), Some(e)) = (key, self.vtables.get_mut(entry)) {
                *e = k;
            }
        }
        let Some(depth_left) = self.depth_left.checked_sub(1) else {
            return Err(self.fail(ErrorKind::DepthLimit, pos));
        };
        self.depth_left = depth_left;
        let Some(tables_left) = self.tables_left.checked_sub(1) else {
            return Err(self.fail(ErrorKind::TableLimit, pos));
        };
        self.tables_left = tables_left;
        self.charge(u64::try_from(N).unwrap_or(u64::MAX).saturating_add(1), pos)?;
        Ok(TableCheck { pos, slots })
    }

    /// The vtable's own shape, and each present field inside the table (after the soffset)
    /// and aligned.
    fn check_fields<const N: usize>(
        &mut self,
        pos: usize,
        vt: usize,
        vt_len: usize,
        inline_len: usize,
        slots: &[u8],
        layout: &TableLayout<N>,
    ) -> VResult {
        self.aligned(vt, 2)?;
        if vt_len < 4 || !vt_len.is_multiple_of(2) || inline_len < 4 {
            return Err(self.fail(ErrorKind::BadVtable, vt));
        }
        let (slots, _) = slots.as_chunks::<2>();
        let fields = slots.iter().zip(&layout.sizes).zip(&layout.align_masks).zip(&layout.names);
        for (((&raw, &size), &mask), &name) in fields {
            let v = usize::from(u16::from_le_bytes(raw));
            if v == 0 {
                continue;
            }
            let at = pos.saturating_add(v);
            if v < 4 || v.saturating_add(usize::from(size)) > inline_len {
                self.fail(ErrorKind::FieldOutsideTable, at);
                return Err(self.unwind(name));
            }
            if self.opts.check_alignment && at & usize::from(mask) != 0 {
                self.fail(ErrorKind::Misaligned, at);
                return Err(self.unwind(name));
            }
        }
        Ok(())
    }

    /// Leaves a table entered with [`Verifier::enter_table`].
    #[inline(always)]
    pub fn leave_table(&mut self) {
        self.depth_left = self.depth_left.saturating_add(1);
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
        let seen = match len {
            MEMO_ALWAYS_STRING.. => self.memo_lookup(pos, TAG_STRING),
            MEMO_MIN_STRING.. => self.memoized(pos, TAG_STRING),
            _ => false,
        };
        if seen {
            return self.charge(1, pos);
        }
        self.charge(1u64.saturating_add(u64::try_from(len / 16).unwrap_or(u64::MAX)), pos)?;
        // Most names are ASCII, which a word-at-a-time scan settles.
        if !is_ascii(bytes) {
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

    /// Checks the vector at `pos` whose elements are `elem_size` bytes aligned to `elem_align`
    /// (a power of two); returns its length. This is [`Verifier::vector`] plus, with
    /// [`crate::verify::Options::check_alignment`] and `elem_align` over 4, the alignment of
    /// the element data (which starts after the 4-byte length): one check per vector, whatever
    /// its length, as writers align the data even of an empty vector.
    #[inline(always)]
    pub fn vector_aligned(&mut self, pos: usize, elem_size: usize, elem_align: usize) -> VResult<usize> {
        let len = self.vector(pos, elem_size)?;
        if elem_align > 4 {
            self.aligned(pos.wrapping_add(4), elem_align)?;
        }
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
    pub fn field_required(&mut self, t: &TableCheck<'_>, slot: u16, name: Name) -> VResult {
        if t.voffset(slot) != 0 {
            return Ok(());
        }
        self.fail(ErrorKind::MissingRequired, t.pos);
        Err(self.unwind(name))
    }

    /// Follows offset field `slot` (already checked by `enter_table`) to its target.
    #[inline(always)]
    fn field_target(&mut self, t: &TableCheck<'_>, slot: u16, required: bool) -> VResult<Option<usize>> {
        match t.field(slot) {
            Some(at) => self.deref(at).map(Some),
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
    #[inline(always)]
    pub fn field_union<U: VerifyUnion>(
        &mut self,
        t: &TableCheck<'_>,
        slot: u16,
        name: Name,
        required: bool,
    ) -> VResult {
        // Most union fields are absent: no type and no value.
        if !required && t.voffset(slot) == 0 && t.voffset(slot.wrapping_sub(1)) == 0 {
            return Ok(());
        }
        let outcome = self.union_field_inner::<U>(t, slot, required);
        outcome.map_err(|_| self.unwind(name))
    }

    fn union_field_inner<U: VerifyUnion>(&mut self, t: &TableCheck<'_>, slot: u16, required: bool) -> VResult {
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
    pub fn field_union_vector<U: VerifyUnion>(
        &mut self,
        t: &TableCheck<'_>,
        slot: u16,
        name: Name,
        required: bool,
    ) -> VResult {
        let outcome = self.union_vector_inner::<U>(t, slot, required);
        outcome.map_err(|_| self.unwind(name))
    }

    fn union_vector_inner<U: VerifyUnion>(&mut self, t: &TableCheck<'_>, slot: u16, required: bool) -> VResult {
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

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)] // in tests a panic is a failure
mod tests {
    use super::is_ascii;

    #[test]
    fn is_ascii_agrees_with_core_for_every_length_and_position() {
        let mut bytes = [b'a'; 80];
        for len in 0..bytes.len() {
            assert!(is_ascii(&bytes[..len]), "ASCII, length {len}");
            for at in 0..len {
                for high in [0x80, 0xc3, 0xff] {
                    bytes[at] = high;
                    assert!(!is_ascii(&bytes[..len]), "byte {high:#x} at {at} of {len}");
                    bytes[at] = b'a';
                }
            }
        }
    }
}
