//! From a parsed `.fbs` ([`flat::Parsed`]) to resolved [`Types`]: names looked up through
//! namespaces, enum values and union tags numbered, struct layouts computed, table slots
//! assigned (`id` included), defaults parsed, each by flatc's rules and with flatc's refusals.
//!
//! Every loop here is over the declarations, fields or values read, and no step recurses, so
//! resolving is linear in the schema text whatever it holds (sorting aside). Names are looked up
//! and checked for repeats in hash tables that give up after a few probes, falling back on a
//! binary search or a sort: no choice of names makes it quadratic.

use super::fbs::flat::{self, Decl, Field, Kind, Lit, Parsed, Type};
use super::fbs::{SchemaError, KNOWN_ATTRIBUTES, KNOWN_ATTRIBUTE_PREFIXES};
use super::model::{
    name_key, Elem, EnumDef, FieldDef, FieldType, Inline, Member, NameAt, Names, StructDef, StructFieldDef, TableDef,
    Types, UnionDef,
};
use crate::schema::{ScalarType, ScalarValue};
use crate::verify::layout::MAX_ALIGN;
use crate::wire::{f32_from_f64, f32_from_int, f64_from_int, to_u64, to_usize};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::cmp::Ordering;

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
            if digits.len() <= 18 {
                // Most numbers: no 18 digits overflow a u64, which is quicker to build.
                let n =
                    digits.bytes().fold(0u64, |n, b| n.wrapping_mul(10).wrapping_add(u64::from(b.wrapping_sub(b'0'))));
                i128::from(n)
            } else {
                digits.parse::<i128>().ok()?
            }
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
        ScalarType::F32 => ScalarValue::f32(f32_from_int(value)),
        ScalarType::F64 => ScalarValue::f64(f64_from_int(value)),
    })
}

/// The last component of a possibly namespace-qualified name.
fn short(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// `prefix.name` (just `name` when `prefix` is empty) compared with `key`, without building it.
fn cmp_joined(prefix: &str, name: &str, key: &str) -> Ordering {
    if prefix.is_empty() {
        return name.cmp(key);
    }
    let (prefix, key) = (prefix.as_bytes(), key.as_bytes());
    let Some((head, rest)) = key.split_at_checked(prefix.len()) else {
        // `key` is shorter than `prefix`: equal as far as it goes, the joined name is longer.
        return prefix.get(..key.len()).map_or(Ordering::Greater, |p| p.cmp(key)).then(Ordering::Greater);
    };
    prefix.cmp(head).then_with(|| match rest.split_first() {
        None => Ordering::Greater,
        Some((&dot, tail)) => b'.'.cmp(&dot).then_with(|| name.as_bytes().cmp(tail)),
    })
}

/// [`name_key`] of the part of `name` after its last dot, which is the same for a name and for
/// every namespace it is looked up through (so declarations are keyed by their names alone).
fn tail_key(name: &str) -> u64 {
    let bytes = name.as_bytes();
    let after_dot = |dot: usize| name.get(dot.saturating_add(1)..).unwrap_or("");
    name_key(bytes.iter().rposition(|&b| b == b'.').map_or(name, after_dot))
}

/// The positions `0..len` of the names `name` gives, with their keys (`key` of the name, a
/// hash: finding repeats and looking names up need only some order), sorted by key, name and
/// position; most comparisons are of keys alone.
fn sort_names<'n>(len: usize, name: impl Fn(usize) -> &'n str, key: impl Fn(usize) -> u64) -> Vec<(u64, usize)> {
    let mut sorted: Vec<(u64, usize)> = (0..len).map(|i| (key(i), i)).collect();
    sorted.sort_unstable_by_key(|&(key, _)| key);
    // Names of equal keys (a few) sorted by name, then position.
    let mut rest = sorted.as_mut_slice();
    while let [(key, _), ..] = rest {
        let key = *key;
        let run = rest.iter().position(|&(k, _)| k != key).unwrap_or(rest.len());
        let (same, after) = rest.split_at_mut(run);
        if same.len() > 1 {
            same.sort_unstable_by(|&(_, i), &(_, j)| name(i).cmp(name(j)).then(i.cmp(&j)));
        }
        rest = after;
    }
    sorted
}

/// In `sorted` (from [`sort_names`]), the first position whose name repeats an earlier one's.
fn first_repeat_in<'n>(sorted: &[(u64, usize)], name: impl Fn(usize) -> &'n str) -> Option<usize> {
    let repeats = sorted.windows(2).filter_map(|w| match w {
        [(a, i), (b, j)] if a == b && name(*i) == name(*j) => Some(*j),
        _ => None,
    });
    repeats.min()
}

