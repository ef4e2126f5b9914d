//! flatc's binary schemas (`flatc -b --schema`, `.bfbs`) read by `Schema::from_bfbs`: each
//! checked-in `.bfbs` resolves as its `.fbs` does (the same declarations, fields, slots, types
//! and defaults, less what flatc leaves out of a `.bfbs`), verifies and dumps every testdata
//! file alike, refuses inconsistent indices and layouts, and never panics on corrupt bytes.

use flatbuffers::{FlatBufferBuilder, WIPOffset};
use flatmodel::dump::Dumpable;
use flatmodel::graph::ModelView;
use flatmodel::reflect::{DynValue, Schema, SchemaError};
use flatmodel::verify::Options;
use flatmodel::File;
use std::path::{Path, PathBuf};

fn root_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &str) -> Vec<u8> {
    std::fs::read(root_dir().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The schema at `path` (relative to the crate), its includes read from disk beside it.
fn from_fbs(path: &str) -> Schema {
    let dir = root_dir();
    Schema::from_fbs(path, &mut |p: &str| std::fs::read_to_string(dir.join(p)).map_err(|e| e.to_string()))
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn from_bfbs(path: &str) -> Schema {
    Schema::from_bfbs(&read(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Each schema: a name, its `.fbs`, and the `.bfbs` flatc 2.0.8 made of it without and with
/// `--bfbs-builtins` (see `testdata/schemas/bfbs/README.md`).
const SCHEMAS: [(&str, &str); 11] = [
    ("features", "testdata/schemas/features.fbs"),
    ("kinds", "testdata/schemas/bfbs/kinds.fbs"),
    ("tflite", "src/formats/tflite/schema.fbs"),
    ("circle", "src/formats/circle/schema.fbs"),
    ("circle_revision0", "src/formats/circle/revision0/schema.fbs"),
    ("pte", "src/formats/pte/schema.fbs"),
    ("vkgraph", "src/formats/vkgraph/schema.fbs"),
    ("cvimodel", "src/formats/cvimodel/schema.fbs"),
    ("tflite_metadata", "src/formats/tflite_metadata/schema.fbs"),
    ("conversion_metadata", "src/formats/conversion_metadata/schema.fbs"),
    ("circle_training", "src/formats/circle_training/schema.fbs"),
];

fn plain_bfbs(name: &str) -> String {
    if name == "features" {
        "testdata/schemas/features.bfbs".into()
    } else {
        format!("testdata/schemas/bfbs/{name}.bfbs")
    }
}

fn builtins_bfbs(name: &str) -> String {
    format!("testdata/schemas/bfbs/{name}.builtins.bfbs")
}

/// flatc 2.0.8 writes a `ulong` default above `i64::MAX` as 0 (it reads the default as an
/// `i64`, and a number past that range as 0): features.fbs's `big`, kinds.fbs's `flags`.
fn without_big_ulong_defaults(canonical: &str) -> String {
    let mut out = String::new();
    for line in canonical.lines() {
        let mut line = line.to_owned();
        if let Some(at) = line.find("= u64(") {
            let start = at + "= u64(".len();
            let end = line[start..].find(')').map_or(line.len(), |e| start + e);
            if line[start..end].parse::<u64>().is_ok_and(|n| i64::try_from(n).is_err()) {
                line.replace_range(start..end, "0");
            }
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// `canonical` less the built-in attributes flatc leaves out of a `.bfbs` without
/// `--bfbs-builtins`: `bit_flags`, `nested_flatbuffer` and a vector's `force_align`.
fn without_builtins(canonical: &str) -> String {
    let mut out = String::new();
    for line in canonical.lines() {
        let mut line = line.replace(" (bit_flags)", "");
        if let Some(at) = line.find(" (force_align ") {
            let end = line[at..].find(')').map_or(line.len(), |e| at + e + 1);
            line.replace_range(at..end, "");
        }
        if let Some(at) = line.find("[ubyte] nested table ") {
            let rest = at + "[ubyte] nested table ".len();
            let end = line[rest..].find(' ').map_or(line.len(), |e| rest + e);
            line.replace_range(at..end, "[U8]");
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

fn same_text(name: &str, got: &str, want: &str) {
    if got != want {
        let missing: Vec<_> = want.lines().filter(|l| !got.lines().any(|g| g == *l)).take(10).collect();
        let extra: Vec<_> = got.lines().filter(|l| !want.lines().any(|w| w == *l)).take(10).collect();
        panic!("{name}: the .bfbs resolves differently\n  missing: {missing:#?}\n  extra: {extra:#?}");
    }
}

/// With `--bfbs-builtins`, a `.bfbs` says everything `Types` holds: every table, struct, enum
/// and union, with every field's slot or offset, type, default and attributes, the root and
/// the file identifier resolve exactly as from the `.fbs` (flatc's `ulong` default aside).
#[test]
fn bfbs_with_builtins_resolves_as_its_fbs() {
    for (name, fbs) in SCHEMAS {
        let text = from_fbs(fbs);
        let binary = from_bfbs(&builtins_bfbs(name));
        same_text(name, &binary.canonical(), &without_big_ulong_defaults(&text.canonical()));
        assert_eq!(binary.counts(), text.counts(), "{name}");
        assert_eq!(binary.file_identifier(), text.file_identifier(), "{name}");
        let root = |s: &Schema| s.root().map(|r| s.table_name(r).to_owned());
        assert_eq!(root(&binary), root(&text), "{name}");
        assert!(root(&binary).is_some(), "{name}");
    }
}

/// `flatc -b --schema` as it is: the same, less the built-in attributes it leaves out.
#[test]
fn plain_bfbs_resolves_as_its_fbs_less_builtin_attributes() {
    for (name, fbs) in SCHEMAS {
        let text = from_fbs(fbs);
        let binary = from_bfbs(&plain_bfbs(name));
        same_text(name, &binary.canonical(), &without_builtins(&without_big_ulong_defaults(&text.canonical())));
    }
    // What is lost, seen in features.fbs.
    let plain = from_bfbs(&plain_bfbs("features")).canonical();
    let builtins = from_bfbs(&builtins_bfbs("features")).canonical();
    assert!(builtins.contains("enum feat.test.Flags: U8 (bit_flags)\n"), "{builtins}");
    assert!(plain.contains("enum feat.test.Flags: U8\n"), "{plain}");
    assert!(builtins.contains("  16 nested: [ubyte] nested table feat.test.Common\n"), "{builtins}");
    assert!(plain.contains("  16 nested: [U8]\n"), "{plain}");
    // A struct's force_align is its alignment, which a .bfbs keeps.
    assert!(plain.contains("struct feat.test.Vec3 size 16 align 16\n"), "{plain}");
    // The tflite Buffer's `data: [ubyte] (force_align: 16)`.
    let tflite = from_bfbs(&builtins_bfbs("tflite")).canonical();
    assert!(tflite.contains(" data: [U8] (force_align 16)\n"), "{tflite}");
}

/// The declarations of features.fbs, field by field, as the `.bfbs` gives them.
#[test]
fn features_bfbs_reads_every_kind_of_declaration() {
    let c = from_bfbs(&builtins_bfbs("features")).canonical();
    for line in [
        "root feat.test.Monster",
        "file_identifier FEAT",
        "enum feat.test.Color: I8\n  1 Red\n  2 Green\n  8 Blue\n",
        "enum feat.test.Flags: U8 (bit_flags)\n  1 A\n  2 B\n  128 C\n",
        "struct feat.test.Pair size 16 align 8\n  0 a: I16\n  8 b: I64\n",
        "struct feat.test.WithArr size 32 align 8\n  0 v: I32 [3]\n  12 c: enum feat.test.Shade\n  16 p: struct feat.test.Pair\n",
        "union feat.test.Equipment\n  1 Weapon: table feat.test.Weapon\n  2 Sword: table feat.test.Common\n",
        "  0 pos: struct feat.test.Vec3\n  1 mana: I16 = i16(150)\n  2 name: string (required) (key)\n  3 hp: I16 = i16(100)\n",
        "  4 friendly: Bool = bool(false) (deprecated)\n",
        "  7 flags: enum feat.test.Flags = u8(3)\n",
        "  10 equipped: union feat.test.Equipment\n  11 path: [struct feat.test.Vec3]\n",
        "  12 nan_d: F32 = f32(NaN)\n  13 inf_d: F64 = f64(-inf)\n  14 opt: I32\n  15 names: [string]\n",
        "  18 colors: [enum feat.test.Color]\n",
    ] {
        assert!(c.contains(line), "missing {line:?} in\n{c}");
    }
}

/// kinds.fbs: union vectors, struct and string union members, arrays of enums and structs,
/// enum values declared out of order, `ulong` enums and flags, names in two namespaces.
#[test]
fn kinds_bfbs_reads_every_kind_of_declaration() {
    let c = from_bfbs(&builtins_bfbs("kinds")).canonical();
    for line in [
        "root kinds.Holder\nfile_identifier -\n",
        "enum kinds.Big: U64\n  -1 Top\n  0 Zero\n",
        "enum kinds.Small: U8\n  0 Z\n  1 X\n  3 Y\n",
        "enum kinds.Wide: U64 (bit_flags)\n  -9223372036854775808 High\n  1 Low\n",
        "struct kinds.Grid size 14 align 2\n  0 cells: enum kinds.Small [4]\n  4 points: struct kinds.Point [2]\n",
        "  1 anys: [union kinds.Any]\n  3 any: union kinds.Any\n  4 grid: struct kinds.Grid\n  5 maybe: enum kinds.Small\n",
        "  8 leaf: [ubyte] nested table kinds.inner.Leaf\n  9 bytes: [U8] (force_align 8)\n",
        "  12 f: F32 = f32(0.1)\n  13 on: Bool = bool(true)\n  14 old: I32 = i32(0) (deprecated)\n",
        "union kinds.Any\n  1 inner_Leaf: table kinds.inner.Leaf\n  2 Pt: struct kinds.Point\n  3 Text: string\n",
    ] {
        assert!(c.contains(line), "missing {line:?} in\n{c}");
    }
}

/// The dynamic view over a schema read from a `.bfbs`.
#[test]
fn dynamic_view_through_a_bfbs_schema() {
    let schema = from_bfbs(&plain_bfbs("kinds"));
    let bytes = read("testdata/schemas/bfbs/kinds.bin");
    let h = schema.verify(&bytes, schema.root().unwrap(), &Options::default()).unwrap();
    assert_eq!(h.type_name(), "kinds.Holder");
    let Some(DynValue::Vector(anys)) = h.get("anys") else { panic!("anys") };
    assert_eq!(anys.len(), 4);
    let Some(DynValue::Union(pt)) = anys.get(1) else { panic!("anys[1]") };
    assert_eq!((pt.tag, pt.name), (2, Some("Pt")));
    let Some(DynValue::Struct(p)) = pt.get() else { panic!("anys[1] value") };
    assert_eq!(p.get("y").and_then(|v| v.as_i64()), Some(3));
    let Some(DynValue::Union(text)) = anys.get(2) else { panic!("anys[2]") };
    assert_eq!(text.get().and_then(|v| v.as_str().map(str::to_owned)).as_deref(), Some("hello"));
    let Some(DynValue::Struct(grid)) = h.get("grid") else { panic!("grid") };
    let Some(DynValue::Vector(cells)) = grid.get("cells") else { panic!("grid.cells") };
    let names: Vec<_> = cells.iter().map(|v| if let DynValue::Enum(_, n) = v { n } else { None }).collect();
    assert_eq!(names, [Some("X"), Some("Y"), Some("X"), Some("Y")]);
    assert_eq!(h.get("maybe").and_then(|v| v.as_i64()), Some(3));
    assert_eq!(h.get("on").and_then(|v| v.as_i64()), Some(1), "absent: the default");
    // Without `--bfbs-builtins`, the nested flatbuffer is plain bytes.
    let Some(DynValue::Vector(leaf)) = h.get("leaf") else { panic!("leaf") };
    assert!(!leaf.is_empty());
    let schema = from_bfbs(&builtins_bfbs("kinds"));
    let h = schema.verify(&bytes, schema.root().unwrap(), &Options::default()).unwrap();
    let Some(DynValue::Table(leaf)) = h.get("leaf") else { panic!("leaf") };
    assert_eq!((leaf.type_name(), leaf.get("v").and_then(|v| v.as_i64())), ("kinds.inner.Leaf", Some(42)));
}

/// Where a schema's buffer is in a testdata file.
struct Target {
    schema: &'static str,
    name: String,
    bytes: Vec<u8>,
    /// The whole file is the buffer: its identifier is checked.
    whole: bool,
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// Every testdata file a schema reads, with the flatbuffers nested in models' metadata.
fn targets() -> Vec<Target> {
    let mut paths = Vec::new();
    walk(&root_dir().join("testdata"), &mut paths);
    paths.sort();
    let mut out = Vec::new();
    for path in paths {
        let name = path.strip_prefix(root_dir()).unwrap_or(&path).display().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let mut push = |schema, bytes: &[u8], whole| {
            out.push(Target { schema, name: name.clone(), bytes: bytes.to_vec(), whole });
        };
        let ext = path.extension().map(|e| e.to_string_lossy().into_owned()).unwrap_or_default();
        match ext.as_str() {
            "tflite" => push("tflite", &bytes, true),
            "circle" => {
                push("circle", &bytes, true);
                push("circle_revision0", &bytes, true);
            }
            "circletr" => push("circle_training", &bytes, true),
            "bin" if file.ends_with(".TFLITE_METADATA.M001.bin") => push("tflite_metadata", &bytes, true),
            "bin" if file == "features.bin" => push("features", &bytes, true),
            "bin" if file == "kinds.bin" => push("kinds", &bytes, true),
            "bin" if name.contains("regressions") => push("tflite", &bytes, true),
            _ => {}
        }
        let Ok(parsed) = File::parse_structure(&bytes) else { continue };
        match parsed {
            File::Tflite(m) => {
                for (entry, schema) in
                    [("TFLITE_METADATA", "tflite_metadata"), ("CONVERSION_METADATA", "conversion_metadata")]
                {
                    if let Some(b) = ModelView::metadata_bytes(&m, entry) {
                        push(schema, b, true);
                    }
                }
            }
            File::Circle(m) => {
                for (entry, schema) in
                    [("CONVERSION_METADATA", "conversion_metadata"), ("CIRCLE_TRAINING", "circle_training")]
                {
                    if let Some(b) = m.metadata_bytes(entry) {
                        push(schema, b, true);
                    }
                }
            }
            File::Pte(p) => push("pte", Dumpable::new(p.program()).buffer(), false),
            File::VkGraph(b) => push("vkgraph", Dumpable::new(b.graph()).buffer(), false),
            File::Cvimodel(c) => push("cvimodel", Dumpable::new(c.model()).buffer(), false),
            _ => {}
        }
    }
    out
}

/// The verdict of `schema` on `bytes`: the dump, or the error as `Schema::error_text` words it.
fn verdict(schema: &Schema, bytes: &[u8], whole: bool) -> Result<String, String> {
    let root = schema.root().unwrap();
    let options = Options::default();
    let table =
        if whole { schema.verify(bytes, root, &options) } else { schema.verify_with(bytes, root, None, &options) };
    match table {
        Ok(table) => {
            let mut out = String::new();
            schema.dump(&mut out, table, &options).map_err(|e| format!("dump: {e:?}"))?;
            Ok(out)
        }
        Err(e) => Err(schema.error_text(&e, root).to_string()),
    }
}

/// Deterministic corruptions of `bytes`: truncations and byte changes.
fn mutations(bytes: &[u8], count: usize, seed: u64) -> Vec<Vec<u8>> {
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) as usize
    };
    let mut out = Vec::new();
    for i in 0..count {
        let mut m = bytes.to_vec();
        match i % 4 {
            0 => m.truncate(next() % bytes.len().max(1)),
            1 => {
                let at = next() % m.len().max(1);
                if let Some(b) = m.get_mut(at) {
                    *b ^= 1 << (next() % 8);
                }
            }
            2 => {
                // A 32-bit word (an offset, a length, an index) set to an extreme.
                let at = (next() % m.len().max(4)) & !3;
                let value: u32 = [0, 1, 0xff, 0x7fff_ffff, 0xffff_ffff, 0x8000][next() % 6];
                if let Some(w) = m.get_mut(at..at + 4) {
                    w.copy_from_slice(&value.to_le_bytes());
                }
            }
            _ => {
                for _ in 0..4 {
                    let at = next() % m.len().max(1);
                    if let Some(b) = m.get_mut(at) {
                        *b = next() as u8;
                    }
                }
            }
        }
        out.push(m);
    }
    out
}

/// Every testdata file (and corruptions of a few) verifies and dumps alike, or fails with the
/// same error text, by each schema read from `.fbs` and from both `.bfbs`.
#[test]
fn bfbs_and_fbs_schemas_verify_and_dump_alike() {
    let mut schemas = Vec::new();
    for (name, fbs) in SCHEMAS {
        schemas.push((name, from_fbs(fbs), from_bfbs(&plain_bfbs(name)), from_bfbs(&builtins_bfbs(name))));
    }
    let mut targets = targets();
    for (schema, path, seed) in
        [("features", "testdata/schemas/features.bin", 1), ("tflite", "testdata/tflite/sine_float.tflite", 2)]
    {
        for (i, bytes) in mutations(&read(path), 120, seed).into_iter().enumerate() {
            targets.push(Target { schema, name: format!("{path} (corruption {i})"), bytes, whole: true });
        }
    }
    let (mut dumped, mut refused) = (0, 0);
    let mut seen = std::collections::BTreeSet::new();
    for t in &targets {
        let (_, fbs, plain, builtins) = schemas.iter().find(|s| s.0 == t.schema).unwrap();
        let want = verdict(fbs, &t.bytes, t.whole);
        let mut got = verdict(builtins, &t.bytes, t.whole);
        let got_plain = verdict(plain, &t.bytes, t.whole);
        if t.schema == "features" {
            // flatc 2.0.8 writes `big`'s default (u64::MAX) as 0.
            if let (Ok(d), Ok(_)) = (&got, &want) {
                assert!(d.contains("\"big\": 0\n"), "{}: {d}", t.name);
            }
            got = got.map(|d| d.replace("\"big\": 0\n", "\"big\": 18446744073709551615\n"));
        }
        match t.schema {
            // The plain `.bfbs` of these lost `bit_flags` (flags print as a number) and
            // `nested_flatbuffer` (its bytes are not verified as a table, and print as bytes).
            "features" if t.name.ends_with("features.bin") => {
                let d = got_plain.as_ref().unwrap();
                assert!(d.contains("\"flags\": 129,") && d.contains("\"nested\": ["), "{d}");
            }
            "kinds" => {
                let d = got_plain.as_ref().unwrap();
                assert!(d.contains("\"leaf\": [\n"), "{d}");
            }
            "features" => {}
            _ => assert_eq!(got_plain, want, "{} by the plain {}.bfbs", t.name, t.schema),
        }
        assert_eq!(got, want, "{} by {}.builtins.bfbs", t.name, t.schema);
        match want {
            Ok(_) => dumped += 1,
            Err(_) => refused += 1,
        }
        seen.insert(t.schema);
    }
    eprintln!("{dumped} dumps and {refused} refusals agree");
    assert!(dumped >= 25, "only {dumped} dumps");
    assert!(refused >= 50, "only {refused} refusals");
    for (name, _) in SCHEMAS {
        assert!(seen.contains(name), "no testdata file read by {name}");
    }
}

/// Corrupt binary schemas: each loads or is refused, never panics, and what loads is usable.
#[test]
fn corrupt_bfbs_never_panics() {
    let features = read("testdata/schemas/features.bin");
    let (mut loaded, mut refused) = (0, 0);
    for (path, seed) in [("testdata/schemas/features.bfbs", 7), (builtins_bfbs("features").as_str(), 8)] {
        let bytes = read(path);
        let mut cases = mutations(&bytes, 400, seed);
        cases.extend((0..bytes.len()).step_by(29).map(|n| bytes[..n].to_vec()));
        for m in cases {
            match Schema::from_bfbs(&m) {
                Ok(schema) => {
                    loaded += 1;
                    let _ = schema.canonical();
                    if let Some(root) = schema.root() {
                        if let Ok(table) = schema.verify(&features, root, &Options::default()) {
                            let mut out = String::new();
                            let _ = schema.dump(&mut out, table, &Options::default());
                        }
                    }
                }
                Err(e) => {
                    assert_eq!((e.file.as_str(), e.line), ("schema.bfbs", 0), "{e}");
                    refused += 1;
                }
            }
        }
    }
    eprintln!("{loaded} corrupt schemas loaded, {refused} refused");
    assert!(refused >= 400, "{refused} refused");
}

/// What is not a binary schema is refused with the verifier's words.
#[test]
fn not_a_bfbs_is_refused_with_the_verifier_error() {
    let bfbs = read("testdata/schemas/features.bfbs");
    for (bytes, words) in [
        (read("testdata/schemas/features.bin"), "identifier"),
        (Vec::new(), ""),
        (bfbs[..bfbs.len() / 2].to_vec(), "(Schema."),
    ] {
        let e = Schema::from_bfbs(&bytes).unwrap_err();
        assert_eq!((e.file.as_str(), e.line, e.column), ("schema.bfbs", 0, 0), "{e}");
        assert!(e.message.starts_with("not a valid binary schema: "), "{e}");
        assert!(e.message.contains(words), "{e}");
    }
}

// Crafted binary schemas, built with the `flatbuffers` crate slot by slot (reflection's vtable
// offsets: 4 + 2 * the field's position in reflection.fbs).

#[derive(Clone)]
struct CField {
    name: &'static str,
    /// base_type, element, index, fixed_length.
    ty: (i8, i8, i32, u16),
    offset: u16,
    default_integer: i64,
    /// A `nested_flatbuffer` attribute's value.
    nested: Option<&'static str>,
}

#[derive(Clone)]
struct CObject {
    name: String,
    fields: Vec<CField>,
    is_struct: bool,
    minalign: i32,
    bytesize: i32,
}

/// An enum value: name, value, union_type (base_type, index).
type CValue = (&'static str, i64, Option<(i8, i32)>);

#[derive(Clone)]
struct CEnum {
    name: &'static str,
    values: Vec<CValue>,
    is_union: bool,
    underlying: i8,
}

#[derive(Clone)]
struct Crafted {
    objects: Vec<CObject>,
    enums: Vec<CEnum>,
    root: Option<usize>,
    /// How many times `objects` lists each object (the same table each time).
    copies: usize,
}

// reflection's BaseType.
const UTYPE: i8 = 1;
const BYTE: i8 = 3;
const INT: i8 = 7;
const FLOAT: i8 = 11;
const VECTOR: i8 = 14;
const OBJ: i8 = 15;
const UNION: i8 = 16;

fn field(name: &'static str, ty: (i8, i8, i32, u16), offset: u16) -> CField {
    CField { name, ty, offset, default_integer: 0, nested: None }
}

type Fbb<'a> = FlatBufferBuilder<'a>;
type Done = WIPOffset<flatbuffers::TableFinishedWIPOffset>;

fn craft_type(fbb: &mut Fbb<'_>, (base, element, index, fixed): (i8, i8, i32, u16)) -> Done {
    let t = fbb.start_table();
    fbb.push_slot::<i8>(4, base, 0);
    fbb.push_slot::<i8>(6, element, 0);
    fbb.push_slot::<i32>(8, index, -1);
    fbb.push_slot::<u16>(10, fixed, 0);
    fbb.end_table(t)
}

impl Crafted {
    fn bytes(&self) -> Vec<u8> {
        let mut fbb = FlatBufferBuilder::new();
        let mut objects = Vec::new();
        for o in &self.objects {
            let mut fields = Vec::new();
            for f in &o.fields {
                let name = fbb.create_string(f.name);
                let ty = craft_type(&mut fbb, f.ty);
                let attributes = f.nested.map(|value| {
                    let (key, value) = (fbb.create_string("nested_flatbuffer"), fbb.create_string(value));
                    let t = fbb.start_table();
                    fbb.push_slot_always(4, key);
                    fbb.push_slot_always(6, value);
                    let kv = fbb.end_table(t);
                    fbb.create_vector(&[kv])
                });
                let t = fbb.start_table();
                if let Some(attributes) = attributes {
                    fbb.push_slot_always(22, attributes);
                }
                fbb.push_slot_always(4, name);
                fbb.push_slot_always(6, ty);
                fbb.push_slot::<u16>(10, f.offset, 0);
                fbb.push_slot::<i64>(12, f.default_integer, 0);
                fields.push(fbb.end_table(t));
            }
            let fields = fbb.create_vector(&fields);
            let name = fbb.create_string(&o.name);
            let t = fbb.start_table();
            fbb.push_slot_always(4, name);
            fbb.push_slot_always(6, fields);
            fbb.push_slot::<bool>(8, o.is_struct, false);
            fbb.push_slot::<i32>(10, o.minalign, 0);
            fbb.push_slot::<i32>(12, o.bytesize, 0);
            objects.push(fbb.end_table(t));
        }
        let mut enums = Vec::new();
        for e in &self.enums {
            let mut values = Vec::new();
            for &(name, value, union_type) in &e.values {
                let name = fbb.create_string(name);
                let ty = union_type.map(|(base, index)| craft_type(&mut fbb, (base, 0, index, 0)));
                let t = fbb.start_table();
                fbb.push_slot_always(4, name);
                fbb.push_slot::<i64>(6, value, 0);
                if let Some(ty) = ty {
                    fbb.push_slot_always(10, ty);
                }
                values.push(fbb.end_table(t));
            }
            let values = fbb.create_vector(&values);
            let name = fbb.create_string(e.name);
            let underlying = craft_type(&mut fbb, (e.underlying, 0, -1, 0));
            let t = fbb.start_table();
            fbb.push_slot_always(4, name);
            fbb.push_slot_always(6, values);
            fbb.push_slot::<bool>(8, e.is_union, false);
            fbb.push_slot_always(10, underlying);
            enums.push(fbb.end_table(t));
        }
        let listed: Vec<_> = objects.iter().flat_map(|&o| std::iter::repeat_n(o, self.copies)).collect();
        let object_vector = fbb.create_vector(&listed);
        let enum_vector = fbb.create_vector(&enums);
        let ident = fbb.create_string("TEST");
        let t = fbb.start_table();
        fbb.push_slot_always(4, object_vector);
        fbb.push_slot_always(6, enum_vector);
        fbb.push_slot_always(8, ident);
        if let Some(root) = self.root {
            fbb.push_slot_always(12, objects[root]);
        }
        let schema = fbb.end_table(t);
        fbb.finish(schema, Some("BFBS"));
        fbb.finished_data().to_vec()
    }

    fn load(&self) -> Result<Schema, SchemaError> {
        Schema::from_bfbs(&self.bytes())
    }
}

/// What `crafted()` describes, as `.fbs` text.
const CRAFTED_FBS: &str = "namespace n;
enum E : byte { A, B }
struct S { x: int; e: E; }
table T { a: int = 5; s: S; u: U; v: [S]; }
union U { T }
root_type T;
file_identifier \"TEST\";";

/// A binary schema of `CRAFTED_FBS`, objects and enums sorted by name as flatc sorts them.
fn crafted() -> Crafted {
    let s = CObject {
        name: "n.S".into(),
        fields: vec![field("x", (INT, 0, -1, 0), 0), field("e", (BYTE, 0, 0, 0), 4)],
        is_struct: true,
        minalign: 4,
        bytesize: 8,
    };
    let mut a = field("a", (INT, 0, -1, 0), 4);
    a.default_integer = 5;
    let t = CObject {
        name: "n.T".into(),
        fields: vec![
            a,
            field("s", (OBJ, 0, 0, 0), 6),
            field("u_type", (UTYPE, 0, 1, 0), 8),
            field("u", (UNION, 0, 1, 0), 10),
            field("v", (VECTOR, OBJ, 0, 0), 12),
        ],
        is_struct: false,
        minalign: 1,
        bytesize: 0,
    };
    let e = CEnum { name: "n.E", values: vec![("A", 0, None), ("B", 1, None)], is_union: false, underlying: BYTE };
    let u = CEnum {
        name: "n.U",
        values: vec![("NONE", 0, None), ("T", 1, Some((OBJ, 1)))],
        is_union: true,
        underlying: UTYPE,
    };
    Crafted { objects: vec![s, t], enums: vec![e, u], root: Some(1), copies: 1 }
}

#[test]
fn crafted_bfbs_resolves_as_its_fbs() {
    let schema = crafted().load().unwrap();
    assert_eq!(schema.canonical(), Schema::from_fbs_text(CRAFTED_FBS).unwrap().canonical());
    assert_eq!(schema.root().map(|r| schema.table_name(r)), Some("n.T"));
    assert_eq!(schema.table("T"), Some(schema.root().unwrap()));
    assert_eq!(schema.table("S"), None, "a struct is not a table");
}

/// Indices and layouts a `.bfbs` states are checked: a bad one is an error naming it.
#[test]
fn inconsistent_bfbs_is_refused() {
    type Edit = fn(&mut Crafted);
    let cases: [(&str, Edit); 16] = [
        ("object index 7", |c| c.objects[1].fields[1].ty.2 = 7),
        ("object index -2", |c| c.objects[1].fields[1].ty.2 = -2),
        ("union index 0 is not a union", |c| c.objects[1].fields[3].ty.2 = 0),
        ("enum index 1 is not an enum", |c| c.objects[0].fields[1].ty.2 = 1),
        ("enum index 0 is not an enum of underlying type I32", |c| c.objects[0].fields[1].ty.0 = INT),
        ("holds itself", |c| c.objects[0].fields[0].ty = (OBJ, 0, 0, 0)),
        ("pass the struct's size 8", |c| c.objects[0].fields[1].offset = 8),
        ("alignment 3", |c| c.objects[0].minalign = 3),
        ("size 0", |c| c.objects[0].bytesize = 0),
        ("slot 0 is used twice", |c| c.objects[1].fields[1].offset = 4),
        ("slot 2 is used twice", |c| c.objects[1].fields[0].offset = 8),
        ("vtable offset 5", |c| c.objects[1].fields[0].offset = 5),
        ("default 300", |c| {
            c.objects[1].fields[0].ty.0 = BYTE;
            c.objects[1].fields[0].default_integer = 300;
        }),
        ("tag 300", |c| c.enums[1].values[1].1 = 300),
        ("underlying type must be integral", |c| c.enums[0].underlying = FLOAT),
        ("root_table `n.S` is not a table", |c| c.root = Some(0)),
    ];
    for (words, edit) in cases {
        let mut c = crafted();
        edit(&mut c);
        match c.load() {
            Ok(s) => panic!("{words}: loaded\n{}", s.canonical()),
            Err(e) => {
                assert!(e.message.contains(words), "{words}: {e}");
                assert_eq!((e.file.as_str(), e.line), ("schema.bfbs", 0));
            }
        }
    }
    // A union's value in slot 0 leaves no slot for its type.
    let mut c = crafted();
    c.objects[1].fields = vec![field("u", (UNION, 0, 1, 0), 4)];
    let e = c.load().unwrap_err();
    assert!(e.message.contains("cannot take slot 0"), "{e}");
}

/// A table listed many times costs its size each time: the verifier's work budget refuses a
/// schema whose reading would not be linear in its bytes.
#[test]
fn shared_objects_are_charged_per_listing() {
    let mut c = crafted();
    c.enums.clear();
    let fields: Vec<_> = (0..200u16).map(|i| field("f", (INT, 0, -1, 0), 4 + 2 * i)).collect();
    c.objects = vec![CObject { name: "n.T".into(), fields, is_struct: false, minalign: 1, bytesize: 0 }];
    c.root = Some(0);
    c.copies = 1;
    let one = c.bytes();
    c.copies = 3000;
    let many = c.bytes();
    assert!(many.len() < one.len() * 3, "{} {}", many.len(), one.len());
    let e = Schema::from_bfbs(&many).unwrap_err();
    assert!(e.message.starts_with("not a valid binary schema: apparent size limit exceeded"), "{e}");
    // Listed a few times, it loads (each listing a table type of its own).
    c.copies = 3;
    let schema = Schema::from_bfbs(&c.bytes()).unwrap();
    assert_eq!(schema.counts(), [3, 0, 0, 0]);
}

/// `nested_flatbuffer` names are looked up from the field's namespace outward, within a work
/// budget: a deep namespace costs its depth times its length per lookup, which the budget stops.
#[test]
fn nested_flatbuffer_lookups_are_bounded() {
    let mut c = crafted();
    let mut v = field("v", (VECTOR, 4, -1, 0), 14);
    v.nested = Some("T");
    c.objects[1].fields.push(v.clone());
    let schema = c.load().unwrap();
    assert!(schema.canonical().contains("  5 v: [ubyte] nested table n.T\n"), "{}", schema.canonical());
    v.nested = Some("S");
    c.objects[1].fields[5] = v.clone();
    assert!(c.load().unwrap_err().message.contains("nested_flatbuffer `S` is not a table"));
    // 20,000 namespace levels, 200 lookups from them.
    let mut c = crafted();
    c.enums.clear();
    let deep = format!("{}T", "a.".repeat(20_000));
    let fields: Vec<_> =
        (0..200u16).map(|i| CField { nested: Some("Missing"), ..field("f", (VECTOR, 4, -1, 0), 4 + 2 * i) }).collect();
    c.objects = vec![CObject { name: deep, fields, is_struct: false, minalign: 1, bytesize: 0 }];
    c.root = Some(0);
    let started = std::time::Instant::now();
    let e = c.load().unwrap_err();
    assert!(e.message.contains("work budget"), "{e}");
    assert!(started.elapsed().as_secs() < 10, "{:?}", started.elapsed());
}

/// Vectors shared by many declarations cannot make reading a binary schema quadratic: 2,000
/// tables whose one field each points at the same 20,000 attributes (400 KB in all) would have
/// the reader scan 80 million attributes. The verifier's work budget refuses it first (its memo
/// of shared objects is consulted only once the work passes the input size), and the reader's
/// own budget (per element read, a constant per input byte) stands behind it.
#[test]
fn attributes_shared_by_every_field_are_refused_within_the_work_budget() {
    let mut fbb = FlatBufferBuilder::new();
    let key = fbb.create_string("k");
    let value = fbb.create_string("v");
    let pairs: Vec<_> = (0..20_000)
        .map(|_| {
            let t = fbb.start_table();
            fbb.push_slot_always(4, key);
            fbb.push_slot_always(6, value);
            fbb.end_table(t)
        })
        .collect();
    let attributes = fbb.create_vector(&pairs);
    let ty = craft_type(&mut fbb, (INT, 0, -1, 0));
    let field_name = fbb.create_string("a");
    let mut objects = Vec::new();
    for i in 0..2_000 {
        let t = fbb.start_table();
        fbb.push_slot_always(4, field_name);
        fbb.push_slot_always(6, ty);
        fbb.push_slot::<u16>(10, 4, 0);
        fbb.push_slot_always(22, attributes);
        let field = fbb.end_table(t);
        let fields = fbb.create_vector(&[field]);
        let name = fbb.create_string(&format!("T{i:04}"));
        let t = fbb.start_table();
        fbb.push_slot_always(4, name);
        fbb.push_slot_always(6, fields);
        objects.push(fbb.end_table(t));
    }
    let objects = fbb.create_vector(&objects);
    let enums = fbb.create_vector::<Done>(&[]);
    let t = fbb.start_table();
    fbb.push_slot_always(4, objects);
    fbb.push_slot_always(6, enums);
    let schema = fbb.end_table(t);
    fbb.finish(schema, Some("BFBS"));
    let bytes = fbb.finished_data();
    assert!(bytes.len() < 600_000, "{} bytes", bytes.len());
    let e = Schema::from_bfbs(bytes).expect_err("refused");
    assert!(e.message.contains("work budget") || e.message.contains("apparent size limit exceeded"), "{e}");
}
