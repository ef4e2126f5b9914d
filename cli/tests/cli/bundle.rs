//! `verify`, `inspect`, `scan` and `extract` on model bundles (testdata/bundle/*.task, zip
//! archives made by Python's zipfile from testdata models: testdata/bundle/make.py). What each
//! member should say is what the command says of the model file it was made from; offsets in
//! the archive are found by searching the archive's bytes.

use crate::nnpackage_support::{zip_after, ZipEntry};
use crate::support;
use crate::support::cli::{grouped, run, shown, Scratch};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn bundle(name: &str) -> PathBuf {
    support::testdata().join("bundle").join(name)
}

fn model(name: &str) -> PathBuf {
    support::testdata().join("tflite").join(format!("{name}.tflite"))
}

/// Where `needle` first lies in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> usize {
    haystack.windows(needle.len()).position(|w| w == needle).expect("the member's bytes are in the archive")
}

/// What `verify` says of a model file, after `PATH: ok `.
fn verdict_of(path: &Path) -> String {
    let r = run([std::ffi::OsStr::new("verify"), path.as_os_str()]);
    r.expect_code(0);
    r.stdout.lines().next().unwrap().strip_prefix(&format!("{}: ok ", shown(path))).unwrap().to_string()
}

#[test]
fn verify_names_the_bundle_and_each_members_verdict() {
    let task = bundle("two_models_stored.task");
    let r = run([std::ffi::OsStr::new("verify"), task.as_os_str()]);
    r.expect_code(0);
    let t = shown(&task);
    assert_eq!(
        r.lines(),
        [
            format!("{t}: ok (model bundle, 2 member(s): 2 model(s), 0 other)"),
            format!("{t}: hand_detector.tflite: ok {}", verdict_of(&model("sine_float"))),
            format!("{t}: hand_landmarks_detector.tflite: ok {}", verdict_of(&model("tf_convnet_int8_full"))),
        ]
    );

    let task = bundle("llm_deflated.task");
    let r = run([std::ffi::OsStr::new("verify"), task.as_os_str()]);
    r.expect_code(0);
    let t = shown(&task);
    assert_eq!(
        r.lines(),
        [
            format!("{t}: ok (model bundle, 3 member(s): 1 model(s), 2 other)"),
            format!("{t}: TF_LITE_PREFILL_DECODE: ok {}", verdict_of(&model("tf_convnet_buffer_offset"))),
            // The stand-in tokenizer and metadata of make.py: 33 and 10 bytes.
            format!("{t}: TOKENIZER_MODEL: other, 33 bytes, not verified"),
            format!("{t}: METADATA: other, 10 bytes, not verified"),
        ]
    );

    let r = run(["verify", "--runtime", "tflm", &t]);
    r.expect_code(2);
    assert!(r.stdout.contains("applies to TFLite models, and this is a model bundle"), "{}", r.stdout);
}

#[test]
fn verify_fails_a_bundle_naming_the_corrupt_member_and_its_bytes() {
    let task = bundle("corrupt_member.task");
    let archive = std::fs::read(&task).unwrap();
    let whole = std::fs::read(model("tf_convnet_int8_full")).unwrap();
    let half = &whole[..whole.len() / 2];
    let error = flatmodel::tflite::Model::parse(half).unwrap_err();
    let in_archive = find(&archive, half) as u64 + error.offset();
    let r = run([std::ffi::OsStr::new("verify"), task.as_os_str()]);
    r.expect_code(1);
    assert_eq!(
        r.lines(),
        [format!("{}: invalid: hand_detector.tflite: TFLite: {error}, archive byte {in_archive}", shown(&task))]
    );

    let r = run([std::ffi::OsStr::new("scan"), task.as_os_str()]);
    r.expect_code(1);
    let record: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(record["verdict"], "invalid");
    assert_eq!(record["format"], "bundle");
    assert_eq!(record["error"]["offset"], error.offset());
    assert_eq!(record["error"]["path"], error.location().to_string());
    assert!(record["error"]["message"].as_str().unwrap().starts_with("hand_detector.tflite: "), "{record}");
}

#[test]
fn inspect_lists_the_members_with_each_models_own_summary() {
    let task = bundle("two_models_stored.task");
    let archive = std::fs::read(&task).unwrap();
    let t = shown(&task);
    let r = run([std::ffi::OsStr::new("inspect"), task.as_os_str()]);
    r.expect_code(0);
    let members = [("hand_detector.tflite", "sine_float"), ("hand_landmarks_detector.tflite", "tf_convnet_int8_full")];
    for (i, (name, source)) in members.iter().enumerate() {
        let bytes = std::fs::read(model(source)).unwrap();
        let at = find(&archive, &bytes);
        let size = grouped(bytes.len());
        let line = format!("    [{i}] {name} (tflite, {size} bytes, stored at byte {at})");
        assert!(r.stdout.contains(&format!("\n{line}\n")), "no {line:?} in\n{}", r.stdout);
        // The member's section is what inspect says of the model file, under the member's title.
        let own = run([std::ffi::OsStr::new("inspect"), model(source).as_os_str()]);
        let body = own.stdout.split_once('\n').unwrap().1;
        let section = format!("{t}: member {i} ({name})\n{body}");
        assert!(r.stdout.contains(&section), "member {i}'s section differs from the model's own summary");
    }
    assert!(r.stdout.contains("  members:     2 (2 model(s), 0 other)\n"), "{}", r.stdout);
}

