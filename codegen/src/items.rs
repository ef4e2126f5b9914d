//! From a schema to the items of its `generated.rs`.
//!
//! Every FlatBuffers rule is `flatmodel::reflect`'s: the schema is resolved by
//! [`Schema::from_fbs`], the resolver the run-time schemas use, and each slot, struct offset,
//! size and alignment, enum value, union tag, default, `required` and `deprecated` is read from
//! what it resolved ([`Schema::types`]). What the resolver does not keep comes from the parsed
//! `.fbs` ([`fbs::parse_with`]): the order of the declarations, their doc comments and lines,
//! and the names the Rust code uses. What is left here is the macros' own limits: what their
//! grammar cannot say, and names a generated module cannot hold.

use crate::names::{accessor, constant, short, RESERVED_TYPE_NAMES, RUST_KEYWORDS};
use flatmodel::reflect::fbs::{self, Body, Decl};
use flatmodel::reflect::{Elem, EnumDef, FieldDef, FieldType, Inline, Member, Schema, StructDef, TableDef, UnionDef};
use flatmodel::schema::{ScalarType, ScalarValue};
use std::collections::{HashMap, HashSet};

/// A schema ready to print.
#[derive(Debug)]
pub struct Layout {
    /// The last `namespace` the schema declares ("" when none).
    pub namespace: String,
    /// The `file_identifier`, if any.
    pub identifier: Option<String>,
    /// The root table; `None` for a schema without `root_type` (one that is only included).
    pub root: Option<String>,
    /// Every enum, union, struct and table, in declaration order.
    pub items: Vec<Item>,
}

/// One enum, union, struct or table.
#[derive(Debug)]
pub struct Item {
    /// Its name, without namespace.
    pub name: String,
    /// `file.fbs:LINE` of its keyword.
    pub defined_at: String,
    /// The comment lines above it.
    pub docs: Vec<String>,
    /// What it declares.
    pub body: ItemBody,
}

