//! The layout generator: reads each format's `.fbs` schema and writes its `generated.rs`, a
//! sequence of `crate::fb_*!` macro calls (see `src/schema/macros.rs`).
//!
//! `generated_code_is_fresh` fails when a committed file differs from what the schema gives;
//! `FLATMODEL_BLESS=1 cargo test --test codegen` rewrites the files instead.
//!
//! This target uses only std and not the library, so when the library cannot build because a
//! generated file is missing or stale, it still runs without cargo:
//!
//! ```text
//! CARGO_MANIFEST_DIR=$PWD rustc --edition 2021 --test tests/codegen/main.rs -o target/codegen
//! FLATMODEL_BLESS=1 target/codegen
//! ```

extern crate alloc;

mod emit;
// The library's `.fbs` reader (it needs only `core` and `alloc`), compiled here from its
// source so that the generator runs when the library does not build, and both read schemas
// the same way.
#[path = "../../src/reflect/fbs.rs"]
#[allow(dead_code)]
mod fbs;
mod layout;

/// Parses the schema file at `path` and its includes, reading them from disk.
fn parse_file(path: &Path) -> Result<fbs::Schema, String> {
    let name = path.to_string_lossy().replace('\\', "/");
    fbs::parse_with(&name, &mut |p: &str| std::fs::read_to_string(p).map_err(|e| format!("cannot read {p}: {e}")))
        .map_err(|e| e.to_string())
}

use std::path::{Path, PathBuf};

/// (schema, generated file), relative to the crate root.
const SCHEMAS: &[(&str, &str)] = &[
    ("src/formats/tflite/schema.fbs", "src/formats/tflite/generated.rs"),
    ("src/formats/circle/schema.fbs", "src/formats/circle/generated.rs"),
    ("src/formats/circle/revision0/schema.fbs", "src/formats/circle/revision0/generated.rs"),
    ("src/formats/vkgraph/schema.fbs", "src/formats/vkgraph/generated.rs"),
    ("src/formats/pte/schema.fbs", "src/formats/pte/generated.rs"),
    ("src/formats/cvimodel/schema.fbs", "src/formats/cvimodel/generated.rs"),
    ("src/formats/tflite_metadata/schema.fbs", "src/formats/tflite_metadata/generated.rs"),
    ("src/formats/conversion_metadata/schema.fbs", "src/formats/conversion_metadata/generated.rs"),
    ("src/formats/circle_training/schema.fbs", "src/formats/circle_training/generated.rs"),
];

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `GRAMMAR_VERSION` as `src/schema/macros.rs` states it. Read from the source rather than
/// the built library, so the generator also runs when the library does not build (a missing or
/// stale `generated.rs`), see the module docs.
fn grammar_version() -> Result<u32, String> {
    let path = manifest_dir().join("src/schema/macros.rs");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    text.lines()
        .find_map(|l| l.trim().strip_prefix("pub const GRAMMAR_VERSION: u32 ="))
        .and_then(|v| v.trim().trim_end_matches(';').trim().parse().ok())
        .ok_or_else(|| format!("{}: no `pub const GRAMMAR_VERSION: u32 = N;`", path.display()))
}

/// The text of the generated file for the schema at `path`, named `name` in its header.
fn generate(path: &Path, name: &str) -> Result<String, String> {
    let schema = parse_file(path)?;
    let layout = layout::resolve(&schema)?;
    emit::emit(&layout, name, grammar_version()?)
}

/// The first line where `old` and `new` differ: (1-based number, old line, new line).
fn first_difference(old: &str, new: &str) -> Option<(usize, String, String)> {
    let (mut a, mut b) = (old.lines(), new.lines());
    let mut n = 0;
    loop {
        n += 1;
        match (a.next(), b.next()) {
            (None, None) => return (old != new).then(|| (n, String::new(), String::new())),
            (x, y) if x != y => {
                let show = |l: Option<&str>| l.map_or("<end of file>".to_string(), |l| format!("{l:?}"));
                return Some((n, show(x), show(y)));
            }
            _ => {}
        }
    }
}

#[test]
fn generated_code_is_fresh() {
    let root = manifest_dir();
    let bless = std::env::var("FLATMODEL_BLESS").is_ok_and(|v| v == "1");
    let mut stale = Vec::new();
    for &(schema, target) in SCHEMAS {
        let text = generate(&root.join(schema), schema).unwrap_or_else(|e| panic!("{schema}: {e}"));
        let path = root.join(target);
        let old = std::fs::read_to_string(&path).unwrap_or_default();
        let Some((line, was, now)) = first_difference(&old, &text) else {
            continue;
        };
        if bless {
            std::fs::write(&path, &text).unwrap_or_else(|e| panic!("cannot write {target}: {e}"));
            eprintln!("wrote {target}");
        } else {
            stale.push(format!("{target} is stale: line {line} is {was}, the schema gives {now}"));
        }
    }
    assert!(stale.is_empty(), "{}\nrun `FLATMODEL_BLESS=1 cargo test --test codegen` to regenerate", stale.join("\n"));
}

