//! `flatmodel dump` against flatc: for every TFLite file with a `.flatc.json` reference (in
//! `testdata/` always, in the corpus when `FLATMODEL_CORPUS` is set), our JSON parsed equals
//! flatc's, floats within flatc's printing precision.

mod support;

use flatmodel::schema::TableType;
use flatmodel::tflite::Model;
use flatmodel::verify::Options;
use serde_json::Value;
use std::path::Path;

/// Fields the LiteRT revision after v2.15 adds (FORMATS.md 1.7) with their defaults. References
/// dumped with the v2.15 schema cannot show them; ours may, when they hold the default.
const NEWER_FIELDS: &[(&str, i64)] = &[("external_buffer", 0), ("debug_metadata_index", -1)];

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

fn compare(ours: &Value, theirs: &Value, path: &str) -> Result<(), String> {
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                let Some(mine) = a.get(k) else { return Err(format!("{path}.{k}: missing in ours")) };
                compare(mine, v, &format!("{path}.{k}"))?;
            }
            for (k, v) in a {
                if !b.contains_key(k) {
                    let allowed = NEWER_FIELDS.iter().any(|(name, default)| k == name && v.as_i64() == Some(*default));
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
                compare(x, y, &format!("{path}[{i}]"))?;
            }
            Ok(())
        }
        (Value::Number(a), Value::Number(b)) if same_number(a, b) => Ok(()),
        (a, b) if a == b => Ok(()),
        (a, b) => Err(format!("{path}: ours {a} vs flatc's {b}")),
    }
}

fn dump(bytes: &[u8]) -> Value {
    let model = Model::parse_structure(bytes).expect("structurally valid");
    let mut text = String::new();
    flatmodel::dump::dump_table(&mut text, model.raw(), Model::desc(), &Options::DEFAULT).unwrap();
    serde_json::from_str(&text).expect("the dump is JSON")
}

fn check_dir(dir: &Path) -> usize {
    let mut checked = 0;
    let mut failures = Vec::new();
    for model in support::files_with_suffix(dir, ".tflite") {
        let Some(reference) = support::reference(&model, "flatc.json") else { continue };
        let bytes = std::fs::read(&model).unwrap();
        let theirs = support::read_json(&reference);
        if let Err(e) = compare(&dump(&bytes), &theirs, "") {
            failures.push(format!("{}: {e}", model.display()));
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{} of {checked} dumps differ:\n{}", failures.len(), failures.join("\n"));
    checked
}

#[test]
fn testdata_dumps_equal_flatc() {
    let checked = check_dir(&support::testdata().join("tflite"));
    assert!(checked >= 8, "expected the shipped models, checked {checked}");
}

#[test]
fn corpus_dumps_equal_flatc() {
    let Some(corpus) = support::corpus() else {
        eprintln!("FLATMODEL_CORPUS not set: skipping");
        return;
    };
    let checked = check_dir(&corpus.join("tflite"));
    assert!(checked >= 30, "checked {checked}");
}

#[test]
fn comparison_catches_differences() {
    // The comparison itself must be able to fail.
    let a: Value = serde_json::json!({"x": [1, 2.0000001], "name": "a"});
    assert!(compare(&a, &serde_json::json!({"x": [1, 2.0], "name": "a"}), "").is_ok());
    assert!(compare(&a, &serde_json::json!({"x": [1, 2.1], "name": "a"}), "").is_err());
    assert!(compare(&a, &serde_json::json!({"x": [1], "name": "a"}), "").is_err());
    assert!(compare(&a, &serde_json::json!({"x": [1, 2.0]}), "").is_err());
    assert!(compare(&serde_json::json!({"external_buffer": 0}), &serde_json::json!({}), "").is_ok());
    assert!(compare(&serde_json::json!({"external_buffer": 7}), &serde_json::json!({}), "").is_err());
}
