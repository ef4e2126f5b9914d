//! flatc's binary schemas (`.bfbs`, from `flatc -b --schema`): reflection's `Schema` table,
//! verified by this crate's own verifier against `reflection.fbs`, then read through the
//! dynamic view into the same [`Types`] the `.fbs` resolver builds.
//!
//! Every index the file holds (an object's, an enum's) is checked, and every layout it states
//! (struct sizes, alignments and field offsets, table slots) is checked to be one the rest of
//! the crate can use: bad data is a [`SchemaError`], never a panic. Each table the file lists
//! is read a bounded number of times per listing, and the verifier charges a table shared
//! between listings at each one (its work budget is linear in the bytes), so reading is linear
//! in the file too, up to the sorts and the logarithm of the name lookups.
//!
//! What a `.bfbs` cannot say: without `--bfbs-builtins`, flatc leaves out its built-in
//! attributes, so `bit_flags`, `nested_flatbuffer` and a vector's `force_align` are lost (a
//! struct's `force_align` survives in its alignment); flatc sorts enum values and union
//! members by value; and flatc 2.0.8 writes a `ulong` default above `i64::MAX` as 0.

use super::fbs::SchemaError;
use super::model::{
    Elem, EnumDef, FieldDef, FieldType, Inline, Member, NameAt, Names, StructDef, StructFieldDef, TableDef, Types,
    UnionDef,
};
use super::resolve::{self, parse_int};
use super::view::{DynTable, DynValue};
use super::Schema;
use crate::schema::{ScalarType, ScalarValue};
use crate::verify::layout::MAX_ALIGN;
use crate::verify::Options;
use crate::wire::{f32_from_f64, to_usize};
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use core::cell::Cell;

/// The wire layout of a binary schema, as a schema.
const REFLECTION: &str = include_str!("reflection.fbs");

/// The name binary schemas have in errors.
const FILE: &str = "schema.bfbs";

/// How many bytes of names `nested_flatbuffer` lookups may build and compare per byte of input.
const LOOKUP_BUDGET_PER_BYTE: u64 = 16;

/// How many table slots a table may use (as for `.fbs` schemas: a slot is a byte in the layout).
const MAX_SLOTS: usize = 256;

// reflection's `BaseType` values that are not scalars.
const NONE: i64 = 0;
const UTYPE: i64 = 1;
const STRING: i64 = 13;
const VECTOR: i64 = 14;
const OBJ: i64 = 15;
const UNION: i64 = 16;
const ARRAY: i64 = 17;

fn err<T>(message: impl Into<String>) -> Result<T, SchemaError> {
    Err(SchemaError::at(FILE, 0, 0, message))
}

/// The scalar type a `BaseType` stands for.
fn scalar(base: i64) -> Option<ScalarType> {
    Some(match base {
        2 => ScalarType::Bool,
        3 => ScalarType::I8,
        4 => ScalarType::U8,
        5 => ScalarType::I16,
        6 => ScalarType::U16,
        7 => ScalarType::I32,
        8 => ScalarType::U32,
        9 => ScalarType::I64,
        10 => ScalarType::U64,
        11 => ScalarType::F32,
        12 => ScalarType::F64,
        _ => return None,
    })
}

/// Reads a binary schema.
pub(crate) fn read(bytes: &[u8]) -> Result<Types, SchemaError> {
    with_reflection(|reflection| read_with(reflection, bytes))
}

/// Calls `f` with the reflection schema, read from its text: once per process with `std`,
/// where loading many binary schemas would otherwise spend most of its time parsing this one.
#[cfg(feature = "std")]
fn with_reflection<T>(f: impl FnOnce(&Schema) -> Result<T, SchemaError>) -> Result<T, SchemaError> {
    static REFLECTION_SCHEMA: std::sync::OnceLock<Result<Schema, SchemaError>> = std::sync::OnceLock::new();
    match REFLECTION_SCHEMA.get_or_init(|| Schema::from_fbs_text(REFLECTION)) {
        Ok(reflection) => f(reflection),
        Err(e) => Err(internal(e)),
    }
}

