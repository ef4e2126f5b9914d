//! The bodies of the run-time schema targets, `schema_text` ([`text`]) and `schema_bfbs`
//! ([`bfbs`]): a schema read from arbitrary bytes (`.fbs` text through
//! [`Schema::from_fbs`], or flatc's binary schema through [`Schema::from_bfbs`]) and, when it
//! loads, buffers verified against it, dumped and walked through the dynamic views.
//!
//! # `schema_text`'s input
//!
//! ```text
//! FILE0 [0x01 FILE1 [0x01 FILE2 ...]] [0x00 BUFFER]
//! ```
//!
//! The input is split at its first NUL byte: before it the schema files, after it the buffer
//! (empty when there is no NUL). The schema part is split at each `0x01` byte into files, each
//! read as lossy UTF-8. The loader serves `main.fbs` (the main file) and `a.fbs` as FILE0, so
//! `include "a.fbs";` reads the main text again under another name and `include "main.fbs";` is a
//! cycle; any other name gets the next file in turn (the first other name FILE1, the next FILE2,
//! ..., wrapping around to FILE0), the same file whenever the same name is asked for again. A file
//! that includes a name in a directory (`include "d/a.fbs";`) includes `d/d/a.fbs` when read as
//! `d/a.fbs`, and so on: an include chain as deep as the library allows. The loader refuses once
//! it has served 16 times the input's length plus 64 KiB, so the work stays linear in the input.
//! [`text_input`] builds such an input.
//!
//! When the schema loads, the buffer is verified as its `root_type` (with its `file_identifier`,
//! and without when it has one) and as each of its first [`TABLES`] tables (without), and each
//! table that verifies is dumped into a counting sink and walked: every field of every table by
//! name, every element of every vector, every field of every struct, every union's value. The
//! walk visits at most 64 values per input byte (plus 4096) in all, so it stays linear in the
//! input whatever the sharing.
//!
//! # `schema_bfbs`'s input
//!
//! The input itself. It is first verified as flatc's reflection schema ([`REFLECTION_FBS`],
//! read through [`Schema::from_fbs_text`]: the run-time schemas verifying real binary schemas),
//! dumped and walked; its `objects` name the structs' fields for the walk below. Then,
//! when [`Schema::from_bfbs`] loads it, two buffers are verified against it as above: an empty
//! table (with the schema's file identifier) and the input itself.
//!
//! Neither may panic. The fuzz build enables debug assertions, so a read through a view that
//! fails on bytes the verifier accepted panics too (`flatmodel::wire::broken`).

use crate::rng::Rng;
use flatmodel::dump::DumpError;
use flatmodel::reflect::{fbs, DynTable, DynValue, Schema, TableId};
use flatmodel::verify::Options;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::OnceLock;

/// Separates the schema files of a `schema_text` input.
pub const FILE_SEPARATOR: u8 = 0x01;

/// Separates a `schema_text` input's schema files from its buffer.
pub const BUFFER_SEPARATOR: u8 = 0x00;

/// How many tables (besides the root) a buffer is verified as.
pub const TABLES: usize = 4;

/// Values walked per input byte, at most.
const VALUES_PER_BYTE: usize = 64;

/// flatc's reflection schema: the one flatmodel's own binary-schema reader verifies a `.bfbs`
/// against (`src/reflect/reflection.fbs`).
pub const REFLECTION_FBS: &str = include_str!("../../src/reflect/reflection.fbs");

/// What one run of a schema target did: counts that must be the same on every run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Run {
    /// Buffers that verified (each buffer once per table type it was verified as).
    pub verified: u32,
    /// Buffers refused.
    pub refused: u32,
    /// Values walked through the views.
    pub values: u64,
    /// Bytes the dumps wrote.
    pub dumped: u64,
}

/// A `fmt::Write` that only counts, so dumps and error texts run without allocating.
struct Sink(u64);

impl std::fmt::Write for Sink {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0 = self.0.wrapping_add(s.len() as u64);
        Ok(())
    }
}

/// Builds a `schema_text` input: `files` joined by [`FILE_SEPARATOR`], then
/// [`BUFFER_SEPARATOR`] and `buffer`. The files must hold neither separator.
pub fn text_input(files: &[&[u8]], buffer: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, f) in files.iter().enumerate() {
        if i > 0 {
            out.push(FILE_SEPARATOR);
        }
        out.extend_from_slice(f);
    }
    out.push(BUFFER_SEPARATOR);
    out.extend_from_slice(buffer);
    out
}

