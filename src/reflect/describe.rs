//! The dump's view of resolved [`Types`]: handles are indices.

use super::model::{Elem, FieldType, Inline as ModelInline, Member as ModelMember, Types};
use crate::dump::{Describe, Field, Inline, Kind, Member, StructField};
use crate::schema::ScalarType;
use crate::wire::to_usize;

/// [`Types`] as the dump reads them.
pub(crate) struct Described<'t>(pub &'t Types);

impl Described<'_> {
    fn inline(ty: ModelInline) -> Inline<Self> {
        match ty {
            ModelInline::Scalar(s) => Inline::Scalar(s),
            ModelInline::Enum(e) => Inline::Enum(e),
            ModelInline::Struct(s) => Inline::Struct(s),
        }
    }
}

impl Describe for Described<'_> {
    type Table = u16;
    type Struct = u16;
    type Enum = u16;
    type Union = u16;

    fn fields(&self, t: u16) -> impl Iterator<Item = Field<'_, Self>> {
        let fields = self.0.tables.get(usize::from(t)).map_or(&[][..], |t| &t.fields[..]);
        fields.iter().map(|f| Field {
            name: f.name.as_str(),
            slot: f.slot,
            deprecated: f.deprecated,
            kind: match f.ty {
                FieldType::Scalar(s) => Kind::Scalar(s, f.default),
                FieldType::Enum(e) => Kind::Enum(e, f.default),
                FieldType::String => Kind::String,
                FieldType::Table(t) => Kind::Table(t),
                FieldType::Struct(s) => Kind::Struct(s),
                FieldType::Vector(Elem::Scalar(s)) => Kind::Vector(s),
                FieldType::Vector(Elem::Enum(e)) => Kind::EnumVector(e),
                FieldType::Vector(Elem::String) => Kind::StringVector,
                FieldType::Vector(Elem::Table(t)) => Kind::TableVector(t),
                FieldType::Vector(Elem::Struct(s)) => Kind::StructVector(s),
                FieldType::Union(u) => Kind::Union(u),
                FieldType::UnionVector(u) => Kind::UnionVector(u),
                FieldType::Nested(t) => Kind::Nested(t),
            },
        })
    }

    fn field_count(&self, t: u16) -> usize {
        self.0.tables.get(usize::from(t)).map_or(0, |t| t.fields.len())
    }

    fn struct_field_count(&self, s: u16) -> usize {
        self.0.structs.get(usize::from(s)).map_or(0, |s| s.fields.len())
    }

    fn struct_size(&self, s: u16) -> usize {
        self.0.structs.get(usize::from(s)).map_or(0, |s| to_usize(s.size))
    }

    fn struct_fields(&self, s: u16) -> impl Iterator<Item = StructField<'_, Self>> {
        let fields = self.0.structs.get(usize::from(s)).map_or(&[][..], |s| &s.fields[..]);
        fields.iter().map(|f| StructField {
            name: f.name.as_str(),
            offset: to_usize(f.offset),
            kind: Self::inline(f.ty),
            array: f.array.map(to_usize),
        })
    }

    fn enum_repr(&self, e: u16) -> ScalarType {
        self.0.enums.get(usize::from(e)).map_or(ScalarType::U8, |e| e.repr)
    }

    fn enum_name(&self, e: u16, v: i64) -> Option<&str> {
        self.0.enums.get(usize::from(e))?.name_of(v)
    }

    fn flags(&self, e: u16) -> Option<impl Iterator<Item = (i64, &str)>> {
        let e = self.0.enums.get(usize::from(e)).filter(|e| e.bit_flags)?;
        Some(e.values())
    }

    fn member(&self, u: u16, tag: u8) -> Option<(&str, Member<Self>)> {
        let u = self.0.unions.get(usize::from(u))?;
        let (_, name, member) = u.members.iter().find(|(t, _, _)| *t == tag)?;
        let member = match *member {
            ModelMember::Table(t) => Member::Table(t),
            ModelMember::Struct(s) => Member::Struct(s),
            ModelMember::String => Member::String,
        };
        Some((u.member_name(*name), member))
    }
}
