//! From a parsed `.fbs` ([`fbs::Schema`]) to resolved [`Types`]: names looked up through
//! namespaces, enum values and union tags numbered, struct layouts computed, table slots
//! assigned (`id` included), defaults parsed, each by flatc's rules and with flatc's refusals.
//!
//! Every loop here is over the declarations, fields or values read, and no step recurses, so
//! resolving is linear in the schema text whatever it holds.

use super::fbs::{self, Attr, Body, Decl, Field, SchemaError, Type, Value, KNOWN_ATTRIBUTES, KNOWN_ATTRIBUTE_PREFIXES};
use super::model::{
    Elem, EnumDef, FieldDef, FieldType, Inline, Member, StructDef, StructFieldDef, TableDef, Types, UnionDef,
};
use crate::schema::{ScalarType, ScalarValue};
use crate::verify::layout::MAX_ALIGN;
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// How many table slots a table may use: the verifier's layout holds a slot in a byte.
const MAX_SLOTS: usize = 256;

/// The deepest and the longest namespace read. Names are looked up from the innermost
/// enclosing namespace outwards, one probe per level, so these bound each lookup's work (no
/// real schema comes near them; flatc sets no limit).
const MAX_NAMESPACE_DEPTH: usize = 64;
const MAX_NAMESPACE_LEN: usize = 1024;

/// What a declared name stands for: its kind and index among the declarations of that kind.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Named {
    Enum(u16),
    Union(u16),
    Struct(u16),
    Table(u16),
}

/// The scalar type an `.fbs` type name stands for.
pub(crate) fn scalar(name: &str) -> Option<ScalarType> {
    Some(match name {
        "bool" => ScalarType::Bool,
        "byte" | "int8" => ScalarType::I8,
        "ubyte" | "uint8" => ScalarType::U8,
        "short" | "int16" => ScalarType::I16,
        "ushort" | "uint16" => ScalarType::U16,
        "int" | "int32" => ScalarType::I32,
        "uint" | "uint32" => ScalarType::U32,
        "long" | "int64" => ScalarType::I64,
        "ulong" | "uint64" => ScalarType::U64,
        "float" | "float32" => ScalarType::F32,
        "double" | "float64" => ScalarType::F64,
        _ => return None,
    })
}

/// The range of an integer type.
fn int_range(ty: ScalarType) -> Option<(i128, i128)> {
    Some(match ty {
        ScalarType::Bool => (0, 1),
        ScalarType::I8 => (i8::MIN.into(), i8::MAX.into()),
        ScalarType::U8 => (0, u8::MAX.into()),
        ScalarType::I16 => (i16::MIN.into(), i16::MAX.into()),
        ScalarType::U16 => (0, u16::MAX.into()),
        ScalarType::I32 => (i32::MIN.into(), i32::MAX.into()),
        ScalarType::U32 => (0, u32::MAX.into()),
        ScalarType::I64 => (i64::MIN.into(), i64::MAX.into()),
        ScalarType::U64 => (0, u64::MAX.into()),
        ScalarType::F32 | ScalarType::F64 => return None,
    })
}

/// An integer as written in a schema: decimal or `0x` hex, optionally signed.
pub(crate) fn parse_int(text: &str) -> Option<i128> {
    let (neg, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, text.get(1..)?),
        Some(b'+') => (false, text.get(1..)?),
        _ => (false, text),
    };
    let magnitude = match digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        Some(hex) if !hex.is_empty() && hex.len() <= 32 => i128::from_str_radix(hex, 16).ok()?,
        None if !digits.is_empty() && digits.len() <= 38 && digits.bytes().all(|b| b.is_ascii_digit()) => {
            digits.parse::<i128>().ok()?
        }
        _ => return None,
    };
    Some(if neg { magnitude.checked_neg()? } else { magnitude })
}