#[test]
fn inspect_json_gives_each_members_place_and_summary() {
    let task = bundle("llm_deflated.task");
    let r = run([std::ffi::OsStr::new("inspect"), std::ffi::OsStr::new("--json"), task.as_os_str()]);
    r.expect_code(0);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(doc["format"], "bundle");
    assert_eq!(doc["file_bytes"], std::fs::metadata(&task).unwrap().len());
    let members = doc["members"].as_array().unwrap();
    let names: Vec<&str> = members.iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["TF_LITE_PREFILL_DECODE", "TOKENIZER_MODEL", "METADATA"]);
    let source = model("tf_convnet_buffer_offset");
    assert_eq!(members[0]["type"], "tflite");
    assert_eq!(members[0]["storage"], "deflated");
    assert_eq!(members[0]["offset"], Value::Null);
    assert_eq!(members[0]["bytes"], std::fs::metadata(&source).unwrap().len());
    let mut own: Value = serde_json::from_str(
        &run([std::ffi::OsStr::new("inspect"), std::ffi::OsStr::new("--json"), source.as_os_str()]).stdout,
    )
    .unwrap();
    own.as_object_mut().unwrap().remove("format_version");
    assert_eq!(members[0]["summary"], own);
    for other in &members[1..] {
        assert_eq!(other["type"], Value::Null);
        assert_eq!(other["summary"], Value::Null);
    }
    assert_eq!((members[1]["storage"].as_str(), members[1]["bytes"].as_u64()), (Some("deflated"), Some(33)));
    let archive = std::fs::read(&task).unwrap();
    let at = find(&archive, b"\x12\x08stand-in") as u64;
    assert_eq!((members[2]["storage"].as_str(), members[2]["offset"].as_u64()), (Some("stored"), Some(at)));
}

#[test]
fn scan_recognises_a_bundle_and_names_each_finding_member() {
    let task = bundle("llm_deflated.task");
    let r = run([std::ffi::OsStr::new("scan"), task.as_os_str()]);
    let record: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(record["verdict"], "valid");
    assert_eq!(record["format"], "bundle");
    // The model's own findings, each naming the member.
    let own: Value = serde_json::from_str(
        &run([std::ffi::OsStr::new("scan"), model("tf_convnet_buffer_offset").as_os_str()]).stdout,
    )
    .unwrap();
    let findings = record["findings"].as_array().unwrap();
    assert!(!findings.is_empty());
    assert_eq!(findings.len(), own["findings"].as_array().unwrap().len());
    for (found, expected) in findings.iter().zip(own["findings"].as_array().unwrap()) {
        assert_eq!(found["member"], "TF_LITE_PREFILL_DECODE");
        let mut found = found.clone();
        found.as_object_mut().unwrap().remove("member");
        assert_eq!(&found, expected);
    }
}

#[test]
fn extract_writes_a_members_bytes() {
    let s = Scratch::new("bundle-extract");
    let out = s.path("member.tflite");
    let task = bundle("llm_deflated.task");
    let r = run([
        std::ffi::OsStr::new("extract"),
        task.as_os_str(),
        "member:TF_LITE_PREFILL_DECODE".as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    r.expect_code(0);
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(model("tf_convnet_buffer_offset")).unwrap());
    let r = run([
        std::ffi::OsStr::new("extract"),
        task.as_os_str(),
        "member:nope".as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    r.expect_code(2);
    assert!(r.stderr.contains("no member \"nope\"") && r.stderr.contains("TOKENIZER_MODEL"), "{}", r.stderr);
    // Other commands that read one model refuse a bundle.
    let r = run([std::ffi::OsStr::new("dump"), task.as_os_str()]);
    r.expect_code(1);
    assert!(r.stdout.contains("a model bundle holds several members"), "{}", r.stdout);
}

#[test]
fn a_tflite_model_with_an_appended_zip_is_still_a_tflite_model() {
    let s = Scratch::new("bundle-appended");
    let sine = std::fs::read(model("sine_float")).unwrap();
    let path = s.write("sine_with_labels.task", &zip_after(&sine, &[ZipEntry::stored("labels.txt", b"a\nb\n")]));
    let r = run([std::ffi::OsStr::new("verify"), path.as_os_str()]);
    r.expect_code(0);
    assert_eq!(r.lines(), [format!("{}: ok {}", shown(&path), verdict_of(&model("sine_float")))]);
}