/// Calls `f` with the reflection schema, read from its text (each time: without `std` there is
/// no lock to keep it in).
#[cfg(not(feature = "std"))]
fn with_reflection<T>(f: impl FnOnce(&Schema) -> Result<T, SchemaError>) -> Result<T, SchemaError> {
    f(&Schema::from_fbs_text(REFLECTION).map_err(|e| internal(&e))?)
}

/// The reflection schema's own failure to load, which its tests rule out.
fn internal(e: &SchemaError) -> SchemaError {
    SchemaError::at(FILE, 0, 0, format!("internal: the reflection schema: {e}"))
}

/// Reads a binary schema with the reflection schema `reflection`.
fn read_with(reflection: &Schema, bytes: &[u8]) -> Result<Types, SchemaError> {
    let Some(root) = reflection.root() else { return err("internal: the reflection schema has no root_type") };
    let schema = match reflection.verify(bytes, root, &Options::default()) {
        Ok(table) => table,
        Err(e) => return err(format!("not a valid binary schema: {}", reflection.error_text(&e, root))),
    };
    Reader::new(schema, bytes.len())?.read()
}

/// A string field.
fn text<'b>(t: &DynTable<'_, 'b>, name: &str) -> Option<&'b str> {
    match t.get(name) {
        Some(DynValue::String(s)) => Some(s),
        _ => None,
    }
}

/// A required string field (the verifier saw it is there).
fn name_of<'b>(t: &DynTable<'_, 'b>) -> &'b str {
    text(t, "name").unwrap_or("")
}

/// An integer, bool or enum field (its default when absent).
fn int(t: &DynTable<'_, '_>, name: &str) -> i64 {
    t.get(name).and_then(|v| v.as_i64()).unwrap_or(0)
}

fn flag(t: &DynTable<'_, '_>, name: &str) -> bool {
    int(t, name) != 0
}

/// A table field.
fn table<'s, 'b>(t: &DynTable<'s, 'b>, name: &str) -> Option<DynTable<'s, 'b>> {
    match t.get(name) {
        Some(DynValue::Table(t)) => Some(t),
        _ => None,
    }
}

/// The tables of a vector-of-tables field (none when absent), charged to `work`: one unit
/// per element, so that vectors shared by many declarations cannot make reading quadratic.
fn tables<'s, 'b>(t: &DynTable<'s, 'b>, name: &str, work: &Work) -> impl Iterator<Item = DynTable<'s, 'b>> {
    let v = match t.get(name) {
        Some(DynValue::Vector(v)) => Some(v),
        _ => None,
    };
    let len = if work.charge(v.map_or(0, |v| v.len())) { v.map_or(0, |v| v.len()) } else { 0 };
    (0..len).filter_map(move |i| match v.and_then(|v| v.get(i)) {
        Some(DynValue::Table(t)) => Some(t),
        _ => None,
    })
}

/// The work reading a binary schema may do: a constant per byte of input, in vector elements
/// read. Running out empties the lists read after, and [`Reader::read`] refuses the file.
struct Work {
    left: Cell<u64>,
    out: Cell<bool>,
}

/// Vector elements read per byte of input.
const READ_BUDGET_PER_BYTE: u64 = 16;

impl Work {
    fn new(len: usize) -> Self {
        let units = u64::try_from(len).unwrap_or(u64::MAX).saturating_mul(READ_BUDGET_PER_BYTE).saturating_add(4096);
        Work { left: Cell::new(units), out: Cell::new(false) }
    }

    /// Spends `units`; `false` (and out from then on) when fewer are left.
    fn charge(&self, units: usize) -> bool {
        match self.left.get().checked_sub(u64::try_from(units).unwrap_or(u64::MAX)) {
            Some(left) if !self.out.get() => {
                self.left.set(left);
                true
            }
            _ => {
                self.out.set(true);
                false
            }
        }
    }
}

/// Attribute `key` of a declaration or field: `Some(value)` when present.
fn attribute<'b>(t: &DynTable<'_, 'b>, key: &str, work: &Work) -> Option<&'b str> {
    tables(t, "attributes", work).find(|kv| text(kv, "key") == Some(key)).map(|kv| text(&kv, "value").unwrap_or(""))
}

/// A `Type` table's parts.
#[derive(Clone, Copy)]
struct Ty {
    base: i64,
    element: i64,
    index: i64,
    fixed_length: i64,
}

