//! `flatmodel dump` against flatc: for every TFLite and Circle file with a `.flatc.json`
//! reference (in `testdata/` always, in the corpus when `FLATMODEL_CORPUS` is set), our JSON
//! parsed equals flatc's, floats within flatc's printing precision.

mod support;

use flatmodel::verify::Options;
use flatmodel::{circle, pte, tflite, vkgraph};
use serde_json::Value;
use std::path::Path;

/// Fields a newer revision adds, with their defaults: references dumped with the older schema
/// cannot show them; ours may, when they hold the default.
type NewerFields = &'static [(&'static str, i64)];

/// The LiteRT revision after v2.15 (FORMATS.md 1.7).
const TFLITE_NEWER: NewerFields = &[("external_buffer", 0), ("debug_metadata_index", -1)];

/// The later Circle revisions' fields the project's `circle.fbs` names (FORMATS.md 2).
const CIRCLE_NEWER: NewerFields = &[
    ("quantized_dimension", 0),
    ("extended_builtin_code", 0),
    ("large_custom_options_offset", 0),
    ("large_custom_options_size", 0),
    ("offset", 0),
    ("size", 0),
];

fn same_number(ours: &serde_json::Number, theirs: &serde_json::Number) -> bool {
    if let (Some(a), Some(b)) = (ours.as_i64(), theirs.as_i64()) {
        return a == b;
    }
    if let (Some(a), Some(b)) = (ours.as_u64(), theirs.as_u64()) {
        return a == b;
    }
    let (a, b) = (ours.as_f64().unwrap(), theirs.as_f64().unwrap());
    // flatc prints 6 digits after the point.
    (a - b).abs() <= 5e-7 + 1e-6 * b.abs()
}

fn compare(ours: &Value, theirs: &Value, path: &str, newer: NewerFields) -> Result<(), String> {
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                let Some(mine) = a.get(k) else { return Err(format!("{path}.{k}: missing in ours")) };
                compare(mine, v, &format!("{path}.{k}"), newer)?;
            }
            for (k, v) in a {
                if !b.contains_key(k) {
                    let allowed = newer.iter().any(|(name, default)| k == name && v.as_i64() == Some(*default));
                    if !allowed {
                        return Err(format!("{path}.{k}: only in ours ({v})"));
                    }
                }
            }
            Ok(())
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                return Err(format!("{path}: length {} vs flatc's {}", a.len(), b.len()));
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                compare(x, y, &format!("{path}[{i}]"), newer)?;
            }
            Ok(())
        }
        (Value::Number(a), Value::Number(b)) if same_number(a, b) => Ok(()),
        (a, b) if a == b => Ok(()),
        (a, b) => Err(format!("{path}: ours {a} vs flatc's {b}")),
    }
}

/// A format's dump, by file suffix.
struct Format {
    suffix: &'static str,
    dump: fn(&[u8]) -> Value,
    newer: NewerFields,
}

const TFLITE: Format = Format { suffix: ".tflite", dump: dump_tflite, newer: TFLITE_NEWER };
const CIRCLE: Format = Format { suffix: ".circle", dump: dump_circle, newer: CIRCLE_NEWER };
/// A cvimodel's reference covers its flatbuffer body only.
const CVIMODEL: Format = Format { suffix: ".cvimodel", dump: dump_cvimodel, newer: &[] };
const VH00: Format = Format { suffix: ".vh00", dump: dump_vkgraph, newer: &[] };
const VK00: Format = Format { suffix: ".vk00.bin", dump: dump_vkgraph, newer: &[] };
const PTE: Format = Format { suffix: ".pte", dump: dump_pte, newer: &[] };

fn to_json(text: &str) -> Value {
    serde_json::from_str(text).expect("the dump is JSON")
}

fn dump_tflite(bytes: &[u8]) -> Value {
    let model = tflite::Model::parse_structure(bytes).expect("structurally valid");
    let mut text = String::new();
    flatmodel::dump::dump_table(&mut text, flatmodel::dump::Dumpable::new(model), &Options::DEFAULT).unwrap();
    to_json(&text)
}

/// The body table of a cvimodel (after its header, before its sections).
fn dump_cvimodel(bytes: &[u8]) -> Value {
    use flatmodel::cvimodel;
    let file = cvimodel::CviModel::parse_structure(bytes).expect("structurally valid");
    let mut text = String::new();
    flatmodel::dump::dump_table(&mut text, flatmodel::dump::Dumpable::new(file.model()), &Options::DEFAULT).unwrap();
    to_json(&text)
}

fn dump_circle(bytes: &[u8]) -> Value {
    let model = circle::Model::parse_structure(bytes).expect("structurally valid");
    let mut text = String::new();
    flatmodel::dump::dump_table(&mut text, flatmodel::dump::Dumpable::new(model), &Options::DEFAULT).unwrap();
    to_json(&text)
}

