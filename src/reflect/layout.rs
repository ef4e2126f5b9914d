//! The verifier's [`SchemaLayout`] for resolved [`Types`], held in vectors: the same compact
//! description the compiled-in schemas build at compile time, so one verifier serves both.

use super::fbs::SchemaError;
use super::model::{Elem, FieldType, Inline, Member, Types};
use crate::schema::ScalarType;
use crate::verify::layout::TableSpan;
use crate::verify::layout::{
    FieldKind, FieldLayout, FieldNames, SchemaLayout, SlotCheck, SlotTable, Span, StructMember,
};
use crate::verify::layout::{NO_TABLE, STRING_MEMBER};
use crate::wire::to_usize;
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
    slot_tables: Vec<SlotTable>,
    slot_checks: Vec<SlotCheck>,
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

/// Appends to `checks` the slot checks of a table whose fields are `inline` and `offsets` (in
/// the layout's order, so offset field `k` has follow bit `k`, for the first 32), and describes
/// them. A union's check covers its type's slot too, with the same follow bit: a type without
/// its value is followed, as the field walk does.
fn slot_checks<O>(
    inline: &[(FieldLayout, O)],
    offsets: &[(FieldLayout, O)],
    checks: &mut Vec<SlotCheck>,
) -> Option<SlotTable> {
    let first = u32::try_from(checks.len()).ok()?;
    let unused = SlotCheck { follow: 0, size: 0, mask: SlotCheck::UNUSED };
    let len = inline.iter().chain(offsets).map(|(f, _)| usize::from(f.slot()).saturating_add(1)).max().unwrap_or(0);
    let mut table = alloc::vec![unused; len];
    let mut set = |slot: usize, check: SlotCheck| {
        if let Some(entry) = table.get_mut(slot) {
            *entry = check;
        }
    };
    let mut widest = 0;
    for (f, _) in inline {
        let mask = f.align_mask();
        widest |= mask;
        let mask = u8::try_from(mask).ok()?;
        set(usize::from(f.slot()), SlotCheck { follow: 0, size: f.arg(), mask });
    }
    let mut required_follow = 0;
    for (k, (f, _)) in offsets.iter().enumerate() {
        widest |= 3;
        let follow = 1u32.checked_shl(u32::try_from(k).ok()?).unwrap_or(0);
        if f.required() {
            required_follow |= follow;
        }
        let slot = usize::from(f.slot());
        set(slot, SlotCheck { follow, size: 4, mask: 3 });
        // A union's type: a byte, or the offset of a vector of them, in the slot before.
        match f.kind() {
            FieldKind::Union => set(slot.wrapping_sub(1), SlotCheck { follow, size: 1, mask: 0 }),
            FieldKind::UnionVector => set(slot.wrapping_sub(1), SlotCheck { follow, size: 4, mask: 3 }),
            _ => {}
        }
    }
    checks.extend(table);
    Some(SlotTable {
        first,
        len: u16::try_from(len).ok()?,
        widest: u8::try_from(widest).ok()?,
        required_inline: inline.iter().any(|(f, _)| f.required()),
        required_follow,
    })
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
            slot_tables: &self.slot_tables,
            slot_checks: &self.slot_checks,
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
                let align = to_usize;
                let small = |n: u32| u16::try_from(n).ok();
                // A scalar's size, 1 to 8.
                let scalar = |s: ScalarType| u16::try_from(s.size()).unwrap_or(u16::MAX);
                let layout = match f.ty {
                    FieldType::Scalar(s) => FieldLayout::new(slot, FieldKind::Inline, scalar(s), s.size(), f.required),
                    FieldType::Enum(e) => {
                        let (size, _) = types.inline_size(Inline::Enum(e));
                        let Some(small_size) = small(size) else { return too_big("an enum of over 65535 bytes") };
                        FieldLayout::new(slot, FieldKind::Inline, small_size, to_usize(size), f.required)
                    }
                    FieldType::Struct(s) => {
                        let (size, a) = types.inline_size(Inline::Struct(s));
                        let Some(size) = small(size) else { return too_big("a struct of over 65535 bytes") };
                        FieldLayout::new(slot, FieldKind::Inline, size, to_usize(a), f.required)
                    }
                    FieldType::String => FieldLayout::new(slot, FieldKind::String, 0, 1, f.required),
                    FieldType::Table(t) => FieldLayout::new(slot, FieldKind::Table, t, 4, f.required),
                    FieldType::Union(u) => FieldLayout::new(slot, FieldKind::Union, u, 4, f.required),
                    FieldType::UnionVector(u) => FieldLayout::new(slot, FieldKind::UnionVector, u, 4, f.required),
                    FieldType::Nested(root) => FieldLayout::nested(slot, root, align(1), f.required),
                    FieldType::Vector(elem) => match elem {
                        Elem::String => FieldLayout::new(slot, FieldKind::StringVector, 0, 4, f.required),
                        Elem::Table(t) => FieldLayout::new(slot, FieldKind::TableVector, t, 4, f.required),
                        Elem::Scalar(s) => FieldLayout::new(slot, FieldKind::Vector, scalar(s), s.size(), f.required),
                        Elem::Enum(e) => {
                            let (size, a) = types.inline_size(Inline::Enum(e));
                            let Some(size) = small(size) else { return too_big("an enum of over 65535 bytes") };
                            FieldLayout::new(slot, FieldKind::Vector, size, align(a), f.required)
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
            let Some(slot_table) = slot_checks(&inline, &offsets, &mut out.slot_checks) else {
                return too_big("over 2^32 slot checks");
            };
            out.slot_tables.push(slot_table);
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