impl Ty {
    fn of(t: Option<DynTable<'_, '_>>) -> Ty {
        match t {
            Some(t) => Ty {
                base: int(&t, "base_type"),
                element: int(&t, "element"),
                index: int(&t, "index"),
                fixed_length: int(&t, "fixed_length"),
            },
            None => Ty { base: NONE, element: NONE, index: -1, fixed_length: 0 },
        }
    }
}

/// What an object or enum index stands for: the kind and its index among that kind.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Named {
    Table(u16),
    Struct(u16),
    Enum(u16),
    Union(u16),
}

struct Reader<'s, 'b> {
    schema: DynTable<'s, 'b>,
    objects: Vec<DynTable<'s, 'b>>,
    enums: Vec<DynTable<'s, 'b>>,
    /// What each of `objects` is.
    object_kind: Vec<Named>,
    /// What each of `enums` is.
    enum_kind: Vec<Named>,
    /// Objects by name (the first of a name).
    by_name: BTreeMap<&'b str, u16>,
    /// What `nested_flatbuffer` lookups may still do, in bytes of names built and looked up:
    /// a few per byte of input, so that lookups from deep namespaces stay linear in the file.
    lookup_budget: Cell<u64>,
    /// What reading may still do.
    work: Work,
}

impl<'s, 'b> Reader<'s, 'b> {
    fn new(schema: DynTable<'s, 'b>, len: usize) -> Result<Self, SchemaError> {
        let work = Work::new(len);
        let objects: Vec<_> = tables(&schema, "objects", &work).collect();
        let enums: Vec<_> = tables(&schema, "enums", &work).collect();
        let (mut tables_n, mut structs_n, mut enums_n, mut unions_n) = (0u16, 0u16, 0u16, 0u16);
        let next = |n: &mut u16| {
            let this = *n;
            *n = n.checked_add(1)?;
            Some(this)
        };
        let mut object_kind = Vec::with_capacity(objects.len());
        let mut by_name = BTreeMap::new();
        for (i, o) in objects.iter().enumerate() {
            let kind = if flag(o, "is_struct") {
                next(&mut structs_n).map(Named::Struct)
            } else {
                next(&mut tables_n).map(Named::Table)
            };
            let (Some(kind), Ok(i)) = (kind, u16::try_from(i)) else {
                return err("more than 65535 tables or structs");
            };
            object_kind.push(kind);
            by_name.entry(name_of(o)).or_insert(i);
        }
        let mut enum_kind = Vec::with_capacity(enums.len());
        for e in &enums {
            let kind = if flag(e, "is_union") {
                next(&mut unions_n).map(Named::Union)
            } else {
                next(&mut enums_n).map(Named::Enum)
            };
            let Some(kind) = kind else { return err("more than 65535 enums or unions") };
            enum_kind.push(kind);
        }
        let budget = u64::try_from(len).unwrap_or(u64::MAX).saturating_mul(LOOKUP_BUDGET_PER_BYTE).saturating_add(4096);
        Ok(Reader { schema, objects, enums, object_kind, enum_kind, by_name, lookup_budget: Cell::new(budget), work })
    }

    fn object(&self, index: i64) -> Option<Named> {
        usize::try_from(index).ok().and_then(|i| self.object_kind.get(i)).copied()
    }

    fn enumeration(&self, index: i64) -> Option<Named> {
        usize::try_from(index).ok().and_then(|i| self.enum_kind.get(i)).copied()
    }

