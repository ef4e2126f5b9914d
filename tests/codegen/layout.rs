//! From the parsed schema to what the macros need: enum values, union tags, struct layouts,
//! table slots, field kinds and defaults, each computed by the FlatBuffers rules.

use std::collections::{HashMap, HashSet};

use crate::fbs::{Attr, Body, Decl, Field, Schema, Type, Value, KNOWN_ATTRIBUTES, KNOWN_ATTRIBUTE_PREFIXES};

/// A schema ready to print.
#[derive(Debug)]
pub struct Layout {
    pub namespace: String,
    pub identifier: Option<String>,
    /// The root table; `None` for a schema without `root_type` (one that is only included).
    pub root: Option<String>,
    pub items: Vec<Item>,
}

/// One enum, union, struct or table, in declaration order.
#[derive(Debug)]
pub struct Item {
    pub name: String,
    /// `file.fbs:LINE` of its keyword.
    pub defined_at: String,
    pub docs: Vec<String>,
    pub body: ItemBody,
}

#[derive(Debug)]
pub enum ItemBody {
    Enum { repr: &'static str, values: Vec<EnumValue> },
    Union { id: usize, members: Vec<(u8, String)> },
    Struct { size: u64, align: u64, fields: Vec<StructField> },
    Table { id: usize, fields: Vec<TableField> },
}

#[derive(Debug)]
pub struct EnumValue {
    pub name: String,
    pub value: i128,
    pub docs: Vec<String>,
}

#[derive(Debug)]
pub struct StructField {
    pub accessor: String,
    pub name: String,
    pub offset: u64,
    /// The macro kind, e.g. `scalar(f32)` or `array(u8, 4)`.
    pub kind: String,
    pub docs: Vec<String>,
}

#[derive(Debug)]
pub struct TableField {
    pub accessor: String,
    pub name: String,
    /// The vtable slot (for unions, the value's; the type is in `slot - 1`).
    pub slot: u32,
    /// The macro kind, e.g. `scalar(i32, -1)` or `union(U, u_type)`.
    pub kind: String,
    pub required: bool,
    pub docs: Vec<String>,
}

/// Rust's strict, reserved and edition-reserved keywords: a field with one of these names gets
/// `_` appended for its accessor.
const RUST_KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for", "if", "impl", "in",
    "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super",
    "trait", "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn", "abstract", "become", "box",
    "do", "final", "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

/// The accessor name for a schema field name: in snake case (`sentencePiece_model` is
/// `sentence_piece_model`, as flatc's Rust code names it), with `_` after a keyword.
pub fn accessor(name: &str) -> String {
    let mut snake = String::with_capacity(name.len() + 4);
    let mut previous: Option<char> = None;
    for c in name.chars() {
        if c.is_ascii_uppercase() && previous.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit()) {
            snake.push('_');
        }
        snake.push(c.to_ascii_lowercase());
        previous = Some(c);
    }
    if RUST_KEYWORDS.contains(&snake.as_str()) {
        snake.push('_');
    }
    snake
}

/// The Rust type and size of an fbs scalar type name.
fn scalar(name: &str) -> Option<(&'static str, u64)> {
    Some(match name {
        "bool" => ("bool", 1),
        "byte" | "int8" => ("i8", 1),
        "ubyte" | "uint8" => ("u8", 1),
        "short" | "int16" => ("i16", 2),
        "ushort" | "uint16" => ("u16", 2),
        "int" | "int32" => ("i32", 4),
        "uint" | "uint32" => ("u32", 4),
        "long" | "int64" => ("i64", 8),
        "ulong" | "uint64" => ("u64", 8),
        "float" | "float32" => ("f32", 4),
        "double" | "float64" => ("f64", 8),
        _ => return None,
    })
}

fn int_range(rust: &str) -> Option<(i128, i128)> {
    Some(match rust {
        "i8" => (i8::MIN.into(), i8::MAX.into()),
        "u8" => (0, u8::MAX.into()),
        "i16" => (i16::MIN.into(), i16::MAX.into()),
        "u16" => (0, u16::MAX.into()),
        "i32" => (i32::MIN.into(), i32::MAX.into()),
        "u32" => (0, u32::MAX.into()),
        "i64" => (i64::MIN.into(), i64::MAX.into()),
        "u64" => (0, u64::MAX.into()),
        _ => return None,
    })
}

/// An integer as written in a schema: decimal or `0x` hex, optionally signed.
pub fn parse_int(text: &str) -> Option<i128> {
    let (neg, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, text.get(1..)?),
        Some(b'+') => (false, text.get(1..)?),
        _ => (false, text),
    };
    let magnitude = match digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        Some(hex) => i128::from_str_radix(hex, 16).ok()?,
        None if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => digits.parse::<i128>().ok()?,
        None => return None,
    };
    Some(if neg { -magnitude } else { magnitude })
}

/// The last component of a possibly namespace-qualified name.
fn short(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

fn attr<'a>(attrs: &'a [Attr], name: &str) -> Option<&'a Attr> {
    attrs.iter().find(|a| a.name == name)
}

/// A float literal with a decimal point, from Rust's shortest round-trip text.
fn float_literal(text: String) -> String {
    if text.contains('.') {
        text
    } else if let Some(e) = text.find(['e', 'E']) {
        format!("{}.0{}", text.get(..e).unwrap_or(""), text.get(e..).unwrap_or(""))
    } else {
        format!("{text}.0")
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Enum,
    Union,
    Struct,
    Table,
}

struct EnumInfo {
    repr: &'static str,
    bit_flags: bool,
    values: Vec<(String, i128)>,
}

struct Resolver<'a> {
    schema: &'a Schema,
    by_name: HashMap<&'a str, (Kind, usize)>,
    enums: HashMap<usize, EnumInfo>,
    struct_layouts: HashMap<usize, (u64, u64)>,
}

