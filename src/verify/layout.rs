//! The verifier's description of a schema: every table's fields as plain numbers (slot, kind,
//! size or target), linked by index, so that one interpreter checks any table of any schema.
//!
//! The schema macros build a [`SchemaLayout`] for each generated schema at compile time, from
//! the same field lists as the typed views and the dump descriptors. Nothing here points at
//! code, and everything is indexed rather than linked by reference, so a schema read at run
//! time can fill the same structure from its own vectors.

pub use crate::field_names::FieldNames;

/// What a table field holds, as the verifier sees it: an inline value of some size, or an
/// offset to an object of some kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum FieldKind {
    /// Inline bytes (a scalar, an enum or a struct): `arg` is their size.
    Inline = 0,
    /// An offset to a string.
    String = 1,
    /// An offset to a table: `arg` is its table index.
    Table = 2,
    /// An offset to a vector of inline elements: `arg` is the element size.
    Vector = 3,
    /// An offset to a vector of strings.
    StringVector = 4,
    /// An offset to a vector of tables: `arg` is their table index.
    TableVector = 5,
    /// A union: its type tag in the slot before, an offset to its value here; `arg` is the
    /// union index.
    Union = 6,
    /// A vector of unions: a `[ubyte]` of types in the slot before, offsets here; `arg` is the
    /// union index.
    UnionVector = 7,
}

/// One field of a table: 4 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldLayout {
    slot: u8,
    /// Bits 0..=2: the [`FieldKind`]; 3..=5: log2 of the alignment of the inline value or of a
    /// vector's elements; 6: a nested flatbuffer (a [`FieldKind::Vector`] of bytes whose `arg`
    /// is the nested root's table index); 7: `required`.
    bits: u8,
    arg: u16,
}

const KIND_MASK: u8 = 0b111;
const ALIGN_SHIFT: u32 = 3;
const ALIGN_MASK: u8 = 0b111;
const NESTED: u8 = 1 << 6;
const REQUIRED: u8 = 1 << 7;

/// The widest alignment a field can declare: FlatBuffers' own limit (`force_align` up to 32).
pub const MAX_ALIGN: usize = 1 << ALIGN_MASK;

impl FieldLayout {
    /// A field in vtable `slot` of `kind`, with `arg` as that kind defines it, inline values or
    /// vector elements aligned to `align` (a power of two up to [`MAX_ALIGN`]; others are
    /// treated as 1).
    pub const fn new(slot: u8, kind: FieldKind, arg: u16, align: usize, required: bool) -> Self {
        let log2 = if align.is_power_of_two() && align <= MAX_ALIGN { align.trailing_zeros() as u8 } else { 0 };
        let bits = kind as u8 | (log2 << ALIGN_SHIFT) | if required { REQUIRED } else { 0 };
        FieldLayout { slot, bits, arg }
    }

    /// A `[ubyte]` field in vtable `slot` holding a flatbuffer whose root is table `root` (the
    /// `nested_flatbuffer` attribute), its bytes aligned to `align`. Only run-time schemas
    /// (the `alloc` feature) make these; other builds verify such a field as plain bytes.
    pub const fn nested(slot: u8, root: u16, align: usize, required: bool) -> Self {
        let plain = FieldLayout::new(slot, FieldKind::Vector, root, align, required);
        FieldLayout { bits: plain.bits | NESTED, ..plain }
    }

    /// Whether the field is a nested flatbuffer ([`FieldLayout::nested`]): then `arg` is its
    /// root's table index and its elements are bytes.
    #[inline(always)]
    pub const fn is_nested(self) -> bool {
        self.bits & NESTED != 0
    }

    /// The vtable slot (for unions, the value's slot).
    #[inline(always)]
    pub const fn slot(self) -> u8 {
        self.slot
    }

    /// What the field holds.
    #[inline(always)]
    pub const fn kind(self) -> FieldKind {
        match self.bits & KIND_MASK {
            0 => FieldKind::Inline,
            1 => FieldKind::String,
            2 => FieldKind::Table,
            3 => FieldKind::Vector,
            4 => FieldKind::StringVector,
            5 => FieldKind::TableVector,
            6 => FieldKind::Union,
            _ => FieldKind::UnionVector,
        }
    }