    fn read(&self) -> Result<Types, SchemaError> {
        let mut types = Types::default();
        // Enums first: fields need their underlying types.
        for (e, kind) in self.enums.iter().zip(&self.enum_kind) {
            if let Named::Enum(_) = kind {
                types.enums.push(self.enum_def(e)?);
            }
        }
        // Every struct's size and alignment, before any field needs them.
        for (o, kind) in self.objects.iter().zip(&self.object_kind) {
            if let Named::Struct(_) = kind {
                let name = name_of(o);
                let (size, align) = (int(o, "bytesize"), int(o, "minalign"));
                let size = match u16::try_from(size) {
                    Ok(size) if size > 0 => u32::from(size),
                    _ => return err(format!("struct `{name}`: size {size} is not in 1..=65535")),
                };
                let fits = |a: u32| a.is_power_of_two() && to_usize(a) <= MAX_ALIGN && size.checked_rem(a) == Some(0);
                let align = match u32::try_from(align) {
                    Ok(a) if fits(a) => a,
                    _ => {
                        let why =
                            format!("alignment {align} is not a power of two up to {MAX_ALIGN} dividing the size");
                        return err(format!("struct `{name}`: {why}"));
                    }
                };
                types.structs.push(StructDef { name: name.to_string(), size, align, fields: Vec::new() });
            }
        }
        for (o, kind) in self.objects.iter().zip(&self.object_kind) {
            if let Named::Struct(s) = *kind {
                let size = types.structs.get(usize::from(s)).map_or(0, |d| u64::from(d.size));
                let fields = self.struct_fields(&types, o, size)?;
                if let Some(def) = types.structs.get_mut(usize::from(s)) {
                    def.fields = fields;
                }
            }
        }
        Self::check_struct_nesting(&types)?;
        for (e, kind) in self.enums.iter().zip(&self.enum_kind) {
            if let Named::Union(_) = kind {
                types.unions.push(self.union_def(e)?);
            }
        }
        for (o, kind) in self.objects.iter().zip(&self.object_kind) {
            if let Named::Table(_) = kind {
                types.tables.push(self.table_def(&types, o)?);
            }
        }
        if let Some(root) = table(&self.schema, "root_table") {
            // flatc stores the root as the same table as its entry in `objects`.
            let at = self.objects.iter().position(|o| o.position() == root.position());
            let at = at.or_else(|| self.by_name.get(name_of(&root)).map(|&i| usize::from(i)));
            match at.and_then(|i| self.object_kind.get(i)) {
                Some(Named::Table(t)) => types.root = Some(*t),
                _ => return err(format!("root_table `{}` is not a table of the schema", name_of(&root))),
            }
        }
        types.identifier = text(&self.schema, "file_ident").and_then(|id| id.as_bytes().try_into().ok());
        if self.work.out.get() {
            return err("reading it passes its work budget (vectors shared by many declarations)");
        }
        Ok(types)
    }

    fn enum_def(&self, e: &DynTable<'_, '_>) -> Result<EnumDef, SchemaError> {
        let name = name_of(e);
        let repr = match scalar(Ty::of(table(e, "underlying_type")).base) {
            Some(ScalarType::Bool | ScalarType::F32 | ScalarType::F64) | None => {
                return err(format!("enum `{name}`: underlying type must be integral"))
            }
            Some(ty) => ty,
        };
        let mut values = Vec::new();
        for v in tables(e, "values", &self.work) {
            let value = int(&v, "value");
            // A `ulong` enum's values are stored by their bits, as `.fbs` enums are.
            if repr != ScalarType::U64 && scalar_value(repr, value).is_none() {
                return err(format!("enum `{name}`: value {value} does not fit its underlying type"));
            }
            values.push((value, name_of(&v)));
        }
        if values.is_empty() {
            return err(format!("enum `{name}` has no values"));
        }
        Ok(EnumDef::new(name.to_string(), repr, values, attribute(e, "bit_flags", &self.work).is_some()))
    }

    fn union_def(&self, e: &DynTable<'_, '_>) -> Result<UnionDef, SchemaError> {
        let name = name_of(e);
        let mut member_names = Names::default();
        let mut members: Vec<(u8, NameAt, Member)> = Vec::new();
        for v in tables(e, "values", &self.work) {
            let (value, ty) = (int(&v, "value"), Ty::of(table(&v, "union_type")));
            if value == 0 && ty.base == NONE {
                continue; // NONE
            }
            let Some(tag) = u8::try_from(value).ok().filter(|&t| t >= 1) else {
                return err(format!("union `{name}`: tag {value} is not in 1..=255"));
            };
            let member = match (ty.base, self.object(ty.index)) {
                (STRING, _) => Member::String,
                (OBJ, Some(Named::Table(t))) => Member::Table(t),
                (OBJ, Some(Named::Struct(s))) => Member::Struct(s),
                _ => return err(format!("union `{name}`: member `{}` is not a table, struct or string", name_of(&v))),
            };
            if members.iter().any(|(t, _, _)| *t == tag) {
                return err(format!("union `{name}`: tag {tag} is used twice"));
            }
            members.push((tag, member_names.push(name_of(&v)), member));
        }
        Ok(UnionDef { name: name.to_string(), member_names, members })
    }

