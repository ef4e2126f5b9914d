//! The generator over the workspace's schemas: the committed files are what the schemas give,
//! every schema beside the project goes through, and facts about TFLite's schema checked by
//! hand against its `.fbs`.

use flatmodel_codegen::items::{ItemBody, Layout};
use flatmodel_codegen::{emit, read_file, stale, workspace_root};
use std::path::PathBuf;

#[test]
fn generated_code_is_fresh() {
    let stale = stale(&workspace_root()).unwrap_or_else(|e| panic!("{e}"));
    let lines: Vec<String> = stale.iter().map(ToString::to_string).collect();
    assert!(lines.is_empty(), "{}\nrun `cargo xtask codegen` to regenerate", lines.join("\n"));
}

/// The generator's refusal of a union member named apart from its type (`A: B`).
const ALIASED_MEMBER: &str = "fb_union cannot name a member apart from its type";

/// Every schema beside the project (`../shared/schemas`) parses, resolves and prints.
#[test]
fn parses_every_shared_schema() {
    let dir = workspace_root().join("../shared/schemas");
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
        let result = read_file(path).and_then(|layout| {
            if let Some(root) = &layout.root {
                let text = emit::emit(&layout, &name, 1)?;
                assert!(text.contains(&format!("root {root},\n")), "{name}");
            }
            Ok(())
        });
        match result {
            // Union members named apart from their types (xnnpack.fbs) resolve, and the
            // generator refuses them by name (`items.rs`' own test); flatmodel::reflect reads
            // them at run time. Generating them is XNNPACK's work, not a schema's fault.
            Err(e) if e.contains(ALIASED_MEMBER) => eprintln!("not generated, {name}: {e}"),
            Err(e) => failures.push(format!("{name}: {e}")),
            Ok(()) => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn body<'l>(l: &'l Layout, name: &str) -> &'l ItemBody {
    &l.items.iter().find(|i| i.name == name).unwrap_or_else(|| panic!("no {name}")).body
}

/// Facts about the project's TFLite schema, checked by hand against the `.fbs`.
#[test]
fn tflite_schema_facts() {
    let l = read_file(&workspace_root().join("src/formats/tflite/schema.fbs")).unwrap();
    assert_eq!(
        (l.namespace.as_str(), l.identifier.as_deref(), l.root.as_deref()),
        ("tflite", Some("TFL3"), Some("Model"))
    );
    let slot = |table: &str, field: &str| match body(&l, table) {
        ItemBody::Table { fields, .. } => {
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
    match body(&l, "QuantizationDetails") {
        ItemBody::Union { members, .. } => assert_eq!(
            members.iter().map(|(t, n, table)| (*t, n.as_str(), table.as_deref())).collect::<Vec<_>>(),
            [(1, "CustomQuantization", None), (2, "BlockwiseQuantization", None), (3, "MultiAxisQuantization", None)]
        ),
        _ => panic!(),
    }
    match body(&l, "TensorType") {
        ItemBody::Enum { repr, values } => {
            assert_eq!(*repr, "i8");
            let last: Vec<(&str, i128)> = values.iter().rev().take(2).map(|v| (v.name.as_str(), v.value)).collect();
            assert_eq!(last, [("FLOAT8_E5M2", 22), ("FLOAT8_E4M3FN", 21)]);
        }
        _ => panic!(),
    }
}
