//! A structure-aware mutator: edits a flatbuffer that verifies at the FlatBuffers level (a
//! scalar field, an index in a vector of integers, a vector's length, an offset, two tables
//! swapped, a subtree shared) instead of flipping bytes, so that most mutants still pass the
//! structure check and reach the model rules.
//!
//! It finds the places to edit by walking the buffer with the schema's own layout
//! ([`SchemaLayout`], the description flatmodel's verifier runs on), so one mutator serves every
//! schema. Every read is checked; on bytes that do not verify it finds nothing to edit.

use crate::rng::Rng;
use flatmodel::verify::{FieldKind, SchemaLayout, VerifyTable};
use std::collections::HashSet;

/// A place in the buffer an edit can change.
#[derive(Clone, Copy, Debug)]
enum Site {
    /// An inline value (scalar, enum or struct) of `size` bytes, or one element of a vector of
    /// scalars.
    Value { pos: usize, size: usize },
    /// A vector's element count.
    Length { pos: usize },
    /// A uoffset to a table of type `table`.
    Table { pos: usize, table: u16 },
    /// A uoffset to something else (a string or a vector).
    Offset { pos: usize },
}

/// The editable places of a buffer, found from its root.
struct Sites(Vec<Site>);

/// Most tables visited, and most elements of one vector looked at, per walk: the mutator's
/// work stays bounded on any input.
const MAX_TABLES: usize = 4096;
const MAX_ELEMENTS: usize = 64;

fn u16_at(buf: &[u8], pos: usize) -> Option<usize> {
    buf.get(pos..pos.checked_add(2)?).map(|b| usize::from(u16::from_le_bytes([b[0], b[1]])))
}

fn u32_at(buf: &[u8], pos: usize) -> Option<usize> {
    let b = buf.get(pos..pos.checked_add(4)?)?;
    usize::try_from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])).ok()
}

/// The target of the uoffset at `pos`.
fn follow(buf: &[u8], pos: usize) -> Option<usize> {
    pos.checked_add(u32_at(buf, pos)?).filter(|&t| t < buf.len())
}