    /// The size, element size, table index or union index, depending on the kind.
    #[inline(always)]
    pub const fn arg(self) -> u16 {
        self.arg
    }

    /// The alignment of the inline value or of a vector's elements, minus one.
    #[inline(always)]
    pub const fn align_mask(self) -> usize {
        (1usize << ((self.bits >> ALIGN_SHIFT) & ALIGN_MASK)).wrapping_sub(1)
    }

    /// Whether the field is inline (a scalar, an enum or a struct), without decoding its kind.
    #[inline(always)]
    pub const fn is_inline(self) -> bool {
        self.bits & KIND_MASK == FieldKind::Inline as u8
    }

    /// Whether the field is a union or a vector of unions (kinds 6 and 7).
    #[inline(always)]
    pub const fn is_union(self) -> bool {
        self.bits & 0b110 == 0b110
    }

    /// Whether an absent field needs a look: it is required, or a union (whose type may be
    /// present without its value).
    #[inline(always)]
    pub const fn absence_matters(self) -> bool {
        self.bits & REQUIRED != 0 || self.is_union()
    }

    /// Whether the schema marks the field `required`.
    #[inline(always)]
    pub const fn required(self) -> bool {
        self.bits & REQUIRED != 0
    }
}

/// Where a table's fields (or a union's members) lie in their schema-wide list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// The index of the first.
    pub first: u16,
    /// How many.
    pub len: u16,
}

/// Where a table's fields lie in their schema's list: its inline fields (scalars, enums,
/// structs) first, then the fields holding offsets. Four bytes: a table has at most 255
/// fields (a field's slot is a byte, and the count must fit one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableSpan {
    /// The index of the first field.
    pub first: u16,
    /// How many of the fields are inline (they come first).
    pub inline: u8,
    /// How many fields in all.
    pub len: u8,
}

/// A union member tag no table answers to: a type this schema revision does not name.
pub const NO_TABLE: u8 = u8::MAX;

/// A union member that is a string (run-time schemas only: unions of strings, which flatc
/// allows for some languages).
pub const STRING_MEMBER: u8 = u8::MAX - 1;

/// A struct that a union holds as a member (run-time schemas only): its size and alignment.
/// A member byte `m` at or past the schema's table count names `union_structs[m - tables]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StructMember {
    /// The struct's size in bytes.
    pub size: u16,
    /// Its alignment in bytes.
    pub align: u8,
}

/// What a table's vtable slot holds, for the inline check of a run-time schema's table: the
/// same checks as walking the table's fields, made by walking the vtable instead (one step
/// per slot the vtable gives, each a load and three comparisons, whatever the fields' kinds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotCheck {
    /// The fields to follow that a value in this slot asks for: the bit of the offset field
    /// (or union) it belongs to, or none (see [`SlotTable`]).
    pub follow: u32,
    /// How many bytes of the table the value takes.
    pub size: u16,
    /// The value's alignment minus one, or [`SlotCheck::UNUSED`] for a slot no field of the
    /// schema uses (a newer writer's, not checked).
    pub mask: u8,
}

impl SlotCheck {
    /// The `mask` of a slot no field uses.
    pub const UNUSED: u8 = u8::MAX;
}

/// A run-time schema's table type as the inline check walks it by vtable slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotTable {
    /// Its first [`SlotCheck`] in [`SchemaLayout::slot_checks`].
    pub first: u32,
    /// How many slots its fields use (the highest used slot plus one).
    pub len: u16,
    /// Its widest field alignment minus one (an offset field counts as 4).
    pub widest: u8,
    /// Whether it has a required inline field (whose absence the field walk reports).
    pub required_inline: bool,
    /// The fields to follow whatever the vtable gives: its required offset fields, by the
    /// bits of [`SlotCheck::follow`].
    pub required_follow: u32,
}