/// `value` as a scalar of `ty`, if it is one.
pub(crate) fn scalar_value(ty: ScalarType, value: i128) -> Option<ScalarValue> {
    Some(match ty {
        ScalarType::Bool => ScalarValue::bool(match value {
            0 => false,
            1 => true,
            _ => return None,
        }),
        ScalarType::U8 => ScalarValue::u8(u8::try_from(value).ok()?),
        ScalarType::I8 => ScalarValue::i8(i8::try_from(value).ok()?),
        ScalarType::U16 => ScalarValue::u16(u16::try_from(value).ok()?),
        ScalarType::I16 => ScalarValue::i16(i16::try_from(value).ok()?),
        ScalarType::U32 => ScalarValue::u32(u32::try_from(value).ok()?),
        ScalarType::I32 => ScalarValue::i32(i32::try_from(value).ok()?),
        ScalarType::U64 => ScalarValue::u64(u64::try_from(value).ok()?),
        ScalarType::I64 => ScalarValue::i64(i64::try_from(value).ok()?),
        // Integers as float defaults (`= 1`) are exact for every value a schema needs.
        #[allow(clippy::cast_precision_loss)]
        ScalarType::F32 => ScalarValue::f32(value as f32),
        #[allow(clippy::cast_precision_loss)]
        ScalarType::F64 => ScalarValue::f64(value as f64),
    })
}

/// The last component of a possibly namespace-qualified name.
fn short(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

fn attr<'a>(attrs: &'a [Attr], name: &str) -> Option<&'a Attr> {
    attrs.iter().find(|a| a.name == name)
}

fn qualified(namespace: &str, name: &str) -> String {
    if namespace.is_empty() {
        name.to_string()
    } else {
        format!("{namespace}.{name}")
    }
}

/// Resolves a parsed schema. `root_override` names the root table instead of `root_type`.
pub(crate) fn resolve(schema: &fbs::Schema) -> Result<Types, SchemaError> {
    let mut r = Resolver { schema, by_name: BTreeMap::new(), kinds: Vec::new() };
    r.declare()?;
    r.check_attributes()?;
    let mut types = Types::default();
    // Enums first: struct fields, table fields and defaults need their values.
    for d in &schema.decls {
        if let Body::Enum { repr, values } = &d.body {
            types.enums.push(r.enumeration(d, repr.as_deref(), values)?);
        }
    }
    // Structs in declaration order: flatc requires a struct to be declared before a struct
    // holds it, so every inner layout is known when it is needed (and none can hold itself).
    for d in &schema.decls {
        if let Body::Struct { fields } = &d.body {
            let s = r.structure(&types, d, fields)?;
            types.structs.push(s);
        }
    }
    for d in &schema.decls {
        if let Body::Union { members } = &d.body {
            let u = r.union(d, members)?;
            types.unions.push(u);
        }
    }
    for d in &schema.decls {
        if let Body::Table { fields } = &d.body {
            let t = r.table(&types, d, fields)?;
            types.tables.push(t);
        }
    }
    if let Some((name, _)) = &schema.root_type {
        let (file, line, column) = &schema.root_at;
        match r.lookup(&schema.root_namespace, name) {
            Some(Named::Table(t)) => types.root = Some(t),
            _ => return Err(SchemaError::at(file, *line, *column, format!("root_type `{name}` is not a table"))),
        }
    }
    types.identifier = schema.file_identifier.as_ref().and_then(|id| id.as_bytes().try_into().ok());
    Ok(types)
}

/// What is wrong with `namespace`, if it passes the lookup limits.
fn namespace_fault(namespace: &str) -> Option<String> {
    let depth = namespace.split('.').count();
    (depth > MAX_NAMESPACE_DEPTH || namespace.len() > MAX_NAMESPACE_LEN)
        .then(|| format!("namespace deeper than {MAX_NAMESPACE_DEPTH} levels or longer than {MAX_NAMESPACE_LEN} bytes"))
}

struct Resolver<'a> {
    schema: &'a fbs::Schema,
    /// Every declaration by qualified name.
    by_name: BTreeMap<String, Named>,
    /// Each declaration's kind and index, by declaration number.
    kinds: Vec<Named>,
}