impl Sites {
    /// The sites of `buf`, whose root is table type `root` of `schema`.
    fn of(buf: &[u8], schema: &SchemaLayout<'_>, root: u16) -> Sites {
        let mut sites = Vec::new();
        let mut seen = HashSet::new();
        let mut stack: Vec<(u16, usize)> = follow(buf, 0).map(|pos| (root, pos)).into_iter().collect();
        while let Some((table, pos)) = stack.pop() {
            if seen.len() >= MAX_TABLES || !seen.insert((table, pos)) {
                continue;
            }
            // The vtable: the table's position less its soffset.
            let Some(soffset) =
                buf.get(pos..pos.saturating_add(4)).map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            else {
                continue;
            };
            let Some(vt) = i64::try_from(pos).ok().and_then(|p| usize::try_from(p - i64::from(soffset)).ok()) else {
                continue;
            };
            let Some(vt_len) = u16_at(buf, vt) else { continue };
            let (fields, _, _) = schema.table_fields(table);
            for &f in fields {
                let slot = usize::from(f.slot());
                if 4 + 2 * slot + 2 > vt_len {
                    continue;
                }
                let Some(v) = u16_at(buf, vt + 4 + 2 * slot).filter(|&v| v != 0) else { continue };
                let at = pos + v;
                match f.kind() {
                    FieldKind::Inline => sites.push(Site::Value { pos: at, size: usize::from(f.arg()) }),
                    FieldKind::String => sites.push(Site::Offset { pos: at }),
                    FieldKind::Table => {
                        sites.push(Site::Table { pos: at, table: f.arg() });
                        stack.extend(follow(buf, at).map(|t| (f.arg(), t)));
                    }
                    FieldKind::Vector => {
                        sites.push(Site::Offset { pos: at });
                        let Some(target) = follow(buf, at) else { continue };
                        sites.push(Site::Length { pos: target });
                        let size = usize::from(f.arg());
                        let len = u32_at(buf, target).unwrap_or(0);
                        if matches!(size, 1 | 2 | 4 | 8) {
                            for i in 0..len.min(MAX_ELEMENTS) {
                                sites.push(Site::Value { pos: target + 4 + i * size, size });
                            }
                        }
                    }
                    FieldKind::StringVector => {
                        sites.push(Site::Offset { pos: at });
                        sites.extend(follow(buf, at).map(|t| Site::Length { pos: t }));
                    }
                    FieldKind::TableVector => {
                        sites.push(Site::Offset { pos: at });
                        let Some(target) = follow(buf, at) else { continue };
                        sites.push(Site::Length { pos: target });
                        for i in 0..u32_at(buf, target).unwrap_or(0).min(MAX_ELEMENTS) {
                            let element = target + 4 + 4 * i;
                            sites.push(Site::Table { pos: element, table: f.arg() });
                            stack.extend(follow(buf, element).map(|t| (f.arg(), t)));
                        }
                    }
                    FieldKind::Union => {
                        // The type byte in the slot before, and the value.
                        let tag_slot = slot.wrapping_sub(1);
                        let tag_at = u16_at(buf, vt + 4 + 2 * tag_slot).filter(|&t| t != 0).map(|t| pos + t);
                        sites.extend(tag_at.map(|t| Site::Value { pos: t, size: 1 }));
                        let member = tag_at.and_then(|t| buf.get(t)).and_then(|&tag| schema.member(f.arg(), tag));
                        match member {
                            Some(table) => {
                                sites.push(Site::Table { pos: at, table });
                                stack.extend(follow(buf, at).map(|t| (table, t)));
                            }
                            None => sites.push(Site::Offset { pos: at }),
                        }
                    }
                    FieldKind::UnionVector => sites.push(Site::Offset { pos: at }),
                }
            }
        }
        Sites(sites)
    }
}

/// A value of `size` bytes worth trying: the edges (0, 1, -1, the extremes), a small number,
/// a neighbour of the current value, or random bytes.
fn interesting(rng: &mut Rng, current: u64, size: usize) -> u64 {
    let bits = 8 * size.min(8) as u32;
    let max = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
    match rng.below(8) {
        0 => 0,
        1 => 1,
        2 => max,            // -1
        3 => max >> 1,       // the largest signed
        4 => (max >> 1) + 1, // the smallest signed
        5 => rng.below(16) as u64,
        6 => current.wrapping_add(if rng.below(2) == 0 { 1 } else { max }) & max,
        _ => rng.next_u64() & max,
    }
}

fn read(buf: &[u8], pos: usize, size: usize) -> u64 {
    let mut bytes = [0u8; 8];
    if let Some(src) = pos.checked_add(size.min(8)).and_then(|end| buf.get(pos..end)) {
        bytes[..src.len()].copy_from_slice(src);
    }
    u64::from_le_bytes(bytes)
}

fn write(buf: &mut [u8], pos: usize, size: usize, value: u64) {
    let size = size.min(8);
    if let Some(dst) = pos.checked_add(size).and_then(|end| buf.get_mut(pos..end)) {
        dst.copy_from_slice(&value.to_le_bytes()[..size]);
    }
}

/// Points the uoffset at `pos` to `target` (which must lie after it); `false` if it cannot.
fn point(buf: &mut [u8], pos: usize, target: usize) -> bool {
    match target.checked_sub(pos).and_then(|d| u32::try_from(d).ok()) {
        Some(d) if d > 0 => {
            write(buf, pos, 4, u64::from(d));
            true
        }
        _ => false,
    }
}