/// The VkGraph of a `VH00` blob or a bare `VK00` flatbuffer.
fn dump_vkgraph(bytes: &[u8]) -> Value {
    let blob = vkgraph::Blob::parse_structure(bytes).expect("structurally valid");
    let mut text = String::new();
    flatmodel::dump::dump_table(&mut text, flatmodel::dump::Dumpable::new(blob.graph()), &Options::DEFAULT).unwrap();
    to_json(&text)
}

fn dump_pte(bytes: &[u8]) -> Value {
    let file = pte::PteFile::parse_structure(bytes).expect("structurally valid");
    let mut text = String::new();
    flatmodel::dump::dump_table(&mut text, flatmodel::dump::Dumpable::new(file.program()), &Options::DEFAULT).unwrap();
    to_json(&text)
}

fn check_dir(dir: &Path, format: &Format) -> usize {
    let mut checked = 0;
    let mut failures = Vec::new();
    for model in support::files_with_suffix(dir, format.suffix) {
        // A blob's reference is its VkGraph's: NAME.vh00 has NAME.vk00.flatc.json.
        let reference =
            support::reference(&model, "flatc.json").or_else(|| support::reference(&model, "vk00.flatc.json"));
        let Some(reference) = reference else { continue };
        let bytes = std::fs::read(&model).unwrap();
        let theirs = support::read_json(&reference);
        if let Err(e) = compare(&(format.dump)(&bytes), &theirs, "", format.newer) {
            failures.push(format!("{}: {e}", model.display()));
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{} of {checked} dumps differ:\n{}", failures.len(), failures.join("\n"));
    checked
}

#[test]
fn testdata_dumps_equal_flatc() {
    let checked = check_dir(&support::testdata().join("tflite"), &TFLITE);
    assert!(checked >= 8, "expected the shipped models, checked {checked}");
    let checked = check_dir(&support::testdata().join("circle"), &CIRCLE);
    assert!(checked >= 1, "expected the shipped Circle model, checked {checked}");
}

#[test]
fn vkgraph_and_pte_dumps_equal_flatc() {
    // All the corpus's VkGraph files may ship, so testdata holds them all.
    for (format, at_least) in [(&VH00, 7), (&VK00, 7), (&PTE, 5)] {
        let mut checked = check_dir(&support::testdata().join("vkgraph"), format);
        if let Some(corpus) = support::corpus() {
            checked += check_dir(&corpus.join("vkgraph"), format);
        }
        assert!(checked >= at_least, "{}: checked {checked}", format.suffix);
    }
}

#[test]
fn corpus_dumps_equal_flatc() {
    let Some(corpus) = support::corpus() else {
        eprintln!("FLATMODEL_CORPUS not set: skipping");
        return;
    };
    let checked = check_dir(&corpus.join("tflite"), &TFLITE);
    assert!(checked >= 30, "checked {checked}");
}

#[test]
fn corpus_circle_dumps_equal_flatc() {
    let Some(corpus) = support::corpus() else {
        eprintln!("FLATMODEL_CORPUS not set: skipping");
        return;
    };
    let checked = check_dir(&corpus.join("circle"), &CIRCLE);
    assert!(checked >= 10, "checked {checked}");
}

#[test]
fn comparison_catches_differences() {
    // The comparison itself must be able to fail.
    let a: Value = serde_json::json!({"x": [1, 2.0000001], "name": "a"});
    assert!(compare(&a, &serde_json::json!({"x": [1, 2.0], "name": "a"}), "", TFLITE_NEWER).is_ok());
    assert!(compare(&a, &serde_json::json!({"x": [1, 2.1], "name": "a"}), "", TFLITE_NEWER).is_err());
    assert!(compare(&a, &serde_json::json!({"x": [1], "name": "a"}), "", TFLITE_NEWER).is_err());
    assert!(compare(&a, &serde_json::json!({"x": [1, 2.0]}), "", TFLITE_NEWER).is_err());
    let newer = serde_json::json!({"external_buffer": 0});
    assert!(compare(&newer, &serde_json::json!({}), "", TFLITE_NEWER).is_ok());
    assert!(compare(&newer, &serde_json::json!({}), "", CIRCLE_NEWER).is_err());
    assert!(compare(&serde_json::json!({"external_buffer": 7}), &serde_json::json!({}), "", TFLITE_NEWER).is_err());
    assert!(compare(&serde_json::json!({"size": 0}), &serde_json::json!({}), "", CIRCLE_NEWER).is_ok());
}

#[test]
fn cvimodel_dumps_equal_flatc() {
    let checked = check_dir(&support::testdata().join("cvimodel"), &CVIMODEL);
    assert!(checked >= 2, "expected the shipped cvimodels, checked {checked}");
    if let Some(corpus) = support::corpus() {
        let checked = check_dir(&corpus.join("cvimodel"), &CVIMODEL);
        assert!(checked >= 8, "checked {checked}");
    }
}
