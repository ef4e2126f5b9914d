//! `dump FILE metadata:NAME`: the flatbuffers nested in a model's metadata, as flatc prints
//! them, and a missing entry as a usage error.

use crate::support;

#[test]
fn dump_of_the_nested_flatbuffers_equals_flatc() {
    let mut dirs = vec![support::testdata().join("tflite")];
    dirs.extend(support::corpus().map(|c| c.join("tflite")));
    let mut checked = 0;
    let kinds = [
        ("TFLITE_METADATA", ".TFLITE_METADATA.M001.flatc.json"),
        ("CONVERSION_METADATA", ".CONVERSION_METADATA.flatc.json"),
    ];
    for dir in dirs {
        for (name, suffix) in kinds {
            for reference in support::files_with_suffix(&dir, suffix) {
                let stem = reference.to_string_lossy().replace(suffix, ".tflite");
                let out = std::process::Command::new(env!("CARGO_BIN_EXE_flatmodel"))
                    .args(["dump", &stem, &format!("metadata:{name}")])
                    .output()
                    .unwrap();
                assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
                let ours: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
                assert_eq!(ours, support::read_json(&reference), "{stem}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 4, "found {checked} references");
}

#[test]
fn dump_of_a_missing_entry_is_a_usage_error() {
    let path = support::testdata().join("tflite/tf_convnet_fp16.tflite");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_flatmodel"))
        .arg("dump")
        .arg(&path)
        .arg("metadata:TFLITE_METADATA")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no metadata entry named 'TFLITE_METADATA'"));
}
