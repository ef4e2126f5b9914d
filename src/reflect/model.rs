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

/// An enum type.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct EnumDef {
    /// Its name, with its namespace.
    pub name: String,
    /// Its underlying integer type.
    pub repr: ScalarType,
    /// Its named values, in declaration order.
    pub values: Vec<(i64, String)>,
    /// `bit_flags`.
    pub bit_flags: bool,
    /// The values' indices in `values`, sorted by value (equal values in declaration order),
    /// so that naming a value is a binary search however large the enum.
    pub by_value: Vec<u32>,
    /// The same, sorted by name.
    pub by_name: Vec<u32>,
}

impl EnumDef {
    /// An enum of these values, indexed by value.
    pub fn new(name: String, repr: ScalarType, values: Vec<(i64, String)>, bit_flags: bool) -> Self {
        let mut by_value: Vec<u32> = (0..values.len()).filter_map(|i| u32::try_from(i).ok()).collect();
        by_value.sort_by_key(|&i| values.get(i as usize).map_or(0, |v| v.0));
        let mut by_name = by_value.clone();
        by_name.sort_by(|&a, &b| {
            let name = |i: u32| values.get(i as usize).map_or("", |v| v.1.as_str());
            name(a).cmp(name(b))
        });
        EnumDef { name, repr, values, bit_flags, by_value, by_name }
    }

    /// The value named `name`, if the enum has one.
    pub fn value_of(&self, name: &str) -> Option<i64> {
        let name_at = |i: &u32| self.values.get(*i as usize).map_or("", |v| v.1.as_str());
        let at = self.by_name.partition_point(|i| name_at(i) < name);
        let (v, n) = self.values.get(*self.by_name.get(at)? as usize)?;
        (n == name).then_some(*v)
    }

    /// The (first declared) name of `value`, if the enum names it.
    pub fn name_of(&self, value: i64) -> Option<&str> {
        let value_at = |i: &u32| self.values.get(*i as usize).map_or(i64::MAX, |v| v.0);
        let at = self.by_value.partition_point(|i| value_at(i) < value);
        let i = *self.by_value.get(at)?;
        let (v, name) = self.values.get(i as usize)?;
        (*v == value).then_some(name.as_str())
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
    /// Its members: type tag (from 1), name, what it holds.
    pub members: Vec<(u8, String, Member)>,
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