/// What an [`Item`] declares.
#[derive(Debug)]
pub enum ItemBody {
    /// An enum: the Rust type of its underlying type, and its values in declaration order.
    Enum { repr: &'static str, values: Vec<EnumValue> },
    /// A union: its index among the schema's unions, and its members (tag, name, and the
    /// table when the member is named apart from it: `XNNAdd: _XNNNode2x1`).
    Union { id: usize, members: Vec<(u8, String, Option<String>)> },
    /// A struct: its size and alignment, and its fields in order.
    Struct { size: u32, align: u32, fields: Vec<StructField> },
    /// A table: its index among the schema's tables, and its fields in slot order.
    Table { id: usize, fields: Vec<TableField> },
}

/// One value of an enum.
#[derive(Debug)]
pub struct EnumValue {
    /// Its name.
    pub name: String,
    /// Its value (a `ulong` enum's as the `u64` it is).
    pub value: i128,
    /// The comment lines above it.
    pub docs: Vec<String>,
}

/// One field of a struct.
#[derive(Debug)]
pub struct StructField {
    /// Its accessor.
    pub accessor: String,
    /// Its name in the schema.
    pub name: String,
    /// Its byte offset in the struct.
    pub offset: u32,
    /// The macro kind, e.g. `scalar(f32)` or `array(u8, 4)`.
    pub kind: String,
    /// The comment lines above it.
    pub docs: Vec<String>,
}

/// One field of a table.
#[derive(Debug)]
pub struct TableField {
    /// Its accessor.
    pub accessor: String,
    /// Its name in the schema.
    pub name: String,
    /// The base of its view's constants, `<BASE>_SLOT` and `<BASE>_NAME`.
    pub constant: String,
    /// The vtable slot (for unions, the value's; the type is in `slot - 1`).
    pub slot: u16,
    /// The macro kind, e.g. `scalar(i32, -1)` or `union(U, u_type)`, and ` deprecated`.
    pub kind: String,
    /// `required` (and not deprecated).
    pub required: bool,
    /// The comment lines above it.
    pub docs: Vec<String>,
}

/// Reads the schema named `path`, and its includes, through `load`, and resolves it.
pub fn read(path: &str, load: &mut fbs::Loader<'_>) -> Result<Layout, String> {
    let parsed = fbs::parse_with(path, load).map_err(|e| e.to_string())?;
    let schema = Schema::from_fbs(path, load).map_err(|e| e.to_string())?;
    layout(&parsed, &schema)
}

/// The layout of `schema`, which `parsed` is the parse of.
fn layout(parsed: &fbs::Schema, schema: &Schema) -> Result<Layout, String> {
    check_type_names(parsed)?;
    let types = schema.types();
    let (mut enums, mut unions, mut structs, mut tables) = (0, 0, 0, 0);
    let mut items = Vec::with_capacity(parsed.decls.len());
    for d in &parsed.decls {
        let body = match &d.body {
            Body::Enum { values, .. } => {
                enumeration(d, values, resolved(d, types.enums(), &mut enums, EnumDef::name)?)?
            }
            Body::Union { members } => {
                let id = unions;
                let def = resolved(d, types.unions(), &mut unions, UnionDef::name)?;
                union(d, members, def, id, types.tables())?
            }
            Body::Struct { fields } => {
                structure(d, fields, resolved(d, types.structs(), &mut structs, StructDef::name)?, schema)?
            }
            Body::Table { fields } => {
                let id = tables;
                table(d, fields, resolved(d, types.tables(), &mut tables, TableDef::name)?, id, schema)?
            }
        };
        items.push(Item {
            name: d.name.clone(),
            defined_at: format!("{}:{}", d.file, d.line),
            docs: d.docs.clone(),
            body,
        });
    }
    let counts = [enums, unions, structs, tables];
    let resolved = [types.enums().len(), types.unions().len(), types.structs().len(), types.tables().len()];
    if counts != resolved {
        return Err(format!("internal: the parser declares {counts:?} types, the resolver {resolved:?}"));
    }
    let root = schema.root().map(|r| short(schema.table_name(r)).to_string());
    let identifier = schema.file_identifier().map(|id| String::from_utf8_lossy(&id).into_owned());
    Ok(Layout { namespace: parsed.namespace.clone(), identifier, root, items })
}

/// The `n`th definition of `defs` (then `n + 1`), which must be declaration `d`'s: the parser
/// and the resolver number each kind in declaration order.
fn resolved<'t, T>(d: &Decl, defs: &'t [T], n: &mut usize, name: impl Fn(&T) -> &str) -> Result<&'t T, String> {
    let def = defs.get(*n).filter(|def| name(def) == qualified(d));
    *n += 1;
    def.ok_or_else(|| format!("{}:{}: internal: `{}` is not the resolver's next definition", d.file, d.line, d.name))
}

/// A declaration's name with its namespace, as the resolver names it.
fn qualified(d: &Decl) -> String {
    if d.namespace.is_empty() {
        d.name.clone()
    } else {
        format!("{}.{}", d.namespace, d.name)
    }
}

/// The generated module holds every type by its name alone, beside the names `fb_schema!`
/// defines.
fn check_type_names(parsed: &fbs::Schema) -> Result<(), String> {
    let mut seen = HashSet::new();
    for d in &parsed.decls {
        if RUST_KEYWORDS.contains(&d.name.as_str()) || RESERVED_TYPE_NAMES.contains(&d.name.as_str()) {
            return Err(format!(
                "{}:{}: the type name `{}` is reserved in the generated module",
                d.file, d.line, d.name
            ));
        }
        if !seen.insert(d.name.as_str()) {
            return Err(format!(
                "{}:{}: `{}` is declared twice (namespaces are dropped in generated code)",
                d.file, d.line, d.name
            ));
        }
    }
    Ok(())
}

/// The Rust type of a scalar type.
fn rust(ty: ScalarType) -> &'static str {
    match ty {
        ScalarType::Bool => "bool",
        ScalarType::U8 => "u8",
        ScalarType::I8 => "i8",
        ScalarType::U16 => "u16",
        ScalarType::I16 => "i16",
        ScalarType::U32 => "u32",
        ScalarType::I32 => "i32",
        ScalarType::U64 => "u64",
        ScalarType::I64 => "i64",
        ScalarType::F32 => "f32",
        ScalarType::F64 => "f64",
    }
}