impl<'a> Resolver<'a> {
    fn err<T>(d: &Decl, line: usize, column: usize, message: impl Into<String>) -> Result<T, SchemaError> {
        Err(SchemaError::at(&d.file, line, column, message))
    }

    /// Numbers every declaration by kind and checks that no two share a qualified name.
    fn declare(&mut self) -> Result<(), SchemaError> {
        let mut counts = [0usize; 4];
        let (file, line, column) = &self.schema.root_at;
        if let Some(message) = namespace_fault(&self.schema.root_namespace) {
            return Err(SchemaError::at(file, *line, *column, message));
        }
        for d in &self.schema.decls {
            if let Some(message) = namespace_fault(&d.namespace) {
                return Self::err(d, d.line, d.column, message);
            }
            let (slot, make): (usize, fn(u16) -> Named) = match d.body {
                Body::Enum { .. } => (0, Named::Enum),
                Body::Union { .. } => (1, Named::Union),
                Body::Struct { .. } => (2, Named::Struct),
                Body::Table { .. } => (3, Named::Table),
            };
            let Some(count) = counts.get_mut(slot) else {
                return Self::err(d, d.line, d.column, "internal: declaration kind");
            };
            let Ok(index) = u16::try_from(*count) else {
                return Self::err(d, d.line, d.column, "more than 65535 declarations of one kind");
            };
            *count = count.saturating_add(1);
            if scalar(&d.name).is_some() || d.name == "string" {
                return Self::err(d, d.line, d.column, format!("the type name `{}` is a built-in type", d.name));
            }
            let name = qualified(&d.namespace, &d.name);
            if self.by_name.insert(name.clone(), make(index)).is_some() {
                return Self::err(d, d.line, d.column, format!("`{name}` is declared twice"));
            }
            self.kinds.push(make(index));
        }
        Ok(())
    }

    /// Every attribute is one flatc knows or one declared with `attribute`.
    fn check_attributes(&self) -> Result<(), SchemaError> {
        let known = |a: &Attr| {
            KNOWN_ATTRIBUTES.contains(&a.name.as_str())
                || KNOWN_ATTRIBUTE_PREFIXES.iter().any(|p| a.name.starts_with(p))
                || self.schema.user_attributes.contains(&a.name)
        };
        for d in &self.schema.decls {
            let field_attrs = match &d.body {
                Body::Enum { values, .. } => values.iter().map(|v| &v.attrs[..]).collect::<Vec<_>>(),
                Body::Union { members } => members.iter().map(|m| &m.attrs[..]).collect(),
                Body::Struct { fields } | Body::Table { fields } => fields.iter().map(|f| &f.attrs[..]).collect(),
            };
            for a in d.attrs.iter().chain(field_attrs.into_iter().flatten()) {
                if !known(a) {
                    return Self::err(
                        d,
                        a.line,
                        a.column,
                        format!("user define attributes must be declared before use: {}", a.name),
                    );
                }
            }
        }
        Ok(())
    }

    /// What `name`, written in `namespace`, refers to: the innermost enclosing namespace's
    /// declaration of that name first, as flatc looks names up.
    fn lookup(&self, namespace: &str, name: &str) -> Option<Named> {
        let mut ns = namespace;
        let mut candidate = String::with_capacity(namespace.len().saturating_add(name.len()).saturating_add(1));
        loop {
            candidate.clear();
            if !ns.is_empty() {
                candidate.push_str(ns);
                candidate.push('.');
            }
            candidate.push_str(name);
            if let Some(&found) = self.by_name.get(candidate.as_str()) {
                return Some(found);
            }
            if ns.is_empty() {
                return None;
            }
            ns = ns.rfind('.').and_then(|i| ns.get(..i)).unwrap_or("");
        }
    }

