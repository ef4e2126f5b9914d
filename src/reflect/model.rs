//! A schema resolved for reading at run time: every type and field with its wire layout,
//! linked by index, as `.fbs` text and flatc's binary schemas both resolve to.
//!
//! [`Schema::types`](super::Schema::types) lends it out read-only: the types, their fields and
//! what each holds, as FlatBuffers' rules resolved them (slots, struct offsets, sizes and
//! alignments, enum values, union tags, defaults). The code generator reads it this way, so the
//! compiled-in formats and the run-time schemas are resolved by one set of rules. Types refer to
//! one another by index into the lists of [`Types`] (a table's index is also its
//! [`TableId`](super::TableId)'s number).

use crate::schema::{ScalarType, ScalarValue};
use crate::wire::{to_u64, to_usize};
use alloc::string::String;
use alloc::vec::Vec;

/// A table type.
#[derive(Clone, Debug, PartialEq)]
pub struct TableDef {
    /// Its name, with its namespace (`feat.test.Monster`).
    pub(crate) name: String,
    /// Its fields in slot order, deprecated ones included.
    pub(crate) fields: Vec<FieldDef>,
}

impl TableDef {
    /// Its name, with its namespace (`feat.test.Monster`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its fields in slot order, deprecated ones included.
    pub fn fields(&self) -> &[FieldDef] {
        &self.fields
    }
}

/// One field of a table.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldDef {
    /// The field's name.
    pub(crate) name: String,
    /// Its vtable slot (a union's value; its type is in the slot before).
    pub(crate) slot: u16,
    /// What it holds.
    pub(crate) ty: FieldType,
    /// A scalar or enum field's default; `None` for an optional scalar (`= null`) and for
    /// fields that are not scalars.
    pub(crate) default: Option<ScalarValue>,
    /// `required`.
    pub(crate) required: bool,
    /// `deprecated`.
    pub(crate) deprecated: bool,
    /// `key`.
    pub(crate) key: bool,
    /// Its vectors' or bytes' `force_align`, else 0.
    pub(crate) force_align: u16,
}

impl FieldDef {
    /// The field's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its vtable slot: the `id` the schema gives, else its place among the fields (a union
    /// taking two). For a union or a vector of unions, the value's slot; its type is in the
    /// slot before.
    pub fn slot(&self) -> u16 {
        self.slot
    }

    /// What it holds.
    pub fn ty(&self) -> FieldType {
        self.ty
    }

    /// A scalar or enum field's default (an enum's as a value of its underlying type); `None`
    /// for an optional scalar (`= null`) and for fields that are not scalars.
    pub fn default(&self) -> Option<ScalarValue> {
        self.default
    }

    /// Whether it is `required` (never a scalar).
    pub fn required(&self) -> bool {
        self.required
    }

    /// Whether it is `deprecated` (still verified, as flatc's verifier does).
    pub fn deprecated(&self) -> bool {
        self.deprecated
    }

    /// Whether it is the table's `key`.
    pub fn key(&self) -> bool {
        self.key
    }

    /// The `force_align` of its vector or nested flatbuffer, else 0.
    pub fn force_align(&self) -> u16 {
        self.force_align
    }
}

/// What a table field holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FieldType {
    /// A scalar.
    Scalar(ScalarType),
    /// An enum (by index).
    Enum(u16),
    /// A string.
    String,
    /// A table (by index).
    Table(u16),
    /// A struct, inline (by index).
    Struct(u16),
    /// A vector.
    Vector(Elem),
    /// A union (by index): its type in the slot before.
    Union(u16),
    /// A vector of unions (by index): a `[ubyte]` of types in the slot before.
    UnionVector(u16),
    /// A `[ubyte]` holding a flatbuffer whose root is this table.
    Nested(u16),
}

/// What a vector holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Elem {
    /// Scalars.
    Scalar(ScalarType),
    /// Enum values.
    Enum(u16),
    /// Strings.
    String,
    /// Tables.
    Table(u16),
    /// Structs.
    Struct(u16),
}