/// The first of the names `0..len` (by `name`, none with a dot) that repeats an earlier one: a
/// scan for a few names; for more, a hash set (each name at most [`PROBES`] slots past where its
/// key points), or a sort (n log n) when names crowd the set.
fn first_repeat<'n>(len: usize, name: impl Fn(usize) -> &'n str) -> Option<usize> {
    if len <= 12 {
        return (1..len).find(|&i| (0..i).any(|j| name(j) == name(i)));
    }
    let size = len.saturating_mul(2).next_power_of_two();
    let mask = size.wrapping_sub(1);
    // (key, position plus one); 0 for none.
    let mut set = alloc::vec![(0u64, 0usize); size];
    for i in 0..len {
        let key = name_key(name(i));
        let mut at = slot_of(key, mask);
        let mut placed = false;
        for _ in 0..PROBES {
            match set.get_mut(at) {
                Some(slot) if slot.1 == 0 => {
                    *slot = (key, i.saturating_add(1));
                    placed = true;
                    break;
                }
                Some(&mut (k, j)) if k == key && name(j.wrapping_sub(1)) == name(i) => return Some(i),
                _ => at = at.wrapping_add(1) & mask,
            }
        }
        if !placed {
            return first_repeat_in(&sort_names(len, &name, |i| name_key(name(i))), name);
        }
    }
    None
}

/// `name` with its namespace (`ns.name`), appended to `out`.
fn push_qualified(out: &mut String, namespace: &str, name: &str) {
    if !namespace.is_empty() {
        out.push_str(namespace);
        out.push('.');
    }
    out.push_str(name);
}

/// A float default written as a word (`inf`, `-nan`, `true`...), in any case.
fn float_word(word: &str) -> Option<f64> {
    let is = |words: &[&str]| words.iter().any(|w| word.eq_ignore_ascii_case(w));
    if is(&["inf", "+inf", "infinity", "+infinity"]) {
        Some(f64::INFINITY)
    } else if is(&["-inf", "-infinity"]) {
        Some(f64::NEG_INFINITY)
    } else if is(&["nan", "+nan", "-nan"]) {
        Some(f64::NAN)
    } else if is(&["true"]) {
        Some(1.0)
    } else if is(&["false"]) {
        Some(0.0)
    } else {
        None
    }
}

/// Resolves a parsed schema.
pub(crate) fn resolve(p: &Parsed<'_>) -> Result<Types, SchemaError> {
    let declared = declare(p)?;
    let qnames: Vec<&str> = declared.spans.iter().map(|&(s, e)| declared.text.get(s..e).unwrap_or("")).collect();
    let qname = |i: usize| qnames.get(i).copied().unwrap_or("");
    // Keyed as looked up, by the part after the last dot: the declared name, which has none.
    let key = |i: usize| p.decls.get(i).map_or(0, |d| name_key(p.str(d.name)));
    let sorted = sort_names(qnames.len(), qname, key);
    // A name declared twice before any other fault is the error, as it is met first.
    if let Some(at) = first_repeat_in(&sorted, qname) {
        let name = qnames.get(at).copied().unwrap_or("");
        let d = p.decls.get(at).copied().unwrap_or_default();
        return Err(SchemaError::at(p.str(d.file), d.line, d.column, format!("`{name}` is declared twice")));
    }
    if let Some(fault) = declared.fault {
        return Err(fault);
    }
    let index: Vec<_> = sorted.iter().map(|&(hash, at)| (hash, qname(at), declared.kinds.get(at).copied())).collect();
    let (slots, complete) = hash_table(&index);
    let r = Resolver { p, index, slots, complete, qnames };
    r.check_attributes()?;
    let [enums, unions, structs, tables] = declared.counts;
    let mut types = Types {
        enums: Vec::with_capacity(enums),
        unions: Vec::with_capacity(unions),
        structs: Vec::with_capacity(structs),
        tables: Vec::with_capacity(tables),
        ..Types::default()
    };
    let decls = || p.decls.iter().enumerate().map(|(i, d)| (d, r.qnames.get(i).copied().unwrap_or("")));
    // Enums first: struct fields, table fields and defaults need their values.
    for (d, name) in decls().filter(|(d, _)| d.kind == Kind::Enum) {
        r.enumeration(&mut types, d, name)?;
    }
    // Structs in declaration order: flatc requires a struct to be declared before a struct
    // holds it, so every inner layout is known when it is needed (and none can hold itself).
    for (d, name) in decls().filter(|(d, _)| d.kind == Kind::Struct) {
        r.structure(&mut types, d, name)?;
    }
    for (d, name) in decls().filter(|(d, _)| d.kind == Kind::Union) {
        r.union(&mut types, d, name)?;
    }
    for (d, name) in decls().filter(|(d, _)| d.kind == Kind::Table) {
        r.table(&mut types, d, name)?;
    }
    if let Some(root) = &p.root {
        let name = p.str(root.name);
        match r.lookup(p.str(root.namespace), name) {
            Some(Named::Table(t)) => types.root = Some(t),
            _ => {
                let message = format!("root_type `{name}` is not a table");
                return Err(SchemaError::at(p.str(root.file), root.line, root.column, message));
            }
        }
    }
    types.identifier = p.file_identifier.and_then(|id| p.str(id).as_bytes().try_into().ok());
    Ok(types)
}