/// A `schema_text` input's schema files (at least one) and its buffer.
pub fn split_text(data: &[u8]) -> (Vec<String>, &[u8]) {
    let (schema, buffer) = match data.iter().position(|&b| b == BUFFER_SEPARATOR) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &[][..]),
    };
    let files = schema.split(|&b| b == FILE_SEPARATOR).map(|f| String::from_utf8_lossy(f).into_owned()).collect();
    (files, buffer)
}

/// The loader over a `schema_text` input's files (see the module's documentation).
struct Files<'a> {
    files: &'a [String],
    /// The names other than `main.fbs` and `a.fbs` asked for, in order.
    names: Vec<String>,
    /// Bytes served so far, and the most that may be.
    served: usize,
    budget: usize,
}

impl<'a> Files<'a> {
    fn new(files: &'a [String], input_len: usize) -> Self {
        Files { files, names: Vec::new(), served: 0, budget: input_len.saturating_mul(16).saturating_add(1 << 16) }
    }

    fn load(&mut self, name: &str) -> Result<String, String> {
        let index = if name == "main.fbs" || name == "a.fbs" {
            0
        } else {
            let k = match self.names.iter().position(|n| n == name) {
                Some(k) => k,
                None => {
                    self.names.push(name.to_string());
                    self.names.len() - 1
                }
            };
            (k + 1) % self.files.len().max(1)
        };
        let text = self.files.get(index).map_or("", |f| f.as_str());
        self.served = self.served.saturating_add(text.len());
        if self.served > self.budget {
            return Err(format!("cannot read {name}: the fuzz loader's budget is spent"));
        }
        Ok(text.to_string())
    }
}

/// What a walk needs and the views do not give: each struct's field names, by the struct's
/// qualified name.
#[derive(Default)]
struct Names {
    struct_fields: BTreeMap<String, Vec<String>>,
}

fn qualified(namespace: &str, name: &str) -> String {
    if namespace.is_empty() {
        name.to_string()
    } else {
        format!("{namespace}.{name}")
    }
}

impl Names {
    /// From a parsed `.fbs`.
    fn from_fbs(parsed: &fbs::Schema) -> Self {
        let mut names = Names::default();
        for d in &parsed.decls {
            if let fbs::Body::Struct { fields } = &d.body {
                let fields = fields.iter().map(|f| f.name.clone()).collect();
                names.struct_fields.insert(qualified(&d.namespace, &d.name), fields);
            }
        }
        names
    }

    /// From a binary schema verified as reflection's `Schema`: its `objects` that are structs.
    /// Reads at most `budget` names.
    fn from_reflection(schema: DynTable<'_, '_>, budget: &mut usize) -> Self {
        let mut names = Names::default();
        let Some(DynValue::Vector(objects)) = schema.get("objects") else { return names };
        for object in objects.iter() {
            let DynValue::Table(object) = object else { continue };
            if !charge(budget, 1) {
                break;
            }
            if object.get("is_struct").and_then(|v| v.as_i64()) != Some(1) {
                continue;
            }
            if let Some(name) = object.get("name").as_ref().and_then(|n| n.as_str()).map(str::to_string) {
                let mut fields = Vec::new();
                if let Some(DynValue::Vector(list)) = object.get("fields") {
                    for field in list.iter() {
                        if !charge(budget, 1) {
                            break;
                        }
                        if let DynValue::Table(field) = field {
                            if let Some(n) = field.get("name").as_ref().and_then(|n| n.as_str()) {
                                fields.push(n.to_string());
                            }
                        }
                    }
                }
                names.struct_fields.insert(name, fields);
            }
        }
        names
    }
}

/// Takes `units` from `budget`; false (and nothing taken) when it has fewer.
fn charge(budget: &mut usize, units: usize) -> bool {
    match budget.checked_sub(units) {
        Some(left) => {
            *budget = left;
            true
        }
        None => false,
    }
}

