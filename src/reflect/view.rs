//! Dynamic views: any field of a buffer verified against a run-time [`Schema`], read by name or
//! slot. Like the typed views, they exist only over verified bytes, read in place and never
//! fail: a field the schema does not have, or an absent one without default, is `None`.

use super::model::{Elem, FieldDef, FieldType, Inline, Member};
use super::Schema;
use crate::dump::read_at as read_inline;
use crate::schema::{ScalarType, ScalarValue};
use crate::wire::{self, f64_from_int, to_usize, FromUnion, Seal, Table, UnionValue};

/// A table of a verified buffer, with its type in the schema.
#[derive(Clone, Copy)]
pub struct DynTable<'s, 'b> {
    schema: &'s Schema,
    table: Table<'b>,
    ty: u16,
}

/// A value read from a field, a vector element or a struct field.
#[derive(Clone, Copy, Debug)]
pub enum DynValue<'s, 'b> {
    /// A scalar (a field's default when absent).
    Scalar(ScalarValue),
    /// An enum value and, when the schema names it, its name.
    Enum(ScalarValue, Option<&'s str>),
    /// A string.
    String(&'b str),
    /// A table.
    Table(DynTable<'s, 'b>),
    /// A struct.
    Struct(DynStruct<'s, 'b>),
    /// A vector, or a struct's fixed-size array.
    Vector(DynVector<'s, 'b>),
    /// A union's value.
    Union(DynUnion<'s, 'b>),
}

/// A struct's bytes, with its type.
#[derive(Clone, Copy)]
pub struct DynStruct<'s, 'b> {
    schema: &'s Schema,
    bytes: &'b [u8],
    ty: u16,
}

/// A vector (or a fixed-size array in a struct).
#[derive(Clone, Copy)]
pub struct DynVector<'s, 'b> {
    schema: &'s Schema,
    elements: Elements<'b>,
    len: usize,
}

#[derive(Clone, Copy)]
enum Elements<'b> {
    /// Inline values (scalars, enums, structs) packed in these bytes.
    Inline(&'b [u8], Inline),
    Strings(wire::StrVector<'b>),
    Tables(wire::TableVector<'b, Table<'b>>, u16),
    Unions(wire::UnionVector<'b, RawUnion<'b>>, u16),
}

/// A union's value: its type tag, the member's name, and the value when the schema names the
/// member (a member from a newer schema is not looked inside, as it was not verified).
#[derive(Clone, Copy)]
pub struct DynUnion<'s, 'b> {
    /// The type tag (0: `NONE`).
    pub tag: u8,
    /// The member's name, if the schema names the tag.
    pub name: Option<&'s str>,
    resolved: Option<Resolved<'s, 'b>>,
}

#[derive(Clone, Copy)]
enum Resolved<'s, 'b> {
    Table(DynTable<'s, 'b>),
    Struct(DynStruct<'s, 'b>),
    String(&'b str),
}

#[derive(Clone, Copy)]
struct RawUnion<'b>(u8, UnionValue<'b>);

impl<'b> FromUnion<'b> for RawUnion<'b> {
    fn from_union(tag: u8, value: UnionValue<'b>, _: Seal) -> Self {
        RawUnion(tag, value)
    }
}

impl<'s, 'b> DynTable<'s, 'b> {
    pub(super) fn new(schema: &'s Schema, table: Table<'b>, ty: u16) -> Self {
        DynTable { schema, table, ty }
    }

    pub(super) fn raw(&self) -> Table<'b> {
        self.table
    }

    pub(super) fn type_index(&self) -> u16 {
        self.ty
    }

    /// The table's type name, with its namespace.
    pub fn type_name(&self) -> &'s str {
        self.schema.table_name(super::TableId(self.ty))
    }

    /// The table's byte position in its buffer.
    pub fn position(&self) -> usize {
        self.table.position()
    }

