//! Schemas read at run time (`flatmodel::reflect`): the schema-feature test schema against
//! flatc, its dynamic view against the JSON flatc built the buffer from, and the run-time
//! schemas of every format against the compiled-in ones on every testdata and corpus file.

use crate::support;

use flatmodel::dump::{dump_table, Dumpable};
use flatmodel::reflect::{DynValue, Schema, TableId};
use flatmodel::verify::Options;
use flatmodel::File;
use std::path::{Path, PathBuf};

fn root_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The schema at `path` (relative to the crate), its includes read from disk beside it.
fn load(path: &str) -> Schema {
    let dir = root_dir();
    Schema::from_fbs(path, &mut |p: &str| std::fs::read_to_string(dir.join(p)).map_err(|e| e.to_string()))
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn dump(schema: &Schema, bytes: &[u8], root: TableId) -> String {
    let table = schema.verify(bytes, root, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    let mut out = String::new();
    schema.dump(&mut out, table, &Options::default()).unwrap();
    out
}

/// Every schema beside the project (`../shared/schemas`) loads at run time, those the
/// generator does not take yet (union members named apart from their types) among them.
#[test]
fn every_shared_schema_loads_at_run_time() {
    let Ok(entries) = std::fs::read_dir(root_dir().join("../shared/schemas")) else {
        support::skip("the shared schemas: no ../shared/schemas beside the project");
        return;
    };
    let mut names: Vec<String> =
        entries.filter_map(|e| e.ok()?.file_name().into_string().ok()).filter(|n| n.ends_with(".fbs")).collect();
    names.sort();
    assert!(!names.is_empty(), "no .fbs files in ../shared/schemas");
    for name in &names {
        load(&format!("../shared/schemas/{name}")); // panics, naming the schema, when it fails
    }
}

/// The schema-feature test schemas whose buffers flatc also prints: the dump is flatc's, byte
/// for byte (`testdata/schemas/README.md` says how each file was made).
#[test]
fn feature_schemas_dump_as_flatc_does() {
    for name in ["features", "more"] {
        let schema = load(&format!("testdata/schemas/{name}.fbs"));
        let bytes = std::fs::read(root_dir().join(format!("testdata/schemas/{name}.bin"))).unwrap();
        let want = std::fs::read_to_string(root_dir().join(format!("testdata/schemas/{name}.flatc.json"))).unwrap();
        assert_eq!(dump(&schema, &bytes, schema.root().unwrap()), want, "{name}");
    }
}

/// Unions of structs and strings and vectors of unions, which flatc writes but will not print:
/// the dump holds the values flatc was given.
#[test]
fn unions_of_every_member_kind_dump_the_values_flatc_wrote() {
    let schema = load("testdata/schemas/unions.fbs");
    let bytes = std::fs::read(root_dir().join("testdata/schemas/unions.bin")).unwrap();
    let source = std::fs::read_to_string(root_dir().join("testdata/schemas/unions.source.json")).unwrap();
    let want: serde_json::Value = serde_json::from_str(&source).unwrap();
    let got: serde_json::Value = serde_json::from_str(&dump(&schema, &bytes, schema.root().unwrap())).unwrap();
    assert_eq!(got, want);
    // A string member's bytes out of bounds is refused where the string is.
    let at = bytes.windows(5).position(|w| w == b"hello").unwrap() - 4;
    let mut bad = bytes.clone();
    bad[at..at + 4].copy_from_slice(&1000u32.to_le_bytes());
    let root = schema.root().unwrap();
    let e = schema.verify(&bad, root, &Options::default()).expect_err("refused");
    assert_eq!(
        schema.error_text(&e, root).to_string(),
        format!("offset or length out of bounds at byte {at} (Root.many[1])")
    );
}

/// The dynamic view reads back what `features.source.json` wrote.
#[test]
fn dynamic_view_reads_every_kind_of_field() {
    let schema = load("testdata/schemas/features.fbs");
    let bytes = std::fs::read(root_dir().join("testdata/schemas/features.bin")).unwrap();
    let m = schema.verify(&bytes, schema.root().unwrap(), &Options::default()).unwrap();
    assert_eq!(m.type_name(), "feat.test.Monster");
    assert_eq!(m.get("name").and_then(|v| v.as_str().map(str::to_owned)).as_deref(), Some("orc"));
    assert_eq!(m.get("mana").and_then(|v| v.as_i64()), Some(7));
    assert_eq!(m.get("hp").and_then(|v| v.as_i64()), Some(100), "absent: the default");
    assert_eq!(m.get("opt").and_then(|v| v.as_i64()), Some(5));
    assert!(m.get("no_such_field").is_none());
    let Some(DynValue::Enum(_, Some(color))) = m.get("color") else { panic!("color") };
    assert_eq!(color, "Red");
    assert_eq!(m.get("flags").and_then(|v| v.as_i64()), Some(1 | 1 << 7), "A C");
    let Some(DynValue::Struct(pos)) = m.get("pos") else { panic!("pos") };
    assert_eq!(pos.get("z").and_then(|v| v.as_f64()), Some(3.0));
    let Some(DynValue::Vector(weapons)) = m.get("weapons") else { panic!("weapons") };
    let Some(DynValue::Table(bow)) = weapons.get(1) else { panic!("weapons[1]") };
    assert_eq!(bow.get("name").and_then(|v| v.as_str().map(str::to_owned)).as_deref(), Some("bow"));
    let Some(DynValue::Union(equipped)) = m.get("equipped") else { panic!("equipped") };
    assert_eq!((equipped.tag, equipped.name), (2, Some("Sword")));
    let Some(DynValue::Table(sword)) = equipped.get() else { panic!("equipped value") };
    assert_eq!(sword.get("id").and_then(|v| v.as_i64()), Some(5));
    let Some(DynValue::Table(nested)) = m.get("nested") else { panic!("nested") };
    assert_eq!(nested.type_name(), "feat.test.Common");
    assert_eq!(nested.get("id").and_then(|v| v.as_i64()), Some(9));
    let Some(DynValue::Struct(arr)) = m.get("arr") else { panic!("arr") };
    let Some(DynValue::Vector(v)) = arr.get("v") else { panic!("arr.v") };
    assert_eq!(v.iter().filter_map(|x| x.as_i64()).collect::<Vec<_>>(), [1, 2, 3]);
    let Some(DynValue::Struct(p)) = arr.get("p") else { panic!("arr.p") };
    assert_eq!(p.get("b").and_then(|v| v.as_i64()), Some(-2));
    let Some(DynValue::Vector(names)) = m.get("names") else { panic!("names") };
    assert_eq!(names.len(), 2);
}

/// A dynamic vector iterates by value and by reference as `iter()` does, for inline values,
/// tables and strings, and prints its length as `Debug`.
#[test]
fn dynamic_vectors_are_iterable() {
    let schema = load("testdata/schemas/features.fbs");
    let bytes = std::fs::read(root_dir().join("testdata/schemas/features.bin")).unwrap();
    let m = schema.verify(&bytes, schema.root().unwrap(), &Options::default()).unwrap();
    let Some(DynValue::Struct(arr)) = m.get("arr") else { panic!("arr") };
    let Some(DynValue::Vector(v)) = arr.get("v") else { panic!("arr.v") };
    assert_eq!(v.into_iter().filter_map(|x| x.as_i64()).collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!((&v).into_iter().filter_map(|x| x.as_i64()).collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!(format!("{v:?}"), "DynVector { len: 3 }");
    let Some(DynValue::Vector(weapons)) = m.get("weapons") else { panic!("weapons") };
    let position = |w: DynValue<'_, '_>| match w {
        DynValue::Table(t) => t.position(),
        other => panic!("a weapon is a table, not {other:?}"),
    };
    let by_iter: Vec<_> = weapons.iter().map(position).collect();
    assert_eq!(by_iter.len(), weapons.len());
    assert_eq!(weapons.into_iter().map(position).collect::<Vec<_>>(), by_iter);
    let Some(DynValue::Vector(names)) = m.get("names") else { panic!("names") };
    let text = |n: DynValue<'_, '_>| n.as_str().map(str::to_owned);
    let by_iter: Vec<_> = names.iter().map(text).collect();
    assert_eq!(by_iter.len(), 2);
    assert_eq!((&names).into_iter().map(text).collect::<Vec<_>>(), by_iter);
}

/// A format's schema read at run time, and its root.
struct Runtime {
    schema: Schema,
    root: TableId,
}

impl Runtime {
    fn of(path: &str) -> Self {
        let schema = load(path);
        let root = schema.root().unwrap();
        Runtime { schema, root }
    }

    /// Verifies `bytes` as the root and asserts that it gives `compiled`'s verdict, an error
    /// word for word (`what` names the case); returns whether both refused.
    fn agrees(&self, bytes: &[u8], compiled: Result<(), flatmodel::Error>, what: &dyn std::fmt::Display) -> bool {
        let run_time = self.schema.verify(bytes, self.root, &Options::default());
        match (&compiled, &run_time) {
            (Ok(()), Ok(_)) => false,
            (Err(c), Err(r)) => {
                assert_eq!(self.schema.error_text(r, self.root).to_string(), c.to_string(), "{what}");
                true
            }
            _ => panic!("{what}: compiled {:?}, run time {:?}", compiled.err(), run_time.err()),
        }
    }
}

/// The compiled-in dump of a verified root.
fn compiled_dump(root: Dumpable<'_>) -> String {
    let mut out = String::new();
    dump_table(&mut out, root, &Options::default()).unwrap();
    out
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else if path
            .extension()
            .is_some_and(|e| ["tflite", "circle", "pte", "vh00", "cvimodel", "bin"].iter().any(|x| e == *x))
        {
            out.push(path);
        }
    }
}

/// Every testdata and corpus file: the format's schema read at run time gives the compiled-in
/// verdict (the same error text, offset and path, for bare TFLite and Circle flatbuffers) and,
/// on what verifies, the same dump.
#[test]
fn run_time_schemas_agree_with_the_compiled_in_ones() {
    let tflite = Runtime::of("src/formats/tflite/schema.fbs");
    let circle = Runtime::of("src/formats/circle/schema.fbs");
    let pte = Runtime::of("src/formats/pte/schema.fbs");
    let vkgraph = Runtime::of("src/formats/vkgraph/schema.fbs");
    let cvimodel = Runtime::of("src/formats/cvimodel/schema.fbs");
    let mut paths = Vec::new();
    files(&root_dir().join("testdata"), &mut paths);
    if let Some(corpus) = support::corpus() {
        files(&corpus, &mut paths);
    }
    paths.sort();
    let (mut dumped, mut refused) = (0, 0);
    for path in &paths {
        let bytes = std::fs::read(path).unwrap();
        let name = path.display();
        // Every file as a bare TFLite and a bare Circle flatbuffer: the verdicts agree, errors
        // word for word (most files are neither, so this exercises the refusals).
        let compiled = [
            flatmodel::tflite::Model::parse_structure(&bytes).map(drop),
            flatmodel::circle::Model::parse_structure(&bytes).map(drop),
        ];
        for (rt, compiled) in [&tflite, &circle].into_iter().zip(compiled) {
            if rt.agrees(&bytes, compiled, &name) {
                refused += 1;
            }
        }
        let Ok(file) = File::parse_structure(&bytes) else { continue };
        let (rt, root) = match file {
            File::Tflite(m) => (&tflite, Dumpable::new(m)),
            File::Circle(m) => (&circle, Dumpable::new(m)),
            File::Pte(p) => (&pte, Dumpable::new(p.program())),
            File::VkGraph(b) => (&vkgraph, Dumpable::new(b.graph())),
            File::Cvimodel(c) => (&cvimodel, Dumpable::new(c.model())),
            _ => continue,
        };
        let buffer = root.buffer();
        let run_time = rt.schema.verify_with(buffer, rt.root, None, &Options::default());
        let run_time = run_time.unwrap_or_else(|e| panic!("{name}: {}", rt.schema.error_text(&e, rt.root)));
        let mut out = String::new();
        rt.schema.dump(&mut out, run_time, &Options::default()).unwrap();
        assert_eq!(out, compiled_dump(root), "{name}");
        dumped += 1;
    }
    eprintln!("{dumped} dumps and {refused} refusals agree");
    assert!(dumped >= 20, "only {dumped} files dumped");
}

/// A model with each aligned 16-bit word in turn overwritten (vtable entries among them: field
/// offsets inside the table header, past its end, misaligned), checked by the run-time schema,
/// whose inline checks walk vtable slots, and by the compiled-in code, which walks fields:
/// the same verdicts, and the same errors word for word.
#[test]
fn damaged_words_get_the_compiled_in_verdict_and_error() {
    let tflite = Runtime::of("src/formats/tflite/schema.fbs");
    let bytes = std::fs::read(root_dir().join("testdata/tflite/sine_float.tflite")).unwrap();
    let mut refused = 0;
    for at in (8..bytes.len().saturating_sub(1)).step_by(2) {
        for value in [1u16, 2, 6, 0x7fff] {
            let mut damaged = bytes.clone();
            damaged[at..at + 2].copy_from_slice(&value.to_le_bytes());
            let compiled = flatmodel::tflite::Model::parse_structure(&damaged).map(drop);
            if tflite.agrees(&damaged, compiled, &format_args!("{at}: {value}")) {
                refused += 1;
            }
        }
    }
    eprintln!("{refused} of {} damaged models refused alike", 4 * (bytes.len() - 8) / 2);
    // Most damage is refused (the rest lands in data or in fields any value suits).
    assert!(refused > 1500, "only {refused} refusals");
}