/// Walks everything reachable from `table` through the views, within `budget` values (a value
/// is charged when it is queued). Returns how many values it visited. The walk keeps its own
/// stack, so nesting costs no call depth (structs nest as deep as a schema declares them).
fn walk(table: DynTable<'_, '_>, names: &Names, budget: &mut usize) -> u64 {
    let mut visited = 0u64;
    let mut stack = Vec::new();
    if charge(budget, 1) {
        stack.push(DynValue::Table(table));
    }
    while let Some(value) = stack.pop() {
        visited += 1;
        let _ = (value.as_i64(), value.as_f64(), value.as_str());
        match value {
            DynValue::Scalar(_) => {}
            DynValue::Enum(_, name) => {
                let _ = name.map(str::len);
            }
            DynValue::String(s) => {
                let _ = s.len();
            }
            DynValue::Table(t) => {
                let _ = (t.type_name(), t.position());
                debug_assert!(t.get("\0 no such field").is_none(), "a field the schema does not have");
                for name in t.field_names() {
                    if !charge(budget, 1) {
                        return visited;
                    }
                    if let Some(v) = t.get(name) {
                        stack.push(v);
                    }
                }
            }
            DynValue::Struct(s) => {
                let _ = s.bytes().len();
                if let Some(fields) = names.struct_fields.get(s.type_name()) {
                    for name in fields {
                        if !charge(budget, 1) {
                            return visited;
                        }
                        if let Some(v) = s.get(name) {
                            stack.push(v);
                        }
                    }
                }
            }
            DynValue::Vector(v) => {
                let len = v.len();
                debug_assert_eq!(v.is_empty(), len == 0);
                for i in 0..len {
                    if !charge(budget, 1) {
                        return visited;
                    }
                    let element = v.get(i);
                    debug_assert!(element.is_some(), "element {i} of a verified vector of {len} must read");
                    stack.extend(element);
                }
                debug_assert!(v.get(len).is_none(), "an element past the end");
            }
            DynValue::Union(u) => {
                let _ = (u.tag, u.name);
                if let Some(member) = u.get() {
                    if charge(budget, 1) {
                        stack.push(member);
                    }
                }
            }
        }
    }
    visited
}

/// Verifies each of `buffers` as the root and as the first [`TABLES`] tables; dumps and walks
/// each table that verifies, within `budget` values in all.
fn exercise(schema: &Schema, names: &Names, buffers: &[&[u8]], budget: &mut usize, run: &mut Run) {
    let _ = (schema.counts(), schema.file_identifier());
    let options = Options::DEFAULT;
    // (table, file identifier to check): the root with and without its identifier, then the
    // first tables without.
    let mut targets: Vec<(TableId, bool)> = Vec::new();
    if let Some(root) = schema.root() {
        if schema.file_identifier().is_some() {
            targets.push((root, true));
        }
        targets.push((root, false));
    }
    for t in schema.tables().take(TABLES) {
        let _ = schema.table(schema.table_name(t));
        if !targets.contains(&(t, false)) {
            targets.push((t, false));
        }
    }
    for &(t, with_identifier) in &targets {
        let _ = schema.table_name(t);
        for buffer in buffers {
            let verified = if with_identifier {
                schema.verify(buffer, t, &options)
            } else {
                schema.verify_with(buffer, t, None, &options)
            };
            match verified {
                Err(e) => {
                    run.refused += 1;
                    let _ = write!(Sink(0), "{}", schema.error_text(&e, t));
                }
                Ok(table) => {
                    run.verified += 1;
                    let mut sink = Sink(0);
                    let dumped = schema.dump(&mut sink, table, &options);
                    debug_assert!(
                        matches!(dumped, Ok(()) | Err(DumpError::TooLarge)),
                        "the dump of a verified table: {dumped:?}"
                    );
                    run.dumped = run.dumped.wrapping_add(sink.0);
                    run.values = run.values.wrapping_add(walk(table, names, budget));
                }
            }
        }
    }
}

/// The values a run of a target on `len` input bytes may walk.
fn value_budget(len: usize) -> usize {
    len.saturating_mul(VALUES_PER_BYTE).saturating_add(4096)
}

/// `schema_text`: reads `data` as schema files and a buffer (see the module's documentation);
/// when the schema loads, verifies, dumps and walks the buffer as its root and first tables.
/// Returns what it did, or `None` if the schema does not load.
pub fn text(data: &[u8]) -> Option<Run> {
    let (files, buffer) = split_text(data);
    let mut loader = Files::new(&files, data.len());
    let schema = match Schema::from_fbs("main.fbs", &mut |name: &str| loader.load(name)) {
        Ok(schema) => schema,
        Err(e) => {
            let _ = write!(Sink(0), "{e}");
            return None;
        }
    };
    // The names the views do not give, from the same files read the same way again.
    let mut loader = Files::new(&files, data.len());
    let parsed = fbs::parse_with("main.fbs", &mut |name: &str| loader.load(name));
    debug_assert!(parsed.is_ok(), "a schema that loaded must parse again: {:?}", parsed.err());
    let names = parsed.map(|p| Names::from_fbs(&p)).unwrap_or_default();
    let mut run = Run::default();
    let mut budget = value_budget(data.len());
    exercise(&schema, &names, &[buffer], &mut budget, &mut run);
    Some(run)
}