/// A whole schema for the verifier, indexed by the table and union numbers the generator gives.
#[derive(Debug)]
pub struct SchemaLayout<'s> {
    /// Each table's fields in `fields`, by table index.
    pub tables: &'s [TableSpan],
    /// Every table's fields, table after table; each table's inline fields first, then its
    /// offset fields, each group in declaration order.
    pub fields: &'s [FieldLayout],
    /// Each union's members in `members`, by union index: the member for tag `t` is at
    /// `first + t - 1`.
    pub unions: &'s [Span],
    /// Union members' table indices ([`NO_TABLE`] for tags the schema does not name): a byte
    /// each, so a union's members are among a schema's first 255 table types (every schema
    /// this crate reads has under 180).
    pub members: &'s [u8],
    /// The structs union members name, for run-time schemas with unions of structs (empty for
    /// the compiled-in schemas; only with `alloc`, as run-time schemas need it).
    #[cfg(feature = "alloc")]
    pub union_structs: &'s [StructMember],
    /// For run-time schemas, each table's inline checks by vtable slot ([`SlotTable`]);
    /// empty for the compiled-in schemas, whose code folds the checks from their fields.
    #[cfg(feature = "alloc")]
    pub slot_tables: &'s [SlotTable],
    /// The [`SlotCheck`]s of every table of `slot_tables`, table after table.
    #[cfg(feature = "alloc")]
    pub slot_checks: &'s [SlotCheck],
    /// The name of each field of `fields`, for error paths; empty when errors carry field
    /// numbers instead (the `numeric-paths` feature, or a schema without names).
    pub names: &'static FieldNames,
    /// A verifier entry specialized for this schema's tables (the `specialize` feature), or
    /// `None` to interpret the layout.
    pub specialized: Option<Specialized>,
}

/// A schema's specialized table verifier: table index and position, as
/// [`super::Verifier::interpret`] takes them with the schema fixed.
pub type Specialized = for<'v, 'b> fn(&'v mut super::Verifier<'b>, u16, usize) -> super::VResult;

/// One table type's specialized verifier (`VerifyTable::verify_specialized`), which the
/// `specialize` feature's entries call directly for fields of a known table type.
#[doc(hidden)]
pub type TableEntry = for<'v, 'b> fn(&'v mut super::Verifier<'b>, usize) -> super::VResult;

impl SchemaLayout<'_> {
    /// The fields of table `table`, the index of the first in [`SchemaLayout::fields`] and how
    /// many of them are inline (they come first).
    #[inline(always)]
    pub fn table_fields(&self, table: u16) -> (&[FieldLayout], usize, usize) {
        let Some(span) = self.tables.get(usize::from(table)) else {
            return (&[], 0, 0);
        };
        let first = usize::from(span.first);
        let fields = self.fields.get(first..first.wrapping_add(usize::from(span.len))).unwrap_or(&[]);
        (fields, first, usize::from(span.inline))
    }

    /// Table `table`'s checks by vtable slot, when the schema gives them (run-time schemas
    /// do; the compiled-in ones' code folds the checks from the fields).
    #[inline(always)]
    pub fn slot_table(&self, table: u16) -> Option<&SlotTable> {
        #[cfg(feature = "alloc")]
        return self.slot_tables.get(usize::from(table));
        #[cfg(not(feature = "alloc"))]
        {
            let _ = table;
            None
        }
    }

    /// The checks of `table`'s vtable slots (one of [`SchemaLayout::slot_tables`]), by slot.
    #[inline(always)]
    pub fn slot_checks(&self, table: &SlotTable) -> &[SlotCheck] {
        #[cfg(feature = "alloc")]
        {
            let first = usize::try_from(table.first).unwrap_or(usize::MAX);
            self.slot_checks.get(first..first.saturating_add(usize::from(table.len))).unwrap_or(&[])
        }
        #[cfg(not(feature = "alloc"))]
        {
            let _ = table;
            &[]
        }
    }

    /// The table index of union `union`'s member `tag` (not 0), or `None` for a tag this schema
    /// does not name.
    #[inline(always)]
    pub fn member(&self, union: u16, tag: u8) -> Option<u16> {
        let span = self.unions.get(usize::from(union))?;
        let at = usize::from(tag).checked_sub(1).filter(|&t| t < usize::from(span.len))?;
        self.members.get(usize::from(span.first).wrapping_add(at)).filter(|&&t| t != NO_TABLE).map(|&t| u16::from(t))
    }
}

