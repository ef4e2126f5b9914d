//! The command line on LiteRT-LM's `.litertlm` files: `verify` recognises one from its bytes and
//! summarises it with the version and section types the hand-read `.header.json` gives, refuses
//! a broken one naming the section, and `dump` prints the metadata as flatc does.

use crate::support;

use serde_json::Value;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use support::cli::{grouped, run, shown, Scratch};

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
    same_but(ours, theirs, &METADATA)
}

/// What may differ between our dump and flatc's: fields ours holds at the value given where
/// flatc's leaves them out, and how far a float may be from flatc's.
struct Allowed {
    extra: &'static [(&'static str, i64)],
    /// The largest difference from flatc's value `b`.
    tolerance: fn(f64) -> f64,
}

/// The metadata: flatc prints its doubles with 12 significant digits.
const METADATA: Allowed = Allowed { extra: &[], tolerance: |b| 1e-11 * b.abs().max(1.0) };

/// A TFLite model against flatc's dumps of the corpus's TFLite files, made with a schema before
/// the LiteRT revision after v2.15 (`docs/tflite.md` §1.7): ours may hold that revision's fields
/// at their defaults; flatc prints a float with 6 digits after the point.
const TFLITE_NEWER: Allowed =
    Allowed { extra: &[("external_buffer", 0), ("debug_metadata_index", -1)], tolerance: |b| 5e-7 + 1e-6 * b.abs() };