/// flatc's reflection schema, read once.
pub fn reflection() -> &'static Schema {
    static REFLECTION: OnceLock<Schema> = OnceLock::new();
    REFLECTION.get_or_init(|| match Schema::from_fbs_text(REFLECTION_FBS) {
        Ok(schema) => schema,
        Err(e) => panic!("reflection.fbs: {e}"),
    })
}

/// An empty table (no fields), as the root of a buffer whose identifier is `identifier`.
pub fn empty_table(identifier: Option<[u8; 4]>) -> [u8; 16] {
    let mut buf = [12, 0, 0, 0, 0, 0, 0, 0, 4, 0, 4, 0, 4, 0, 0, 0];
    buf[4..8].copy_from_slice(&identifier.unwrap_or([0; 4]));
    buf
}

/// `schema_bfbs`: verifies `data` as flatc's reflection schema (dumped and walked when it
/// verifies), then reads it with [`Schema::from_bfbs`]; when that loads, verifies, dumps and
/// walks an empty table and `data` itself as its root and first tables. Returns what it did, or
/// `None` if the binary schema does not load.
pub fn bfbs(data: &[u8]) -> Option<Run> {
    let mut run = Run::default();
    let mut budget = value_budget(data.len());
    let reflection = reflection();
    let mut names = Names::default();
    if let Some(root) = reflection.root() {
        match reflection.verify(data, root, &Options::DEFAULT) {
            Ok(table) => {
                let mut sink = Sink(0);
                let dumped = reflection.dump(&mut sink, table, &Options::DEFAULT);
                debug_assert!(matches!(dumped, Ok(()) | Err(DumpError::TooLarge)), "{dumped:?}");
                run.values = walk(table, &Names::default(), &mut budget);
                names = Names::from_reflection(table, &mut budget);
            }
            Err(e) => {
                let _ = write!(Sink(0), "{}", reflection.error_text(&e, root));
            }
        }
    }
    let schema = match Schema::from_bfbs(data) {
        Ok(schema) => schema,
        Err(e) => {
            let _ = write!(Sink(0), "{e}");
            return None;
        }
    };
    let empty = empty_table(schema.file_identifier());
    exercise(&schema, &names, &[&empty, data], &mut budget, &mut run);
    Some(run)
}

// ---- seeds and a mutator, for the replay tests and the seed corpus ----------------------------

/// Tokens worth inserting into a schema (also in `fuzz/dict/schema.dict`, libFuzzer's dictionary).
pub const TOKENS: &[&str] = &[
    "table ",
    "struct ",
    "enum ",
    "union ",
    "namespace ",
    "include ",
    "root_type ",
    "file_identifier ",
    "file_extension ",
    "attribute ",
    "rpc_service ",
    "native_include ",
    "bool",
    "byte",
    "ubyte",
    "short",
    "ushort",
    "int",
    "uint",
    "long",
    "ulong",
    "float",
    "double",
    "string",
    "int8",
    "uint64",
    "float32",
    "id",
    "deprecated",
    "required",
    "key",
    "force_align",
    "bit_flags",
    "nested_flatbuffer",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ":",
    ";",
    ",",
    "=",
    ".",
    "\"",
    "\n",
    "//",
    "/*",
    "*/",
    "0",
    "1",
    "-1",
    "255",
    "256",
    "65535",
    "65536",
    "0x7fffffff",
    "-0x80000000",
    "18446744073709551615",
    "1e308",
    "nan",
    "-inf",
    "true",
    "false",
    "null",
    "include \"a.fbs\";\n",
    "include \"main.fbs\";\n",
    "include \"b.fbs\";\n",
    "include \"d/a.fbs\";\n",
    "root_type T;\n",
    "table T { a: T; }\n",
    "struct S { a: byte; }\n",
    "union U { T }\n",
    "enum E : ubyte { A, B }\n",
    "[T]",
    "[S:3]",
    "[U]",
    "(id: 0)",
    "(id: 1)",
    "(key)",
    "(required)",
    "(nested_flatbuffer: \"T\")",
    "(force_align: 16)",
    "\u{1}",
    "\0",
];