/// What is wrong with `namespace`, if it passes the lookup limits.
fn namespace_fault(namespace: &str) -> Option<String> {
    let depth = namespace.split('.').count();
    (depth > MAX_NAMESPACE_DEPTH || namespace.len() > MAX_NAMESPACE_LEN)
        .then(|| format!("namespace deeper than {MAX_NAMESPACE_DEPTH} levels or longer than {MAX_NAMESPACE_LEN} bytes"))
}

/// The declarations numbered by kind, up to the first that is refused.
struct Declared {
    /// Each declaration's kind and index among its kind.
    kinds: Vec<Named>,
    /// How many of each kind: enums, unions, structs, tables.
    counts: [usize; 4],
    /// The qualified names, one after another, and each declaration's range of them.
    text: String,
    spans: Vec<(usize, usize)>,
    /// Why the declaration after the last numbered is refused, if one is.
    fault: Option<SchemaError>,
}

/// Numbers every declaration by kind, and qualifies the names of those before the first refused
/// (a namespace past the limits, a built-in name), which the caller checks for repeats.
fn declare(p: &Parsed<'_>) -> Result<Declared, SchemaError> {
    if let Some(root) = &p.root {
        if let Some(message) = namespace_fault(p.str(root.namespace)) {
            return Err(SchemaError::at(p.str(root.file), root.line, root.column, message));
        }
    }
    let mut counts = [0usize; 4];
    let mut kinds = Vec::with_capacity(p.decls.len());
    let mut fault = None;
    let mut checked_namespace = None;
    let mut length = 0usize;
    for d in &p.decls {
        let at = |message: String| Some(SchemaError::at(p.str(d.file), d.line, d.column, message));
        let namespace = p.str(d.namespace);
        // Declarations in a row share their namespace: check it once.
        if checked_namespace != Some(d.namespace) {
            if let Some(message) = namespace_fault(namespace) {
                fault = at(message);
                break;
            }
            checked_namespace = Some(d.namespace);
        }
        let (slot, make): (usize, fn(u16) -> Named) = match d.kind {
            Kind::Enum => (0, Named::Enum),
            Kind::Union => (1, Named::Union),
            Kind::Struct => (2, Named::Struct),
            Kind::Table => (3, Named::Table),
        };
        let Some(count) = counts.get_mut(slot) else { break };
        let Ok(index) = u16::try_from(*count) else {
            fault = at("more than 65535 declarations of one kind".to_string());
            break;
        };
        *count = count.saturating_add(1);
        let name = p.str(d.name);
        if scalar(name).is_some() || name == "string" {
            fault = at(format!("the type name `{name}` is a built-in type"));
            break;
        }
        kinds.push(make(index));
        length = length.saturating_add(namespace.len()).saturating_add(name.len()).saturating_add(1);
    }
    let mut text = String::with_capacity(length);
    let mut spans = Vec::with_capacity(kinds.len());
    for d in p.decls.iter().take(kinds.len()) {
        let start = text.len();
        push_qualified(&mut text, p.str(d.namespace), p.str(d.name));
        spans.push((start, text.len()));
    }
    Ok(Declared { kinds, counts, text, spans, fault })
}

struct Resolver<'a> {
    p: &'a Parsed<'a>,
    /// Every declaration's qualified name with its key ([`tail_key`]), sorted by both, and
    /// what it names.
    index: Vec<(u64, &'a str, Option<Named>)>,
    /// The same in a hash table: positions in `index` plus one (0 for none), each at most
    /// [`PROBES`] slots past where its key points. The table answers most lookups at once;
    /// the sorted index the rest, so that no lookup takes more than a logarithm whatever the
    /// names.
    slots: Vec<u32>,
    /// Whether every declaration found a slot (so a name not in its slots is not declared).
    complete: bool,
    /// Each declaration's qualified name, by declaration number.
    qnames: Vec<&'a str>,
}

/// How many slots past its own a name may be put in [`Resolver::slots`].
const PROBES: usize = 8;

/// The slot a hash `key` starts probing at, in a table of `mask + 1` slots (a power of two): the
/// key's low bits.
fn slot_of(key: u64, mask: usize) -> usize {
    usize::try_from(key & to_u64(mask)).unwrap_or(0)
}

/// What the hash table says of a name.
enum Probe {
    Found(Option<Named>),
    Absent,
    Unsure,
}