/// Computes the layout of a parsed schema.
pub fn resolve(schema: &Schema) -> Result<Layout, String> {
    let mut r = Resolver { schema, by_name: HashMap::new(), enums: HashMap::new(), struct_layouts: HashMap::new() };
    for (i, d) in schema.decls.iter().enumerate() {
        let kind = match d.body {
            Body::Enum { .. } => Kind::Enum,
            Body::Union { .. } => Kind::Union,
            Body::Struct { .. } => Kind::Struct,
            Body::Table { .. } => Kind::Table,
        };
        if RUST_KEYWORDS.contains(&d.name.as_str()) || ["SCHEMA", "Root"].contains(&d.name.as_str()) {
            return Err(format!(
                "{}:{}: the type name `{}` is reserved in the generated module",
                d.file, d.line, d.name
            ));
        }
        if scalar(&d.name).is_some() || d.name == "string" {
            return Err(format!("{}:{}: the type name `{}` is a built-in type", d.file, d.line, d.name));
        }
        if r.by_name.insert(d.name.as_str(), (kind, i)).is_some() {
            return Err(format!(
                "{}:{}: `{}` is declared twice (namespaces are dropped in generated code)",
                d.file, d.line, d.name
            ));
        }
    }
    r.check_attributes()?;
    for (i, d) in schema.decls.iter().enumerate() {
        if let Body::Enum { .. } = d.body {
            let info = r.enum_info(d)?;
            r.enums.insert(i, info);
        }
    }
    let (mut union_id, mut table_id) = (0, 0);
    let mut items = Vec::new();
    for (i, d) in schema.decls.iter().enumerate() {
        let body = match &d.body {
            Body::Enum { values, .. } => {
                let info = r.enums.get(&i).ok_or("internal: enum not resolved")?;
                let values = values
                    .iter()
                    .zip(&info.values)
                    .map(|(v, (name, value))| EnumValue { name: name.clone(), value: *value, docs: v.docs.clone() })
                    .collect();
                ItemBody::Enum { repr: info.repr, values }
            }
            Body::Union { .. } => {
                let members = r.union_members(d)?;
                union_id += 1;
                ItemBody::Union { id: union_id - 1, members }
            }
            Body::Struct { fields } => {
                let (size, align) = r.struct_layout(i, &mut Vec::new())?;
                ItemBody::Struct { size, align, fields: r.struct_fields(d, fields)? }
            }
            Body::Table { fields } => {
                table_id += 1;
                ItemBody::Table { id: table_id - 1, fields: r.table_fields(d, fields)? }
            }
        };
        items.push(Item {
            name: d.name.clone(),
            defined_at: format!("{}:{}", d.file, d.line),
            docs: d.docs.clone(),
            body,
        });
    }
    let root = match &schema.root_type {
        None => None,
        Some((root, at)) => {
            let root = short(root);
            if !matches!(r.by_name.get(root), Some((Kind::Table, _))) {
                return Err(format!("{at}: root_type `{root}` is not a table"));
            }
            Some(root.to_string())
        }
    };
    Ok(Layout { namespace: schema.namespace.clone(), identifier: schema.file_identifier.clone(), root, items })
}

impl<'a> Resolver<'a> {
    fn check_attributes(&self) -> Result<(), String> {
        let known = |a: &Attr| {
            KNOWN_ATTRIBUTES.contains(&a.name.as_str())
                || KNOWN_ATTRIBUTE_PREFIXES.iter().any(|p| a.name.starts_with(p))
                || self.schema.user_attributes.contains(&a.name)
        };
        for d in &self.schema.decls {
            let mut all: Vec<&Attr> = d.attrs.iter().collect();
            match &d.body {
                Body::Enum { values, .. } => all.extend(values.iter().flat_map(|v| &v.attrs)),
                Body::Union { members } => all.extend(members.iter().flat_map(|m| &m.attrs)),
                Body::Struct { fields } | Body::Table { fields } => all.extend(fields.iter().flat_map(|f| &f.attrs)),
            }
            if let Some(a) = all.into_iter().find(|a| !known(a)) {
                return Err(format!(
                    "{}:{}: unknown attribute `{}` (declare it with `attribute \"{}\";`)",
                    d.file, a.line, a.name, a.name
                ));
            }
        }
        Ok(())
    }

    fn lookup(&self, name: &str) -> Option<(Kind, usize)> {
        self.by_name.get(short(name)).copied()
    }