    fn defs(&self) -> &'s [FieldDef] {
        self.schema.types.tables.get(usize::from(self.ty)).map_or(&[], |t| &t.fields[..])
    }

    /// The names of the table type's fields, in slot order.
    pub fn field_names(&self) -> impl Iterator<Item = &'s str> {
        self.defs().iter().map(|f| f.name.as_str())
    }

    /// Field `name`: its value, its default when an absent scalar, `None` when absent
    /// otherwise (or when the type has no such field).
    pub fn get(&self, name: &str) -> Option<DynValue<'s, 'b>> {
        let def = self.defs().iter().find(|f| f.name == name)?;
        self.read(def)
    }

    /// The field in vtable slot `slot` (a union's value slot), as [`DynTable::get`].
    pub fn get_slot(&self, slot: u16) -> Option<DynValue<'s, 'b>> {
        let def = self.defs().iter().find(|f| f.slot == slot)?;
        self.read(def)
    }

    fn read(&self, f: &FieldDef) -> Option<DynValue<'s, 'b>> {
        let (t, slot, schema) = (self.table, f.slot, self.schema);
        match f.ty {
            FieldType::Scalar(ty) => {
                let at = t.field(slot);
                let value = match at {
                    Some(at) => read_inline(t.buffer().get(at..).unwrap_or(&[]), ty),
                    None => f.default?,
                };
                Some(DynValue::Scalar(value))
            }
            FieldType::Enum(e) => {
                let repr = schema.types.enums.get(usize::from(e)).map_or(ScalarType::U8, |e| e.repr);
                let value = match t.field(slot) {
                    Some(at) => read_inline(t.buffer().get(at..).unwrap_or(&[]), repr),
                    None => f.default?,
                };
                Some(DynValue::Enum(value, enum_name(schema, e, value)))
            }
            FieldType::String => t.string(slot).map(DynValue::String),
            FieldType::Table(ty) => t.raw_table(slot).map(|table| DynValue::Table(DynTable::new(schema, table, ty))),
            FieldType::Struct(s) => {
                let size = struct_size(schema, s);
                let bytes = t.field(slot).and_then(|p| t.buffer().get(p..)).and_then(|b| b.get(..size))?;
                Some(DynValue::Struct(DynStruct { schema, bytes, ty: s }))
            }
            FieldType::Vector(elem) => {
                let elements = match elem {
                    Elem::String => {
                        let v = t.string_vector(slot)?;
                        return Some(DynValue::Vector(DynVector {
                            schema,
                            len: v.len(),
                            elements: Elements::Strings(v),
                        }));
                    }
                    Elem::Table(ty) => {
                        let v = t.table_vector::<Table<'b>>(slot)?;
                        return Some(DynValue::Vector(DynVector {
                            schema,
                            len: v.len(),
                            elements: Elements::Tables(v, ty),
                        }));
                    }
                    Elem::Scalar(s) => Inline::Scalar(s),
                    Elem::Enum(e) => Inline::Enum(e),
                    Elem::Struct(s) => Inline::Struct(s),
                };
                let size = inline_size(schema, elements);
                let (bytes, len) = t.raw_vector(slot, size)?;
                Some(DynValue::Vector(DynVector { schema, len, elements: Elements::Inline(bytes, elements) }))
            }
            FieldType::Union(u) => {
                let tag = t.union_tag(slot);
                let at = t.field(slot);
                let value = at.and_then(|at| wire::read_uoffset(t.buffer(), at));
                Some(DynValue::Union(union_value(schema, u, tag, t.buffer(), value)))
            }
            FieldType::UnionVector(u) => {
                let v = t.union_vector::<RawUnion<'b>>(slot)?;
                Some(DynValue::Vector(DynVector { schema, len: v.len(), elements: Elements::Unions(v, u) }))
            }
            FieldType::Nested(root) => {
                let (bytes, _) = t.raw_vector(slot, 1)?;
                let table = Table::verified(bytes, wire::root_position(bytes)?)?;
                Some(DynValue::Table(DynTable::new(schema, table, root)))
            }
        }
    }
}