/// A struct type.
#[derive(Clone, Debug, PartialEq)]
pub struct StructDef {
    /// Its name, with its namespace.
    pub(crate) name: String,
    /// Size in bytes.
    pub(crate) size: u32,
    /// Alignment in bytes.
    pub(crate) align: u32,
    /// Its fields in order, with their offsets.
    pub(crate) fields: Vec<StructFieldDef>,
}

impl StructDef {
    /// Its name, with its namespace.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its size in bytes: its fields' with their padding, rounded up to its alignment.
    pub fn size(&self) -> u32 {
        self.size
    }

    /// Its alignment in bytes: its largest field's, or its `force_align`.
    pub fn align(&self) -> u32 {
        self.align
    }

    /// Its fields in declaration order, with their offsets.
    pub fn fields(&self) -> &[StructFieldDef] {
        &self.fields
    }
}

/// One field of a struct.
#[derive(Clone, Debug, PartialEq)]
pub struct StructFieldDef {
    /// The field's name.
    pub(crate) name: String,
    /// Byte offset in the struct.
    pub(crate) offset: u32,
    /// What one element holds.
    pub(crate) ty: Inline,
    /// For a fixed-size array (`[T:N]`), N; else `None`.
    pub(crate) array: Option<u32>,
}

impl StructFieldDef {
    /// The field's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its byte offset in the struct.
    pub fn offset(&self) -> u32 {
        self.offset
    }

    /// What it holds (for an array, what each element holds).
    pub fn ty(&self) -> Inline {
        self.ty
    }

    /// For a fixed-size array (`[T:N]`), N; else `None`.
    pub fn array(&self) -> Option<u32> {
        self.array
    }
}

/// What a struct field (or an array element) holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Inline {
    /// A scalar.
    Scalar(ScalarType),
    /// An enum value.
    Enum(u16),
    /// A struct.
    Struct(u16),
}

/// The number names are ordered by before their text (a hash of it), so that sorting and
/// searching names mostly compare numbers.
pub(crate) fn name_key(name: &str) -> u64 {
    const MIX: u64 = 0x9e37_79b9_7f4a_7c15;
    let mix = |key: u64, word: u64| {
        let key = (key ^ word).wrapping_mul(MIX);
        key ^ (key >> 32)
    };
    let bytes = name.as_bytes();
    let word = |at: usize| bytes.get(at..).and_then(|b| b.first_chunk::<8>()).map_or(0, |w| u64::from_le_bytes(*w));
    let half = |at: usize| bytes.get(at..).and_then(|b| b.first_chunk::<4>()).map_or(0, |w| u32::from_le_bytes(*w));
    let len = bytes.len();
    let mut key = to_u64(len).wrapping_mul(MIX);
    if len >= 8 {
        // Eight bytes at a time, the last eight overlapping the others if need be.
        let mut at = 0usize;
        while at.saturating_add(8) < len {
            key = mix(key, word(at));
            at = at.saturating_add(8);
        }
        mix(key, word(len.saturating_sub(8)))
    } else if len >= 4 {
        mix(key, u64::from(half(0)) | u64::from(half(len.saturating_sub(4))) << 32)
    } else {
        let small = bytes.iter().fold(0u64, |w, &b| w.wrapping_shl(8) | u64::from(b));
        mix(key, small)
    }
}

/// Names one after another in one string, each known by its range: the many short names of
/// one definition (an enum's values, a union's members) take one allocation rather than one
/// each.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Names(String);

/// Where a name is in its [`Names`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct NameAt {
    start: usize,
    end: usize,
}

impl Names {
    /// Room for names of `len` bytes in all.
    pub fn with_capacity(len: usize) -> Self {
        Names(String::with_capacity(len))
    }

    /// Appends `name`.
    pub fn push(&mut self, name: &str) -> NameAt {
        let start = self.0.len();
        self.0.push_str(name);
        NameAt { start, end: self.0.len() }
    }