/// [`same`], with what `allowed` lets differ.
fn same_but(ours: &Value, theirs: &Value, allowed: &Allowed) -> bool {
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            let extra_allowed = |(k, v): (&String, &Value)| {
                allowed.extra.iter().any(|&(n, d)| k.as_str() == n && v.as_i64() == Some(d))
            };
            a.iter().filter(|(k, _)| !b.contains_key(*k)).all(extra_allowed)
                && b.keys().all(|k| a.contains_key(k))
                && a.iter().filter(|(k, _)| b.contains_key(*k)).all(|(k, v)| same_but(v, &b[k], allowed))
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(v, w)| same_but(v, w, allowed))
        }
        (Value::Number(a), Value::Number(b)) if a.is_f64() || b.is_f64() => {
            let (a, b) = (a.as_f64().unwrap(), b.as_f64().unwrap());
            (a - b).abs() <= (allowed.tolerance)(b)
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

/// A key/value pair as LiteRT-LM's own `peek` prints it (`Key: K, Value (T): V`): the key, the
/// type and the value text.
fn peek_pair(line: &str) -> (String, String, String) {
    let rest = line.trim_start().strip_prefix("Key: ").unwrap_or_else(|| panic!("{line}"));
    let (key, rest) = rest.split_once(", Value (").unwrap();
    let (kind, value) = rest.split_once("): ").unwrap();
    (key.to_string(), kind.to_string(), value.to_string())
}

/// What `peek` prints of the file beside `path`: the system metadata's pairs, and each
/// section's items, range and type, in file order.
#[allow(clippy::type_complexity)]
fn peek(path: &Path) -> (Vec<(String, String, String)>, Vec<(Vec<(String, String, String)>, u64, u64, String)>) {
    let text = fs::read_to_string(path.with_extension("peek.txt")).unwrap();
    let (mut system, mut sections) = (Vec::new(), Vec::new());
    let mut in_system = false;
    let mut items = Vec::new();
    let mut range = (0, 0);
    for line in text.lines() {
        if line.contains("System Metadata") {
            in_system = true;
        } else if line.contains("Sections (") {
            in_system = false;
        } else if line.starts_with("  Key: ") && in_system {
            system.push(peek_pair(line));
        } else if line.starts_with("    Key: ") {
            items.push(peek_pair(line));
        } else if let Some(n) = line.strip_prefix("  Begin Offset:") {
            range.0 = n.trim().parse().unwrap();
        } else if let Some(n) = line.strip_prefix("  End Offset:") {
            range.1 = n.trim().parse().unwrap();
        } else if let Some(t) = line.strip_prefix("  Data Type:") {
            sections.push((std::mem::take(&mut items), range.0, range.1, t.trim().to_string()));
        }
    }
    (system, sections)
}

/// Our pair (`{key, type, value}`) is peek's: the schema's type names but `StringValue`, which
/// peek calls `String`; floats as peek rounds them (four decimals); `True`/`False`.
#[track_caller]
fn same_pair(ours: &Value, (key, kind, value): &(String, String, String), what: &str) {
    assert_eq!(ours["key"], Value::from(key.as_str()), "{what}");
    let kind = if kind == "String" { "StringValue" } else { kind.as_str() };
    assert_eq!(ours["type"], Value::from(kind), "{what}: {key}");
    let v = &ours["value"];
    let agrees = match kind {
        "StringValue" => v.as_str() == Some(value.as_str()),
        "Bool" => v.as_bool() == Some(value == "True"),
        "Float32" | "Double" => (v.as_f64().unwrap() - value.parse::<f64>().unwrap()).abs() <= 5e-5,
        _ => serde_json::from_str::<Value>(value).ok().as_ref() == Some(v),
    };
    assert!(agrees, "{what}: {key}: ours {v}, peek {value}");
}

/// A standalone TFLite file equal to a section (`equals_file` in `.header.json`): in testdata,
/// else in the corpus.
fn standalone(name: &str) -> Option<PathBuf> {
    let shipped = support::testdata().join("tflite").join(name);
    if shipped.exists() {
        return Some(shipped);
    }
    support::corpus().map(|d| d.join("tflite").join(name)).filter(|p| p.exists())
}

/// `inspect --json` (without `format_version`) of `path`.
fn inspect_json(path: &Path) -> Value {
    let r = run([OsStr::new("inspect"), OsStr::new("--json"), path.as_os_str()]);
    r.expect_code(0);
    let mut doc: Value = serde_json::from_str(&r.stdout).unwrap();
    doc.as_object_mut().unwrap().remove("format_version");
    doc
}

#[test]
fn inspect_shows_the_header_metadata_and_sections_peek_shows() {
    let mut nested = 0;
    for path in files() {
        let name = path.display().to_string();
        let header = json(&path, "header.json");
        let (system, sections) = peek(&path);
        let doc = inspect_json(&path);
        let h = &header["header"];
        assert_eq!(doc["format"], "LiteRT-LM", "{name}");
        assert_eq!(doc["version"], Value::from(format!("{}.{}.{}", h["major"], h["minor"], h["patch"])), "{name}");
        assert_eq!(doc["file_bytes"], header["size"], "{name}");
        assert_eq!(doc["header_end"], h["header_end_u64_at_24"], "{name}");
        let ours = doc["system_metadata"].as_array().unwrap();
        assert_eq!(ours.len(), system.len(), "{name}");
        for (o, p) in ours.iter().zip(&system) {
            same_pair(o, p, &name);
        }
        let listed = doc["sections"].as_array().unwrap();
        let described = header["sections"].as_array().unwrap();
        assert_eq!((listed.len(), described.len()), (sections.len(), sections.len()), "{name}");
        // The text shows the same, line by line.
        let r = run([OsStr::new("inspect"), path.as_os_str()]);
        r.expect_code(0);
        let text = r.stdout;
        let version = format!("  format:          LiteRT-LM {}.{}.{}\n", h["major"], h["minor"], h["patch"]);
        assert!(text.contains(&version), "{name}:\n{text}");
        for (i, ((s, d), (items, begin, end, kind))) in listed.iter().zip(described).zip(&sections).enumerate() {
            let what = format!("{name}: section {i}");
            assert_eq!(s["index"], Value::from(i), "{what}");
            assert_eq!(
                (s["type"].as_str(), d["data_type"].as_str()),
                (Some(kind.as_str()), Some(kind.as_str())),
                "{what}"
            );
            assert_eq!((&s["begin_offset"], &s["end_offset"]), (&Value::from(*begin), &Value::from(*end)), "{what}");
            assert_eq!((&s["begin_offset"], &s["end_offset"]), (&d["begin_offset"], &d["end_offset"]), "{what}");
            assert_eq!(s["bytes"], d["length"], "{what}");
            let ours = s["items"].as_array().unwrap();
            assert_eq!(ours.len(), items.len(), "{what}");
            for (o, p) in ours.iter().zip(items) {
                same_pair(o, p, &what);
            }
            let row = format!("    [{i}] {kind}: {} bytes at {begin}..{end}\n", grouped(end - begin));
            assert!(text.contains(&row), "{what}: no line {row:?} in\n{text}");
            // A TFLite section's summary is what inspect gives the same model alone.
            assert_eq!(s.get("summary").is_some(), kind == "TFLiteModel", "{what}");
            let Some(file) = d["equals_file"].as_str().filter(|_| kind == "TFLiteModel").and_then(standalone) else {
                continue;
            };
            assert_eq!(s["summary"], inspect_json(&file), "{what}: {}", file.display());
            let alone = run([OsStr::new("inspect"), file.as_os_str()]);
            let title = format!("  section {i} (TFLiteModel):");
            let mut indented = String::new();
            for (n, line) in alone.stdout.lines().enumerate() {
                indented += &if n == 0 { format!("{title}\n") } else { format!("  {line}\n") };
            }
            assert!(text.contains(&indented), "{what}: not {} indented:\n{indented}\nin\n{text}", file.display());
            nested += 1;
        }
    }
    assert!(nested >= 2, "{nested} TFLite sections compared with their files");
}

/// The SHA-256 of `path` in hex, by the system's `sha256sum`, when it runs.
fn sha256(path: &Path) -> Option<String> {
    let out = std::process::Command::new("sha256sum").arg(path).output().ok().filter(|o| o.status.success())?;
    String::from_utf8(out.stdout).ok()?.split_whitespace().next().map(str::to_string)
}

#[test]
fn extract_writes_each_section_byte_for_byte() {
    let dir = Scratch::new("litertlm-extract");
    let (mut hashed, mut matched) = (0, 0);
    for path in files() {
        let header = json(&path, "header.json");
        for (i, d) in header["sections"].as_array().unwrap().iter().enumerate() {
            let out = dir.path(&format!("section{i}.bin"));
            let arg = format!("section:{i}");
            let r = run([OsStr::new("extract"), path.as_os_str(), OsStr::new(&arg), OsStr::new("-o"), out.as_os_str()]);
            r.expect_code(0);
            let bytes = fs::read(&out).unwrap();
            let what = format!("{} section {i}", path.display());
            assert_eq!(Some(bytes.len() as u64), d["length"].as_u64(), "{what}");
            if let Some(hex) = sha256(&out) {
                assert_eq!(Some(hex.as_str()), d["sha256"].as_str(), "{what}");
                hashed += 1;
            }
            if let Some(file) = d["equals_file"].as_str().and_then(standalone) {
                assert!(fs::read(&file).unwrap() == bytes, "{what} is not {}", file.display());
                matched += 1;
            }
        }
        // Past the last section, and not a section index: usage errors.
        let count = header["sections"].as_array().unwrap().len();
        for bad in [format!("section:{count}"), "section:x".into(), "tensor:0".into()] {
            let out = dir.path("bad.bin");
            run([OsStr::new("extract"), path.as_os_str(), OsStr::new(&bad), OsStr::new("-o"), out.as_os_str()])
                .expect_code(2);
            assert!(!out.exists(), "{bad}");
        }
    }
    if hashed == 0 {
        support::skip("comparing sections with header.json's sha256: sha256sum does not run");
    }
    assert!(matched >= 2, "{matched} sections compared with their files");
}

#[test]
fn dump_prints_a_tflite_section_as_its_model_and_refuses_other_types() {
    let (mut compared, mut with_flatc) = (0, 0);
    for path in files() {
        let header = json(&path, "header.json");
        for (i, d) in header["sections"].as_array().unwrap().iter().enumerate() {
            let arg = format!("section:{i}");
            let r = run([OsStr::new("dump"), path.as_os_str(), OsStr::new(&arg)]);
            let what = format!("{} section {i}", path.display());
            if d["data_type"] != "TFLiteModel" {
                r.expect_code(2);
                let kind = d["data_type"].as_str().unwrap();
                let want = format!("section {i} is {kind}, not a TFLiteModel");
                assert!(r.stderr.contains(&want) && r.stdout.is_empty(), "{what}: {}", r.stderr);
                continue;
            }
            r.expect_code(0);
            let Some(file) = d["equals_file"].as_str().and_then(standalone) else { continue };
            let alone = run([OsStr::new("dump"), file.as_os_str()]);
            assert_eq!(r.stdout, alone.stdout, "{what}: not the dump of {}", file.display());
            compared += 1;
            if let Some(flatc) = support::reference(&file, "flatc.json") {
                let theirs = support::read_json(&flatc);
                let ours = support::json_with_bare_floats(&r.stdout);
                assert!(same_but(&ours, &theirs, &TFLITE_NEWER), "{what}: not {}", flatc.display());
                with_flatc += 1;
            }
        }
    }
    assert!(compared >= 2 && with_flatc >= 2, "{compared} dumps compared, {with_flatc} with flatc");
}