impl<'s, 'b> DynStruct<'s, 'b> {
    /// The struct's type name, with its namespace.
    pub fn type_name(&self) -> &'s str {
        self.schema.types.structs.get(usize::from(self.ty)).map_or("?", |s| s.name.as_str())
    }

    /// The struct's bytes.
    pub fn bytes(&self) -> &'b [u8] {
        self.bytes
    }

    /// Field `name` (a fixed-size array as a [`DynVector`]), or `None` when the struct type has
    /// no such field.
    pub fn get(&self, name: &str) -> Option<DynValue<'s, 'b>> {
        let schema = self.schema;
        let def = schema.types.structs.get(usize::from(self.ty))?.fields.iter().find(|f| f.name == name)?;
        let at = self.bytes.get(to_usize(def.offset)..).unwrap_or(&[]);
        match def.array {
            None => Some(inline_value(schema, at, def.ty)),
            Some(n) => {
                let n = to_usize(n);
                let bytes = at.get(..n.saturating_mul(inline_size(schema, def.ty))).unwrap_or(&[]);
                Some(DynValue::Vector(DynVector { schema, len: n, elements: Elements::Inline(bytes, def.ty) }))
            }
        }
    }
}

impl<'s, 'b> DynVector<'s, 'b> {
    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Element `i`.
    pub fn get(&self, i: usize) -> Option<DynValue<'s, 'b>> {
        let schema = self.schema;
        match self.elements {
            Elements::Inline(bytes, ty) => {
                let size = inline_size(schema, ty);
                let at = bytes.get(i.checked_mul(size)?..)?.get(..size)?;
                Some(inline_value(schema, at, ty))
            }
            Elements::Strings(v) => v.get(i).map(DynValue::String),
            Elements::Tables(v, ty) => v.get(i).map(|t| DynValue::Table(DynTable::new(schema, t, ty))),
            Elements::Unions(v, u) => {
                let RawUnion(tag, value) = v.get(i)?;
                let (buf, pos) = match value.raw() {
                    Some((buf, at)) => (buf, Some(at)),
                    None => (&[][..], None),
                };
                Some(DynValue::Union(union_value(schema, u, tag, buf, pos)))
            }
        }
    }

    /// The elements in order.
    pub fn iter(&self) -> DynIter<'s, 'b> {
        DynIter { vector: *self, next: 0 }
    }
}

impl<'s, 'b> IntoIterator for DynVector<'s, 'b> {
    type Item = DynValue<'s, 'b>;
    type IntoIter = DynIter<'s, 'b>;

    fn into_iter(self) -> DynIter<'s, 'b> {
        self.iter()
    }
}

impl<'s, 'b> IntoIterator for &DynVector<'s, 'b> {
    type Item = DynValue<'s, 'b>;
    type IntoIter = DynIter<'s, 'b>;

    fn into_iter(self) -> DynIter<'s, 'b> {
        self.iter()
    }
}

/// The elements of a [`DynVector`], in order ([`DynVector::iter`]).
#[derive(Clone, Debug)]
pub struct DynIter<'s, 'b> {
    vector: DynVector<'s, 'b>,
    /// The index of the next element.
    next: usize,
}

impl<'s, 'b> Iterator for DynIter<'s, 'b> {
    type Item = DynValue<'s, 'b>;

    fn next(&mut self) -> Option<DynValue<'s, 'b>> {
        while self.next < self.vector.len {
            let i = self.next;
            self.next = i.saturating_add(1);
            if let Some(value) = self.vector.get(i) {
                return Some(value);
            }
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.vector.len.saturating_sub(self.next)))
    }
}

impl core::iter::FusedIterator for DynIter<'_, '_> {}

/// The table's type and position, not its fields.
impl core::fmt::Debug for DynTable<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DynTable").field("type", &self.type_name()).field("pos", &self.position()).finish()
    }
}

/// The struct's type and size, not its fields.
impl core::fmt::Debug for DynStruct<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DynStruct").field("type", &self.type_name()).field("bytes", &self.bytes.len()).finish()
    }
}