fn enumeration(d: &Decl, values: &[fbs::EnumVal], def: &EnumDef) -> Result<ItemBody, String> {
    let mut out = Vec::with_capacity(values.len());
    let mut seen = HashSet::new();
    for ((value, name), v) in def.values().zip(values) {
        let at = format!("{}:{}", d.file, v.line);
        if name != v.name {
            return Err(format!("{at}: internal: enum value `{}` resolved as `{name}`", v.name));
        }
        // A `ulong` enum's values past `i64::MAX` are kept by their bits.
        let value = if def.repr() == ScalarType::U64 { i128::from(value as u64) } else { i128::from(value) };
        // `fb_enum!` gives each value a constant, beside its `name` method, and a match arm.
        if name == "name" || RUST_KEYWORDS.contains(&name) {
            return Err(format!("{at}: enum value name `{name}` cannot be a Rust constant here"));
        }
        if !seen.insert(value) {
            return Err(format!("{at}: enum value {value} of `{name}` is used twice"));
        }
        out.push(EnumValue { name: name.to_string(), value, docs: v.docs.clone() });
    }
    Ok(ItemBody::Enum { repr: rust(def.repr()), values: out })
}

fn union(
    d: &Decl,
    members: &[fbs::UnionMember],
    def: &UnionDef,
    id: usize,
    tables: &[TableDef],
) -> Result<ItemBody, String> {
    let mut out = Vec::with_capacity(members.len());
    for ((tag, _, member), m) in def.members().zip(members) {
        let at = format!("{}:{}", d.file, m.line);
        let ty = short(&m.ty);
        let table = match member {
            Member::Table(t) => tables.get(usize::from(t)).ok_or("internal: a member's table is missing")?,
            Member::String => return Err(format!("{at}: union member `string`: fb_union supports tables only")),
            Member::Struct(_) => {
                return Err(format!("{at}: union member `{ty}` is a struct: fb_union supports tables only"))
            }
            _ => return Err(format!("{at}: union member `{ty}`: fb_union supports tables only")),
        };
        // `fb_union!` names each member's variant after its alias, or else its table.
        let table = short(table.name()).to_string();
        let (variant, aliased) = match m.alias.as_deref().filter(|&alias| alias != ty) {
            Some(alias) => (alias.to_string(), Some(table)),
            None => (table, None),
        };
        if variant == "Unknown" || variant == "NONE" {
            return Err(format!("{at}: union member `{variant}` clashes with the union's own variant"));
        }
        out.push((tag, variant, aliased));
    }
    Ok(ItemBody::Union { id, members: out })
}

fn structure(d: &Decl, fields: &[fbs::Field], def: &StructDef, schema: &Schema) -> Result<ItemBody, String> {
    let types = schema.types();
    let mut out = Vec::with_capacity(fields.len());
    let mut accessors = HashSet::new();
    for (f, a) in def.fields().iter().zip(fields) {
        let at = format!("{}:{}", d.file, a.line);
        let kind = match (f.ty(), f.array()) {
            (Inline::Scalar(s), None) => format!("scalar({})", rust(s)),
            (Inline::Enum(e), None) => {
                let e = types.enums().get(usize::from(e)).ok_or("internal: an enum is missing")?;
                format!("enumeration({}, {})", short(e.name()), rust(e.repr()))
            }
            (Inline::Struct(s), None) => {
                let s = types.structs().get(usize::from(s)).ok_or("internal: a struct is missing")?;
                format!("structure({})", short(s.name()))
            }
            (Inline::Scalar(s), Some(n)) => format!("array({}, {n})", rust(s)),
            (_, Some(_)) => {
                let element = match &a.ty {
                    fbs::Type::Array(inner, _) => match inner.as_ref() {
                        fbs::Type::Named(t) => t.as_str(),
                        _ => "?",
                    },
                    _ => "?",
                };
                return Err(format!(
                    "{at}: array of `{element}`: fb_struct's grammar has arrays of scalars only (`array(T, N)`)"
                ));
            }
            _ => return Err(format!("{at}: struct field `{}`: a kind fb_struct does not know", f.name())),
        };
        let acc = accessor(f.name());
        if acc == "bytes" || !accessors.insert(acc.clone()) {
            return Err(format!("{at}: accessor `{acc}` clashes with another method of `{}`", d.name));
        }
        out.push(StructField {
            accessor: acc,
            name: f.name().to_string(),
            offset: f.offset(),
            kind,
            docs: a.docs.clone(),
        });
    }
    Ok(ItemBody::Struct { size: def.size(), align: def.align(), fields: out })
}