    fn decl(&self, i: usize) -> Result<&'a Decl, String> {
        self.schema.decls.get(i).ok_or_else(|| "internal: bad declaration index".to_string())
    }

    fn enum_info(&self, d: &Decl) -> Result<EnumInfo, String> {
        let Body::Enum { repr, values } = &d.body else {
            return Err("internal: not an enum".to_string());
        };
        let at = |line: usize| format!("{}:{line}", d.file);
        let repr = match repr.as_deref().and_then(scalar) {
            Some((r, _)) if int_range(r).is_some() => r,
            _ => return Err(format!("{}: enum `{}` needs an integer underlying type", at(d.line), d.name)),
        };
        let Some((min, max)) = int_range(repr) else {
            return Err("internal: no range".to_string());
        };
        let bit_flags = attr(&d.attrs, "bit_flags").is_some();
        let bits = i128::from(scalar_size(repr)) * 8;
        let (mut next, mut out, mut names, mut seen) = (0i128, Vec::new(), HashSet::new(), HashSet::new());
        for v in values {
            let raw = match &v.value {
                None => next,
                Some(Value::Num(s)) => parse_int(s)
                    .ok_or_else(|| format!("{}: enum value `{}` must be an integer, not `{s}`", at(v.line), v.name))?,
                Some(other) => {
                    return Err(format!("{}: enum value `{}` must be a number, not {other:?}", at(v.line), v.name))
                }
            };
            next = raw.checked_add(1).ok_or_else(|| format!("{}: enum value overflows", at(v.line)))?;
            let value = if bit_flags {
                if !(0..bits).contains(&raw) || (repr.starts_with('i') && raw == bits - 1) {
                    return Err(format!("{}: bit position {raw} of `{}` does not fit {repr}", at(v.line), v.name));
                }
                1i128 << raw
            } else {
                raw
            };
            if value < min || value > max {
                return Err(format!("{}: enum value {} = {value} does not fit {repr}", at(v.line), v.name));
            }
            if v.name == "name" || RUST_KEYWORDS.contains(&v.name.as_str()) {
                return Err(format!("{}: enum value name `{}` cannot be a Rust constant here", at(v.line), v.name));
            }
            if !names.insert(v.name.clone()) {
                return Err(format!("{}: enum value `{}` declared twice", at(v.line), v.name));
            }
            if !seen.insert(value) {
                return Err(format!("{}: enum value {value} of `{}` is used twice", at(v.line), v.name));
            }
            out.push((v.name.clone(), value));
        }
        if out.is_empty() {
            return Err(format!("{}: enum `{}` has no values", at(d.line), d.name));
        }
        Ok(EnumInfo { repr, bit_flags, values: out })
    }

    fn union_members(&self, d: &Decl) -> Result<Vec<(u8, String)>, String> {
        let Body::Union { members } = &d.body else {
            return Err("internal: not a union".to_string());
        };
        let at = |line: usize| format!("{}:{line}", d.file);
        let (mut next, mut out, mut tags, mut types) = (1i128, Vec::new(), HashSet::new(), HashSet::new());
        for m in members {
            let ty = short(&m.ty);
            if let Some(alias) = &m.alias {
                if alias != ty {
                    return Err(format!(
                        "{}: union member `{alias}: {ty}`: fb_union cannot name a member apart from its type",
                        at(m.line)
                    ));
                }
            }
            if ty == "NONE" || ty == "Unknown" {
                return Err(format!("{}: union member `{ty}` clashes with the union's own variant", at(m.line)));
            }
            match self.lookup(ty) {
                Some((Kind::Table, _)) => {}
                _ if ty == "string" => {
                    return Err(format!("{}: union member `string`: fb_union supports tables only", at(m.line)));
                }
                Some((Kind::Struct, _)) => {
                    return Err(format!(
                        "{}: union member `{ty}` is a struct: fb_union supports tables only",
                        at(m.line)
                    ));
                }
                _ => return Err(format!("{}: union member `{ty}` is not a table", at(m.line))),
            }
            let tag = match &m.value {
                None => next,
                Some(Value::Num(s)) => {
                    parse_int(s).ok_or_else(|| format!("{}: union tag `{s}` is not an integer", at(m.line)))?
                }
                Some(other) => return Err(format!("{}: union tag must be a number, not {other:?}", at(m.line))),
            };
            let tag8 = u8::try_from(tag)
                .ok()
                .filter(|&t| t != 0)
                .ok_or_else(|| format!("{}: union tag {tag} of `{ty}` is not in 1..=255", at(m.line)))?;
            next = tag + 1;
            if !tags.insert(tag8) {
                return Err(format!("{}: union tag {tag} is used twice", at(m.line)));
            }
            if !types.insert(ty) {
                return Err(format!("{}: union member `{ty}` is listed twice", at(m.line)));
            }
            out.push((tag8, ty.to_string()));
        }
        Ok(out)
    }

    /// (size, align) of struct `i`, by the FlatBuffers rules.
    fn struct_layout(&mut self, i: usize, stack: &mut Vec<usize>) -> Result<(u64, u64), String> {
        if let Some(&l) = self.struct_layouts.get(&i) {
            return Ok(l);
        }
        let d = self.decl(i)?;
        if stack.contains(&i) {
            return Err(format!("{}:{}: struct `{}` contains itself", d.file, d.line, d.name));
        }
        let Body::Struct { fields } = &d.body else {
            return Err("internal: not a struct".to_string());
        };
        stack.push(i);
        let (mut offset, mut align) = (0u64, 1u64);
        for f in fields {
            let (size, falign) = self.struct_field_size(d, f, stack)?;
            offset = round_up(offset, falign);
            offset = offset.checked_add(size).ok_or_else(|| format!("{}:{}: struct too large", d.file, f.line))?;
            align = align.max(falign);
        }
        stack.pop();
        if fields.is_empty() {
            return Err(format!(
                "{}:{}: struct `{}` has no fields (size 0 structs are not allowed)",
                d.file, d.line, d.name
            ));
        }
        if let Some(a) = attr(&d.attrs, "force_align") {
            let n = match &a.value {
                Some(Value::Num(s)) => parse_int(s).and_then(|n| u64::try_from(n).ok()),
                _ => None,
            };
            match n {
                Some(n) if n.is_power_of_two() && n >= align && n <= 256 => align = n,
                _ => {
                    return Err(format!(
                        "{}:{}: force_align must be a power of two from the natural alignment ({align}) to 256",
                        d.file, a.line
                    ))
                }
            }
        }
        let size = round_up(offset, align);
        self.struct_layouts.insert(i, (size, align));
        Ok((size, align))
    }

    fn struct_field_size(&mut self, d: &Decl, f: &Field, stack: &mut Vec<usize>) -> Result<(u64, u64), String> {
        let (elem, n) = match &f.ty {
            Type::Named(t) => (t, 1),
            Type::Array(inner, n) => match inner.as_ref() {
                Type::Named(t) => (t, *n),
                _ => return Err(format!("{}:{}: bad array element", d.file, f.line)),
            },
            Type::Vector(_) => {
                return Err(format!("{}:{}: struct field `{}` cannot be a vector", d.file, f.line, f.name));
            }
        };
        let (size, align) = if let Some((_, s)) = scalar(elem) {
            (s, s)
        } else {
            match self.lookup(elem) {
                Some((Kind::Enum, e)) => {
                    let s = self.enums.get(&e).map(|i| scalar_size(i.repr)).unwrap_or(0);
                    (s, s)
                }
                Some((Kind::Struct, s)) => self.struct_layout(s, stack)?,
                _ => {
                    return Err(format!(
                    "{}:{}: struct field `{}` has type `{elem}`: structs hold scalars, enums, structs and arrays only",
                    d.file, f.line, f.name
                ))
                }
            }
        };
        let total = size.checked_mul(n).ok_or_else(|| format!("{}:{}: array too large", d.file, f.line))?;
        Ok((total, align))
    }

    fn struct_fields(&mut self, d: &Decl, fields: &[Field]) -> Result<Vec<StructField>, String> {
        let mut out = Vec::new();
        let mut offset = 0u64;
        let mut accessors = HashSet::new();
        for f in fields {
            let at = format!("{}:{}", d.file, f.line);
            if attr(&f.attrs, "deprecated").is_some() {
                return Err(format!("{at}: struct fields cannot be deprecated"));
            }
            if f.default.is_some() {
                return Err(format!("{at}: struct fields cannot have defaults"));
            }
            let (size, align) = self.struct_field_size(d, f, &mut Vec::new())?;
            offset = round_up(offset, align);
            let kind = match &f.ty {
                Type::Named(t) => match (scalar(t), self.lookup(t)) {
                    (Some((r, _)), _) => format!("scalar({r})"),
                    (None, Some((Kind::Enum, e))) => {
                        let repr = self.enums.get(&e).map(|i| i.repr).unwrap_or("u8");
                        format!("enumeration({}, {repr})", short(t))
                    }
                    _ => format!("structure({})", short(t)),
                },
                Type::Array(inner, n) => match inner.as_ref() {
                    Type::Named(t) => match scalar(t) {
                        Some((r, _)) => format!("array({r}, {n})"),
                        None => {
                            return Err(format!(
                                "{at}: array of `{t}`: fb_struct's grammar has arrays of scalars only (`array(T, N)`)"
                            ))
                        }
                    },
                    _ => return Err(format!("{at}: bad array element")),
                },
                Type::Vector(_) => return Err(format!("{at}: struct fields cannot be vectors")),
            };
            let acc = accessor(&f.name);
            if acc == "bytes" || !accessors.insert(acc.clone()) {
                return Err(format!("{at}: accessor `{acc}` clashes with another method of `{}`", d.name));
            }
            out.push(StructField { accessor: acc, name: f.name.clone(), offset, kind, docs: f.docs.clone() });
            offset += size;
        }
        Ok(out)
    }

    fn table_fields(&self, d: &Decl, fields: &[Field]) -> Result<Vec<TableField>, String> {
        let with_ids = fields.iter().filter(|f| attr(&f.attrs, "id").is_some()).count();
        if with_ids != 0 && with_ids != fields.len() {
            let f = fields.iter().find(|f| attr(&f.attrs, "id").is_none()).unwrap_or(&fields[0]);
            return Err(format!("{}:{}: either all fields of `{}` have an `id` or none does", d.file, f.line, d.name));
        }
        let mut out = Vec::new();
        let mut next = 0u32;
        let mut used = HashSet::new();
        let mut accessors = HashSet::new();
        for f in fields {
            let at = format!("{}:{}", d.file, f.line);
            let two = self.is_union_field(&f.ty);
            let slot = if with_ids == 0 {
                next += if two { 2 } else { 1 };
                next - 1
            } else {
                let id = attr(&f.attrs, "id").and_then(|a| match &a.value {
                    Some(Value::Num(s)) => parse_int(s).and_then(|n| u32::try_from(n).ok()),
                    _ => None,
                });
                match id {
                    Some(id) if two && id == 0 => {
                        return Err(format!("{at}: a union field's id is its value's slot, so it must be at least 1"))
                    }
                    Some(id) => id,
                    None => return Err(format!("{at}: `id` must be a non-negative integer")),
                }
            };
            if slot > u32::from(u16::MAX / 2 - 2) {
                return Err(format!("{at}: slot {slot} is too large"));
            }
            for s in if two { vec![slot - 1, slot] } else { vec![slot] } {
                if !used.insert(s) {
                    return Err(format!("{at}: slot {s} of `{}` is used twice", d.name));
                }
            }
            let required = attr(&f.attrs, "required").is_some();
            let deprecated = attr(&f.attrs, "deprecated").is_some();
            let kind = self.table_kind(&at, f)?;
            if required && (kind.starts_with("scalar(") || kind.starts_with("enumeration(")) {
                return Err(format!("{at}: only non-scalar fields can be required"));
            }
            let acc = accessor(&f.name);
            if acc == "raw" || !accessors.insert(acc.clone()) {
                return Err(format!("{at}: accessor `{acc}` clashes with another method of `{}`", d.name));
            }
            // A union also gets `<name>_type`, its type tag.
            let type_acc = format!("{}_type", f.name);
            if kind.starts_with("union(") && !accessors.insert(type_acc.clone()) {
                return Err(format!("{at}: accessor `{type_acc}` clashes with another method of `{}`", d.name));
            }
            // Deprecated fields keep their type: they are still verified, and dumped when present.
            let kind = if deprecated { format!("{kind} deprecated") } else { kind };
            out.push(TableField {
                accessor: acc,
                name: f.name.clone(),
                slot,
                kind,
                required: required && !deprecated,
                docs: f.docs.clone(),
            });
        }
        if with_ids != 0 {
            let n = u32::try_from(used.len()).unwrap_or(u32::MAX);
            if let Some(missing) = (0..n).find(|s| !used.contains(s)) {
                return Err(format!(
                    "{}:{}: field ids of `{}` must be consecutive from 0; {missing} is missing",
                    d.file, d.line, d.name
                ));
            }
            out.sort_by_key(|f| f.slot);
        }
        Ok(out)
    }

    fn is_union_field(&self, ty: &Type) -> bool {
        let name = match ty {
            Type::Named(n) => n,
            Type::Vector(inner) => match inner.as_ref() {
                Type::Named(n) => n,
                _ => return false,
            },
            Type::Array(..) => return false,
        };
        scalar(name).is_none() && matches!(self.lookup(name), Some((Kind::Union, _)))
    }

    fn table_kind(&self, at: &str, f: &Field) -> Result<String, String> {
        let named = |t: &str| -> Result<(Kind, usize), String> {
            self.lookup(t).ok_or_else(|| format!("{at}: type `{t}` of field `{}` is not declared", f.name))
        };
        let no_default = |what: &str| -> Result<(), String> {
            match &f.default {
                None => Ok(()),
                Some(v) => Err(format!("{at}: {what} field `{}` cannot have a default ({v:?})", f.name)),
            }
        };
        match &f.ty {
            Type::Array(..) => Err(format!("{at}: fixed-size arrays are only allowed in structs")),
            Type::Named(t) if t == "string" => no_default("a string").map(|()| "string()".to_string()),
            Type::Named(t) => {
                if let Some((r, _)) = scalar(t) {
                    return Ok(format!("scalar({r}, {})", scalar_default(at, r, f.default.as_ref())?));
                }
                let (kind, i) = named(t)?;
                let t = short(t);
                match kind {
                    Kind::Enum => {
                        let info = self.enums.get(&i).ok_or("internal: enum not resolved")?;
                        let v = enum_default(at, t, info, f.default.as_ref())?;
                        Ok(format!("enumeration({t}, {}, {v})", info.repr))
                    }
                    Kind::Union => no_default("a union").map(|()| format!("union({t}, {}_type)", f.name)),
                    Kind::Struct => no_default("a struct").map(|()| format!("structure({t})")),
                    Kind::Table => no_default("a table").map(|()| format!("table({t})")),
                }
            }
            Type::Vector(inner) => {
                no_default("a vector")?;
                let Type::Named(t) = inner.as_ref() else {
                    return Err(format!("{at}: nested vectors are not allowed"));
                };
                if t == "string" {
                    return Ok("string_vector()".to_string());
                }
                if let Some((r, _)) = scalar(t) {
                    return Ok(format!("vector({r})"));
                }
                let (kind, _) = named(t)?;
                let t = short(t);
                Ok(match kind {
                    Kind::Enum => format!("enum_vector({t})"),
                    Kind::Union => format!("union_vector({t})"),
                    Kind::Struct => format!("struct_vector({t})"),
                    Kind::Table => format!("table_vector({t})"),
                })
            }
        }
    }
}