/// The vector's length, not its elements.
impl core::fmt::Debug for DynVector<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DynVector").field("len", &self.len).finish()
    }
}

/// The member's tag and name, and its value.
impl core::fmt::Debug for DynUnion<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DynUnion")
            .field("tag", &self.tag)
            .field("name", &self.name)
            .field("value", &self.get())
            .finish()
    }
}

impl<'s, 'b> DynUnion<'s, 'b> {
    /// The member's value: a table, a struct or a string.
    pub fn get(&self) -> Option<DynValue<'s, 'b>> {
        Some(match self.resolved? {
            Resolved::Table(t) => DynValue::Table(t),
            Resolved::Struct(s) => DynValue::Struct(s),
            Resolved::String(s) => DynValue::String(s),
        })
    }
}

impl DynValue<'_, '_> {
    /// The value as an integer, when it is one (an enum's number, a bool as 0 or 1).
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            DynValue::Scalar(v) | DynValue::Enum(v, _) => v.as_i128().and_then(|v| i64::try_from(v).ok()),
            _ => None,
        }
    }

    /// The value as a float, when it is a number.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            DynValue::Scalar(ScalarValue::f32(x)) => Some(f64::from(*x)),
            DynValue::Scalar(ScalarValue::f64(x)) => Some(*x),
            #[allow(clippy::cast_precision_loss)]
            other => other.as_i64().map(|v| f64_from_int(i128::from(v))),
        }
    }

    /// The value as a string, when it is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            DynValue::String(s) => Some(s),
            _ => None,
        }
    }
}

fn union_value<'s, 'b>(schema: &'s Schema, u: u16, tag: u8, buf: &'b [u8], pos: Option<usize>) -> DynUnion<'s, 'b> {
    let union = schema.types.unions.get(usize::from(u));
    let member = union.and_then(|u| u.members.iter().find(|(t, _, _)| *t == tag));
    let resolved = match (member, pos) {
        (Some((_, _, Member::Table(ty))), Some(pos)) => {
            Table::verified(buf, pos).map(|t| Resolved::Table(DynTable::new(schema, t, *ty)))
        }
        (Some((_, _, Member::Struct(s))), Some(pos)) => {
            let size = struct_size(schema, *s);
            buf.get(pos..)
                .and_then(|b| b.get(..size))
                .map(|bytes| Resolved::Struct(DynStruct { schema, bytes, ty: *s }))
        }
        (Some((_, _, Member::String)), Some(pos)) => wire::verified_str(buf, pos).map(Resolved::String),
        _ => None,
    };
    let name = union.zip(member).map(|(u, (_, name, _))| u.member_name(*name));
    DynUnion { tag, name, resolved }
}

fn enum_name(schema: &Schema, e: u16, value: ScalarValue) -> Option<&str> {
    let v = value.as_i128().and_then(|v| i64::try_from(v).ok())?;
    schema.types.enums.get(usize::from(e))?.name_of(v)
}

fn struct_size(schema: &Schema, s: u16) -> usize {
    schema.types.structs.get(usize::from(s)).map_or(0, |s| to_usize(s.size))
}

fn inline_size(schema: &Schema, ty: Inline) -> usize {
    to_usize(schema.types.inline_size(ty).0)
}

fn inline_value<'s, 'b>(schema: &'s Schema, at: &'b [u8], ty: Inline) -> DynValue<'s, 'b> {
    match ty {
        Inline::Scalar(s) => DynValue::Scalar(read_inline(at, s)),
        Inline::Enum(e) => {
            let repr = schema.types.enums.get(usize::from(e)).map_or(ScalarType::U8, |e| e.repr);
            let value = read_inline(at, repr);
            DynValue::Enum(value, enum_name(schema, e, value))
        }
        Inline::Struct(s) => {
            let bytes = at.get(..struct_size(schema, s)).unwrap_or(&[]);
            DynValue::Struct(DynStruct { schema, bytes, ty: s })
        }
    }
}