    fn enumeration(&self, d: &Decl, repr: Option<&str>, values: &[fbs::EnumVal]) -> Result<EnumDef, SchemaError> {
        let repr = match repr.map(scalar) {
            Some(Some(ty)) if int_range(ty).is_some() && ty != ScalarType::Bool => ty,
            Some(_) => return Self::err(d, d.line, d.column, "underlying enum type must be integral"),
            None => return Self::err(d, d.line, d.column, "must specify the underlying integer type for an enum"),
        };
        let bit_flags = attr(&d.attrs, "bit_flags").is_some();
        let (min, max) = int_range(repr).unwrap_or((0, 0));
        let bits = i128::try_from(repr.size().saturating_mul(8)).unwrap_or(0);
        let mut out: Vec<(i64, String)> = Vec::new();
        let mut names: BTreeSet<&str> = BTreeSet::new();
        let mut next: i128 = 0;
        for v in values {
            let raw = match &v.value {
                None => next,
                Some(Value::Num(s)) => match parse_int(s) {
                    Some(n) => n,
                    None => return Self::err(d, v.line, v.column, format!("enum value `{s}` is not an integer")),
                },
                Some(other) => {
                    return Self::err(d, v.line, v.column, format!("enum value must be a number, not {other:?}"))
                }
            };
            next = raw.saturating_add(1);
            let value = if bit_flags {
                if raw < 0 || raw >= bits {
                    return Self::err(d, v.line, v.column, format!("bit flag out of range of underlying type: {raw}"));
                }
                1i128.checked_shl(u32::try_from(raw).unwrap_or(0)).unwrap_or(0)
            } else {
                raw
            };
            if value < min || value > max {
                return Self::err(d, v.line, v.column, format!("enum value does not fit: {} = {value}", v.name));
            }
            if !names.insert(&v.name) {
                return Self::err(d, v.line, v.column, format!("enum value already exists: {}", v.name));
            }
            // Values of a `ulong` enum past `i64::MAX` keep their bits.
            let stored = i64::try_from(value).unwrap_or_else(|_| u64::try_from(value).map_or(0, |u| u as i64));
            out.push((stored, v.name.clone()));
        }
        if out.is_empty() {
            return Self::err(d, d.line, d.column, format!("enum `{}` has no values", d.name));
        }
        Ok(EnumDef::new(qualified(&d.namespace, &d.name), repr, out, bit_flags))
    }

    /// The inline type (scalar, enum or struct) named `name` in a struct of `d`.
    fn inline_type(&self, types: &Types, d: &Decl, f: &Field, name: &str) -> Result<Inline, SchemaError> {
        if let Some(s) = scalar(name) {
            return Ok(Inline::Scalar(s));
        }
        match self.lookup(&d.namespace, name) {
            Some(Named::Enum(e)) => Ok(Inline::Enum(e)),
            // Only structs declared earlier have a layout yet, as flatc requires.
            Some(Named::Struct(s)) if usize::from(s) < types.structs.len() => Ok(Inline::Struct(s)),
            Some(Named::Struct(_)) => {
                Self::err(d, f.line, f.column, format!("struct `{name}` must be declared before a struct holds it"))
            }
            _ => Self::err(d, f.line, f.column, "structs may contain only scalar or struct fields"),
        }
    }