fn scalar_size(rust: &str) -> u64 {
    match rust {
        "bool" | "u8" | "i8" => 1,
        "u16" | "i16" => 2,
        "u32" | "i32" | "f32" => 4,
        _ => 8,
    }
}

fn round_up(n: u64, align: u64) -> u64 {
    n.div_ceil(align.max(1)) * align.max(1)
}

/// A scalar field's default as a Rust literal of type `rust`.
fn scalar_default(at: &str, rust: &str, v: Option<&Value>) -> Result<String, String> {
    let bad = |v: &Value| Err(format!("{at}: default {v:?} is not a valid {rust}"));
    let Some(v) = v else {
        return Ok(match rust {
            "bool" => "false",
            "f32" | "f64" => "0.0",
            _ => "0",
        }
        .to_string());
    };
    if *v == Value::Ident("null".into()) {
        return Err(format!("{at}: optional scalars (`= null`) cannot be expressed by fb_table"));
    }
    match rust {
        "bool" => match v {
            Value::Ident(s) if s == "true" || s == "false" => Ok(s.clone()),
            Value::Num(s) if parse_int(s) == Some(0) => Ok("false".into()),
            Value::Num(s) if parse_int(s) == Some(1) => Ok("true".into()),
            _ => bad(v),
        },
        "f32" | "f64" => match v {
            Value::Num(s) => {
                let text = if rust == "f32" {
                    s.parse::<f32>().ok().filter(|x| x.is_finite()).map(|x| format!("{x:?}"))
                } else {
                    s.parse::<f64>().ok().filter(|x| x.is_finite()).map(|x| format!("{x:?}"))
                };
                text.map(float_literal).map_or_else(|| bad(v), Ok)
            }
            Value::Ident(s) => match s.to_ascii_lowercase().as_str() {
                "inf" | "+inf" | "infinity" | "+infinity" => Ok(format!("{rust}::INFINITY")),
                "-inf" | "-infinity" => Ok(format!("{rust}::NEG_INFINITY")),
                "nan" | "+nan" | "-nan" => Ok(format!("{rust}::NAN")),
                _ => bad(v),
            },
            Value::Str(_) => bad(v),
        },
        _ => {
            let (min, max) = int_range(rust).ok_or_else(|| format!("{at}: internal: no range for {rust}"))?;
            let n = match v {
                Value::Num(s) => parse_int(s),
                Value::Ident(s) if s == "true" => Some(1),
                Value::Ident(s) if s == "false" => Some(0),
                _ => None,
            };
            match n {
                Some(n) if (min..=max).contains(&n) => Ok(n.to_string()),
                _ => bad(v),
            }
        }
    }
}