#[test]
fn first_difference_names_the_line() {
    assert_eq!(first_difference("a\nb\n", "a\nb\n"), None);
    assert_eq!(first_difference("a\nb\n", "a\nc\n"), Some((2, "\"b\"".into(), "\"c\"".into())));
    assert_eq!(first_difference("a\n", "a\nb\n"), Some((2, "<end of file>".into(), "\"b\"".into())));
    assert_eq!(first_difference("a", "a\n"), Some((2, String::new(), String::new())));
}

/// Every schema beside the project (`../shared/schemas`) parses, resolves and prints.
#[test]
fn parses_every_shared_schema() {
    let dir = manifest_dir().join("../shared/schemas");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        // Straight to standard error, which `cargo test` shows (it captures `eprintln!`).
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "skipping parses_every_shared_schema: {} does not exist", dir.display());
        return;
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "fbs"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no .fbs files in {}", dir.display());
    let mut failures = Vec::new();
    for path in &paths {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        // A schema without root_type (only included by others) must still parse and resolve.
        let result = parse_file(path).and_then(|s| {
            let layout = layout::resolve(&s)?;
            if s.root_type.is_some() {
                let text = emit::emit(&layout, &name, 1)?;
                let root = format!("root {},\n", layout.root.unwrap_or_default());
                assert!(text.contains(&root), "{name}");
            }
            Ok(())
        });
        match result {
            // Union members named apart from their types (xnnpack.fbs) parse, and the
            // generator refuses them by name (`layout.rs`' own test); flatmodel::reflect reads
            // them at run time. Generating them is XNNPACK's work, not a schema's fault.
            Err(e) if e.contains(ALIASED_MEMBER) => eprintln!("not generated, {name}: {e}"),
            Err(e) => failures.push(format!("{name}: {e}")),
            Ok(()) => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The generator's refusal of a union member named apart from its type (`A: B`).
const ALIASED_MEMBER: &str = "fb_union cannot name a member apart from its type";

/// Facts about the project's TFLite schema, checked by hand against the `.fbs`.
#[test]
fn tflite_schema_facts() {
    let schema = parse_file(&manifest_dir().join("src/formats/tflite/schema.fbs")).unwrap();
    let l = layout::resolve(&schema).unwrap();
    assert_eq!(
        (l.namespace.as_str(), l.identifier.as_deref(), l.root.as_deref()),
        ("tflite", Some("TFL3"), Some("Model"))
    );
    let body = |name: &str| &l.items.iter().find(|i| i.name == name).unwrap().body;
    let slot = |table: &str, field: &str| match body(table) {
        layout::ItemBody::Table { fields, .. } => {
            fields.iter().find(|f| f.name == field).map(|f| (f.slot, f.kind.clone())).unwrap()
        }
        _ => panic!("{table} is not a table"),
    };
    // Operator: opcode_index 0, inputs 1, outputs 2, builtin_options (type 3, value 4),
    // custom_options 5, custom_options_format 6, mutating_variable_inputs 7, intermediates 8,
    // large_custom_options_offset 9, large_custom_options_size 10, builtin_options_2 (11, 12),
    // then the LiteRT debug_metadata_index 13.
    assert_eq!(slot("Operator", "builtin_options"), (4, "union(BuiltinOptions, builtin_options_type)".into()));
    assert_eq!(slot("Operator", "builtin_options_2"), (12, "union(BuiltinOptions2, builtin_options_2_type)".into()));
    assert_eq!(slot("Operator", "debug_metadata_index"), (13, "scalar(i32, -1)".into()));
    // Tensor: shape, type, buffer, name, quantization, is_variable, sparsity, shape_signature,
    // has_rank, variant_tensors (0..=9), then external_buffer 10.
    assert_eq!(slot("Tensor", "external_buffer"), (10, "scalar(u32, 0)".into()));
    assert_eq!(slot("Tensor", "type"), (1, "enumeration(TensorType, i8, 0)".into()));
    assert_eq!(slot("Model", "external_buffer_groups"), (8, "table_vector(ExternalBufferGroup)".into()));
    assert_eq!(slot("Model", "external_buffers"), (9, "table_vector(ExternalBuffer)".into()));
    assert_eq!(slot("SubGraph", "debug_metadata_index"), (5, "scalar(i32, -1)".into()));
    assert_eq!(slot("Buffer", "data"), (0, "vector(u8)".into()));
    assert_eq!(slot("OperatorCode", "version"), (2, "scalar(i32, 1)".into()));
    assert_eq!(slot("ResizeBilinearOptions", "new_height"), (0, "scalar(i32, 0) deprecated".into()));
    match body("QuantizationDetails") {
        layout::ItemBody::Union { members, .. } => assert_eq!(
            members.iter().map(|(t, n)| (*t, n.as_str())).collect::<Vec<_>>(),
            [(1, "CustomQuantization"), (2, "BlockwiseQuantization"), (3, "MultiAxisQuantization")]
        ),
        _ => panic!(),
    }
    match body("TensorType") {
        layout::ItemBody::Enum { repr, values } => {
            assert_eq!(*repr, "i8");
            let last: Vec<(&str, i128)> = values.iter().rev().take(2).map(|v| (v.name.as_str(), v.value)).collect();
            assert_eq!(last, [("FLOAT8_E5M2", 22), ("FLOAT8_E4M3FN", 21)]);
        }
        _ => panic!(),
    }
}