/// The hash table of `index` (see [`Resolver::slots`]), and whether all of it is in.
fn hash_table(index: &[(u64, &str, Option<Named>)]) -> (Vec<u32>, bool) {
    let size = index.len().saturating_mul(2).max(8).next_power_of_two();
    let mask = size.wrapping_sub(1);
    let mut slots = alloc::vec![0u32; size];
    let mut complete = true;
    for (i, &(key, _, _)) in index.iter().enumerate() {
        let Ok(entry) = u32::try_from(i.saturating_add(1)) else {
            complete = false;
            break;
        };
        let mut at = slot_of(key, mask);
        let placed = (0..PROBES).any(|_| match slots.get_mut(at) {
            Some(slot) if *slot == 0 => {
                *slot = entry;
                true
            }
            _ => {
                at = at.wrapping_add(1) & mask;
                false
            }
        });
        complete &= placed;
    }
    (slots, complete)
}

impl<'a> Resolver<'a> {
    fn err<T>(&self, d: &Decl, line: usize, column: usize, message: impl Into<String>) -> Result<T, SchemaError> {
        Err(SchemaError::at(self.p.str(d.file), line, column, message))
    }

    /// Every attribute is one flatc knows or one declared with `attribute`.
    fn check_attributes(&self) -> Result<(), SchemaError> {
        let p = self.p;
        let mut declared: Vec<&str> = p.user_attributes.iter().map(|&a| p.str(a)).collect();
        declared.sort_unstable();
        let known = |name: &str| {
            KNOWN_ATTRIBUTES.contains(&name)
                || KNOWN_ATTRIBUTE_PREFIXES.iter().any(|prefix| name.starts_with(prefix))
                || declared.binary_search(&name).is_ok()
        };
        for d in &p.decls {
            // The declaration's attributes, then its items', as they were read.
            for a in p.attrs(d.all_attrs) {
                let name = p.str(a.name);
                if !known(name) {
                    let message = format!("user define attributes must be declared before use: {name}");
                    return self.err(d, a.line, a.column, message);
                }
            }
        }
        Ok(())
    }

    /// What `name`, written in `namespace`, refers to: the innermost enclosing namespace's
    /// declaration of that name first, as flatc looks names up.
    fn lookup(&self, namespace: &str, name: &str) -> Option<Named> {
        let h = tail_key(name);
        let mut ns = namespace;
        loop {
            match self.probe(h, ns, name) {
                Probe::Found(found) => return found,
                Probe::Absent => {}
                Probe::Unsure => return self.lookup_sorted(h, namespace, name),
            }
            if ns.is_empty() {
                return None;
            }
            ns = ns.rfind('.').and_then(|i| ns.get(..i)).unwrap_or("");
        }
    }

    /// What the hash table says of `prefix.name` (whose [`tail_key`] is `key`).
    fn probe(&self, key: u64, prefix: &str, name: &str) -> Probe {
        let mask = self.slots.len().wrapping_sub(1);
        let mut at = slot_of(key, mask);
        for _ in 0..PROBES {
            match self.slots.get(at).copied() {
                Some(0) | None => return if self.complete { Probe::Absent } else { Probe::Unsure },
                Some(entry) => {
                    let found = self.index.get(to_usize(entry).wrapping_sub(1));
                    if let Some(&(k, qualified, named)) = found {
                        if k == key && cmp_joined(prefix, name, qualified) == Ordering::Equal {
                            return Probe::Found(named);
                        }
                    }
                }
            }
            at = at.wrapping_add(1) & mask;
        }
        Probe::Unsure
    }

    /// [`Resolver::lookup`] by binary search in the sorted index (`key` the name's
    /// [`tail_key`]).
    fn lookup_sorted(&self, h: u64, namespace: &str, name: &str) -> Option<Named> {
        let mut ns = namespace;
        loop {
            let probe = |&(key_hash, key, _): &(u64, &str, _)| {
                key_hash.cmp(&h).then_with(|| cmp_joined(ns, name, key).reverse())
            };
            if let Ok(at) = self.index.binary_search_by(probe) {
                return self.index.get(at).and_then(|&(_, _, found)| found);
            }
            if ns.is_empty() {
                return None;
            }
            ns = ns.rfind('.').and_then(|i| ns.get(..i)).unwrap_or("");
        }
    }

