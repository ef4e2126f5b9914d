//! The verifier's [`SchemaLayout`] for resolved [`Types`], held in vectors: the same compact
//! description the compiled-in schemas build at compile time, so one verifier serves both.

use super::fbs::SchemaError;
use super::model::{Elem, FieldType, Inline, Member, Types};
use crate::verify::layout::{FieldKind, FieldLayout, FieldNames, SchemaLayout, Span, StructMember, TableSpan};
use crate::verify::layout::{NO_TABLE, STRING_MEMBER};
use alloc::format;
use alloc::vec::Vec;

/// The vectors a [`SchemaLayout`] borrows, and where each of its fields came from.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct OwnedLayout {
    tables: Vec<TableSpan>,
    fields: Vec<FieldLayout>,
    unions: Vec<Span>,
    members: Vec<u8>,
    union_structs: Vec<StructMember>,
    widest: Vec<u8>,
    /// For each entry of `fields`: its table and its index among that table's fields.
    pub origin: Vec<(u16, u16)>,
}

/// How deep structs may nest in structs: the dump and the views descend once per level, so
/// this bounds their stack (flatc sets no limit; real schemas nest a few levels).
pub(crate) const MAX_STRUCT_DEPTH: usize = 64;

/// Whether no struct of `types` nests structs more than `limit` deep (and none holds itself):
/// each pass deepens every struct by its fields, so after `limit` passes only a nesting deeper
/// than the limit, or a cycle, still changes. Linear in the struct fields for a fixed limit.
fn structs_nest_at_most(types: &Types, limit: usize) -> bool {
    let mut depth = alloc::vec![1usize; types.structs.len()];
    for _ in 0..=limit {
        let mut changed = false;
        for (i, s) in types.structs.iter().enumerate() {
            let inner = s.fields.iter().filter_map(|f| match f.ty {
                Inline::Struct(t) => depth.get(usize::from(t)).copied(),
                _ => None,
            });
            let d = inner.max().map_or(1, |d| d.saturating_add(1));
            if let Some(slot) = depth.get_mut(i) {
                if *slot != d {
                    *slot = d;
                    changed = true;
                }
            }
        }
        if !changed {
            return depth.iter().all(|&d| d <= limit);
        }
    }
    false
}

/// Error paths carry field numbers, which [`super::Schema`] names.
static NUMBERED: FieldNames = FieldNames::NONE;

