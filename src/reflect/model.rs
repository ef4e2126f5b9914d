//! A schema resolved for reading at run time: every type and field with its wire layout,
//! linked by index, as `.fbs` text and flatc's binary schemas both resolve to.

use crate::schema::{ScalarType, ScalarValue};
use alloc::string::String;
use alloc::vec::Vec;

/// A table type.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TableDef {
    /// Its name, with its namespace (`feat.test.Monster`).
    pub name: String,
    /// Its fields in slot order, deprecated ones included.
    pub fields: Vec<FieldDef>,
}

/// One field of a table.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FieldDef {
    /// The field's name.
    pub name: String,
    /// Its vtable slot (a union's value; its type is in the slot before).
    pub slot: u16,
    /// What it holds.
    pub ty: FieldType,
    /// A scalar or enum field's default; `None` for an optional scalar (`= null`) and for
    /// fields that are not scalars.
    pub default: Option<ScalarValue>,
    /// `required`.
    pub required: bool,
    /// `deprecated`.
    pub deprecated: bool,
    /// `key`.
    pub key: bool,
    /// Its vectors' or bytes' `force_align`, else 0.
    pub force_align: u16,
}

/// What a table field holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FieldType {
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
pub(crate) enum Elem {
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
pub(crate) struct StructDef {
    /// Its name, with its namespace.
    pub name: String,
    /// Size in bytes.
    pub size: u32,
    /// Alignment in bytes.
    pub align: u32,
    /// Its fields in order, with their offsets.
    pub fields: Vec<StructFieldDef>,
}

/// One field of a struct.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct StructFieldDef {
    /// The field's name.
    pub name: String,
    /// Byte offset in the struct.
    pub offset: u32,
    /// What one element holds.
    pub ty: Inline,
    /// For a fixed-size array (`[T:N]`), N; else `None`.
    pub array: Option<u32>,
}

/// What a struct field (or an array element) holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Inline {
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
    let mut key = (len as u64).wrapping_mul(MIX);
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
pub(crate) struct EnumDef {
    /// Its name, with its namespace.
    pub name: String,
    /// Its underlying integer type.
    pub repr: ScalarType,
    /// Its values' names.
    pub value_names: Names,
    /// Its values in declaration order, with their names.
    pub values: Vec<(i64, NameAt)>,
    /// `bit_flags`.
    pub bit_flags: bool,
    /// The values' indices in `values`, sorted by value (equal values in declaration order),
    /// so that naming a value is a binary search however large the enum.
    pub by_value: Vec<u32>,
    /// The same, sorted by [`name_key`] and name (ties in `by_value` order).
    pub by_name: Vec<u32>,
}

impl EnumDef {
    /// An enum of these values (value and name, in declaration order), indexed by value and
    /// by name.
    pub fn new<'n>(
        name: String,
        repr: ScalarType,
        values: impl IntoIterator<Item = (i64, &'n str)>,
        bit_flags: bool,
    ) -> Self {
        let mut value_names = Names::default();
        let values: Vec<(i64, NameAt)> = values.into_iter().map(|(v, n)| (v, value_names.push(n))).collect();
        let by_value = Self::by_value(&values);
        let mut by_name = by_value.clone();
        let name_at = |i: &u32| values.get(*i as usize).map_or("", |v| value_names.get(v.1));
        by_name.sort_by_cached_key(|i| (name_key(name_at(i)), name_at(i)));
        EnumDef { name, repr, value_names, values, bit_flags, by_value, by_name }
    }

    /// [`EnumDef::new`] for values of distinct names, given with their indices sorted by
    /// [`name_key`] and name (as the `.fbs` resolver has them from checking the names distinct).
    pub fn with_names_sorted(
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
        let value = |i: &u32| values.get(*i as usize).map_or(0, |v| v.0);
        // Values are mostly declared in order: then there is nothing to sort.
        if !by_value.is_sorted_by_key(value) {
            by_value.sort_by_key(value);
        }
        by_value
    }

    /// Its values and their names, in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = (i64, &str)> + '_ {
        self.values.iter().map(|&(v, n)| (v, self.value_names.get(n)))
    }

    /// The name of the value at `i` in `values`.
    fn name_at(&self, i: u32) -> Option<&str> {
        self.values.get(i as usize).map(|v| self.value_names.get(v.1))
    }

    /// The value named `name`, if the enum has one.
    pub fn value_of(&self, name: &str) -> Option<i64> {
        let key = (name_key(name), name);
        let at = self.by_name.partition_point(|&i| {
            let other = self.name_at(i).unwrap_or("");
            (name_key(other), other) < key
        });
        let (value, at) = self.values.get(*self.by_name.get(at)? as usize)?;
        (self.value_names.get(*at) == name).then_some(*value)
    }

    /// The (first declared) name of `value`, if the enum names it.
    pub fn name_of(&self, value: i64) -> Option<&str> {
        let value_at = |i: &u32| self.values.get(*i as usize).map_or(i64::MAX, |v| v.0);
        let at = self.by_value.partition_point(|i| value_at(i) < value);
        let i = *self.by_value.get(at)?;
        let (v, _) = self.values.get(i as usize)?;
        if *v == value {
            self.name_at(i)
        } else {
            None
        }
    }

    /// Whether the enum names `value`.
    pub fn names(&self, value: i64) -> bool {
        self.name_of(value).is_some()
    }
}

/// A union type.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct UnionDef {
    /// Its name, with its namespace.
    pub name: String,
    /// Its members' names.
    pub member_names: Names,
    /// Its members: type tag (from 1), name, what it holds.
    pub members: Vec<(u8, NameAt, Member)>,
}

impl UnionDef {
    /// The name of a member (at `at` in `member_names`).
    pub fn member_name(&self, at: NameAt) -> &str {
        self.member_names.get(at)
    }
}

/// What a union member holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Member {
    /// A table.
    Table(u16),
    /// A struct, stored out of line.
    Struct(u16),
    /// A string.
    String,
}

/// Everything a schema declares, resolved.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Types {
    /// Tables, by index.
    pub tables: Vec<TableDef>,
    /// Structs, by index.
    pub structs: Vec<StructDef>,
    /// Enums, by index.
    pub enums: Vec<EnumDef>,
    /// Unions, by index.
    pub unions: Vec<UnionDef>,
    /// The `root_type`.
    pub root: Option<u16>,
    /// The `file_identifier`.
    pub identifier: Option<[u8; 4]>,
}

impl Types {
    /// The size and alignment of an inline value of `ty`.
    pub fn inline_size(&self, ty: Inline) -> (u32, u32) {
        match ty {
            Inline::Scalar(s) => (s.size() as u32, s.size() as u32),
            Inline::Enum(e) => {
                let size = self.enums.get(usize::from(e)).map_or(1, |e| e.repr.size() as u32);
                (size, size)
            }
            Inline::Struct(s) => self.structs.get(usize::from(s)).map_or((0, 1), |s| (s.size, s.align)),
        }
    }
}