    /// Adds the enum `d` (named `qualified`) to `types`. (The definitions are put in place
    /// rather than returned: a large result written and then read back whole stalls.)
    fn enumeration(&self, types: &mut Types, d: &Decl, qualified: &str) -> Result<(), SchemaError> {
        let p = self.p;
        let repr = match d.repr.map(|r| scalar(p.str(r))) {
            Some(Some(ty)) if int_range(ty).is_some() && ty != ScalarType::Bool => ty,
            Some(_) => return self.err(d, d.line, d.column, "underlying enum type must be integral"),
            None => return self.err(d, d.line, d.column, "must specify the underlying integer type for an enum"),
        };
        let bit_flags = p.attr(d.attrs, "bit_flags").is_some();
        let (min, max) = int_range(repr).unwrap_or((0, 0));
        let bits = i128::try_from(repr.size().saturating_mul(8)).unwrap_or(0);
        let values = p.values(d.items);
        // Sorted by name once: for repeats, and as the enum's index by name.
        let name_of = |i: usize| values.get(i).map_or("", |v| p.str(v.name));
        let by_name = sort_names(values.len(), name_of, |i| name_key(name_of(i)));
        let repeat = first_repeat_in(&by_name, name_of);
        let mut out: Vec<(i64, NameAt)> = Vec::with_capacity(values.len());
        let mut names = Names::with_capacity(values.iter().fold(0usize, |n, v| n.saturating_add(v.name.len())));
        let mut next: i128 = 0;
        for (i, v) in values.iter().enumerate() {
            let name = p.str(v.name);
            let raw = match v.value {
                None => next,
                Some(Lit::Num(s)) => match parse_int(p.str(s)) {
                    Some(n) => n,
                    None => {
                        return self.err(d, v.line, v.column, format!("enum value `{}` is not an integer", p.str(s)))
                    }
                },
                Some(other) => {
                    let message = format!("enum value must be a number, not {:?}", p.value(other));
                    return self.err(d, v.line, v.column, message);
                }
            };
            next = raw.saturating_add(1);
            let value = if bit_flags {
                if raw < 0 || raw >= bits {
                    return self.err(d, v.line, v.column, format!("bit flag out of range of underlying type: {raw}"));
                }
                1i128.checked_shl(u32::try_from(raw).unwrap_or(0)).unwrap_or(0)
            } else {
                raw
            };
            if value < min || value > max {
                return self.err(d, v.line, v.column, format!("enum value does not fit: {name} = {value}"));
            }
            if repeat == Some(i) {
                return self.err(d, v.line, v.column, format!("enum value already exists: {name}"));
            }
            // Values of a `ulong` enum past `i64::MAX` keep their bits.
            let stored = i64::try_from(value).unwrap_or_else(|_| u64::try_from(value).map_or(0, u64::cast_signed));
            out.push((stored, names.push(name)));
        }
        if out.is_empty() {
            return self.err(d, d.line, d.column, format!("enum `{}` has no values", p.str(d.name)));
        }
        let by_name = by_name.iter().map(|&(_, i)| u32::try_from(i).unwrap_or(u32::MAX)).collect();
        types.enums.push(EnumDef::with_names_sorted(qualified.to_string(), repr, names, out, bit_flags, by_name));
        Ok(())
    }

    /// The inline type (scalar, enum or struct) named `name` in a struct of `d`.
    fn inline_type(&self, types: &Types, d: &Decl, f: &Field, name: &str) -> Result<Inline, SchemaError> {
        if let Some(s) = scalar(name) {
            return Ok(Inline::Scalar(s));
        }
        match self.lookup(self.p.str(d.namespace), name) {
            Some(Named::Enum(e)) => Ok(Inline::Enum(e)),
            // Only structs declared earlier have a layout yet, as flatc requires.
            Some(Named::Struct(s)) if usize::from(s) < types.structs.len() => Ok(Inline::Struct(s)),
            Some(Named::Struct(_)) => {
                self.err(d, f.line, f.column, format!("struct `{name}` must be declared before a struct holds it"))
            }
            _ => self.err(d, f.line, f.column, "structs may contain only scalar or struct fields"),
        }
    }

