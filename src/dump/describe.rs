//! What the dump reads of a schema, whichever way the schema came: the compiled-in descriptors
//! ([`Compiled`]) or a schema read at run time (`reflect::Schema`, feature `alloc`). One dump
//! walks both, so the two cannot print the same bytes differently.

use crate::schema::{EnumDesc, FieldKind, ScalarType, ScalarValue, StructDesc, StructFieldKind, TableDesc, UnionDesc};

/// A schema's types as handles, and what the dump asks of them.
pub trait Describe {
    /// A table type.
    type Table: Copy + core::fmt::Debug;
    /// A struct type.
    type Struct: Copy + core::fmt::Debug;
    /// An enum type.
    type Enum: Copy + core::fmt::Debug;
    /// A union type.
    type Union: Copy + core::fmt::Debug;

    /// The fields of table type `t` in slot order, deprecated ones included.
    fn fields(&self, t: Self::Table) -> impl Iterator<Item = Field<'_, Self>>;
    /// How many fields table type `t` has (without describing each).
    fn field_count(&self, t: Self::Table) -> usize;
    /// The size of struct type `s` in bytes.
    fn struct_size(&self, s: Self::Struct) -> usize;
    /// The fields of struct type `s` in order.
    fn struct_fields(&self, s: Self::Struct) -> impl Iterator<Item = StructField<'_, Self>>;
    /// How many fields struct type `s` has.
    fn struct_field_count(&self, s: Self::Struct) -> usize;
    /// The underlying type of enum `e`.
    fn enum_repr(&self, e: Self::Enum) -> ScalarType;
    /// The name of value `v` of enum `e`, if it names one.
    fn enum_name(&self, e: Self::Enum, v: i64) -> Option<&str>;
    /// The named values of enum `e`, if it is a `bit_flags` enum (whose values are printed as
    /// the names of their bits).
    fn flags(&self, e: Self::Enum) -> Option<impl Iterator<Item = (i64, &str)>>;
    /// The member of union `u` with type `tag` (not 0), if the schema names it.
    fn member(&self, u: Self::Union, tag: u8) -> Option<(&str, Member<Self>)>;
}

/// One field of a table, as the dump reads it.
#[derive(Debug)]
pub struct Field<'a, S: Describe + ?Sized> {
    /// Its name.
    pub name: &'a str,
    /// Its vtable slot (a union's value; the type is in the slot before).
    pub slot: u16,
    /// Whether the schema marks it `deprecated`.
    pub deprecated: bool,
    /// What it holds.
    pub kind: Kind<S>,
}

/// What a table field holds.
#[derive(Debug)]
pub enum Kind<S: Describe + ?Sized> {
    /// A scalar of this type, with its default (`None`: an optional scalar, `= null`).
    Scalar(ScalarType, Option<ScalarValue>),
    /// An enum value, with its default (`None`: optional).
    Enum(S::Enum, Option<ScalarValue>),
    /// A string.
    String,
    /// A table.
    Table(S::Table),
    /// A struct, inline.
    Struct(S::Struct),
    /// A vector of scalars.
    Vector(ScalarType),
    /// A vector of enum values.
    EnumVector(S::Enum),
    /// A vector of strings.
    StringVector,
    /// A vector of tables.
    TableVector(S::Table),
    /// A vector of structs.
    StructVector(S::Struct),
    /// A union: its type in the slot before.
    Union(S::Union),
    /// A vector of unions: a `[ubyte]` of types in the slot before.
    UnionVector(S::Union),
    /// A `[ubyte]` holding a flatbuffer with this root table (printed as that table).
    Nested(S::Table),
}

/// One field of a struct.
#[derive(Debug)]
pub struct StructField<'a, S: Describe + ?Sized> {
    /// Its name.
    pub name: &'a str,
    /// Byte offset in the struct.
    pub offset: usize,
    /// What one element holds.
    pub kind: Inline<S>,
    /// For a fixed-size array, its length.
    pub array: Option<usize>,
}

/// What a struct field (or one element of a fixed-size array) holds.
#[derive(Debug)]
pub enum Inline<S: Describe + ?Sized> {
    /// A scalar.
    Scalar(ScalarType),
    /// An enum value.
    Enum(S::Enum),
    /// A struct.
    Struct(S::Struct),
}

/// What a union member holds.
#[derive(Debug)]
pub enum Member<S: Describe + ?Sized> {
    /// A table.
    Table(S::Table),
    /// A struct, stored out of line.
    Struct(S::Struct),
    /// A string.
    String,
}

/// The compiled-in schemas' descriptors ([`crate::schema`]).
#[derive(Clone, Copy, Debug)]
pub struct Compiled;

impl Describe for Compiled {
    type Table = &'static TableDesc;
    type Struct = &'static StructDesc;
    type Enum = &'static EnumDesc;
    type Union = &'static UnionDesc;

    fn fields(&self, t: Self::Table) -> impl Iterator<Item = Field<'_, Self>> {
        t.fields.iter().map(|f| Field {
            name: f.name,
            slot: f.slot,
            deprecated: f.deprecated,
            kind: match f.kind {
                FieldKind::Scalar(default) => Kind::Scalar(default.scalar_type(), Some(default)),
                FieldKind::Enum(e, default) => Kind::Enum(e, Some(default)),
                FieldKind::String => Kind::String,
                FieldKind::Table(t) => Kind::Table(t()),
                FieldKind::Struct(s) => Kind::Struct(s),
                FieldKind::Vector(ty) => Kind::Vector(ty),
                FieldKind::EnumVector(e) => Kind::EnumVector(e),
                FieldKind::StringVector => Kind::StringVector,
                FieldKind::TableVector(t) => Kind::TableVector(t()),
                FieldKind::StructVector(s) => Kind::StructVector(s),
                FieldKind::Union(u) => Kind::Union(u()),
                FieldKind::UnionVector(u) => Kind::UnionVector(u()),
            },
        })
    }

    fn field_count(&self, t: Self::Table) -> usize {
        t.fields.len()
    }

    fn struct_size(&self, s: Self::Struct) -> usize {
        s.size
    }

    fn struct_field_count(&self, s: Self::Struct) -> usize {
        s.fields.len()
    }

    fn struct_fields(&self, s: Self::Struct) -> impl Iterator<Item = StructField<'_, Self>> {
        s.fields.iter().map(|f| {
            let (kind, array) = match f.kind {
                StructFieldKind::Scalar(ty) => (Inline::Scalar(ty), None),
                StructFieldKind::Enum(e) => (Inline::Enum(e), None),
                StructFieldKind::Struct(s) => (Inline::Struct(s), None),
                StructFieldKind::Array(ty, n) => (Inline::Scalar(ty), Some(n)),
            };
            StructField { name: f.name, offset: f.offset, kind, array }
        })
    }

    fn enum_repr(&self, e: Self::Enum) -> ScalarType {
        e.repr
    }

    fn enum_name(&self, e: Self::Enum, v: i64) -> Option<&str> {
        e.name_of(v)
    }

    fn flags(&self, e: Self::Enum) -> Option<impl Iterator<Item = (i64, &str)>> {
        e.bit_flags.then(|| e.values.iter().map(|&(v, n)| (v, n)))
    }

    fn member(&self, u: Self::Union, tag: u8) -> Option<(&str, Member<Self>)> {
        u.variant(tag).map(|(name, t)| (name, Member::Table(t)))
    }
}