/// An enum field's default as its numeric value: a number, a value's name, or (bit flags) a
/// string of names.
fn enum_default(at: &str, e: &str, info: &EnumInfo, v: Option<&Value>) -> Result<i128, String> {
    let by_name = |name: &str| {
        let name = name.strip_prefix(e).and_then(|n| n.strip_prefix('.')).unwrap_or(name);
        info.values
            .iter()
            .find(|(n, _)| n == short(name))
            .map(|(_, v)| *v)
            .ok_or_else(|| format!("{at}: `{name}` is not a value of enum `{e}`"))
    };
    let n = match v {
        None => 0,
        Some(Value::Num(s)) => parse_int(s).ok_or_else(|| format!("{at}: enum default `{s}` is not an integer"))?,
        Some(Value::Ident(s)) => by_name(s)?,
        Some(Value::Str(s)) => {
            let names: Vec<&str> = s.split_whitespace().collect();
            if names.len() > 1 && !info.bit_flags {
                return Err(format!("{at}: several names as default need a (bit_flags) enum"));
            }
            let mut n = 0;
            for name in names {
                n |= by_name(name)?;
            }
            n
        }
    };
    let (min, max) = int_range(info.repr).ok_or("internal: no range")?;
    if !(min..=max).contains(&n) {
        return Err(format!("{at}: default {n} does not fit {}", info.repr));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fbs::parse_str;

    fn layout(src: &str) -> Layout {
        resolve(&parse_str(src, "t.fbs").unwrap()).unwrap()
    }

    fn error(src: &str) -> String {
        match parse_str(src, "t.fbs") {
            Ok(s) => resolve(&s).unwrap_err(),
            Err(e) => e.to_string(),
        }
    }

    fn item<'a>(l: &'a Layout, name: &str) -> &'a ItemBody {
        &l.items.iter().find(|i| i.name == name).unwrap().body
    }

    fn enum_values(l: &Layout, name: &str) -> Vec<(String, i128)> {
        let ItemBody::Enum { values, .. } = item(l, name) else { panic!("{name} is not an enum") };
        values.iter().map(|v| (v.name.clone(), v.value)).collect()
    }

    fn struct_layout(l: &Layout, name: &str) -> (u64, u64, Vec<(String, u64, String)>) {
        let ItemBody::Struct { size, align, fields } = item(l, name) else { panic!("{name} is not a struct") };
        (*size, *align, fields.iter().map(|f| (f.name.clone(), f.offset, f.kind.clone())).collect())
    }

    fn table_fields(l: &Layout, name: &str) -> Vec<(String, u32, String)> {
        let ItemBody::Table { fields, .. } = item(l, name) else { panic!("{name} is not a table") };
        fields.iter().map(|f| (f.accessor.clone(), f.slot, f.kind.clone())).collect()
    }

    fn v<N: Copy>(rows: &[(&str, N, &str)]) -> Vec<(String, N, String)> {
        rows.iter().map(|&(a, b, c)| (a.to_string(), b, c.to_string())).collect()
    }

    const ROOT: &str = "table R {}\nroot_type R;\n";

    #[test]
    fn enum_values_implicit_explicit_negative_and_bit_flags() {
        let l = layout(&format!(
            "enum A : byte {{ X, Y = -2, Z, W = 0x10, V }}\n\
             enum F : ushort (bit_flags) {{ R, G = 3, B }}\n\
             enum G : ulong (bit_flags) {{ Top = 63 }}\n{ROOT}"
        ));
        let want = |rows: &[(&str, i128)]| rows.iter().map(|(n, v)| (n.to_string(), *v)).collect::<Vec<_>>();
        // Implicit values continue from the previous one: X = 0, Z = -2 + 1, V = 16 + 1.
        assert_eq!(enum_values(&l, "A"), want(&[("X", 0), ("Y", -2), ("Z", -1), ("W", 16), ("V", 17)]));
        // Bit flags give bit positions: 1 << 0, 1 << 3, 1 << 4.
        assert_eq!(enum_values(&l, "F"), want(&[("R", 1), ("G", 8), ("B", 16)]));
        assert_eq!(enum_values(&l, "G"), want(&[("Top", 1i128 << 63)]));
        let ItemBody::Enum { repr, .. } = item(&l, "F") else { panic!() };
        assert_eq!(*repr, "u16");
        assert_eq!(error("enum E : ubyte { A = 255, B }"), "t.fbs:1: enum value B = 256 does not fit u8");
        assert_eq!(error("enum E : byte { A = -129 }"), "t.fbs:1: enum value A = -129 does not fit i8");
        assert_eq!(error("enum E : byte (bit_flags) { A = 7 }"), "t.fbs:1: bit position 7 of `A` does not fit i8");
        assert_eq!(error("\nenum E { A }"), "t.fbs:2: enum `E` needs an integer underlying type");
        assert_eq!(error("enum E : int { A = 1, B = 1 }"), "t.fbs:1: enum value 1 of `B` is used twice");
    }

    #[test]
    fn union_tags_implicit_and_explicit() {
        let l = layout(&format!(
            "table A {{}}\ntable B {{}}\ntable C {{}}\nunion U {{ A, B }}\nunion V {{ B = 5, C, A = 2 }}\n{ROOT}"
        ));
        let members = |name: &str| match item(&l, name) {
            ItemBody::Union { id, members } => (*id, members.iter().map(|(t, n)| (*t, n.as_str())).collect::<Vec<_>>()),
            _ => panic!(),
        };
        assert_eq!(members("U"), (0, vec![(1, "A"), (2, "B")]));
        assert_eq!(members("V"), (1, vec![(5, "B"), (6, "C"), (2, "A")]));
        assert_eq!(
            error("table A {}\nstruct S { x:int; }\nunion U { A, S }"),
            "t.fbs:3: union member `S` is a struct: fb_union supports tables only"
        );
        assert_eq!(error("table A {}\nunion U {\n A = 256 }"), "t.fbs:3: union tag 256 of `A` is not in 1..=255");
        assert_eq!(
            error("table A {}\nunion U { X: A }"),
            "t.fbs:2: union member `X: A`: fb_union cannot name a member apart from its type"
        );
    }

    #[test]
    fn struct_layout_padding_nesting_alignment_arrays() {
        let l = layout(&format!(
            "enum E : short {{ A }}\n\
             struct P {{ a:ubyte; b:int; c:short; }}\n\
             struct Q {{ x:byte; p:P; y:double; e:E; }}\n\
             struct F (force_align: 16) {{ a:float; b:float; c:float; }}\n\
             struct M {{ flag:bool; m:[float:3]; n:[ulong:2]; }}\n{ROOT}"
        ));
        // P: a@0, pad to 4, b@4..8, c@8..10; align 4, size rounds 10 up to 12.
        assert_eq!(
            struct_layout(&l, "P"),
            (12, 4, v(&[("a", 0, "scalar(u8)"), ("b", 4, "scalar(i32)"), ("c", 8, "scalar(i16)")]))
        );
        // Q: x@0; P (align 4) @4..16; y (align 8) @16..24; e (i16) @24..26; align 8, size 32.
        assert_eq!(
            struct_layout(&l, "Q"),
            (
                32,
                8,
                v(&[
                    ("x", 0, "scalar(i8)"),
                    ("p", 4, "structure(P)"),
                    ("y", 16, "scalar(f64)"),
                    ("e", 24, "enumeration(E, i16)"),
                ])
            )
        );
        // F: three floats (12 bytes), force_align 16 raises align and rounds the size to 16.
        assert_eq!(struct_layout(&l, "F").0, 16);
        assert_eq!(struct_layout(&l, "F").1, 16);
        // M: flag@0; [float:3] aligned 4 @4..16; [ulong:2] aligned 8 @16..32.
        assert_eq!(
            struct_layout(&l, "M"),
            (32, 8, v(&[("flag", 0, "scalar(bool)"), ("m", 4, "array(f32, 3)"), ("n", 16, "array(u64, 2)")]))
        );
        assert_eq!(
            error("struct S (force_align: 2) { a:int; }"),
            "t.fbs:1: force_align must be a power of two from the natural alignment (4) to 256"
        );
        assert_eq!(error("struct S { s:S; }"), "t.fbs:1: struct `S` contains itself");
        assert!(error("struct S { a:[string:2]; }").contains("structs hold scalars"));
    }

    #[test]
    fn table_slots_unions_deprecated_and_keywords() {
        let l = layout(
            "table A {}\nunion U { A }\nstruct S { x:int; }\nenum E : ubyte { Q, W }\n\
             table T {\n  a:int;\n  u:U;\n  old:int (deprecated);\n  type:E;\n  oldu:U (deprecated);\n  \
             us:[U];\n  s:S;\n  v:[E];\n  n:[string] (required);\n  b:[bool];\n  t:[A];\n  ss:[S];\n  one:A;\n  \
             str:string (required);\n  match:ubyte;\n}\nroot_type T;\n",
        );
        assert_eq!(
            table_fields(&l, "T"),
            v(&[
                ("a", 0, "scalar(i32, 0)"),
                ("u", 2, "union(U, u_type)"), // the type takes slot 1
                ("old", 3, "scalar(i32, 0) deprecated"),
                ("type_", 4, "enumeration(E, u8, 0)"),
                ("oldu", 6, "union(U, oldu_type) deprecated"), // a deprecated union keeps both slots (5, 6)
                ("us", 8, "union_vector(U)"),                  // types vector in 7
                ("s", 9, "structure(S)"),
                ("v", 10, "enum_vector(E)"),
                ("n", 11, "string_vector()"),
                ("b", 12, "vector(bool)"),
                ("t", 13, "table_vector(A)"),
                ("ss", 14, "struct_vector(S)"),
                ("one", 15, "table(A)"),
                ("str", 16, "string()"),
                ("match_", 17, "scalar(u8, 0)"),
            ])
        );
        let ItemBody::Table { id, fields } = item(&l, "T") else { panic!() };
        assert_eq!(*id, 1); // A is table 0
        let required: Vec<&str> = fields.iter().filter(|f| f.required).map(|f| f.name.as_str()).collect();
        assert_eq!(required, ["n", "str"]);
        assert_eq!(fields[3].name, "type");
    }

    #[test]
    fn explicit_ids() {
        let l = layout(
            "table A {}\nunion U { A }\ntable T {\n  c:int (id: 3);\n  u:U (id: 1);\n  a:short (id: 2, deprecated);\n}\nroot_type T;",
        );
        // Sorted by slot: the union's type takes id 0 and its value id 1.
        assert_eq!(
            table_fields(&l, "T"),
            v(&[("u", 1, "union(U, u_type)"), ("a", 2, "scalar(i16, 0) deprecated"), ("c", 3, "scalar(i32, 0)")])
        );
        assert_eq!(
            error("table T {\n a:int (id: 0);\n b:int;\n}"),
            "t.fbs:3: either all fields of `T` have an `id` or none does"
        );
        assert_eq!(
            error("table T { a:int (id: 0); b:int (id: 2); }"),
            "t.fbs:1: field ids of `T` must be consecutive from 0; 1 is missing"
        );
        assert_eq!(
            error("table A {}\nunion U { A }\ntable T {\n a:int (id: 1);\n u:U (id: 1);\n}"),
            "t.fbs:5: slot 1 of `T` is used twice"
        );
    }

    #[test]
    fn defaults() {
        let l = layout(
            "enum St : ubyte { BUFFER = 0, TEX = 1, DEFAULT_STORAGE = 255 }\n\
             enum Sg : byte { NEG = -3, Z = 0 }\n\
             enum Fl : uint (bit_flags) { A, B, C }\n\
             table T {\n  i:int = -1;\n  h:ushort = 0x10;\n  f:float = 1.5;\n  g:double = 2;\n  e:float = -inf;\n  \
             n:double = nan;\n  small:float = 1e-7;\n  b:bool = true;\n  b0:bool = 0;\n  s:St = DEFAULT_STORAGE;\n  \
             sq:St = St.TEX;\n  sn:Sg = NEG;\n  sd:St;\n  fl:Fl = \"A C\";\n  u:ulong = 18446744073709551615;\n}\n\
             root_type T;",
        );
        assert_eq!(
            table_fields(&l, "T"),
            v(&[
                ("i", 0, "scalar(i32, -1)"),
                ("h", 1, "scalar(u16, 16)"),
                ("f", 2, "scalar(f32, 1.5)"),
                ("g", 3, "scalar(f64, 2.0)"),
                ("e", 4, "scalar(f32, f32::NEG_INFINITY)"),
                ("n", 5, "scalar(f64, f64::NAN)"),
                ("small", 6, "scalar(f32, 1.0e-7)"),
                ("b", 7, "scalar(bool, true)"),
                ("b0", 8, "scalar(bool, false)"),
                ("s", 9, "enumeration(St, u8, 255)"),
                ("sq", 10, "enumeration(St, u8, 1)"),
                ("sn", 11, "enumeration(Sg, i8, -3)"),
                ("sd", 12, "enumeration(St, u8, 0)"),
                ("fl", 13, "enumeration(Fl, u32, 5)"), // A = 1 << 0 | C = 1 << 2
                ("u", 14, "scalar(u64, 18446744073709551615)"),
            ])
        );
        assert_eq!(error("table T { a:ubyte = 256; }"), "t.fbs:1: default Num(\"256\") is not a valid u8");
        assert_eq!(error("table T { a:int = 1.5; }"), "t.fbs:1: default Num(\"1.5\") is not a valid i32");
        assert_eq!(error("enum E : byte { A }\ntable T {\n a:E = B;\n}"), "t.fbs:3: `B` is not a value of enum `E`");
        assert_eq!(
            error("table T { a:int = null; }"),
            "t.fbs:1: optional scalars (`= null`) cannot be expressed by fb_table"
        );
    }

    #[test]
    fn names_attributes_and_roots() {
        assert_eq!(
            error("table T { a:int (frobnicate); }\nroot_type T;"),
            "t.fbs:1: unknown attribute `frobnicate` (declare it with `attribute \"frobnicate\";`)"
        );
        let l = layout(
            "attribute \"priority\";\nnamespace x.y;\nfile_identifier \"ABCD\";\n\
             table T { a:[ubyte] (force_align: 8, nested_flatbuffer: \"T\", priority: 1, native_inline, key, hash: \"fnv1_32\", flexbuffer, shared, original_order); b:x.y.T; }\n\
             root_type x.y.T;",
        );
        assert_eq!(
            (l.namespace.as_str(), l.identifier.as_deref(), l.root.as_deref()),
            ("x.y", Some("ABCD"), Some("T"))
        );
        assert_eq!(table_fields(&l, "T"), v(&[("a", 0, "vector(u8)"), ("b", 1, "table(T)")]));
        assert_eq!(layout("table T {}").root, None);
        assert_eq!(error("struct S { a:int; }\nroot_type S;"), "t.fbs:2: root_type `S` is not a table");
        assert_eq!(error("table T { x:Missing; }"), "t.fbs:1: type `Missing` of field `x` is not declared");
        assert_eq!(
            error("table T {}\nenum T : byte { A }"),
            "t.fbs:2: `T` is declared twice (namespaces are dropped in generated code)"
        );
        assert_eq!(error("table T { raw:int; }"), "t.fbs:1: accessor `raw` clashes with another method of `T`");
        assert_eq!(
            (super::accessor("sentencePiece_model"), super::accessor("Self"), super::accessor("dim2D")),
            ("sentence_piece_model".to_string(), "self_".to_string(), "dim2_d".to_string())
        );
        assert_eq!(
            error("table T { type:int; type_:int; }"),
            "t.fbs:1: accessor `type_` clashes with another method of `T`"
        );
        assert_eq!(error("table T { a:int (required); }"), "t.fbs:1: only non-scalar fields can be required");
    }

    #[test]
    fn float_literals_always_have_a_point() {
        assert_eq!(float_literal("0".into()), "0.0");
        assert_eq!(float_literal("1e20".into()), "1.0e20");
        assert_eq!(float_literal("-2.5".into()), "-2.5");
        assert_eq!(parse_int("-0x1F"), Some(-31));
        assert_eq!(parse_int("1.0"), None);
        assert_eq!(parse_int("-"), None);
    }
}