    /// A scalar of `ty`, or an enum of that underlying type when `index` names one.
    fn scalar_or_enum(&self, types: &Types, ty: ScalarType, index: i64) -> Result<Option<u16>, String> {
        if index < 0 {
            return Ok(None);
        }
        match self.enumeration(index) {
            Some(Named::Enum(e)) if types.enums.get(usize::from(e)).is_some_and(|d| d.repr == ty) => Ok(Some(e)),
            _ => Err(format!("enum index {index} is not an enum of underlying type {ty:?}")),
        }
    }

    /// A struct field's (or array element's) type.
    fn inline(&self, types: &Types, base: i64, index: i64) -> Result<Inline, String> {
        if let Some(s) = scalar(base) {
            return Ok(self.scalar_or_enum(types, s, index)?.map_or(Inline::Scalar(s), Inline::Enum));
        }
        match (base, self.object(index)) {
            (OBJ, Some(Named::Struct(s))) => Ok(Inline::Struct(s)),
            _ => Err("structs may contain only scalar, enum, struct and array fields".to_string()),
        }
    }

    /// A struct's fields, each within its `size`.
    fn struct_fields(
        &self,
        types: &Types,
        o: &DynTable<'_, '_>,
        size: u64,
    ) -> Result<Vec<StructFieldDef>, SchemaError> {
        let name = name_of(o);
        let mut fields: Vec<_> = tables(o, "fields", &self.work).collect();
        // Declaration order is offset order (every field takes at least a byte).
        fields.sort_by_key(|f| (int(f, "offset"), int(f, "id")));
        let mut out = Vec::with_capacity(fields.len());
        for f in &fields {
            let field = name_of(f);
            let bad = |why: String| err(format!("struct field `{name}.{field}`: {why}"));
            let ty = Ty::of(table(f, "type"));
            let (inline, array) = if ty.base == ARRAY {
                match u32::try_from(ty.fixed_length) {
                    Ok(n) if n > 0 => (self.inline(types, ty.element, ty.index), Some(n)),
                    _ => return bad(format!("array length {}", ty.fixed_length)),
                }
            } else {
                (self.inline(types, ty.base, ty.index), None)
            };
            let inline = match inline {
                Ok(inline) => inline,
                Err(why) => return bad(why),
            };
            let Ok(offset) = u32::try_from(int(f, "offset")) else { return bad("a negative offset".to_string()) };
            let bytes = u64::from(types.inline_size(inline).0).saturating_mul(u64::from(array.unwrap_or(1)));
            if u64::from(offset).saturating_add(bytes) > size {
                return bad(format!("{bytes} bytes at offset {offset} pass the struct's size {size}"));
            }
            out.push(StructFieldDef { name: field.to_string(), offset, ty: inline, array });
        }
        if out.is_empty() {
            return err(format!("struct `{name}`: size 0 structs not allowed"));
        }
        Ok(out)
    }

    /// No struct holds itself, directly or not (the dump and views descend into inner structs).
    fn check_struct_nesting(types: &Types) -> Result<(), SchemaError> {
        // Peel off structs whose inner structs are all peeled: what remains holds a cycle.
        let n = types.structs.len();
        let mut holders: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut pending = vec![0usize; n];
        for (outer, s) in types.structs.iter().enumerate() {
            for f in &s.fields {
                if let Inline::Struct(inner) = f.ty {
                    if let Some(h) = holders.get_mut(usize::from(inner)) {
                        h.push(outer);
                    }
                    if let Some(p) = pending.get_mut(outer) {
                        *p = p.saturating_add(1);
                    }
                }
            }
        }
        let mut ready: Vec<usize> = pending.iter().enumerate().filter(|(_, &p)| p == 0).map(|(i, _)| i).collect();
        let mut peeled = 0usize;
        while let Some(s) = ready.pop() {
            peeled = peeled.saturating_add(1);
            for &outer in holders.get(s).map_or(&[][..], |h| &h[..]) {
                if let Some(p) = pending.get_mut(outer) {
                    *p = p.saturating_sub(1);
                    if *p == 0 {
                        ready.push(outer);
                    }
                }
            }
        }
        if peeled < n {
            let stuck = pending.iter().position(|&p| p > 0).and_then(|i| types.structs.get(i));
            return err(format!("struct `{}` holds itself", stuck.map_or("?", |s| s.name.as_str())));
        }
        Ok(())
    }