/// Applies one random edit to `data`, text-aware or byte-level: a bit flipped, a byte set, a
/// token inserted or put over a word, a span deleted, duplicated or copied over, random bytes
/// inserted, a little-endian word set (for binary schemas and buffers), a truncation.
pub fn mutate(rng: &mut Rng, data: &mut Vec<u8>) {
    let len = data.len();
    if len < 4 {
        data.push(rng.next_u64() as u8);
        return;
    }
    let at = rng.below(len);
    match rng.below(11) {
        0 => data[at] ^= 1 << rng.below(8),
        1 => data[at] = rng.pick(&[0x00, 0x01, 0xFF, 0x80, b'{', b'}', b';', b'"', b'\n', b'[', b'.']),
        2 | 3 => {
            let token = rng.pick(TOKENS).as_bytes();
            data.splice(at..at, token.iter().copied());
        }
        4 => {
            // A word (a run of identifier characters) replaced by a token or another word.
            let is_word = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_';
            let start = data[..at].iter().rposition(|b| !is_word(b)).map_or(0, |p| p + 1);
            let end = data[at..].iter().position(|b| !is_word(b)).map_or(len, |p| at + p);
            let replacement: Vec<u8> = if rng.chance(50) {
                rng.pick(TOKENS).as_bytes().to_vec()
            } else {
                let from = rng.below(len);
                let from_start = data[..from].iter().rposition(|b| !is_word(b)).map_or(0, |p| p + 1);
                let from_end = data[from..].iter().position(|b| !is_word(b)).map_or(len, |p| from + p);
                data[from_start..from_end].to_vec()
            };
            data.splice(start..end, replacement);
        }
        5 => {
            let n = 1 + rng.below((len - at).min(32));
            data.drain(at..at + n);
        }
        6 => {
            // A span (often a whole line) duplicated elsewhere.
            let (from, n) = if rng.chance(50) {
                let start = data[..at].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
                let end = data[at..].iter().position(|&b| b == b'\n').map_or(len, |p| at + p + 1);
                (start, end - start)
            } else {
                (at, 1 + rng.below((len - at).min(256)))
            };
            let chunk = data[from..from + n].to_vec();
            let to = rng.below(len + 1);
            data.splice(to..to, chunk);
        }
        7 => {
            let to = rng.below(len);
            let n = 1 + rng.below((len - at.max(to)).min(64));
            data.copy_within(at..at + n, to);
        }
        8 => {
            let n = rng.pick(&[1usize, 2, 4, 8]);
            let bytes: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
            data.splice(at..at, bytes);
        }
        9 => {
            let at = (at & !3).min(len - 4);
            let v: u32 = match rng.below(6) {
                0 => 0,
                1 => 1,
                2 => 0xFFFF_FFFF,
                3 => len as u32,
                4 => rng.pick(&[4u32, 8, 12, 16, 256, 0x8000_0000]),
                _ => u32::from_le_bytes(data[at..at + 4].try_into().unwrap_or([0; 4])).wrapping_add(4),
            };
            data[at..at + 4].copy_from_slice(&v.to_le_bytes());
        }
        _ => data.truncate(at),
    }
}

/// A file of the repository (`repo` is its root), or nothing when it cannot be read.
fn file(repo: &std::path::Path, path: &str) -> Option<Vec<u8>> {
    std::fs::read(repo.join(path)).ok()
}

/// Small schemas written for the seeds: an include of itself, a cycle of two files, an include
/// chain, unions of tables, structs and strings, fixed arrays, bit flags, a nested flatbuffer.
const SMALL_SCHEMAS: &[(&str, &str)] = &[
    (
        "self-include",
        "include \"main.fbs\";\nnamespace s;\ntable T { next: T; list: [T]; name: string; }\n\
         root_type T;\nfile_identifier \"SELF\";\n",
    ),
    // Two files (split at 0x01), each including the other.
    (
        "include-cycle",
        "include \"b.fbs\";\nnamespace c;\ntable A { b: B; }\nroot_type A;\n\u{1}\
         include \"main.fbs\";\nnamespace c;\ntable B { a: A; n: int = 7; }\n",
    ),
    ("include-chain", "include \"d/a.fbs\";\ntable T { a: int; }\nroot_type T;\n"),
    (
        "inline-types",
        "attribute \"x\";\nenum E : ubyte (bit_flags) { A, B, C = 7 }\nenum C : short { Lo = -2, Zero = 0, Hi = 300 }\n\
         struct P { a: byte; b: long; }\nstruct S (force_align: 16) { p: P; v: [short:3]; e: E; c: C; }\n\
         table L { s: string; }\nunion U { L, Ps: P, Str: string }\n\
         table T (x) { s: S; u: U; us: [U]; e: E = \"A C\"; c: C = Hi; cs: [C]; ss: [S]; strs: [string];\n\
         n: [ubyte] (nested_flatbuffer: \"T\"); o: int = null; d: double = -inf; l: [L]; }\nroot_type T;\n",
    ),
];