/// Applies one structure-aware edit to `buf`, a flatbuffer whose root is table type `root` of
/// `schema`, chosen by `seed`. Returns `false` when it found nothing to edit (the bytes do not
/// reach a table), leaving them unchanged.
pub fn mutate(buf: &mut [u8], schema: &SchemaLayout<'_>, root: u16, seed: u64) -> bool {
    let Sites(sites) = Sites::of(buf, schema, root);
    if sites.is_empty() {
        return false;
    }
    let mut rng = Rng(seed);
    let site = sites[rng.below(sites.len())];
    match site {
        Site::Value { pos, size } => {
            let v = interesting(&mut rng, read(buf, pos, size), size);
            write(buf, pos, size, v);
            true
        }
        Site::Length { pos } => {
            let len = read(buf, pos, 4);
            let v = match rng.below(5) {
                0 => 0,
                1 => len + 1,
                2 => len.saturating_sub(1),
                3 => 0x7FFF_FFFF,
                _ => rng.below(64) as u64,
            };
            write(buf, pos, 4, v);
            true
        }
        Site::Table { pos, table } => {
            // Another table of the same type: swap the two (both offsets rewritten), or share
            // one (this offset now points where the other does).
            let others: Vec<usize> = sites
                .iter()
                .filter_map(|s| match *s {
                    Site::Table { pos: p, table: t } if t == table && p != pos => Some(p),
                    _ => None,
                })
                .collect();
            let (Some(mine), Some(&other)) = (follow(buf, pos), others.get(rng.below(others.len()))) else {
                return nudge(buf, pos, &mut rng);
            };
            let Some(theirs) = follow(buf, other) else { return nudge(buf, pos, &mut rng) };
            if rng.below(2) == 0 {
                let snapshot = buf.to_vec();
                if point(buf, pos, theirs) && point(buf, other, mine) {
                    return true;
                }
                // An offset cannot point backwards: share instead, or move it.
                buf.copy_from_slice(&snapshot);
                point(buf, pos, theirs) || nudge(buf, pos, &mut rng)
            } else {
                point(buf, pos, theirs) || nudge(buf, pos, &mut rng)
            }
        }
        Site::Offset { pos } => nudge(buf, pos, &mut rng),
    }
}

/// Moves the uoffset at `pos` by a few bytes either way, or to the end of the buffer.
fn nudge(buf: &mut [u8], pos: usize, rng: &mut Rng) -> bool {
    let offset = read(buf, pos, 4);
    let v = match rng.below(5) {
        0 => offset.wrapping_add(4),
        1 => offset.wrapping_sub(4),
        2 => offset.wrapping_add(8),
        3 => buf.len().saturating_sub(pos) as u64,
        _ => offset.wrapping_add(rng.below(64) as u64),
    } & 0xFFFF_FFFF;
    write(buf, pos, 4, v);
    true
}

/// [`mutate`] for a buffer whose root is a `T`.
pub fn mutate_as<T: VerifyTable>(buf: &mut [u8], seed: u64) -> bool {
    mutate(buf, T::schema(), T::ID, seed)
}

/// Whether the fuzz targets use this mutator: yes, unless `FLATMODEL_FUZZ_BYTES_ONLY` is set
/// (to measure what it adds over libFuzzer's byte-level mutations).
pub fn enabled() -> bool {
    static ENABLED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ENABLED.get_or_init(|| std::env::var_os("FLATMODEL_FUZZ_BYTES_ONLY").is_none())
}

/// A fuzz target's mutator: for an even `seed` (and unless [`enabled`] says no), one
/// structure-aware edit of the first `size` bytes of `data` as a flatbuffer whose root is a
/// `T`; otherwise, or when that finds nothing to edit, `bytes` (libFuzzer's own mutator, given
/// `data`, `size` and `max_size`). Returns the new size.
pub fn mutate_or<T: VerifyTable>(
    data: &mut [u8],
    size: usize,
    max_size: usize,
    seed: u32,
    bytes: fn(&mut [u8], usize, usize) -> usize,
) -> usize {
    if enabled() && seed.is_multiple_of(2) {
        if let Some(used) = data.get_mut(..size) {
            if mutate_as::<T>(used, u64::from(seed)) {
                return size;
            }
        }
    }
    bytes(data, size, max_size)
}