    /// Adds the struct `d` (named `qualified`) to `types`.
    fn structure(&self, types: &mut Types, d: &Decl, qualified: &str) -> Result<(), SchemaError> {
        let p = self.p;
        let fields = p.fields(d.items);
        let repeat = first_repeat(fields.len(), |i| fields.get(i).map_or("", |f| p.str(f.name)));
        let mut out = Vec::with_capacity(fields.len());
        let (mut offset, mut align) = (0u64, 1u64);
        for (i, f) in fields.iter().enumerate() {
            if p.attr(f.attrs, "deprecated").is_some() {
                return self.err(d, f.line, f.column, "can't deprecate fields in a struct");
            }
            if f.default.is_some() {
                return self.err(d, f.line, f.column, "default values are not supported for struct fields");
            }
            if repeat == Some(i) {
                return self.err(d, f.line, f.column, format!("field already exists: {}", p.str(f.name)));
            }
            let (ty, array) = match f.ty {
                Type::Named(name) => (self.inline_type(types, d, f, p.str(name))?, None),
                Type::Array(name, n) => (self.inline_type(types, d, f, p.str(name))?, Some(n)),
                Type::Vector(_) => {
                    return self.err(d, f.line, f.column, "structs may contain only scalar or struct fields")
                }
            };
            if let Inline::Enum(e) = ty {
                let zero_named = types.enums.get(usize::from(e)).is_some_and(|e| e.names(0));
                let flags = types.enums.get(usize::from(e)).is_some_and(|e| e.bit_flags);
                if !zero_named && !flags {
                    let name = types.enums.get(usize::from(e)).map_or("", |e| e.name.as_str());
                    return self.err(
                        d,
                        f.line,
                        f.column,
                        format!("default value of `0` for field `{}` is not part of enum `{name}`", p.str(f.name)),
                    );
                }
            }
            let (size, falign) = types.inline_size(ty);
            let (size, falign) = (u64::from(size), u64::from(falign).max(1));
            offset = offset.div_ceil(falign).saturating_mul(falign);
            let total = size.saturating_mul(array.unwrap_or(1));
            out.push(StructFieldDef {
                name: p.str(f.name).to_string(),
                offset: u32::try_from(offset).unwrap_or(u32::MAX),
                ty,
                array: array.and_then(|n| u32::try_from(n).ok()),
            });
            offset = offset.saturating_add(total);
            align = align.max(falign);
        }
        if out.is_empty() {
            return self.err(d, d.line, d.column, "size 0 structs not allowed");
        }
        if let Some(a) = p.attr(d.attrs, "force_align") {
            let n = match a.value {
                Some(Lit::Num(s)) => parse_int(p.str(s)).and_then(|n| u64::try_from(n).ok()),
                _ => None,
            };
            match n {
                Some(n) if n.is_power_of_two() && n >= align && n <= to_u64(MAX_ALIGN) => align = n,
                _ => {
                    return self.err(
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
            return self.err(d, d.line, d.column, format!("struct `{}` is larger than 65535 bytes", p.str(d.name)));
        };
        types.structs.push(StructDef {
            name: qualified.to_string(),
            size: u32::from(size),
            align: u32::try_from(align).unwrap_or(1),
            fields: out,
        });
        Ok(())
    }

    /// Adds the union `d` (named `qualified`) to `types`.
    fn union(&self, types: &mut Types, d: &Decl, qualified: &str) -> Result<(), SchemaError> {
        let members = self.p.members(d.items);
        let mut out: Vec<(u8, NameAt, Member)> = Vec::with_capacity(members.len());
        let length = members.iter().fold(0usize, |n, m| n.saturating_add(m.alias.unwrap_or(m.ty).len()));
        let mut names = Names::with_capacity(length);
        let mut tags = [false; 256];
        let mut next: i128 = 1;
        let mut fault = None;
        for m in members {
            match self.member(d, m, &mut next, &mut tags, &mut names) {
                Ok(member) => out.push(member),
                Err(e) => {
                    fault = Some(e);
                    break;
                }
            }
        }
        // A name repeated before the first other fault is the error, as it is met first.
        let name_of = |i: usize| out.get(i).map_or("", |&(_, name, _)| names.get(name));
        if let Some(at) = first_repeat(out.len(), name_of) {
            let name = name_of(at);
            let (line, column) = members.get(at).map_or((d.line, d.column), |m| (m.line, m.column));
            return self.err(d, line, column, format!("enum value already exists: {name}"));
        }
        if let Some(fault) = fault {
            return Err(fault);
        }
        types.unions.push(UnionDef { name: qualified.to_string(), member_names: names, members: out });
        Ok(())
    }

    /// A union member: its tag (after `next`, unless given, and not in `tags`), name (added
    /// to `names`) and type.
    fn member(
        &self,
        d: &Decl,
        m: &flat::Member,
        next: &mut i128,
        tags: &mut [bool; 256],
        names: &mut Names,
    ) -> Result<(u8, NameAt, Member), SchemaError> {
        let p = self.p;
        let ty = p.str(m.ty);
        let member = if ty == "string" {
            Member::String
        } else {
            match self.lookup(p.str(d.namespace), ty) {
                Some(Named::Table(t)) => Member::Table(t),
                Some(Named::Struct(s)) => Member::Struct(s),
                _ => {
                    let message = format!("type referenced but not defined (check namespace): {ty}");
                    return self.err(d, m.line, m.column, message);
                }
            }
        };
        let name = match (m.alias, member) {
            (Some(alias), _) => names.push(p.str(alias)),
            (None, Member::Table(_)) => names.push_undotted(ty),
            (None, _) => return self.err(d, m.line, m.column, "union members of structs and strings need an alias"),
        };
        let tag = match m.value {
            None => *next,
            Some(Lit::Num(s)) => match parse_int(p.str(s)) {
                Some(n) => n,
                None => return self.err(d, m.line, m.column, format!("union tag `{}` is not an integer", p.str(s))),
            },
            Some(other) => {
                let message = format!("union tag must be a number, not {:?}", p.value(other));
                return self.err(d, m.line, m.column, message);
            }
        };
        *next = tag.saturating_add(1);
        let Some(tag) = u8::try_from(tag).ok().filter(|&t| t >= 1) else {
            return self.err(d, m.line, m.column, format!("union tag {tag} is not in 1..=255"));
        };
        match tags.get_mut(usize::from(tag)) {
            Some(taken) if !*taken => *taken = true,
            _ => return self.err(d, m.line, m.column, format!("enum value already exists: {tag}")),
        }
        if names.get(name) == "NONE" {
            return self.err(d, m.line, m.column, "enum value already exists: NONE");
        }
        Ok((tag, name, member))
    }

    /// The error for a default `v` of field `f` of `d` not of the field's type.
    #[cold]
    fn bad_default<T>(&self, d: &Decl, f: &Field, v: Lit) -> Result<T, SchemaError> {
        let message = format!("default {:?} is not a valid value of the field's type", self.p.value(v));
        self.err(d, f.line, f.column, message)
    }

    /// The default of a scalar field of type `ty` (an enum's underlying type for enums).
    /// (Inlined in its one caller: a small result returned through memory and read back at
    /// once stalls the processor.)
    #[inline(always)]
    fn scalar_default(
        &self,
        types: &Types,
        d: &Decl,
        f: &Field,
        ty: ScalarType,
        enumeration: Option<u16>,
    ) -> Result<Option<ScalarValue>, SchemaError> {
        let p = self.p;
        let Some(v) = f.default else {
            if let Some(e) = enumeration.and_then(|e| types.enums.get(usize::from(e))) {
                if !e.bit_flags && !e.names(0) {
                    return self.err(
                        d,
                        f.line,
                        f.column,
                        format!("default value of `0` for field `{}` is not part of enum `{}`", p.str(f.name), e.name),
                    );
                }
            }
            return Ok(scalar_value(ty, 0));
        };
        if matches!(v, Lit::Ident(s) if p.str(s) == "null") {
            if p.attr(f.attrs, "required").is_some() {
                return self.err(d, f.line, f.column, "only non-scalar fields in tables may be 'required'");
            }
            return Ok(None);
        }
        if let Some(e) = enumeration.and_then(|e| types.enums.get(usize::from(e))) {
            let by_name = |name: &str| -> Option<i128> {
                let name = name.strip_prefix(short(&e.name)).and_then(|n| n.strip_prefix('.')).unwrap_or(name);
                e.value_of(short(name)).map(i128::from)
            };
            let n = match v {
                Lit::Num(s) => parse_int(p.str(s)),
                Lit::Ident(s) => by_name(p.str(s)),
                Lit::Str(s) if e.bit_flags => {
                    let mut n: Option<i128> = Some(0);
                    for name in p.str(s).split_whitespace() {
                        n = n.zip(by_name(name)).map(|(a, b)| a | b);
                    }
                    n
                }
                Lit::Str(s) => by_name(p.str(s)),
            };
            let Some(n) = n else { return self.bad_default(d, f, v) };
            // A ulong enum's values past i64::MAX are stored by their bits.
            let n = if ty == ScalarType::U64 && n < 0 { n.saturating_add(1i128 << 64) } else { n };
            // (A `ulong` enum's values past `i64::MAX` are stored by their bits.)
            let stored = i64::try_from(n).ok().or_else(|| u64::try_from(n).ok().map(u64::cast_signed));
            if !e.bit_flags && !stored.is_some_and(|v| e.names(v)) {
                return self.err(
                    d,
                    f.line,
                    f.column,
                    format!("default value of `{n}` for field `{}` is not part of enum `{}`", p.str(f.name), e.name),
                );
            }
            return match scalar_value(ty, n) {
                Some(x) => Ok(Some(x)),
                None => self.bad_default(d, f, v),
            };
        }
        match ty {
            ScalarType::F32 | ScalarType::F64 => {
                let x = match v {
                    Lit::Num(s) => {
                        let s = p.str(s);
                        s.parse::<f64>().ok().or_else(|| parse_int(s).map(f64_from_int))
                    }
                    Lit::Ident(s) => float_word(p.str(s)),
                    Lit::Str(_) => None,
                };
                let Some(x) = x else { return self.bad_default(d, f, v) };
                Ok(Some(if ty == ScalarType::F32 { ScalarValue::f32(f32_from_f64(x)) } else { ScalarValue::f64(x) }))
            }
            _ => {
                let n = match v {
                    Lit::Num(s) => parse_int(p.str(s)),
                    Lit::Ident(s) if p.str(s) == "true" => Some(1),
                    Lit::Ident(s) if p.str(s) == "false" => Some(0),
                    _ => None,
                };
                match n.and_then(|n| scalar_value(ty, n)) {
                    Some(x) => Ok(Some(x)),
                    None => self.bad_default(d, f, v),
                }
            }
        }
    }

    /// Adds the table `d` (named `qualified`) to `types`.
    fn table(&self, types: &mut Types, d: &Decl, qualified: &str) -> Result<(), SchemaError> {
        let p = self.p;
        let fields = p.fields(d.items);
        // Each field's slot: by `id`, or in order; a union takes two (its type first).
        let with_id = fields.iter().filter(|f| p.attr(f.attrs, "id").is_some()).count();
        if with_id != 0 && with_id != fields.len() {
            return self.err(d, d.line, d.column, "either all fields or no fields must have an 'id' attribute");
        }
        let repeat = first_repeat(fields.len(), |i| fields.get(i).map_or("", |f| p.str(f.name)));
        let mut out: Vec<FieldDef> = Vec::with_capacity(fields.len());
        let mut next_slot: usize = 0;
        for (i, f) in fields.iter().enumerate() {
            if repeat == Some(i) {
                return self.err(d, f.line, f.column, format!("field already exists: {}", p.str(f.name)));
            }
            let (ty, scalar_ty, enumeration) = self.field_type(types, d, f)?;
            let is_union = matches!(ty, FieldType::Union(_) | FieldType::UnionVector(_));
            let slot = match p.attr(f.attrs, "id") {
                Some(a) => {
                    let id = match a.value {
                        Some(Lit::Num(s)) => parse_int(p.str(s)).and_then(|n| usize::try_from(n).ok()),
                        _ => None,
                    };
                    match id {
                        Some(id) if !is_union || id >= 1 => id,
                        _ => {
                            return self.err(
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
                return self.err(
                    d,
                    f.line,
                    f.column,
                    format!("field slot {slot}: tables of more than {MAX_SLOTS} slots are not supported"),
                );
            }
            let required = p.attr(f.attrs, "required").is_some();
            if required && scalar_ty.is_some() {
                return self.err(d, f.line, f.column, "only non-scalar fields in tables may be 'required'");
            }
            let default = match scalar_ty {
                Some(st) => self.scalar_default(types, d, f, st, enumeration)?,
                None if f.default.is_some() => {
                    return self.err(d, f.line, f.column, "default values are only supported for scalar fields")
                }
                None => None,
            };
            let force_align = match p.attr(f.attrs, "force_align") {
                None => 0,
                Some(a) => {
                    let n = match a.value {
                        Some(Lit::Num(s)) => parse_int(p.str(s)).and_then(|n| u16::try_from(n).ok()),
                        _ => None,
                    };
                    match (n, ty) {
                        (Some(n), FieldType::Vector(_) | FieldType::Nested(_))
                            if n.is_power_of_two() && usize::from(n) <= MAX_ALIGN =>
                        {
                            n
                        }
                        _ => {
                            return self.err(
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
                name: p.str(f.name).to_string(),
                slot: u16::try_from(slot).unwrap_or(u16::MAX),
                ty,
                default,
                required,
                deprecated: p.attr(f.attrs, "deprecated").is_some(),
                key: p.attr(f.attrs, "key").is_some(),
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
                        return self.err(
                            d,
                            f.line,
                            f.column,
                            format!("field id {slot} is set twice (field `{}`)", p.str(f.name)),
                        )
                    }
                }
            }
        }
        if with_id != 0 {
            let count = used.iter().filter(|&&u| u).count();
            if let Some(gap) = used.iter().take(count).position(|&u| !u) {
                return self.err(
                    d,
                    d.line,
                    d.column,
                    format!("field id's must be consecutive from 0, id {gap} missing"),
                );
            }
        }
        // Slots are mostly in field order already (always, without ids).
        if !out.is_sorted_by_key(|f| f.slot) {
            out.sort_by_key(|f| f.slot);
        }
        types.tables.push(TableDef { name: qualified.to_string(), fields: out });
        Ok(())
    }

    /// A table field's type, its scalar type (for scalars and enums), and its enum.
    #[inline(always)]
    fn field_type(
        &self,
        types: &Types,
        d: &Decl,
        f: &Field,
    ) -> Result<(FieldType, Option<ScalarType>, Option<u16>), SchemaError> {
        let p = self.p;
        let undefined = |name: &str| {
            self.err(d, f.line, f.column, format!("type referenced but not defined (check namespace): {name}"))
        };
        let named = |name: &str| self.lookup(p.str(d.namespace), name);
        match f.ty {
            Type::Named(name) => {
                let name = p.str(name);
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
            Type::Array(..) => self.err(d, f.line, f.column, "fixed-length array in table must be wrapped in struct"),
            Type::Vector(name) => {
                let name = p.str(name);
                if let Some(nested) = p.attr(f.attrs, "nested_flatbuffer") {
                    let root = match nested.value {
                        Some(Lit::Str(s) | Lit::Ident(s)) => named(p.str(s)),
                        _ => None,
                    };
                    return match (scalar(name), root) {
                        (Some(ScalarType::U8), Some(Named::Table(t))) => Ok((FieldType::Nested(t), None, None)),
                        (Some(ScalarType::U8), _) => {
                            self.err(d, nested.line, nested.column, "nested_flatbuffer attribute must name a table")
                        }
                        _ => self.err(
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