    /// Appends `name` with its dots made underscores (a union member's name from its type's).
    pub fn push_undotted(&mut self, name: &str) -> NameAt {
        let start = self.0.len();
        if !name.contains('.') {
            self.0.push_str(name);
            return NameAt { start, end: self.0.len() };
        }
        for (i, part) in name.split('.').enumerate() {
            if i > 0 {
                self.0.push('_');
            }
            self.0.push_str(part);
        }
        NameAt { start, end: self.0.len() }
    }

    /// The name at `at`.
    pub fn get(&self, at: NameAt) -> &str {
        self.0.get(at.start..at.end).unwrap_or("")
    }
}

/// An enum type.
#[derive(Clone, Debug, PartialEq)]
pub struct EnumDef {
    /// Its name, with its namespace.
    pub(crate) name: String,
    /// Its underlying integer type.
    pub(crate) repr: ScalarType,
    /// Its values' names.
    pub(crate) value_names: Names,
    /// Its values in declaration order, with their names.
    pub(crate) values: Vec<(i64, NameAt)>,
    /// `bit_flags`.
    pub(crate) bit_flags: bool,
    /// The values' indices in `values`, sorted by value (equal values in declaration order),
    /// so that naming a value is a binary search however large the enum.
    pub(crate) by_value: Vec<u32>,
    /// The same, sorted by [`name_key`] and name (ties in `by_value` order).
    pub(crate) by_name: Vec<u32>,
}

impl EnumDef {
    /// An enum of these values (value and name, in declaration order), indexed by value and
    /// by name.
    pub(crate) fn new<'n>(
        name: String,
        repr: ScalarType,
        values: impl IntoIterator<Item = (i64, &'n str)>,
        bit_flags: bool,
    ) -> Self {
        let mut value_names = Names::default();
        let values: Vec<(i64, NameAt)> = values.into_iter().map(|(v, n)| (v, value_names.push(n))).collect();
        let by_value = Self::by_value(&values);
        let mut by_name = by_value.clone();
        let name_at = |i: &u32| values.get(to_usize(*i)).map_or("", |v| value_names.get(v.1));
        by_name.sort_by_cached_key(|i| (name_key(name_at(i)), name_at(i)));
        EnumDef { name, repr, value_names, values, bit_flags, by_value, by_name }
    }

    /// [`EnumDef::new`] for values of distinct names, given with their indices sorted by
    /// [`name_key`] and name (as the `.fbs` resolver has them from checking the names distinct).
    pub(crate) fn with_names_sorted(
        name: String,
        repr: ScalarType,
        value_names: Names,
        values: Vec<(i64, NameAt)>,
        bit_flags: bool,
        by_name: Vec<u32>,
    ) -> Self {
        let by_value = Self::by_value(&values);
        EnumDef { name, repr, value_names, values, bit_flags, by_value, by_name }
    }

    /// The indices of `values` sorted by value, equal values in declaration order.
    fn by_value(values: &[(i64, NameAt)]) -> Vec<u32> {
        let mut by_value: Vec<u32> = (0..values.len()).filter_map(|i| u32::try_from(i).ok()).collect();
        let value = |i: &u32| values.get(to_usize(*i)).map_or(0, |v| v.0);
        // Values are mostly declared in order: then there is nothing to sort.
        if !by_value.is_sorted_by_key(value) {
            by_value.sort_by_key(value);
        }
        by_value
    }

    /// Its name, with its namespace (`feat.test.Color`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its underlying integer type.
    pub fn repr(&self) -> ScalarType {
        self.repr
    }

    /// Whether it is declared `bit_flags` (its values are then `1 << n` for the positions the
    /// schema writes).
    pub fn bit_flags(&self) -> bool {
        self.bit_flags
    }