    fn structure(&self, types: &Types, d: &Decl, fields: &[Field]) -> Result<StructDef, SchemaError> {
        let mut out = Vec::new();
        let mut names: BTreeSet<&str> = BTreeSet::new();
        let (mut offset, mut align) = (0u64, 1u64);
        for f in fields {
            if attr(&f.attrs, "deprecated").is_some() {
                return Self::err(d, f.line, f.column, "can't deprecate fields in a struct");
            }
            if f.default.is_some() {
                return Self::err(d, f.line, f.column, "default values are not supported for struct fields");
            }
            if !names.insert(&f.name) {
                return Self::err(d, f.line, f.column, format!("field already exists: {}", f.name));
            }
            let (ty, array) = match &f.ty {
                Type::Named(name) => (self.inline_type(types, d, f, name)?, None),
                Type::Array(inner, n) => match inner.as_ref() {
                    Type::Named(name) => (self.inline_type(types, d, f, name)?, Some(*n)),
                    _ => return Self::err(d, f.line, f.column, "nested vectors and arrays are not allowed"),
                },
                Type::Vector(_) => {
                    return Self::err(d, f.line, f.column, "structs may contain only scalar or struct fields")
                }
            };
            if let Inline::Enum(e) = ty {
                let zero_named = types.enums.get(usize::from(e)).is_some_and(|e| e.names(0));
                let flags = types.enums.get(usize::from(e)).is_some_and(|e| e.bit_flags);
                if !zero_named && !flags {
                    let name = types.enums.get(usize::from(e)).map_or("", |e| e.name.as_str());
                    return Self::err(
                        d,
                        f.line,
                        f.column,
                        format!("default value of `0` for field `{}` is not part of enum `{name}`", f.name),
                    );
                }
            }
            let (size, falign) = types.inline_size(ty);
            let (size, falign) = (u64::from(size), u64::from(falign).max(1));
            offset = offset.div_ceil(falign).saturating_mul(falign);
            let total = size.saturating_mul(array.unwrap_or(1));
            out.push(StructFieldDef {
                name: f.name.clone(),
                offset: u32::try_from(offset).unwrap_or(u32::MAX),
                ty,
                array: array.and_then(|n| u32::try_from(n).ok()),
            });
            offset = offset.saturating_add(total);
            align = align.max(falign);
        }
        if out.is_empty() {
            return Self::err(d, d.line, d.column, "size 0 structs not allowed");
        }
        if let Some(a) = attr(&d.attrs, "force_align") {
            let n = match &a.value {
                Some(Value::Num(s)) => parse_int(s).and_then(|n| u64::try_from(n).ok()),
                _ => None,
            };
            match n {
                Some(n) if n.is_power_of_two() && n >= align && n <= MAX_ALIGN as u64 => align = n,
                _ => {
                    return Self::err(
                        d,
                        a.line,
                        a.column,
                        format!("force_align must be a power of two integer ranging from the struct's natural alignment ({align}) to {MAX_ALIGN}"),
                    )
                }
            }
        }
        let size = offset.div_ceil(align).saturating_mul(align);
        // A struct is one inline field of a table: its size is a `u16` there.
        let Ok(size) = u16::try_from(size) else {
            return Self::err(d, d.line, d.column, format!("struct `{}` is larger than 65535 bytes", d.name));
        };
        Ok(StructDef {
            name: qualified(&d.namespace, &d.name),
            size: u32::from(size),
            align: u32::try_from(align).unwrap_or(1),
            fields: out,
        })
    }

    fn union(&self, d: &Decl, members: &[fbs::UnionMember]) -> Result<UnionDef, SchemaError> {
        let mut out: Vec<(u8, String, Member)> = Vec::new();
        let mut next: i128 = 1;
        for m in members {
            let member = if m.ty == "string" {
                Member::String
            } else {
                match self.lookup(&d.namespace, &m.ty) {
                    Some(Named::Table(t)) => Member::Table(t),
                    Some(Named::Struct(s)) => Member::Struct(s),
                    _ => {
                        return Self::err(
                            d,
                            m.line,
                            m.column,
                            format!("type referenced but not defined (check namespace): {}", m.ty),
                        )
                    }
                }
            };
            let name = match (&m.alias, member) {
                (Some(alias), _) => alias.clone(),
                (None, Member::Table(_)) => m.ty.replace('.', "_"),
                (None, _) => {
                    return Self::err(d, m.line, m.column, "union members of structs and strings need an alias")
                }
            };
            let tag = match &m.value {
                None => next,
                Some(Value::Num(s)) => match parse_int(s) {
                    Some(n) => n,
                    None => return Self::err(d, m.line, m.column, format!("union tag `{s}` is not an integer")),
                },
                Some(other) => {
                    return Self::err(d, m.line, m.column, format!("union tag must be a number, not {other:?}"))
                }
            };
            next = tag.saturating_add(1);
            let Some(tag) = u8::try_from(tag).ok().filter(|&t| t >= 1) else {
                return Self::err(d, m.line, m.column, format!("union tag {tag} is not in 1..=255"));
            };
            if out.iter().any(|(t, _, _)| *t == tag) {
                return Self::err(d, m.line, m.column, format!("enum value already exists: {tag}"));
            }
            if out.iter().any(|(_, n, _)| *n == name) || name == "NONE" {
                return Self::err(d, m.line, m.column, format!("enum value already exists: {name}"));
            }
            out.push((tag, name, member));
        }
        Ok(UnionDef { name: qualified(&d.namespace, &d.name), members: out })
    }