/// Compile-time builders for the schema macros: flatten per-type lists into one schema's.
#[doc(hidden)]
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)] // compile time: a panic is a build error
pub mod build {
    use super::{FieldKind, FieldLayout, Span, TableSpan, NO_TABLE};

    /// A placeholder to fill arrays with.
    pub const EMPTY_FIELD: FieldLayout = FieldLayout::new(0, FieldKind::Inline, 0, 1, false);

    /// Whether a field of `tables` is a union or a vector of unions.
    pub const fn any_union(tables: &[&[FieldLayout]]) -> bool {
        let mut t = 0;
        while t < tables.len() {
            let mut f = 0;
            while f < tables[t].len() {
                if tables[t][f].is_union() {
                    return true;
                }
                f += 1;
            }
            t += 1;
        }
        false
    }

    /// The total length of `lists`.
    pub const fn total<T>(lists: &[&[T]]) -> usize {
        let mut n = 0;
        let mut i = 0;
        while i < lists.len() {
            n += lists[i].len();
            i += 1;
        }
        n
    }

    /// `lists` concatenated into an array of `N` (their total length).
    pub const fn concat<T: Copy, const N: usize>(lists: &[&[T]], fill: T) -> [T; N] {
        let mut out = [fill; N];
        let mut at = 0;
        let mut i = 0;
        while i < lists.len() {
            let mut j = 0;
            while j < lists[i].len() {
                out[at] = lists[i][j];
                at += 1;
                j += 1;
            }
            i += 1;
        }
        assert!(at == N, "lists longer than the array");
        out
    }

    /// Each list's span in the concatenation of `lists`.
    pub const fn spans<T, const N: usize>(lists: &[&[T]]) -> [Span; N] {
        assert!(lists.len() == N, "one span per list");
        let mut out = [Span { first: 0, len: 0 }; N];
        let mut at = 0;
        let mut i = 0;
        while i < N {
            let len = lists[i].len();
            assert!(at + len <= u16::MAX as usize, "a schema of over 65535 fields or members");
            out[i] = Span { first: at as u16, len: len as u16 };
            at += len;
            i += 1;
        }
        out
    }

    /// Each table's span in the concatenation of `tables`, with its inline fields counted.
    pub const fn table_spans<const N: usize>(tables: &[&[FieldLayout]]) -> [TableSpan; N] {
        let spans: [Span; N] = spans(tables);
        let mut out = [TableSpan { first: 0, inline: 0, len: 0 }; N];
        let mut i = 0;
        while i < N {
            let mut inline = 0;
            let mut j = 0;
            while j < tables[i].len() {
                if tables[i][j].is_inline() {
                    inline += 1;
                }
                j += 1;
            }
            assert!(spans[i].len <= u8::MAX as u16, "a table of over 255 fields");
            out[i] = TableSpan { first: spans[i].first, inline, len: spans[i].len as u8 };
            i += 1;
        }
        out
    }

    /// The order that puts the inline fields of `fields` first, then the others, each group
    /// in its original order: `order[k]` is the index in `fields` of the `k`th.
    pub const fn inline_first<const N: usize>(fields: &[FieldLayout]) -> [usize; N] {
        assert!(fields.len() == N, "one entry per field");
        let mut order = [0; N];
        let mut at = 0;
        let mut pass = 0;
        while pass < 2 {
            let mut i = 0;
            while i < N {
                if fields[i].is_inline() == (pass == 0) {
                    order[at] = i;
                    at += 1;
                }
                i += 1;
            }
            pass += 1;
        }
        order
    }

    /// `list` in `order` (see [`inline_first`]).
    pub const fn permute<T: Copy, const N: usize>(list: &[T], order: &[usize; N], fill: T) -> [T; N] {
        let mut out = [fill; N];
        let mut i = 0;
        while i < N {
            out[i] = list[order[i]];
            i += 1;
        }
        out
    }