    /// A table field's type and, for scalars and enums, its scalar type; `None` for a union's
    /// type field (`X_type`), which is part of the union field.
    fn field_type(&self, types: &Types, ty: Ty) -> Result<Option<(FieldType, Option<ScalarType>)>, String> {
        if let Some(s) = scalar(ty.base) {
            let ft = self.scalar_or_enum(types, s, ty.index)?.map_or(FieldType::Scalar(s), FieldType::Enum);
            return Ok(Some((ft, Some(s))));
        }
        let union = |index: i64| match self.enumeration(index) {
            Some(Named::Union(u)) => Ok(u),
            _ => Err(format!("union index {index} is not a union")),
        };
        let ft = match ty.base {
            UTYPE => return Ok(None),
            STRING => FieldType::String,
            OBJ => match self.object(ty.index) {
                Some(Named::Table(t)) => FieldType::Table(t),
                Some(Named::Struct(s)) => FieldType::Struct(s),
                _ => return Err(format!("object index {} is not a table or struct", ty.index)),
            },
            UNION => FieldType::Union(union(ty.index)?),
            VECTOR => {
                if let Some(s) = scalar(ty.element) {
                    let elem = self.scalar_or_enum(types, s, ty.index)?.map_or(Elem::Scalar(s), Elem::Enum);
                    return Ok(Some((FieldType::Vector(elem), None)));
                }
                match ty.element {
                    UTYPE => return Ok(None),
                    STRING => FieldType::Vector(Elem::String),
                    OBJ => match self.object(ty.index) {
                        Some(Named::Table(t)) => FieldType::Vector(Elem::Table(t)),
                        Some(Named::Struct(s)) => FieldType::Vector(Elem::Struct(s)),
                        _ => return Err(format!("object index {} is not a table or struct", ty.index)),
                    },
                    UNION => FieldType::UnionVector(union(ty.index)?),
                    other => return Err(format!("vector of base type {other}")),
                }
            }
            ARRAY => return Err("fixed-length array in table must be wrapped in struct".to_string()),
            other => return Err(format!("base type {other} is not supported")),
        };
        Ok(Some((ft, None)))
    }

    /// The table `name`, looked up from namespace `namespace` outward, as flatc looks up a
    /// `nested_flatbuffer` attribute's table.
    fn lookup_table(&self, namespace: &str, name: &str) -> Result<Option<u16>, String> {
        let mut ns = namespace;
        loop {
            let full = if ns.is_empty() { name.to_string() } else { format!("{ns}.{name}") };
            let cost = u64::try_from(full.len()).unwrap_or(u64::MAX).saturating_add(1);
            match self.lookup_budget.get().checked_sub(cost) {
                Some(left) => self.lookup_budget.set(left),
                None => return Err("nested_flatbuffer lookups pass their work budget".to_string()),
            }
            if let Some(&i) = self.by_name.get(full.as_str()) {
                return Ok(match self.object_kind.get(usize::from(i)) {
                    Some(Named::Table(t)) => Some(*t),
                    _ => None,
                });
            }
            if ns.is_empty() {
                return Ok(None);
            }
            ns = ns.rfind('.').and_then(|i| ns.get(..i)).unwrap_or("");
        }
    }