    /// The default of a scalar field of type `ty` (an enum's underlying type for enums).
    fn scalar_default(
        &self,
        types: &Types,
        d: &Decl,
        f: &Field,
        ty: ScalarType,
        enumeration: Option<u16>,
    ) -> Result<Option<ScalarValue>, SchemaError> {
        let bad = |v: &Value| {
            Self::err(d, f.line, f.column, format!("default {v:?} is not a valid value of the field's type"))
        };
        let Some(v) = &f.default else {
            if let Some(e) = enumeration.and_then(|e| types.enums.get(usize::from(e))) {
                if !e.bit_flags && !e.names(0) {
                    return Self::err(
                        d,
                        f.line,
                        f.column,
                        format!("default value of `0` for field `{}` is not part of enum `{}`", f.name, e.name),
                    );
                }
            }
            return Ok(scalar_value(ty, 0));
        };
        if *v == Value::Ident("null".to_string()) {
            if attr(&f.attrs, "required").is_some() {
                return Self::err(d, f.line, f.column, "only non-scalar fields in tables may be 'required'");
            }
            return Ok(None);
        }
        if let Some(e) = enumeration.and_then(|e| types.enums.get(usize::from(e))) {
            let by_name = |name: &str| -> Option<i128> {
                let name = name.strip_prefix(short(&e.name)).and_then(|n| n.strip_prefix('.')).unwrap_or(name);
                e.value_of(short(name)).map(i128::from)
            };
            let n = match v {
                Value::Num(s) => parse_int(s),
                Value::Ident(s) => by_name(s),
                Value::Str(s) if e.bit_flags => {
                    let mut n: Option<i128> = Some(0);
                    for name in s.split_whitespace() {
                        n = n.zip(by_name(name)).map(|(a, b)| a | b);
                    }
                    n
                }
                Value::Str(s) => by_name(s),
            };
            let Some(n) = n else { return bad(v) };
            // A ulong enum's values past i64::MAX are stored by their bits.
            let n = if ty == ScalarType::U64 && n < 0 { n.saturating_add(1i128 << 64) } else { n };
            // (A `ulong` enum's values past `i64::MAX` are stored by their bits.)
            let stored = i64::try_from(n).ok().or_else(|| u64::try_from(n).ok().map(|u| u as i64));
            if !e.bit_flags && !stored.is_some_and(|v| e.names(v)) {
                return Self::err(
                    d,
                    f.line,
                    f.column,
                    format!("default value of `{n}` for field `{}` is not part of enum `{}`", f.name, e.name),
                );
            }
            return scalar_value(ty, n).map_or_else(|| bad(v), |x| Ok(Some(x)));
        }
        match ty {
            ScalarType::F32 | ScalarType::F64 => {
                let x = match v {
                    Value::Num(s) => s.parse::<f64>().ok().or_else(|| parse_int(s).map(|n| n as f64)),
                    Value::Ident(s) => match s.to_ascii_lowercase().as_str() {
                        "inf" | "+inf" | "infinity" | "+infinity" => Some(f64::INFINITY),
                        "-inf" | "-infinity" => Some(f64::NEG_INFINITY),
                        "nan" | "+nan" | "-nan" => Some(f64::NAN),
                        "true" => Some(1.0),
                        "false" => Some(0.0),
                        _ => None,
                    },
                    Value::Str(_) => None,
                };
                let Some(x) = x else { return bad(v) };
                Ok(Some(if ty == ScalarType::F32 { ScalarValue::f32(x as f32) } else { ScalarValue::f64(x) }))
            }
            _ => {
                let n = match v {
                    Value::Num(s) => parse_int(s),
                    Value::Ident(s) if s == "true" => Some(1),
                    Value::Ident(s) if s == "false" => Some(0),
                    _ => None,
                };
                n.and_then(|n| scalar_value(ty, n)).map_or_else(|| bad(v), |x| Ok(Some(x)))
            }
        }
    }