    /// The index in `fields` of the field in vtable slot `slot` (the value slot for unions).
    pub const fn position_of(fields: &[FieldLayout], slot: u8) -> usize {
        let mut i = 0;
        while i < fields.len() {
            if fields[i].slot() == slot {
                return i;
            }
            i += 1;
        }
        panic!("no field in that slot")
    }

    /// The dense member list of a union whose members are `(tag, table index)`: one entry per
    /// tag from 1 to the highest, [`NO_TABLE`] where the schema names none.
    pub const fn members<const N: usize>(members: &[(u8, u16)]) -> [u8; N] {
        let mut out = [NO_TABLE; N];
        let mut i = 0;
        while i < members.len() {
            let (tag, table) = members[i];
            assert!(tag >= 1, "union member tag 0");
            assert!(table < NO_TABLE as u16, "a union member beyond the schema's first 255 table types");
            out[tag as usize - 1] = table as u8;
            i += 1;
        }
        out
    }

    /// Whether `a` and `b` hold the same bytes.
    const fn same(a: &str, b: &str) -> bool {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        if a.len() != b.len() {
            return false;
        }
        let mut i = 0;
        while i < a.len() {
            if a[i] != b[i] {
                return false;
            }
            i += 1;
        }
        true
    }

    /// Where the first field named like field `i` of `names` (the lists concatenated) is, as
    /// (list, index), so that repeated names are stored once.
    const fn first_like(names: &[&[&str]], list: usize, index: usize) -> (usize, usize) {
        let name = names[list][index];
        let mut l = 0;
        while l <= list {
            let mut j = 0;
            while j < names[l].len() && (l < list || j < index) {
                if same(names[l][j], name) {
                    return (l, j);
                }
                j += 1;
            }
            l += 1;
        }
        (list, index)
    }

    /// The length of the packed text of `names`: each distinct name and a space.
    pub const fn packed_len(names: &[&[&str]]) -> usize {
        let mut n = 0;
        let mut l = 0;
        while l < names.len() {
            let mut j = 0;
            while j < names[l].len() {
                let (fl, fj) = first_like(names, l, j);
                if fl == l && fj == j {
                    n += names[l][j].len() + 1;
                }
                j += 1;
            }
            l += 1;
        }
        n
    }

    /// The packed text of `names` (`N`: [`packed_len`]) and the number of each field's name
    /// in it (`M`: the number of fields).
    pub const fn pack<const N: usize, const M: usize>(names: &[&[&str]]) -> ([u8; N], [u8; M]) {
        let mut text = [b' '; N];
        let mut ids = [0u8; M];
        let mut at = 0;
        let mut distinct = 0;
        let mut field = 0;
        let mut l = 0;
        while l < names.len() {
            let mut j = 0;
            while j < names[l].len() {
                let (fl, fj) = first_like(names, l, j);
                if fl == l && fj == j {
                    assert!(distinct <= u8::MAX as usize, "over 256 distinct field names");
                    ids[field] = distinct as u8;
                    distinct += 1;
                    let bytes = names[l][j].as_bytes();
                    let mut k = 0;
                    while k < bytes.len() {
                        assert!(bytes[k] != b' ', "a field name with a space");
                        text[at] = bytes[k];
                        at += 1;
                        k += 1;
                    }
                    at += 1;
                } else {
                    // The earlier field of the same name: its global index.
                    let mut earlier = fj;
                    let mut p = 0;
                    while p < fl {
                        earlier += names[p].len();
                        p += 1;
                    }
                    ids[field] = ids[earlier];
                }
                field += 1;
                j += 1;
            }
            l += 1;
        }
        assert!(at == N && field == M, "packed sizes");
        (text, ids)
    }

    /// `bytes` as text (names are identifiers, so this holds for generated schemas).
    pub const fn text(bytes: &[u8]) -> &str {
        match core::str::from_utf8(bytes) {
            Ok(text) => text,
            Err(_) => panic!("field names are not UTF-8"),
        }
    }

    /// The highest tag of `members` (the length of its dense list).
    pub const fn max_tag(members: &[(u8, u16)]) -> usize {
        let mut max = 0;
        let mut i = 0;
        while i < members.len() {
            if members[i].0 as usize > max {
                max = members[i].0 as usize;
            }
            i += 1;
        }
        max
    }
}