    fn table_def(&self, types: &Types, o: &DynTable<'_, '_>) -> Result<TableDef, SchemaError> {
        let name = name_of(o);
        let namespace = name.rfind('.').and_then(|i| name.get(..i)).unwrap_or("");
        let mut out: Vec<FieldDef> = Vec::new();
        let mut used = [false; MAX_SLOTS];
        for f in tables(o, "fields", &self.work) {
            let field = name_of(&f);
            let bad = |why: String| err(format!("field `{name}.{field}`: {why}"));
            let (mut ty, scalar_ty) = match self.field_type(types, Ty::of(table(&f, "type"))) {
                Ok(Some(t)) => t,
                Ok(None) => continue,
                Err(why) => return bad(why),
            };
            // A table field's offset is its vtable entry's: 4 + 2 * slot.
            let offset = int(&f, "offset");
            let slot = match offset.checked_sub(4).and_then(|o| usize::try_from(o).ok()) {
                Some(o) if o & 1 == 0 => Some(o >> 1).filter(|&s| s < MAX_SLOTS),
                _ => None,
            };
            let Some(slot) = slot else {
                return bad(format!("vtable offset {offset} is not a slot below {MAX_SLOTS}"));
            };
            let is_union = matches!(ty, FieldType::Union(_) | FieldType::UnionVector(_));
            let slots = if is_union { [slot.checked_sub(1), Some(slot)] } else { [Some(slot), None] };
            if is_union && slot == 0 {
                return bad("a union's value cannot take slot 0 (its type takes the slot before)".to_string());
            }
            for s in slots.into_iter().flatten() {
                match used.get_mut(s) {
                    Some(u) if !*u => *u = true,
                    _ => return bad(format!("slot {s} is used twice")),
                }
            }
            if let Some(root) = attribute(&f, "nested_flatbuffer", &self.work) {
                let found = match self.lookup_table(namespace, root) {
                    Ok(found) => found,
                    Err(why) => return bad(why),
                };
                match (ty, found) {
                    (FieldType::Vector(Elem::Scalar(ScalarType::U8)), Some(t)) => ty = FieldType::Nested(t),
                    (FieldType::Vector(Elem::Scalar(ScalarType::U8)), None) => {
                        return bad(format!("nested_flatbuffer `{root}` is not a table"))
                    }
                    _ => return bad("nested_flatbuffer attribute may only apply to a vector of ubyte".to_string()),
                }
            }
            let required = flag(&f, "required");
            if required && scalar_ty.is_some() {
                return bad("only non-scalar fields in tables may be 'required'".to_string());
            }
            let default = match scalar_ty {
                Some(_) if flag(&f, "optional") => None,
                Some(ScalarType::F32) => Some(ScalarValue::f32(f32_from_f64(real(&f)))),
                Some(ScalarType::F64) => Some(ScalarValue::f64(real(&f))),
                Some(st) => {
                    let n = int(&f, "default_integer");
                    match scalar_value(st, n) {
                        Some(v) => Some(v),
                        None => return bad(format!("default {n} is not a value of {st:?}")),
                    }
                }
                None => None,
            };
            let force_align = match attribute(&f, "force_align", &self.work) {
                None => 0,
                Some(text) => match (parse_int(text).and_then(|n| u16::try_from(n).ok()), ty) {
                    (Some(n), FieldType::Vector(_) | FieldType::Nested(_))
                        if n.is_power_of_two() && usize::from(n) <= MAX_ALIGN =>
                    {
                        n
                    }
                    _ => {
                        return bad(format!(
                            "force_align on a table field must be a power of two up to {MAX_ALIGN}, on a vector"
                        ))
                    }
                },
            };
            out.push(FieldDef {
                name: field.to_string(),
                slot: u16::try_from(slot).unwrap_or(u16::MAX),
                ty,
                default,
                required,
                deprecated: flag(&f, "deprecated"),
                key: flag(&f, "key"),
                force_align,
            });
        }
        out.sort_by_key(|f| f.slot);
        Ok(TableDef { name: name.to_string(), fields: out })
    }
}

/// A field's `default_real`.
fn real(f: &DynTable<'_, '_>) -> f64 {
    match f.get("default_real") {
        Some(DynValue::Scalar(ScalarValue::f64(x))) => x,
        _ => 0.0,
    }
}

/// `value` (a `default_integer` or an enum value) as a scalar of integer type `ty`; a `ulong`
/// keeps the bits.
fn scalar_value(ty: ScalarType, value: i64) -> Option<ScalarValue> {
    match ty {
        ScalarType::U64 => Some(ScalarValue::u64(value.cast_unsigned())),
        ScalarType::F32 | ScalarType::F64 => None,
        _ => resolve::scalar_value(ty, i128::from(value)),
    }
}