    fn table(&self, types: &Types, d: &Decl, fields: &[Field]) -> Result<TableDef, SchemaError> {
        // Each field's slot: by `id`, or in order; a union takes two (its type first).
        let with_id = fields.iter().filter(|f| attr(&f.attrs, "id").is_some()).count();
        if with_id != 0 && with_id != fields.len() {
            return Self::err(d, d.line, d.column, "either all fields or no fields must have an 'id' attribute");
        }
        let mut out: Vec<FieldDef> = Vec::new();
        let mut names: BTreeSet<&str> = BTreeSet::new();
        let mut next_slot: usize = 0;
        for f in fields {
            if !names.insert(&f.name) {
                return Self::err(d, f.line, f.column, format!("field already exists: {}", f.name));
            }
            let (ty, scalar_ty, enumeration) = self.field_type(types, d, f)?;
            let is_union = matches!(ty, FieldType::Union(_) | FieldType::UnionVector(_));
            let slot = match attr(&f.attrs, "id") {
                Some(a) => {
                    let id = match &a.value {
                        Some(Value::Num(s)) => parse_int(s).and_then(|n| usize::try_from(n).ok()),
                        _ => None,
                    };
                    match id {
                        Some(id) if !is_union || id >= 1 => id,
                        _ => {
                            return Self::err(
                                d,
                                a.line,
                                a.column,
                                "id attribute must be a non-negative integer (a union's at least 1)",
                            )
                        }
                    }
                }
                None => {
                    let slot = if is_union { next_slot.saturating_add(1) } else { next_slot };
                    next_slot = slot.saturating_add(1);
                    slot
                }
            };
            if slot >= MAX_SLOTS {
                return Self::err(
                    d,
                    f.line,
                    f.column,
                    format!("field slot {slot}: tables of more than {MAX_SLOTS} slots are not supported"),
                );
            }
            let required = attr(&f.attrs, "required").is_some();
            if required && scalar_ty.is_some() {
                return Self::err(d, f.line, f.column, "only non-scalar fields in tables may be 'required'");
            }
            let default = match scalar_ty {
                Some(st) => self.scalar_default(types, d, f, st, enumeration)?,
                None if f.default.is_some() => {
                    return Self::err(d, f.line, f.column, "default values are only supported for scalar fields")
                }
                None => None,
            };
            let force_align = match attr(&f.attrs, "force_align") {
                None => 0,
                Some(a) => {
                    let n = match &a.value {
                        Some(Value::Num(s)) => parse_int(s).and_then(|n| u16::try_from(n).ok()),
                        _ => None,
                    };
                    match (n, ty) {
                        (Some(n), FieldType::Vector(_) | FieldType::Nested(_))
                            if n.is_power_of_two() && usize::from(n) <= MAX_ALIGN =>
                        {
                            n
                        }
                        _ => {
                            return Self::err(
                                d,
                                a.line,
                                a.column,
                                format!(
                                "force_align on a table field must be a power of two up to {MAX_ALIGN}, on a vector"
                            ),
                            )
                        }
                    }
                }
            };
            out.push(FieldDef {
                name: f.name.clone(),
                slot: u16::try_from(slot).unwrap_or(u16::MAX),
                ty,
                default,
                required,
                deprecated: attr(&f.attrs, "deprecated").is_some(),
                key: attr(&f.attrs, "key").is_some(),
                force_align,
            });
        }
        // Slots must be distinct and, with ids, cover 0.. without a gap (a union's type slot
        // included), as flatc requires.
        let mut used = [false; MAX_SLOTS];
        for (f, def) in fields.iter().zip(&out) {
            let is_union = matches!(def.ty, FieldType::Union(_) | FieldType::UnionVector(_));
            let value = usize::from(def.slot);
            let slots = if is_union { [value.checked_sub(1), Some(value)] } else { [Some(value), None] };
            for slot in slots.into_iter().flatten() {
                match used.get_mut(slot) {
                    Some(u) if !*u => *u = true,
                    _ => {
                        return Self::err(
                            d,
                            f.line,
                            f.column,
                            format!("field id {slot} is set twice (field `{}`)", f.name),
                        )
                    }
                }
            }
        }
        if with_id != 0 {
            let count = used.iter().filter(|&&u| u).count();
            if let Some(gap) = used.iter().take(count).position(|&u| !u) {
                return Self::err(
                    d,
                    d.line,
                    d.column,
                    format!("field id's must be consecutive from 0, id {gap} missing"),
                );
            }
        }
        out.sort_by_key(|f| f.slot);
        Ok(TableDef { name: qualified(&d.namespace, &d.name), fields: out })
    }