impl OwnedLayout {
    /// The layout the verifier reads.
    pub fn layout(&self) -> SchemaLayout<'_> {
        SchemaLayout {
            tables: &self.tables,
            fields: &self.fields,
            unions: &self.unions,
            members: &self.members,
            union_structs: &self.union_structs,
            widest: &self.widest,
            names: &NUMBERED,
            specialized: None,
        }
    }

    /// Builds the layout of `types`, or says which limit of the layout a schema passes.
    pub fn build(types: &Types) -> Result<Self, SchemaError> {
        let too_big =
            |what: &str| Err(SchemaError::at("schema", 0, 0, format!("{what}: beyond what flatmodel's layout holds")));
        if !structs_nest_at_most(types, MAX_STRUCT_DEPTH) {
            return too_big(&format!("structs nested more than {MAX_STRUCT_DEPTH} deep"));
        }
        let mut out = OwnedLayout::default();
        for (t, table) in types.tables.iter().enumerate() {
            let mut inline = Vec::new();
            let mut offsets = Vec::new();
            for (i, f) in table.fields.iter().enumerate() {
                let Ok(slot) = u8::try_from(f.slot) else { return too_big("a field slot past 255") };
                // A vector's `force_align` is a writer's promise flatc's verifier does not
                // check (it checks the elements' own alignment), and neither does this one.
                let align = |natural: u32| natural as usize;
                let small = |n: u32| u16::try_from(n).ok();
                let layout = match f.ty {
                    FieldType::Scalar(s) => {
                        FieldLayout::new(slot, FieldKind::Inline, s.size() as u16, s.size(), f.required)
                    }
                    FieldType::Enum(e) => {
                        let (size, _) = types.inline_size(Inline::Enum(e));
                        FieldLayout::new(slot, FieldKind::Inline, size as u16, size as usize, f.required)
                    }
                    FieldType::Struct(s) => {
                        let (size, a) = types.inline_size(Inline::Struct(s));
                        let Some(size) = small(size) else { return too_big("a struct of over 65535 bytes") };
                        FieldLayout::new(slot, FieldKind::Inline, size, a as usize, f.required)
                    }
                    FieldType::String => FieldLayout::new(slot, FieldKind::String, 0, 1, f.required),
                    FieldType::Table(t) => FieldLayout::new(slot, FieldKind::Table, t, 4, f.required),
                    FieldType::Union(u) => FieldLayout::new(slot, FieldKind::Union, u, 4, f.required),
                    FieldType::UnionVector(u) => FieldLayout::new(slot, FieldKind::UnionVector, u, 4, f.required),
                    FieldType::Nested(root) => FieldLayout::nested(slot, root, align(1), f.required),
                    FieldType::Vector(elem) => match elem {
                        Elem::String => FieldLayout::new(slot, FieldKind::StringVector, 0, 4, f.required),
                        Elem::Table(t) => FieldLayout::new(slot, FieldKind::TableVector, t, 4, f.required),
                        Elem::Scalar(s) => FieldLayout::new(
                            slot,
                            FieldKind::Vector,
                            s.size() as u16,
                            align(s.size() as u32),
                            f.required,
                        ),
                        Elem::Enum(e) => {
                            let (size, a) = types.inline_size(Inline::Enum(e));
                            FieldLayout::new(slot, FieldKind::Vector, size as u16, align(a), f.required)
                        }
                        Elem::Struct(s) => {
                            let (size, a) = types.inline_size(Inline::Struct(s));
                            let Some(size) = small(size) else { return too_big("a struct of over 65535 bytes") };
                            FieldLayout::new(slot, FieldKind::Vector, size, align(a), f.required)
                        }
                    },
                };
                let (Ok(t), Ok(i)) = (u16::try_from(t), u16::try_from(i)) else {
                    return too_big("over 65535 tables or fields");
                };
                if layout.is_inline() {
                    inline.push((layout, (t, i)));
                } else {
                    offsets.push((layout, (t, i)));
                }
            }
            let (Ok(first), Ok(inline_len), Ok(len)) = (
                u16::try_from(out.fields.len()),
                u8::try_from(inline.len()),
                u8::try_from(inline.len().saturating_add(offsets.len())),
            ) else {
                return too_big("over 65535 fields, or a table of over 255");
            };
            out.tables.push(TableSpan { first, inline: inline_len, len });
            let widest =
                inline.iter().chain(&offsets).fold(0, |m, (f, _)| m | if f.is_inline() { f.align_mask() } else { 3 });
            out.widest.push(u8::try_from(widest).unwrap_or(u8::MAX));
            for (layout, origin) in inline.into_iter().chain(offsets) {
                out.fields.push(layout);
                out.origin.push(origin);
            }
        }
        if u16::try_from(out.fields.len()).is_err() {
            return too_big("over 65535 fields");
        }
        let table_count = types.tables.len();
        for union in &types.unions {
            let highest = union.members.iter().map(|(tag, _, _)| usize::from(*tag)).max().unwrap_or(0);
            let Ok(first) = u16::try_from(out.members.len()) else { return too_big("over 65535 union members") };
            let Ok(len) = u16::try_from(highest) else { return too_big("a union tag") };
            out.unions.push(Span { first, len });
            let start = out.members.len();
            out.members.resize(start.saturating_add(highest), NO_TABLE);
            for &(tag, _, member) in &union.members {
                let byte = match member {
                    Member::String => Some(STRING_MEMBER),
                    Member::Table(t) => u8::try_from(t).ok().filter(|&b| b < STRING_MEMBER),
                    Member::Struct(s) => {
                        let (size, align) = types.inline_size(Inline::Struct(s));
                        let index = match out
                            .union_structs
                            .iter()
                            .position(|m| u32::from(m.size) == size && u32::from(m.align) == align)
                        {
                            Some(i) => i,
                            None => {
                                let (Ok(size), Ok(align)) = (u16::try_from(size), u8::try_from(align)) else {
                                    return too_big("a union struct of over 65535 bytes");
                                };
                                out.union_structs.push(StructMember { size, align });
                                out.union_structs.len().saturating_sub(1)
                            }
                        };
                        u8::try_from(table_count.saturating_add(index)).ok().filter(|&b| b < STRING_MEMBER)
                    }
                };
                let Some(byte) = byte else {
                    return too_big("a union member past the schema's first 253 tables and structs");
                };
                let at = start.saturating_add(usize::from(tag)).saturating_sub(1);
                if let Some(m) = out.members.get_mut(at) {
                    *m = byte;
                }
            }
        }
        Ok(out)
    }
}