fn table(d: &Decl, fields: &[fbs::Field], def: &TableDef, id: usize, schema: &Schema) -> Result<ItemBody, String> {
    // The resolver lists fields by slot; the parser, as written (the same order without `id`s).
    let written: HashMap<&str, &fbs::Field> = fields.iter().map(|f| (f.name.as_str(), f)).collect();
    let mut out = Vec::with_capacity(fields.len());
    let mut accessors = HashSet::new();
    for f in def.fields() {
        let a = written.get(f.name()).ok_or_else(|| format!("internal: field `{}` was not parsed", f.name()))?;
        let at = format!("{}:{}", d.file, a.line);
        let kind = table_kind(&at, f, schema)?;
        let acc = accessor(f.name());
        if acc == "raw" || !accessors.insert(acc.clone()) {
            return Err(format!("{at}: accessor `{acc}` clashes with another method of `{}`", d.name));
        }
        // A union also gets `<name>_type`, its type tag.
        let type_acc = format!("{}_type", f.name());
        if matches!(f.ty(), FieldType::Union(_)) && !accessors.insert(type_acc.clone()) {
            return Err(format!("{at}: accessor `{type_acc}` clashes with another method of `{}`", d.name));
        }
        // Distinct accessors are distinct snake-case names, so the constants are distinct too.
        let base = constant(f.name());
        // Deprecated fields keep their type: they are still verified, and dumped when present.
        let kind = if f.deprecated() { format!("{kind} deprecated") } else { kind };
        out.push(TableField {
            accessor: acc,
            name: f.name().to_string(),
            constant: base,
            slot: f.slot(),
            kind,
            required: f.required() && !f.deprecated(),
            docs: a.docs.clone(),
        });
    }
    Ok(ItemBody::Table { id, fields: out })
}

/// The macro kind of table field `f` (at `at`).
fn table_kind(at: &str, f: &FieldDef, schema: &Schema) -> Result<String, String> {
    let types = schema.types();
    let enum_name =
        |e: u16| types.enums().get(usize::from(e)).map(|e| short(e.name())).ok_or("internal: an enum is missing");
    let struct_name =
        |s: u16| types.structs().get(usize::from(s)).map(|s| short(s.name())).ok_or("internal: a struct is missing");
    let table_name =
        |t: u16| types.tables().get(usize::from(t)).map(|t| short(t.name())).ok_or("internal: a table is missing");
    let union_name =
        |u: u16| types.unions().get(usize::from(u)).map(|u| short(u.name())).ok_or("internal: a union is missing");
    let optional = || format!("{at}: optional scalars (`= null`) cannot be expressed by fb_table");
    Ok(match f.ty() {
        FieldType::Scalar(s) => format!("scalar({}, {})", rust(s), literal(f.default().ok_or_else(optional)?)),
        FieldType::Enum(e) => {
            let repr = types.enums().get(usize::from(e)).map(EnumDef::repr).ok_or("internal: an enum is missing")?;
            let value = f.default().and_then(ScalarValue::as_i128).ok_or_else(optional)?;
            format!("enumeration({}, {}, {value})", enum_name(e)?, rust(repr))
        }
        FieldType::String => "string()".to_string(),
        FieldType::Table(t) => format!("table({})", table_name(t)?),
        FieldType::Struct(s) => format!("structure({})", struct_name(s)?),
        FieldType::Vector(Elem::Scalar(s)) => format!("vector({})", rust(s)),
        FieldType::Vector(Elem::Enum(e)) => format!("enum_vector({})", enum_name(e)?),
        FieldType::Vector(Elem::String) => "string_vector()".to_string(),
        FieldType::Vector(Elem::Table(t)) => format!("table_vector({})", table_name(t)?),
        FieldType::Vector(Elem::Struct(s)) => format!("struct_vector({})", struct_name(s)?),
        FieldType::Union(u) => format!("union({}, {}_type)", union_name(u)?, f.name()),
        FieldType::UnionVector(u) => format!("union_vector({})", union_name(u)?),
        // The compiled-in verifier reads a nested flatbuffer as the bytes it is.
        FieldType::Nested(_) => "vector(u8)".to_string(),
        _ => return Err(format!("{at}: field `{}`: a kind fb_table does not know", f.name())),
    })
}