    /// Its values and their names, in declaration order. A `ulong` enum's values past
    /// `i64::MAX` keep their bits (`as u64` gives them back).
    pub fn values(&self) -> impl Iterator<Item = (i64, &str)> + '_ {
        self.values.iter().map(|&(v, n)| (v, self.value_names.get(n)))
    }

    /// The name of the value at `i` in `values`.
    fn name_at(&self, i: u32) -> Option<&str> {
        self.values.get(to_usize(i)).map(|v| self.value_names.get(v.1))
    }

    /// The value named `name`, if the enum has one.
    pub fn value_of(&self, name: &str) -> Option<i64> {
        let key = (name_key(name), name);
        let at = self.by_name.partition_point(|&i| {
            let other = self.name_at(i).unwrap_or("");
            (name_key(other), other) < key
        });
        let (value, at) = self.values.get(to_usize(*self.by_name.get(at)?))?;
        (self.value_names.get(*at) == name).then_some(*value)
    }

    /// The (first declared) name of `value`, if the enum names it.
    pub fn name_of(&self, value: i64) -> Option<&str> {
        let value_at = |i: &u32| self.values.get(to_usize(*i)).map_or(i64::MAX, |v| v.0);
        let at = self.by_value.partition_point(|i| value_at(i) < value);
        let i = *self.by_value.get(at)?;
        let (v, _) = self.values.get(to_usize(i))?;
        if *v == value {
            self.name_at(i)
        } else {
            None
        }
    }

    /// Whether the enum names `value`.
    pub(crate) fn names(&self, value: i64) -> bool {
        self.name_of(value).is_some()
    }
}

/// A union type.
#[derive(Clone, Debug, PartialEq)]
pub struct UnionDef {
    /// Its name, with its namespace.
    pub(crate) name: String,
    /// Its members' names.
    pub(crate) member_names: Names,
    /// Its members: type tag (from 1), name, what it holds.
    pub(crate) members: Vec<(u8, NameAt, Member)>,
}

impl UnionDef {
    /// Its name, with its namespace.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its members in declaration order: type tag (from 1), name (flatc's: an alias when the
    /// schema gives one, else the type's name with its dots made underscores), what it holds.
    pub fn members(&self) -> impl Iterator<Item = (u8, &str, Member)> + '_ {
        self.members.iter().map(|&(tag, name, member)| (tag, self.member_names.get(name), member))
    }

    /// The name of a member (at `at` in `member_names`).
    pub(crate) fn member_name(&self, at: NameAt) -> &str {
        self.member_names.get(at)
    }
}

/// What a union member holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Member {
    /// A table.
    Table(u16),
    /// A struct, stored out of line.
    Struct(u16),
    /// A string.
    String,
}

/// Everything a schema declares, resolved.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Types {
    /// Tables, by index.
    pub(crate) tables: Vec<TableDef>,
    /// Structs, by index.
    pub(crate) structs: Vec<StructDef>,
    /// Enums, by index.
    pub(crate) enums: Vec<EnumDef>,
    /// Unions, by index.
    pub(crate) unions: Vec<UnionDef>,
    /// The `root_type`.
    pub(crate) root: Option<u16>,
    /// The `file_identifier`.
    pub(crate) identifier: Option<[u8; 4]>,
}

/// A scalar's size in bytes (1 to 8), as a `u32`.
fn scalar_size(s: ScalarType) -> u32 {
    u32::try_from(s.size()).unwrap_or(u32::MAX)
}

impl Types {
    /// The tables, by index (the order the schema declares them in).
    pub fn tables(&self) -> &[TableDef] {
        &self.tables
    }

    /// The structs, by index (declaration order).
    pub fn structs(&self) -> &[StructDef] {
        &self.structs
    }

    /// The enums, by index (declaration order).
    pub fn enums(&self) -> &[EnumDef] {
        &self.enums
    }

    /// The unions, by index (declaration order).
    pub fn unions(&self) -> &[UnionDef] {
        &self.unions
    }

    /// The size and alignment of an inline value of `ty`.
    pub(crate) fn inline_size(&self, ty: Inline) -> (u32, u32) {
        match ty {
            Inline::Scalar(s) => (scalar_size(s), scalar_size(s)),
            Inline::Enum(e) => {
                let size = self.enums.get(usize::from(e)).map_or(1, |e| scalar_size(e.repr));
                (size, size)
            }
            Inline::Struct(s) => self.structs.get(usize::from(s)).map_or((0, 1), |s| (s.size, s.align)),
        }
    }
}
