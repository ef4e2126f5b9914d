//! The command line on LiteRT-LM's `.litertlm` files: `verify` recognises one from its bytes and
//! summarises it with the version and section types the hand-read `.header.json` gives, refuses
//! a broken one naming the section, and `dump` prints the metadata as flatc does.

use crate::support;

use serde_json::Value;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use support::cli::{run, shown, Scratch};

fn files() -> Vec<PathBuf> {
    let mut all = support::files_with_suffix(&support::testdata().join("litertlm"), ".litertlm");
    if let Some(corpus) = support::corpus() {
        all.extend(support::files_with_suffix(&corpus.join("litertlm"), ".litertlm"));
    }
    assert!(all.len() >= 3, "{all:?}");
    all
}

fn json(path: &Path, ext: &str) -> Value {
    support::json_with_bare_floats(&fs::read_to_string(path.with_extension(ext)).unwrap())
}

/// `verify`'s summary of the file `header.json` describes: the version, the section count,
/// then each type's count in the order the types first appear.
fn summary(r: &Value) -> String {
    let h = &r["header"];
    let sections = r["sections"].as_array().unwrap();
    let mut types: Vec<(&str, usize)> = Vec::new();
    for s in sections {
        let t = s["data_type"].as_str().unwrap();
        match types.iter_mut().find(|(n, _)| *n == t) {
            Some((_, c)) => *c += 1,
            None => types.push((t, 1)),
        }
    }
    let by_type: Vec<String> = types.iter().map(|(t, c)| format!("{c} {t}")).collect();
    format!(
        "LiteRT-LM v{}.{}.{}, {} section(s) ({})",
        h["major"],
        h["minor"],
        h["patch"],
        sections.len(),
        by_type.join(", ")
    )
}

/// `ours` equals flatc's `theirs`, a double within flatc's printing precision (flatc prints
/// 12 significant digits: `3.14159265359` for pi).
fn same(ours: &Value, theirs: &Value) -> bool {
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| same(v, w)))
        }
        (Value::Array(a), Value::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(v, w)| same(v, w)),
        (Value::Number(a), Value::Number(b)) if a.is_f64() || b.is_f64() => {
            let (a, b) = (a.as_f64().unwrap(), b.as_f64().unwrap());
            (a - b).abs() <= 1e-11 * b.abs().max(1.0)
        }
        (a, b) => a == b,
    }
}

#[test]
fn every_file_verifies_and_dumps_its_metadata_as_flatc_does() {
    let dir = Scratch::new("litertlm");
    for path in files() {
        // Named as something else, so only the bytes can say what it is.
        let file = dir.write("model.bin", &fs::read(&path).unwrap());
        let r = run([OsStr::new("verify"), file.as_os_str()]);
        r.expect_code(0);
        let expected = format!("{}: ok ({})", shown(&file), summary(&json(&path, "header.json")));
        assert_eq!(r.stdout.trim_end(), expected, "{}", path.display());
        let r = run([OsStr::new("dump"), file.as_os_str()]);
        r.expect_code(0);
        let (ours, theirs) = (support::json_with_bare_floats(&r.stdout), json(&path, "metadata.flatc.json"));
        assert!(same(&ours, &theirs), "{}:\n{ours}\n{theirs}", path.display());
        let r = run([OsStr::new("scan"), file.as_os_str()]);
        r.expect_code(0);
        let record: Value = serde_json::from_str(r.stdout.trim_end()).unwrap();
        assert_eq!((&record["format"], &record["verdict"]), (&Value::from("litertlm"), &Value::from("valid")));
    }
}

#[test]
fn a_broken_file_is_refused_naming_the_section() {
    let dir = Scratch::new("litertlm-broken");
    let path = support::testdata().join("litertlm/litertlm_sp_llm.litertlm");
    let mut bytes = fs::read(&path).unwrap();
    // The last section's end is the file's end: one byte fewer leaves it past the file.
    bytes.pop();
    let file = dir.write("cut.litertlm", &bytes);
    let r = run([OsStr::new("verify"), file.as_os_str()]);
    r.expect_code(1);
    let last = json(&path, "header.json")["sections"].as_array().unwrap().len() - 1;
    let want = format!("(LiteRTLM.sections[{last}].end_offset)");
    assert!(r.stdout.contains("invalid") && r.stdout.contains(&want), "{}", r.stdout);
    // A header end past the file.
    let mut bytes = fs::read(&path).unwrap();
    let len = bytes.len() as u64;
    bytes[24..32].copy_from_slice(&(len + 1).to_le_bytes());
    let file = dir.write("header.litertlm", &bytes);
    let r = run([OsStr::new("verify"), file.as_os_str()]);
    r.expect_code(1);
    assert!(r.stdout.contains("(LITERTLM.header_end)"), "{}", r.stdout);
}

#[test]
fn path_names_the_metadata_fields() {
    // The schema's 22 fields numbered table by table in declaration order, each table's inline
    // fields first: the twelve value tables' `value` are #0..#11, `SectionObject` holds
    // begin_offset #15, end_offset #16, data_type #17 and items #18, then `objects` #19,
    // `system_metadata` #20 and `section_metadata` #21.
    let r = run(["path", "litertlm", "LiteRTLMMetaData.#21.#19[0].#16"]);
    r.expect_code(0);
    assert_eq!(r.stdout.trim_end(), "LiteRTLMMetaData.section_metadata.objects[0].end_offset");
    run(["path", "litertlm", "#22"]).expect_code(2);
}