/// A scalar default as a Rust literal of its type.
fn literal(value: ScalarValue) -> String {
    match value {
        ScalarValue::bool(b) => b.to_string(),
        ScalarValue::f32(x) => float(x.is_nan(), x.is_infinite(), x.is_sign_negative(), format!("{x:?}"), "f32"),
        ScalarValue::f64(x) => float(x.is_nan(), x.is_infinite(), x.is_sign_negative(), format!("{x:?}"), "f64"),
        other => other.as_i128().map_or_else(String::new, |n| n.to_string()),
    }
}

/// A float literal of type `ty` (`f32`, `f64`): its constant for NaN and the infinities, else
/// Rust's shortest round-trip text (`text`) with a decimal point.
fn float(nan: bool, infinite: bool, negative: bool, text: String, ty: &str) -> String {
    if nan {
        format!("{ty}::NAN")
    } else if infinite && negative {
        format!("{ty}::NEG_INFINITY")
    } else if infinite {
        format!("{ty}::INFINITY")
    } else if text.contains('.') {
        text
    } else if let Some(e) = text.find(['e', 'E']) {
        format!("{}.0{}", text.get(..e).unwrap_or(""), text.get(e..).unwrap_or(""))
    } else {
        format!("{text}.0")
    }
}

/// [`read`] of one schema given as `text`, named `file` (it can include nothing).
pub fn read_text(text: &str, file: &str) -> Result<Layout, String> {
    read(file, &mut |p: &str| {
        if p == file {
            Ok(text.to_string())
        } else {
            Err(format!("cannot read {p}: not in memory"))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(src: &str) -> Layout {
        read_text(src, "t.fbs").unwrap_or_else(|e| panic!("{e}"))
    }

    /// Asserts that `src` is refused at `t.fbs:line` (any column) with a message containing
    /// `message`.
    #[track_caller]
    fn refused(src: &str, line: usize, message: &str) {
        let error = read_text(src, "t.fbs").map(|_| ()).unwrap_err();
        let at = format!("t.fbs:{line}:");
        assert!(error.starts_with(&at) && error.contains(message), "{src:?}: {error:?}, expected {at} ... {message}");
    }

    fn item<'a>(l: &'a Layout, name: &str) -> &'a ItemBody {
        &l.items.iter().find(|i| i.name == name).unwrap().body
    }

    fn enum_values(l: &Layout, name: &str) -> Vec<(String, i128)> {
        let ItemBody::Enum { values, .. } = item(l, name) else { panic!("{name} is not an enum") };
        values.iter().map(|v| (v.name.clone(), v.value)).collect()
    }

    fn struct_layout(l: &Layout, name: &str) -> (u32, u32, Vec<(String, u32, String)>) {
        let ItemBody::Struct { size, align, fields } = item(l, name) else { panic!("{name} is not a struct") };
        (*size, *align, fields.iter().map(|f| (f.name.clone(), f.offset, f.kind.clone())).collect())
    }

    fn table_fields(l: &Layout, name: &str) -> Vec<(String, u16, String)> {
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
             enum G : ulong (bit_flags) {{ Top = 63 }}\n\
             enum H : byte {{ M = -0x1F }}\n{ROOT}"
        ));
        let want = |rows: &[(&str, i128)]| rows.iter().map(|(n, v)| (n.to_string(), *v)).collect::<Vec<_>>();
        // Implicit values continue from the previous one: X = 0, Z = -2 + 1, V = 16 + 1.
        assert_eq!(enum_values(&l, "A"), want(&[("X", 0), ("Y", -2), ("Z", -1), ("W", 16), ("V", 17)]));
        // Bit flags give bit positions: 1 << 0, 1 << 3, 1 << 4.
        assert_eq!(enum_values(&l, "F"), want(&[("R", 1), ("G", 8), ("B", 16)]));
        assert_eq!(enum_values(&l, "G"), want(&[("Top", 1i128 << 63)]));
        assert_eq!(enum_values(&l, "H"), want(&[("M", -31)]));
        let ItemBody::Enum { repr, .. } = item(&l, "F") else { panic!() };
        assert_eq!(*repr, "u16");
        refused("enum E : ubyte { A = 255, B }", 1, "B = 256");
        refused("enum E : byte { A = -129 }", 1, "A = -129");
        // Bit 7 of a byte is its sign.
        refused("enum E : byte (bit_flags) { A = 7 }", 1, "A = 128");
        refused("enum E : byte { A = 1.0 }", 1, "is not an integer");
        refused("\nenum E { A }", 2, "underlying integer type");
        // What the macros' grammar cannot say: two names for one value, a value named like a
        // method of the enum or a keyword.
        refused("enum E : int { A = 1, B = 1 }", 1, "enum value 1 of `B` is used twice");
        refused("enum E : int { name }", 1, "enum value name `name` cannot be a Rust constant here");
        refused("enum E : int { A, fn }", 1, "enum value name `fn` cannot be a Rust constant here");
    }

    #[test]
    fn union_tags_implicit_and_explicit() {
        let l = layout(&format!(
            "table A {{}}\ntable B {{}}\ntable C {{}}\nunion U {{ A, B }}\nunion V {{ B = 5, C, A = 2 }}\n{ROOT}"
        ));
        let members = |name: &str| match item(&l, name) {
            ItemBody::Union { id, members } => {
                (*id, members.iter().map(|(t, n, _)| (*t, n.as_str())).collect::<Vec<_>>())
            }
            _ => panic!(),
        };
        assert_eq!(members("U"), (0, vec![(1, "A"), (2, "B")]));
        assert_eq!(members("V"), (1, vec![(5, "B"), (6, "C"), (2, "A")]));
        // A struct member needs an alias (FlatBuffers); with one, the grammar has tables only.
        refused("table A {}\nstruct S { x:int; }\nunion U { A, S }", 3, "need an alias");
        refused(
            "table A {}\nstruct S { x:int; }\nunion U { A, S: S }",
            3,
            "union member `S` is a struct: fb_union supports tables only",
        );
        refused("table A {}\nunion U { A, s: string }", 2, "union member `string`: fb_union supports tables only");
        refused("table A {}\nunion U {\n A = 256 }", 3, "union tag 256 is not in 1..=255");
        // A member named apart from its table is a variant of that name holding the table.
        let l = layout(&format!("table A {{}}\nunion U {{ X: A, Y: A, A }}\n{ROOT}"));
        match item(&l, "U") {
            ItemBody::Union { members, .. } => assert_eq!(
                members.iter().map(|(t, n, a)| (*t, n.as_str(), a.as_deref())).collect::<Vec<_>>(),
                vec![(1, "X", Some("A")), (2, "Y", Some("A")), (3, "A", None)]
            ),
            _ => panic!(),
        }
        refused("table A {}\nunion U { Unknown: A }", 2, "clashes with the union's own variant");
        refused("table Unknown {}\nunion U { Unknown }", 2, "clashes with the union's own variant");
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
        refused("struct S (force_align: 2) { a:int; }", 1, "natural alignment (4)");
        refused("struct S { s:S; }", 1, "must be declared before a struct holds it");
        refused("struct S { a:[string:2]; }", 1, "structs may contain only scalar or struct fields");
        // What the macros' grammar cannot say: arrays of enums or structs.
        refused(
            "enum E : byte { A }\nstruct S {\n a:[E:2]; }",
            3,
            "array of `E`: fb_struct's grammar has arrays of scalars only",
        );
        refused("struct S { bytes:int; }", 1, "accessor `bytes` clashes with another method of `S`");
    }

    #[test]
    fn table_slots_unions_deprecated_and_keywords() {
        let l = layout(
            "table A {}\nunion U { A }\nstruct S { x:int; }\nenum E : ubyte { Q, W }\n\
             table T {\n  a:int;\n  u:U;\n  old:int (deprecated);\n  type:E;\n  oldu:U (deprecated);\n  \
             us:[U];\n  s:S;\n  v:[E];\n  n:[string] (required);\n  b:[bool];\n  t:[A];\n  ss:[S];\n  one:A;\n  \
             str:string (required);\n  match:ubyte;\n  nest:[ubyte] (nested_flatbuffer: \"A\");\n}\nroot_type T;\n",
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
                ("nest", 18, "vector(u8)"), // the compiled-in views read a nested flatbuffer as bytes
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
        refused("table T {\n a:int (id: 0);\n b:int;\n}", 1, "either all fields or no fields must have an 'id'");
        refused("table T { a:int (id: 0); b:int (id: 2); }", 1, "id 1 missing");
        refused(
            "table A {}\nunion U { A }\ntable T {\n a:int (id: 1);\n u:U (id: 1);\n}",
            5,
            "field id 1 is set twice",
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
        refused("table T { a:ubyte = 256; }", 1, "default Num(\"256\") is not a valid value");
        refused("table T { a:int = 1.5; }", 1, "default Num(\"1.5\") is not a valid value");
        refused("enum E : byte { A }\ntable T {\n a:E = B;\n}", 3, "default Ident(\"B\") is not a valid value");
        // What the macros' grammar cannot say: a scalar that may be absent.
        refused("table T { a:int = null; }", 1, "optional scalars (`= null`) cannot be expressed by fb_table");
    }

    #[test]
    fn names_attributes_and_roots() {
        refused("table T { a:int (frobnicate); }\nroot_type T;", 1, "must be declared before use: frobnicate");
        let l = layout(
            "attribute \"priority\";\nnamespace x.y;\nfile_identifier \"ABCD\";\n\
             table T { a:[ubyte] (force_align: 8, priority: 1, native_inline, key, hash: \"fnv1_32\", flexbuffer, shared, original_order); b:x.y.T; }\n\
             root_type x.y.T;",
        );
        assert_eq!(
            (l.namespace.as_str(), l.identifier.as_deref(), l.root.as_deref()),
            ("x.y", Some("ABCD"), Some("T"))
        );
        assert_eq!(table_fields(&l, "T"), v(&[("a", 0, "vector(u8)"), ("b", 1, "table(T)")]));
        assert_eq!(layout("table T {}").root, None);
        refused("struct S { a:int; }\nroot_type S;", 2, "root_type `S` is not a table");
        refused("table T { x:Missing; }", 1, "not defined (check namespace): Missing");
        refused("table T {}\nenum T : byte { A }", 2, "`T` is declared twice");
        refused("table T { a:int (required); }", 1, "only non-scalar fields in tables may be 'required'");
        // What the generated module cannot hold: one name in two namespaces, names it defines,
        // accessors that clash.
        refused(
            "namespace a;\ntable T {}\nnamespace b;\ntable T {}",
            4,
            "`T` is declared twice (namespaces are dropped in generated code)",
        );
        refused("table Root {}", 1, "the type name `Root` is reserved in the generated module");
        refused("table T { raw:int; }", 1, "accessor `raw` clashes with another method of `T`");
        refused("table T { type:int; type_:int; }", 1, "accessor `type_` clashes with another method of `T`");
        refused("table A {}\nunion U { A }\ntable T {\n u:U;\n u_type:int;\n}", 5, "accessor `u_type` clashes");
    }

    #[test]
    fn float_literals_always_have_a_point() {
        assert_eq!(literal(ScalarValue::f32(0.0)), "0.0");
        assert_eq!(literal(ScalarValue::f64(1e20)), "1.0e20");
        assert_eq!(literal(ScalarValue::f64(-2.5)), "-2.5");
        assert_eq!(literal(ScalarValue::f32(f32::INFINITY)), "f32::INFINITY");
        assert_eq!(literal(ScalarValue::i16(-7)), "-7");
    }
}