    /// A table field's type, its scalar type (for scalars and enums), and its enum.
    fn field_type(
        &self,
        types: &Types,
        d: &Decl,
        f: &Field,
    ) -> Result<(FieldType, Option<ScalarType>, Option<u16>), SchemaError> {
        let undefined = |name: &str| {
            Self::err(d, f.line, f.column, format!("type referenced but not defined (check namespace): {name}"))
        };
        let named = |name: &str| self.lookup(&d.namespace, name);
        match &f.ty {
            Type::Named(name) => {
                if let Some(s) = scalar(name) {
                    return Ok((FieldType::Scalar(s), Some(s), None));
                }
                if name == "string" {
                    return Ok((FieldType::String, None, None));
                }
                match named(name) {
                    Some(Named::Enum(e)) => {
                        let repr = types.enums.get(usize::from(e)).map_or(ScalarType::U8, |e| e.repr);
                        Ok((FieldType::Enum(e), Some(repr), Some(e)))
                    }
                    Some(Named::Union(u)) => Ok((FieldType::Union(u), None, None)),
                    Some(Named::Struct(s)) => Ok((FieldType::Struct(s), None, None)),
                    Some(Named::Table(t)) => Ok((FieldType::Table(t), None, None)),
                    None => undefined(name),
                }
            }
            Type::Array(..) => Self::err(d, f.line, f.column, "fixed-length array in table must be wrapped in struct"),
            Type::Vector(inner) => {
                let Type::Named(name) = inner.as_ref() else {
                    return Self::err(d, f.line, f.column, "nested vectors and arrays are not allowed");
                };
                if let Some(nested) = attr(&f.attrs, "nested_flatbuffer") {
                    let root = match &nested.value {
                        Some(Value::Str(s) | Value::Ident(s)) => named(s),
                        _ => None,
                    };
                    return match (scalar(name), root) {
                        (Some(ScalarType::U8), Some(Named::Table(t))) => Ok((FieldType::Nested(t), None, None)),
                        (Some(ScalarType::U8), _) => {
                            Self::err(d, nested.line, nested.column, "nested_flatbuffer attribute must name a table")
                        }
                        _ => Self::err(
                            d,
                            nested.line,
                            nested.column,
                            "nested_flatbuffer attribute may only apply to a vector of ubyte",
                        ),
                    };
                }
                let elem = if let Some(s) = scalar(name) {
                    Elem::Scalar(s)
                } else if name == "string" {
                    Elem::String
                } else {
                    match named(name) {
                        Some(Named::Enum(e)) => Elem::Enum(e),
                        Some(Named::Struct(s)) => Elem::Struct(s),
                        Some(Named::Table(t)) => Elem::Table(t),
                        Some(Named::Union(u)) => return Ok((FieldType::UnionVector(u), None, None)),
                        None => return undefined(name),
                    }
                };
                Ok((FieldType::Vector(elem), None, None))
            }
        }
    }
}