/// The seeds of `schema_text`, by name: each `testdata/schemas/NAME.fbs` (with the files of
/// `testdata/schemas/inc/` after it, for its includes) and its buffer `NAME.bin` (an empty table
/// when there is none), each `src/formats/*/schema.fbs` with a small buffer of its format (an
/// empty table where testdata has none), and a few small schemas (`SMALL_SCHEMAS`) with an
/// empty table. `repo` is the repository's root; files it lacks are left out.
pub fn text_seeds(repo: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let empty = empty_table(None).to_vec();
    let mut seeds = Vec::new();
    let schemas = repo.join("testdata/schemas");
    let sorted = |dir: &std::path::Path| {
        let mut paths: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "fbs"))
            .collect();
        paths.sort();
        paths
    };
    let includes: Vec<Vec<u8>> = sorted(&schemas.join("inc")).iter().filter_map(|p| std::fs::read(p).ok()).collect();
    for path in sorted(&schemas) {
        let (Some(stem), Ok(text)) = (path.file_stem(), std::fs::read(&path)) else { continue };
        let buffer = std::fs::read(path.with_extension("bin")).unwrap_or_else(|_| empty.clone());
        let mut files = vec![text.as_slice()];
        files.extend(includes.iter().map(|f| f.as_slice()));
        seeds.push((stem.to_string_lossy().into_owned(), text_input(&files, &buffer)));
    }
    let formats: &[(&str, &[&str], &str)] = &[
        ("tflite", &["src/formats/tflite/schema.fbs"], "testdata/tflite/sine_float.tflite"),
        ("circle", &["src/formats/circle/schema.fbs"], "testdata/circle/sine_float.circle"),
        (
            "circle_training",
            &["src/formats/circle_training/schema.fbs"],
            "testdata/circle_training/training.CTR0.circletr",
        ),
        (
            "tflite_metadata",
            &["src/formats/tflite_metadata/schema.fbs"],
            "testdata/tflite/mp_face_detection_short_range.TFLITE_METADATA.M001.bin",
        ),
        ("conversion_metadata", &["src/formats/conversion_metadata/schema.fbs"], ""),
        (
            "pte",
            &["src/formats/pte/schema.fbs", "src/formats/pte/scalar_type.fbs"],
            "testdata/vkgraph/et_plan_constants.pte",
        ),
        ("vkgraph", &["src/formats/vkgraph/schema.fbs"], "testdata/vkgraph/vk_mlp.delegate0.vk00.bin"),
        ("cvimodel", &["src/formats/cvimodel/schema.fbs"], ""),
        ("litertlm", &["src/formats/litertlm/schema.fbs"], "testdata/litertlm/litertlm_many_sections.metadata.bin"),
    ];
    for (name, schema_files, buffer) in formats {
        let texts: Option<Vec<Vec<u8>>> = schema_files.iter().map(|p| file(repo, p)).collect();
        let Some(texts) = texts else { continue };
        let buffer = if buffer.is_empty() { Some(empty.clone()) } else { file(repo, buffer) };
        let Some(buffer) = buffer else { continue };
        let texts: Vec<&[u8]> = texts.iter().map(|t| t.as_slice()).collect();
        seeds.push((format!("format-{name}"), text_input(&texts, &buffer)));
    }
    for (name, text) in SMALL_SCHEMAS {
        seeds.push((name.to_string(), text_input(&[text.as_bytes()], &empty)));
    }
    seeds
}

/// The seeds of `schema_bfbs`, by name: every `.bfbs` file below `testdata/` (`repo` is the
/// repository's root).
pub fn bfbs_seeds(repo: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut seeds = Vec::new();
    let mut stack = vec![repo.join("testdata")];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "bfbs") {
                if let (Some(stem), Ok(bytes)) = (path.file_stem(), std::fs::read(&path)) {
                    seeds.push((stem.to_string_lossy().into_owned(), bytes));
                }
            }
        }
    }
    seeds.sort();
    seeds
}
