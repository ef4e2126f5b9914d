//! A deterministic text of resolved [`Types`], for comparing two schemas whatever order their
//! declarations were numbered in: each table, struct, enum and union with its fields, types
//! named rather than numbered, sorted by kind and name. Enum values and union members are
//! listed by value (flatc's binary schemas keep them in that order, not as declared).

use super::model::{Elem, FieldType, Inline, Member, Types};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

fn name<T>(list: &[T], i: u16, name: impl Fn(&T) -> &str) -> &str {
    list.get(usize::from(i)).map_or("?", name)
}

fn table(t: &Types, i: u16) -> String {
    format!("table {}", name(&t.tables, i, |d| &d.name))
}

fn structure(t: &Types, i: u16) -> String {
    format!("struct {}", name(&t.structs, i, |d| &d.name))
}

fn enumeration(t: &Types, i: u16) -> String {
    format!("enum {}", name(&t.enums, i, |d| &d.name))
}

fn union(t: &Types, i: u16) -> String {
    format!("union {}", name(&t.unions, i, |d| &d.name))
}

fn inline(t: &Types, ty: Inline) -> String {
    match ty {
        Inline::Scalar(s) => format!("{s:?}"),
        Inline::Enum(e) => enumeration(t, e),
        Inline::Struct(s) => structure(t, s),
    }
}

fn field_type(t: &Types, ty: FieldType) -> String {
    match ty {
        FieldType::Scalar(s) => format!("{s:?}"),
        FieldType::Enum(e) => enumeration(t, e),
        FieldType::String => "string".into(),
        FieldType::Table(i) => table(t, i),
        FieldType::Struct(s) => structure(t, s),
        FieldType::Vector(elem) => {
            let elem = match elem {
                Elem::Scalar(s) => format!("{s:?}"),
                Elem::Enum(e) => enumeration(t, e),
                Elem::String => "string".into(),
                Elem::Table(i) => table(t, i),
                Elem::Struct(s) => structure(t, s),
            };
            format!("[{elem}]")
        }
        FieldType::Union(u) => union(t, u),
        FieldType::UnionVector(u) => format!("[{}]", union(t, u)),
        FieldType::Nested(i) => format!("[ubyte] nested {}", table(t, i)),
    }
}

/// The text of `types`.
pub(crate) fn canonical(types: &Types) -> String {
    let mut blocks: Vec<String> = Vec::new();
    for d in &types.tables {
        let mut b = format!("table {}\n", d.name);
        for f in &d.fields {
            let _ = write!(b, "  {} {}: {}", f.slot, f.name, field_type(types, f.ty));
            if let Some(v) = f.default {
                let _ = write!(b, " = {v:?}");
            }
            for (set, what) in [(f.required, "required"), (f.deprecated, "deprecated"), (f.key, "key")] {
                if set {
                    let _ = write!(b, " ({what})");
                }
            }
            if f.force_align != 0 {
                let _ = write!(b, " (force_align {})", f.force_align);
            }
            b.push('\n');
        }
        blocks.push(b);
    }
    for d in &types.structs {
        let mut b = format!("struct {} size {} align {}\n", d.name, d.size, d.align);
        for f in &d.fields {
            let _ = write!(b, "  {} {}: {}", f.offset, f.name, inline(types, f.ty));
            if let Some(n) = f.array {
                let _ = write!(b, " [{n}]");
            }
            b.push('\n');
        }
        blocks.push(b);
    }
    for d in &types.enums {
        let flags = if d.bit_flags { " (bit_flags)" } else { "" };
        let mut b = format!("enum {}: {:?}{flags}\n", d.name, d.repr);
        let mut values: Vec<_> = d.values().collect();
        values.sort();
        for (v, n) in values {
            let _ = writeln!(b, "  {v} {n}");
        }
        blocks.push(b);
    }
    for d in &types.unions {
        let mut b = format!("union {}\n", d.name);
        let mut members: Vec<_> = d.members.iter().collect();
        members.sort_by_key(|(tag, _, _)| *tag);
        for (tag, n, m) in members {
            let what = match *m {
                Member::Table(i) => table(types, i),
                Member::Struct(s) => structure(types, s),
                Member::String => "string".into(),
            };
            let _ = writeln!(b, "  {tag} {}: {what}", d.member_name(*n));
        }
        blocks.push(b);
    }
    blocks.sort();
    let mut out = String::new();
    match types.root {
        Some(r) => {
            let _ = writeln!(out, "root {}", name(&types.tables, r, |d| &d.name));
        }
        None => out.push_str("root -\n"),
    }
    match types.identifier {
        Some(id) => {
            let _ = writeln!(out, "file_identifier {}", id.as_slice().escape_ascii());
        }
        None => out.push_str("file_identifier -\n"),
    }
    for b in blocks {
        out.push_str(&b);
    }
    out
}
