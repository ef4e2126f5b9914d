//! End-to-end tests of the `flatmodel` binary: exit codes, one line per file, what `inspect`,
//! `dump` and `extract` print or write. Expected values come from the flatc references beside
//! the models, from the library API or from the file bytes, never from the tool's own output.

use crate::support;

use flatmodel::graph::ModelView;
use flatmodel::tflite::{BuiltinOperator, Model};
use flatmodel::verify::Options;
use serde_json::Value;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use support::cli::{run, shown, truncate, Run, Scratch};
use support::{external_buffer_model, tensors_named, Bytes};

// ---------------------------------------------------------------------------------------------
// Inputs and references

fn tflite_dir() -> PathBuf {
    support::testdata().join("tflite")
}

fn models() -> Vec<PathBuf> {
    let models = support::files_with_suffix(&tflite_dir(), ".tflite");
    assert!(models.len() >= 8, "expected the shipped models, found {}", models.len());
    models
}

fn model(name: &str) -> PathBuf {
    tflite_dir().join(format!("{name}.tflite"))
}

fn flatc(model: &Path) -> Value {
    let reference =
        support::reference(model, "flatc.json").unwrap_or_else(|| panic!("{}: no flatc reference", model.display()));
    support::read_json(&reference)
}

fn arr(v: &Value) -> &[Value] {
    v.as_array().map_or(&[], |a| a.as_slice())
}

/// A JSON array of byte values as bytes.
fn bytes_of(v: &Value) -> Vec<u8> {
    arr(v).iter().map(|b| u8::try_from(b.as_u64().unwrap()).unwrap()).collect()
}

/// What the library says about `bytes` as `flatmodel verify` reports it: `None` when valid, or
/// the reason.
fn library_verdict(bytes: &[u8]) -> Option<String> {
    if !matches!(flatmodel::detect(bytes), Some(flatmodel::Format::Tflite)) {
        return Some(String::new());
    }
    let model = match Model::parse(bytes) {
        Ok(model) => model,
        Err(e) => return Some(e.to_string()),
    };
    // The command line verifies the flatbuffers nested in metadata (its `cli` feature has
    // `nested-metadata`); a library built without the feature verifies them when read.
    let nested = model.support_metadata().and_then(Result::err);
    nested.or_else(|| model.conversion_metadata().and_then(Result::err)).map(|e| e.to_string())
}

fn library_dump(bytes: &[u8]) -> Value {
    let model = Model::parse_structure(bytes).expect("structurally valid");
    let mut text = String::new();
    flatmodel::dump::dump_table(&mut text, flatmodel::dump::Dumpable::new(model), &Options::DEFAULT).unwrap();
    serde_json::from_str(&text).expect("the library's dump is JSON")
}

/// The position of the only length-prefixed, NUL-terminated copy of `s` in `bytes`.
fn unique_string(bytes: &[u8], s: &str) -> Option<usize> {
    let s = s.as_bytes();
    let hits: Vec<usize> = (4..bytes.len().saturating_sub(s.len()))
        .filter(|&p| {
            bytes[p..].starts_with(s)
                && bytes[p - 4..p] == (s.len() as u32).to_le_bytes()
                && bytes.get(p + s.len()) == Some(&0)
        })
        .collect();
    (hits.len() == 1).then(|| hits[0])
}

/// sine_float with the first byte of tensor N's name made invalid UTF-8: (bytes, N, byte).
fn sine_float_with_bad_tensor_name() -> (Vec<u8>, usize, usize) {
    let path = model("sine_float");
    let mut bytes = fs::read(&path).unwrap();
    let reference = flatc(&path);
    let tensors = arr(&reference["subgraphs"][0]["tensors"]);
    // The last tensor whose name is stored once, so the path names it alone.
    let (n, at) = tensors
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, t)| Some((i, unique_string(&bytes, t["name"].as_str()?)?)))
        .expect("a tensor name stored once");
    bytes[at] = 0xff;
    (bytes, n, at)
}

// ---------------------------------------------------------------------------------------------
// 1. verify

#[test]
fn verify_accepts_every_testdata_model_one_line_each() {
    let models = models();
    for m in &models {
        assert!(Model::parse(&fs::read(m).unwrap()).is_ok(), "{}: the library rejects it", m.display());
    }
    let r = run(std::iter::once(OsStr::new("verify")).chain(models.iter().map(|m| m.as_os_str())));
    r.expect_code(0);
    // One line per file, then its warnings (runtime refusals among them).
    let lines: Vec<&str> = r.lines().into_iter().filter(|l| !l.contains(": warning: ")).collect();
    assert_eq!(lines.len(), models.len(), "{}", r.stdout);
    for (line, m) in lines.iter().zip(&models) {
        let prefix = format!("{}: ok", shown(m));
        assert!(line.starts_with(&prefix), "{line:?} should start with {prefix:?}");
    }
    assert!(r.stderr.is_empty(), "{}", r.stderr);

    // -q prints only the warnings when all are valid.
    let r = run(["verify", "-q"].iter().map(OsStr::new).chain(models.iter().map(|m| m.as_os_str())));
    r.expect_code(0);
    assert!(r.lines().iter().all(|l| l.contains(": warning: ")), "-q must suppress ok lines: {}", r.stdout);
}

#[test]
fn verify_reports_a_corrupt_real_model_with_offset_and_path() {
    let dir = Scratch::new("verify_corrupt");
    let (bytes, n, at) = sine_float_with_bad_tensor_name();
    let bad = dir.write("bad_name.tflite", &bytes);
    let good = model("sine_float");
    let expected_path = format!("Model.subgraphs[0].tensors[{n}].name");

    // What the library says, to compare with.
    let err = Model::parse_structure(&bytes).map(|_| ()).unwrap_err();
    assert_eq!(err.location().to_string(), expected_path);
    assert_eq!(err.offset(), at as u64);

    let r = run([OsStr::new("verify"), good.as_os_str(), bad.as_os_str()]);
    r.expect_code(1);
    let lines = r.lines();
    assert_eq!(lines.len(), 2, "{}", r.stdout);
    assert!(lines[0].starts_with(&format!("{}: ok", shown(&good))), "{}", lines[0]);
    let bad_lines: Vec<&&str> = lines.iter().filter(|l| l.contains(&shown(&bad))).collect();
    assert_eq!(bad_lines.len(), 1, "{}", r.stdout);
    let line = bad_lines[0];
    assert!(line.starts_with(&format!("{}: invalid", shown(&bad))), "{line}");
    assert!(line.contains(&format!("byte {at}")), "{line} should name byte {at}");
    assert!(line.contains(&expected_path), "{line} should name {expected_path}");
    assert!(line.contains(&err.to_string()), "{line} should hold the library's error {err}");

    // -q keeps only the invalid line.
    let r = run([OsStr::new("verify"), OsStr::new("-q"), good.as_os_str(), bad.as_os_str()]);
    r.expect_code(1);
    assert_eq!(r.lines(), vec![*line], "-q must print only the invalid line");
    // Order does not matter: the invalid file first still reports the valid one.
    let r = run([OsStr::new("verify"), bad.as_os_str(), good.as_os_str()]);
    r.expect_code(1);
    assert_eq!(r.lines().len(), 2, "{}", r.stdout);
}

#[test]
fn verify_reports_a_crafted_corrupt_model_with_offset_and_path() {
    let dir = Scratch::new("verify_crafted");
    let bytes = tensors_named(20, 12, b"\xff\xfe");
    let at = bytes.windows(2).position(|w| w == b"\xff\xfe").unwrap();
    let bad = dir.write("crafted.tflite", &bytes);
    let r = run([OsStr::new("verify"), bad.as_os_str()]);
    r.expect_code(1);
    let lines = r.lines();
    assert_eq!(lines.len(), 1, "{}", r.stdout);
    assert!(lines[0].starts_with(&format!("{}: invalid", shown(&bad))), "{}", lines[0]);
    assert!(lines[0].contains("Model.subgraphs[0].tensors[12].name"), "{}", lines[0]);
    assert!(lines[0].contains(&format!("byte {at}")), "{} should name byte {at}", lines[0]);
}

// ---------------------------------------------------------------------------------------------
// 2. Bad input: exit 1, one line, no crash

/// Runs every command on `file`, expecting exit 1 and one line naming it, for inputs that are
/// not even structurally valid.
fn every_command_rejects(dir: &Scratch, file: &Path) {
    let out = dir.path("never-written.bin");
    let runs = [
        run([OsStr::new("verify"), file.as_os_str()]),
        run([OsStr::new("verify"), OsStr::new("-q"), file.as_os_str()]),
        run([OsStr::new("inspect"), file.as_os_str()]),
        run([OsStr::new("inspect"), OsStr::new("--json"), file.as_os_str()]),
        run([OsStr::new("dump"), file.as_os_str()]),
        run([OsStr::new("extract"), file.as_os_str(), OsStr::new("buffer:0"), OsStr::new("-o"), out.as_os_str()]),
    ];
    for r in &runs {
        r.expect_code(1);
        let lines = r.lines();
        assert_eq!(lines.len(), 1, "{}: want one line, got {:?}", r.what, r.stdout);
        let prefix = format!("{}: invalid: ", shown(file));
        assert!(lines[0].starts_with(&prefix) && lines[0].len() > prefix.len(), "{}: {:?}", r.what, lines[0]);
    }
    assert!(!out.exists(), "extract of an invalid file wrote {}", out.display());
}

#[test]
fn empty_short_and_text_files_exit_1() {
    let dir = Scratch::new("tiny");
    for (name, bytes) in [
        ("empty.tflite", &b""[..]),
        ("three.tflite", &b"TFL"[..]),
        ("text.tflite", &b"This is an invalid model.\nIt is only text.\n"[..]),
        ("ident_only.tflite", &b"\x08\0\0\0TFL3"[..]),
        ("root_past_end.tflite", &b"\xff\xff\xff\x7fTFL3\0\0\0\0"[..]),
    ] {
        let file = dir.write(name, bytes);
        assert!(Model::parse_structure(bytes).is_err(), "{name}: the library accepts it");
        every_command_rejects(&dir, &file);
    }
}

#[test]
fn truncated_models_exit_1() {
    let dir = Scratch::new("truncated");
    for name in ["sine_float", "tf_convnet_buffer_offset", "mp_hand_recrop"] {
        let bytes = fs::read(model(name)).unwrap();
        let len = bytes.len();
        let mut cuts = vec![4, 7, 8, 12, 16, 31, 64, 100, len / 4, len / 3, len / 2, 2 * len / 3, 3 * len / 4];
        cuts.sort_unstable();
        cuts.dedup();
        let mut files = Vec::new();
        for cut in cuts {
            let part = &bytes[..cut];
            assert!(library_verdict(part).is_some(), "{name} cut at {cut}: the library accepts it");
            let file = dir.write(&format!("{name}.cut{cut}.tflite"), part);
            // Each command on its own: exit 1 where even the structure is broken.
            if Model::parse_structure(part).is_err() {
                every_command_rejects(&dir, &file);
            }
            files.push(file);
        }
        // All at once: one invalid line per file.
        let r = run(std::iter::once(OsStr::new("verify")).chain(files.iter().map(|f| f.as_os_str())));
        r.expect_code(1);
        let lines = r.lines();
        assert_eq!(lines.len(), files.len(), "{}", r.stdout);
        for (line, f) in lines.iter().zip(&files) {
            assert!(line.starts_with(&format!("{}: invalid: ", shown(f))), "{line}");
        }
    }
}

/// A deterministic generator (an LCG), so failures reproduce.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

#[test]
fn flipped_bytes_never_crash_and_agree_with_the_library() {
    let dir = Scratch::new("flipped");
    let mut rng = Lcg(0x5eed);
    for name in ["sine_float", "tf_convnet_buffer_offset"] {
        let original = fs::read(model(name)).unwrap();
        // One mutant per position (every 3rd byte), each byte inverted, plus random values.
        let mut mutants: Vec<(PathBuf, Vec<u8>)> = Vec::new();
        for at in (0..original.len()).step_by(3) {
            let mut m = original.clone();
            m[at] = if at % 2 == 0 { !m[at] } else { (rng.next() & 0xff) as u8 ^ 0x80 ^ m[at] };
            mutants.push((dir.write(&format!("{name}.flip{at}.tflite"), &m), m));
        }
        let r = run(std::iter::once(OsStr::new("verify")).chain(mutants.iter().map(|(p, _)| p.as_os_str())));
        r.no_crash();
        let lines: Vec<&str> = r.lines().into_iter().filter(|l| !l.contains(": warning: ")).collect();
        assert_eq!(lines.len(), mutants.len(), "{name}: one line per file");
        let mut invalid = 0;
        for (line, (path, bytes)) in lines.iter().zip(&mutants) {
            match library_verdict(bytes) {
                None => assert!(line.starts_with(&format!("{}: ok", shown(path))), "{line}"),
                Some(reason) => {
                    invalid += 1;
                    let prefix = format!("{}: invalid: ", shown(path));
                    assert!(line.starts_with(&prefix), "{line}");
                    assert!(line.ends_with(&reason), "{line} should end with the library's {reason:?}");
                }
            }
        }
        assert_eq!(r.code, Some(if invalid > 0 { 1 } else { 0 }), "{name}");
        assert!(invalid > mutants.len() / 10, "{name}: only {invalid} of {} mutants invalid", mutants.len());

        // inspect and dump on a sample: exit 0 or 1 as the structure check says, never a crash.
        for (path, bytes) in mutants.iter().step_by(7) {
            let structure_ok = Model::parse_structure(bytes).is_ok();
            let r = run([OsStr::new("inspect"), OsStr::new("--json"), path.as_os_str()]);
            r.expect_code(if structure_ok { 0 } else { 1 });
            if structure_ok {
                let _: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{}: {e}", r.what));
            }
            let r = run([OsStr::new("dump"), path.as_os_str()]);
            r.expect_code(if structure_ok { 0 } else { 1 });
            if structure_ok {
                let ours: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{}: {e}", r.what));
                assert_eq!(ours, library_dump(bytes), "{}", r.what);
            }
        }

        // Many flips in one file: invalid, exit 1.
        let mut m = original.clone();
        for _ in 0..64 {
            let at = (rng.next() as usize) % m.len();
            m[at] ^= 0xa5;
        }
        assert!(library_verdict(&m).is_some(), "{name}: 64 flips left a valid model");
        let file = dir.write(&format!("{name}.many.tflite"), &m);
        if Model::parse_structure(&m).is_err() {
            every_command_rejects(&dir, &file);
        } else {
            run([OsStr::new("verify"), file.as_os_str()]).expect_code(1);
        }
    }
}

#[test]
fn external_buffer_offset_near_u64_max_is_an_error_not_a_crash() {
    let dir = Scratch::new("huge_offset");
    for (offset, size) in [(u64::MAX - 5, 10), (u64::MAX, u64::MAX), (2, u64::MAX), (1 << 40, 16)] {
        let bytes = external_buffer_model(offset, size);
        let file = dir.write(&format!("ext_{offset}_{size}.tflite"), &bytes);
        let err = Model::parse(&bytes).map(|_| ()).unwrap_err();

        let r = run([OsStr::new("verify"), file.as_os_str()]);
        r.expect_code(1);
        let lines = r.lines();
        assert_eq!(lines.len(), 1, "{}", r.stdout);
        assert_eq!(lines[0], format!("{}: invalid: {err}", shown(&file)));
        assert!(lines[0].contains("Model.buffers[1].offset"), "{}", lines[0]);

        // The structure is fine, so inspect and dump show it, with the broken rule.
        let r = run([OsStr::new("inspect"), OsStr::new("--json"), file.as_os_str()]);
        r.expect_code(0);
        let s: Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(s["model_rules"], Value::from(err.to_string()));
        assert_eq!(s["buffers"], 2);
        assert_eq!(s["buffer_bytes_outside"].as_u64(), Some(size));
        let r = run([OsStr::new("dump"), file.as_os_str()]);
        r.expect_code(0);
        let d: Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(d["buffers"][1]["offset"].as_u64(), Some(offset));
        assert_eq!(d["buffers"][1]["size"].as_u64(), Some(size));

        // Extracting the out-of-range buffer fails cleanly; the empty one works.
        let out = dir.path("out.bin");
        let r =
            run([OsStr::new("extract"), file.as_os_str(), OsStr::new("buffer:1"), OsStr::new("-o"), out.as_os_str()]);
        r.no_crash();
        assert_ne!(r.code, Some(0), "{}", r.what);
        assert!(!out.exists());
        assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
        let r =
            run([OsStr::new("extract"), file.as_os_str(), OsStr::new("buffer:0"), OsStr::new("-o"), out.as_os_str()]);
        r.expect_code(0);
        assert_eq!(fs::read(&out).unwrap(), b"");
        fs::remove_file(&out).unwrap();
    }
}

// ---------------------------------------------------------------------------------------------
// 3. Usage and I/O errors: exit 2

#[test]
fn usage_and_io_errors_exit_2() {
    let dir = Scratch::new("usage");
    let missing = dir.path("does-not-exist.tflite");
    let good = model("sine_float");
    let out = dir.path("out.bin");
    let m = missing.as_os_str();
    let g = good.as_os_str();
    let o = out.as_os_str();
    let cases: Vec<Vec<&OsStr>> = vec![
        vec![],
        vec![OsStr::new("frobnicate")],
        vec![OsStr::new("frobnicate"), g],
        vec![OsStr::new("verify")],
        vec![OsStr::new("inspect"), m],
        vec![OsStr::new("inspect")],
        vec![OsStr::new("inspect"), g, g],
        vec![OsStr::new("dump"), m],
        vec![OsStr::new("dump")],
        vec![OsStr::new("extract"), m, OsStr::new("buffer:0"), OsStr::new("-o"), o],
        vec![OsStr::new("extract"), g, OsStr::new("buffer:0")],
        vec![OsStr::new("extract"), g, OsStr::new("-o"), o],
        vec![OsStr::new("extract"), g, OsStr::new("buffer:0"), OsStr::new("-o")],
        vec![OsStr::new("verify"), OsStr::new("--bogus"), g],
        // --circle-revision: a revision no schema has, and a file that is not Circle.
        vec![OsStr::new("dump"), OsStr::new("--circle-revision"), OsStr::new("0.4"), g],
        vec![OsStr::new("dump"), OsStr::new("--circle-revision"), OsStr::new("0"), g],
        vec![OsStr::new("inspect"), OsStr::new("--circle-revision"), OsStr::new("0"), g],
    ];
    for args in cases {
        let r = run(&args);
        r.expect_code(2);
        assert!(r.stderr.starts_with("flatmodel: "), "{}: stderr {:?}", r.what, r.stderr);
        assert!(!out.exists(), "{}: wrote {}", r.what, out.display());
        if args.contains(&m) {
            assert!(r.stderr.contains(&shown(&missing)), "{}: stderr {:?} should name the file", r.what, r.stderr);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 4. The format comes from the bytes

#[test]
fn format_is_detected_from_bytes_not_the_name() {
    let dir = Scratch::new("detect");
    let source = model("sine_float");
    let bytes = fs::read(&source).unwrap();
    let reference = flatc(&source);
    for name in ["model.bin", "x.circle", "no_extension"] {
        let file = dir.write(name, &bytes);
        let r = run([OsStr::new("verify"), file.as_os_str()]);
        r.expect_code(0);
        assert_eq!(r.lines().len(), 1);
        assert!(r.stdout.starts_with(&format!("{}: ok", shown(&file))), "{}", r.stdout);
        assert!(r.stdout.contains("TFLite"), "{}", r.stdout);
        let r = run([OsStr::new("inspect"), OsStr::new("--json"), file.as_os_str()]);
        r.expect_code(0);
        let s: Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(s["format"], "TFLite");
        assert_eq!(s["schema_version"], reference["version"]);
        let r = run([OsStr::new("dump"), file.as_os_str()]);
        r.expect_code(0);
        assert_eq!(serde_json::from_str::<Value>(&r.stdout).unwrap(), library_dump(&bytes));
    }
    // And a .tflite name does not make text a model.
    let fake = dir.write("fake.tflite", b"definitely not a flatbuffer");
    every_command_rejects(&dir, &fake);
}

// ---------------------------------------------------------------------------------------------
// 5. inspect

/// The histogram the reference implies: TFLite's rule (the larger of `builtin_code` and
/// `deprecated_builtin_code`), custom ops as `CUSTOM:name`.
fn reference_histogram(reference: &Value) -> BTreeMap<String, u64> {
    let number_of: BTreeMap<&str, i32> = (-1000..1000).filter_map(|v| Some((BuiltinOperator(v).name()?, v))).collect();
    let codes: Vec<String> = arr(&reference["operator_codes"])
        .iter()
        .map(|c| {
            let builtin = match &c["builtin_code"] {
                Value::String(s) => *number_of.get(s.as_str()).unwrap_or_else(|| panic!("unknown operator {s}")),
                Value::Number(n) => n.as_i64().unwrap() as i32,
                _ => 0,
            };
            let deprecated = c["deprecated_builtin_code"].as_i64().unwrap_or(0) as i32;
            let op = builtin.max(deprecated);
            if op == 32 {
                format!("CUSTOM:{}", c["custom_code"].as_str().unwrap_or(""))
            } else if op == builtin && c["builtin_code"].is_string() {
                c["builtin_code"].as_str().unwrap().to_string()
            } else {
                BuiltinOperator(op).name().map_or_else(|| format!("BuiltinOperator({op})"), str::to_string)
            }
        })
        .collect();
    let mut histogram = BTreeMap::new();
    for sg in arr(&reference["subgraphs"]) {
        for op in arr(&sg["operators"]) {
            let index = op["opcode_index"].as_u64().unwrap_or(0) as usize;
            *histogram.entry(codes[index].clone()).or_default() += 1;
        }
    }
    histogram
}

fn check_inspect_json(model: &Path, s: &Value, reference: &Value) -> Result<(), String> {
    macro_rules! same {
        ($ours:expr, $theirs:expr, $what:expr) => {
            let (ours, theirs) = (&$ours, &$theirs);
            if ours != theirs {
                return Err(format!("{}: ours {} vs flatc's {}", $what, ours, theirs));
            }
        };
    }
    let bytes = fs::read(model).unwrap();
    same!(s["format"], Value::from("TFLite"), "format");
    same!(s["schema_version"], reference["version"], "schema_version");
    same!(s["file_bytes"], Value::from(bytes.len()), "file_bytes");
    same!(s["description"], reference.get("description").cloned().unwrap_or(Value::Null), "description");

    let ours_sg = arr(&s["subgraphs"]);
    let theirs_sg = arr(&reference["subgraphs"]);
    same!(ours_sg.len(), theirs_sg.len(), "number of subgraphs");
    for (i, (o, t)) in ours_sg.iter().zip(theirs_sg).enumerate() {
        same!(o["index"], Value::from(i), format!("subgraphs[{i}].index"));
        same!(o["tensors"], Value::from(arr(&t["tensors"]).len()), format!("subgraphs[{i}].tensors"));
        same!(o["operators"], Value::from(arr(&t["operators"]).len()), format!("subgraphs[{i}].operators"));
        same!(o["inputs"], t.get("inputs").cloned().unwrap_or(Value::Array(vec![])), format!("subgraphs[{i}].inputs"));
        same!(
            o["outputs"],
            t.get("outputs").cloned().unwrap_or(Value::Array(vec![])),
            format!("subgraphs[{i}].outputs")
        );
        same!(o["name"], t.get("name").cloned().unwrap_or(Value::Null), format!("subgraphs[{i}].name"));
    }

    let histogram: BTreeMap<String, u64> =
        serde_json::from_value(s["operator_histogram"].clone()).map_err(|e| format!("operator_histogram: {e}"))?;
    let total: u64 = histogram.values().sum();
    let reference_total: usize = theirs_sg.iter().map(|sg| arr(&sg["operators"]).len()).sum();
    same!(total, reference_total as u64, "operator histogram total");
    let expected = reference_histogram(reference);
    if histogram != expected {
        return Err(format!("operator_histogram: ours {histogram:?} vs flatc's {expected:?}"));
    }

    let ours_sig = arr(&s["signatures"]);
    let theirs_sig = arr(&reference["signature_defs"]);
    same!(ours_sig.len(), theirs_sig.len(), "number of signatures");
    for (i, (o, t)) in ours_sig.iter().zip(theirs_sig).enumerate() {
        same!(o["key"], t.get("signature_key").cloned().unwrap_or(Value::Null), format!("signatures[{i}].key"));
        same!(o["subgraph"], t["subgraph_index"], format!("signatures[{i}].subgraph"));
        for side in ["inputs", "outputs"] {
            let ours: Vec<(Value, Value)> =
                arr(&o[side]).iter().map(|m| (m["name"].clone(), m["tensor"].clone())).collect();
            let theirs: Vec<(Value, Value)> =
                arr(&t[side]).iter().map(|m| (m["name"].clone(), m["tensor_index"].clone())).collect();
            if ours != theirs {
                return Err(format!("signatures[{i}].{side}: ours {ours:?} vs flatc's {theirs:?}"));
            }
        }
    }

    let ours_meta: Vec<(Value, Value)> =
        arr(&s["metadata"]).iter().map(|m| (m["name"].clone(), m["buffer"].clone())).collect();
    let theirs_meta: Vec<(Value, Value)> =
        arr(&reference["metadata"]).iter().map(|m| (m["name"].clone(), m["buffer"].clone())).collect();
    if ours_meta != theirs_meta {
        return Err(format!("metadata: ours {ours_meta:?} vs flatc's {theirs_meta:?}"));
    }

    let buffers = arr(&reference["buffers"]);
    same!(s["buffers"], Value::from(buffers.len()), "buffers");
    let inside: u64 = buffers.iter().map(|b| arr(&b["data"]).len() as u64).sum();
    let outside: u64 = buffers
        .iter()
        .filter(|b| b.get("data").is_none() && b["offset"].as_u64().unwrap_or(0) > 1)
        .map(|b| b["size"].as_u64().unwrap_or(0))
        .sum();
    same!(s["buffer_bytes_inside"], Value::from(inside), "buffer_bytes_inside");
    same!(s["buffer_bytes_outside"], Value::from(outside), "buffer_bytes_outside");

    // min_runtime_version: the metadata buffer's bytes up to the first NUL.
    let mrv = arr(&reference["metadata"])
        .iter()
        .find(|m| m["name"] == "min_runtime_version")
        .and_then(|m| buffers.get(m["buffer"].as_u64()? as usize))
        .map(|b| {
            let data = bytes_of(&b["data"]);
            let end = data.iter().position(|&c| c == 0).unwrap_or(data.len());
            Value::from(String::from_utf8(data[..end].to_vec()).unwrap())
        })
        .unwrap_or(Value::Null);
    same!(s["min_runtime_version"], mrv, "min_runtime_version");

    let rules = match Model::parse(&bytes) {
        Ok(_) => "ok".to_string(),
        Err(e) => e.to_string(),
    };
    same!(s["model_rules"], Value::from(rules), "model_rules");
    Ok(())
}

fn inspect_models(models: &[PathBuf]) -> usize {
    let mut failures = Vec::new();
    let mut checked = 0;
    for m in models {
        let Some(reference) = support::reference(m, "flatc.json") else { continue };
        let reference = support::read_json(&reference);
        let r = run([OsStr::new("inspect"), OsStr::new("--json"), m.as_os_str()]);
        r.expect_code(0);
        let s: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{}: {e}", r.what));
        if let Err(e) = check_inspect_json(m, &s, &reference) {
            failures.push(format!("{}: {e}", m.display()));
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{} of {checked} differ:\n{}", failures.len(), failures.join("\n"));
    checked
}

#[test]
fn inspect_json_matches_flatc() {
    let checked = inspect_models(&models());
    assert!(checked >= 8, "checked {checked}");
}

#[test]
fn inspect_json_check_can_fail() {
    let m = model("sine_float");
    let reference = flatc(&m);
    let r = run([OsStr::new("inspect"), OsStr::new("--json"), m.as_os_str()]);
    r.expect_code(0);
    let good: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(check_inspect_json(&m, &good, &reference), Ok(()));
    for (field, value) in [
        ("schema_version", Value::from(2)),
        ("buffers", Value::from(12)),
        ("description", Value::Null),
        ("operator_histogram", serde_json::json!({"FULLY_CONNECTED": 2})),
        ("metadata", serde_json::json!([])),
        ("signatures", serde_json::json!([])),
    ] {
        let mut bad = good.clone();
        bad[field] = value;
        assert!(check_inspect_json(&m, &bad, &reference).is_err(), "{field}");
    }
    let mut bad = good.clone();
    bad["subgraphs"][0]["tensors"] = Value::from(11);
    assert!(check_inspect_json(&m, &bad, &reference).is_err());
}

#[test]
fn inspect_text_names_the_file() {
    for m in models() {
        let reference = flatc(&m);
        let r = run([OsStr::new("inspect"), m.as_os_str()]);
        r.expect_code(0);
        let lines = r.lines();
        assert_eq!(lines.first().copied(), Some(shown(&m).as_str()), "{}", r.stdout);
        if let Some(d) = reference["description"].as_str() {
            assert!(r.stdout.contains(d), "{}: description {d:?} missing", m.display());
        }
        for meta in arr(&reference["metadata"]) {
            let name = meta["name"].as_str().unwrap();
            assert!(r.stdout.contains(name), "{}: metadata {name} missing", m.display());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 6. dump

#[test]
fn dump_equals_the_library_dump() {
    for m in models() {
        let bytes = fs::read(&m).unwrap();
        let r = run([OsStr::new("dump"), m.as_os_str()]);
        r.expect_code(0);
        let ours: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{}: {e}", r.what));
        assert!(ours == library_dump(&bytes), "{}: the CLI's dump differs from the library's", m.display());
    }
}

#[test]
fn dump_of_sine_float_shows_flatc_values() {
    let m = model("sine_float");
    let reference = flatc(&m);
    let r = run([OsStr::new("dump"), m.as_os_str()]);
    r.expect_code(0);
    let d: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(d["version"], reference["version"]);
    assert_eq!(d["description"], reference["description"]);
    let tensors = arr(&reference["subgraphs"][0]["tensors"]);
    assert_eq!(arr(&d["subgraphs"][0]["tensors"]).len(), tensors.len());
    for (i, t) in tensors.iter().enumerate() {
        assert_eq!(d["subgraphs"][0]["tensors"][i]["name"], t["name"], "tensor {i}");
        assert_eq!(d["subgraphs"][0]["tensors"][i]["shape"], t["shape"], "tensor {i}");
    }
    let buffers = arr(&reference["buffers"]);
    assert_eq!(arr(&d["buffers"]).len(), buffers.len());
    let with_data: Vec<usize> = (0..buffers.len()).filter(|&i| !arr(&buffers[i]["data"]).is_empty()).collect();
    assert!(!with_data.is_empty());
    for i in with_data {
        assert_eq!(d["buffers"][i]["data"], buffers[i]["data"], "buffer {i}");
    }
    assert_eq!(d["metadata"], reference["metadata"]);
    assert_eq!(d["signature_defs"][0]["signature_key"], reference["signature_defs"][0]["signature_key"]);
}

// ---------------------------------------------------------------------------------------------
// 7. extract

fn extract(dir: &Scratch, file: &Path, what: &str) -> (Run, PathBuf) {
    let out = dir.path(&format!("{}.{}.out", file.file_stem().unwrap().to_string_lossy(), what.replace(':', "_")));
    let r = run([OsStr::new("extract"), file.as_os_str(), OsStr::new(what), OsStr::new("-o"), out.as_os_str()]);
    (r, out)
}

#[test]
fn extract_writes_inline_buffer_bytes() {
    let dir = Scratch::new("extract_inline");
    let mut checked = 0;
    for m in models() {
        let reference = flatc(&m);
        let buffers = arr(&reference["buffers"]);
        let with_data: Vec<usize> = (0..buffers.len()).filter(|&i| !arr(&buffers[i]["data"]).is_empty()).collect();
        // The first and the largest buffer with inline data.
        let largest = with_data.iter().copied().max_by_key(|&i| arr(&buffers[i]["data"]).len());
        for i in with_data.first().copied().into_iter().chain(largest) {
            let (r, out) = extract(&dir, &m, &format!("buffer:{i}"));
            r.expect_code(0);
            assert_eq!(r.stdout, "", "{}", r.what);
            assert!(fs::read(&out).unwrap() == bytes_of(&buffers[i]["data"]), "{}: bytes differ", r.what);
            checked += 1;
        }
        // Buffer 0 is the empty sentinel.
        let (r, out) = extract(&dir, &m, "buffer:0");
        r.expect_code(0);
        assert_eq!(fs::read(&out).unwrap(), bytes_of(&buffers[0]["data"]));
    }
    assert!(checked >= 8, "checked {checked}");
}

#[test]
fn extract_writes_buffers_stored_after_the_flatbuffer() {
    let dir = Scratch::new("extract_external");
    let m = model("tf_convnet_buffer_offset");
    let file = fs::read(&m).unwrap();
    let reference = flatc(&m);
    let mut checked = 0;
    for (i, b) in arr(&reference["buffers"]).iter().enumerate() {
        let (offset, size) = (b["offset"].as_u64().unwrap() as usize, b["size"].as_u64().unwrap() as usize);
        let expected: Vec<u8> = match b.get("data") {
            Some(data) => bytes_of(data),
            None if offset > 1 => file[offset..offset + size].to_vec(),
            None => Vec::new(),
        };
        let (r, out) = extract(&dir, &m, &format!("buffer:{i}"));
        r.expect_code(0);
        assert!(fs::read(&out).unwrap() == expected, "{}: bytes differ", r.what);
        if offset > 1 && size > 0 {
            checked += 1;
        }
    }
    assert!(checked >= 5, "checked {checked} external buffers");
}

#[test]
fn extract_writes_metadata_bytes() {
    let dir = Scratch::new("extract_metadata");
    for name in ["sine_float", "tf_convnet_int8_full", "tf_convnet_fp16"] {
        let m = model(name);
        let reference = flatc(&m);
        let entry = arr(&reference["metadata"]).iter().find(|e| e["name"] == "min_runtime_version").unwrap();
        let buffer = &reference["buffers"][entry["buffer"].as_u64().unwrap() as usize];
        let expected = bytes_of(&buffer["data"]);
        assert!(!expected.is_empty());
        let (r, out) = extract(&dir, &m, "metadata:min_runtime_version");
        r.expect_code(0);
        assert_eq!(fs::read(&out).unwrap(), expected, "{}", r.what);
    }
    // The TFLITE_METADATA flatbuffer has its own reference file.
    let m = model("mp_face_detection_short_range");
    let expected = fs::read(tflite_dir().join("mp_face_detection_short_range.TFLITE_METADATA.M001.bin")).unwrap();
    let (r, out) = extract(&dir, &m, "metadata:TFLITE_METADATA");
    r.expect_code(0);
    assert!(fs::read(&out).unwrap() == expected, "{}: bytes differ", r.what);
}

#[test]
fn extract_rejects_bad_selectors() {
    let dir = Scratch::new("extract_bad");
    let m = model("sine_float");
    let buffers = arr(&flatc(&m)["buffers"]).len();
    let past_end = format!("buffer:{buffers}");
    for what in [
        "buffer:999999",
        past_end.as_str(),
        "buffer:4294967295",
        "buffer:4294967296",
        "buffer:-1",
        "buffer:x",
        "buffer:",
        "nope:1",
        "buffer",
        "",
        "metadata:no_such_entry",
    ] {
        let (r, out) = extract(&dir, &m, what);
        r.no_crash();
        assert_ne!(r.code, Some(0), "{}", r.what);
        assert!(!out.exists(), "{}: wrote {}", r.what, out.display());
        assert_eq!(r.stderr.lines().count(), 1, "{}: stderr {:?}", r.what, r.stderr);
    }
}

// ---------------------------------------------------------------------------------------------
// The corpus, when FLATMODEL_CORPUS names it

#[test]
fn corpus_verify_and_inspect() {
    let Some(corpus) = support::corpus() else {
        return;
    };
    let dir = corpus.join("tflite");
    let all = support::files_with_suffix(&dir, ".tflite");
    assert!(all.len() >= 30, "found {}", all.len());
    // verify over every file at once: one line each, verdicts as the library's.
    let r = run(std::iter::once(OsStr::new("verify")).chain(all.iter().map(|m| m.as_os_str())));
    r.no_crash();
    let lines: Vec<&str> = r.lines().into_iter().filter(|l| !l.contains(": warning: ")).collect();
    assert_eq!(lines.len(), all.len(), "{}", truncate(&r.stdout));
    let mut invalid = 0;
    for (line, m) in lines.iter().zip(&all) {
        let bytes = fs::read(m).unwrap();
        match library_verdict(&bytes) {
            None => {
                assert!(line.starts_with(&format!("{}: ok", shown(m))), "{line}");
                let mut warnings = 0;
                Model::parse(&bytes).unwrap().for_each_warning(|_| warnings += 1).unwrap();
                let listed = r.stdout.matches(&format!("{}: warning: ", shown(m))).count();
                assert_eq!(listed, warnings.min(100), "{}: warnings listed", shown(m));
            }
            Some(_) => {
                invalid += 1;
                assert!(line.starts_with(&format!("{}: invalid: ", shown(m))), "{line}");
            }
        }
    }
    assert_eq!(r.code, Some(if invalid > 0 { 1 } else { 0 }));
    // The broken files: every command ends cleanly.
    let scratch = Scratch::new("corpus");
    for m in support::files_with_suffix(&dir.join("invalid"), ".tflite") {
        let bytes = fs::read(&m).unwrap();
        if Model::parse_structure(&bytes).is_err() {
            every_command_rejects(&scratch, &m);
        } else {
            // Structurally valid (litert_segment_sum_invalid_buffer fails only at run time).
            let code = if library_verdict(&bytes).is_some() { 1 } else { 0 };
            run([OsStr::new("verify"), m.as_os_str()]).expect_code(code);
        }
    }
    let valid: Vec<PathBuf> =
        all.into_iter().filter(|m| Model::parse_structure(&fs::read(m).unwrap()).is_ok()).collect();
    let checked = inspect_models(&valid);
    assert!(checked >= 30, "checked {checked}");
}

// ---------------------------------------------------------------------------------------------
// Inputs that once broke the tool

#[test]
fn inspect_of_shared_subtrees_is_refused_within_the_budget() {
    let dir = Scratch::new("inspect_amplified");
    let bytes = support::shared_operators(20_000, 20_000, &[], b"t");
    assert!(bytes.len() < 250_000);
    assert!(Model::parse_structure(&bytes).is_ok(), "structurally valid");
    let file = dir.write("amplified.tflite", &bytes);
    // 20,000 x 20,000 operators read from a 240 KB file: text, JSON and the tensor listing are
    // all refused with a message, rather than expanded.
    for flags in [&[][..], &["--json"][..], &["--tensors"][..], &["--json", "--tensors"][..]] {
        let args = std::iter::once("inspect").map(OsStr::new).chain(flags.iter().map(OsStr::new));
        let r = run(args.chain([file.as_os_str()]));
        r.expect_code(1);
        assert_eq!(r.lines().len(), 1, "{}: {}", r.what, truncate(&r.stdout));
        assert!(r.stdout.contains("invalid: refused: the summary would be disproportionate"), "{}", r.stdout);
    }
}

#[test]
fn inspect_of_a_long_name_shared_many_times_is_refused_within_the_budget() {
    let dir = Scratch::new("inspect_shared_name");
    // 20,000 subgraph inputs naming one tensor with a 60 KB name: 1.2 GB of names to copy and
    // print, from a valid model of about 220 KB.
    let bytes = support::shared_operators(1, 20_000, &[], &vec![b'x'; 60_000]);
    assert!(bytes.len() < 250_000);
    assert!(Model::parse(&bytes).is_ok(), "a valid model");
    let file = dir.write("shared_name.tflite", &bytes);
    for flags in [&[][..], &["--json"][..], &["--tensors"][..], &["--json", "--tensors"][..]] {
        let args = std::iter::once("inspect").map(OsStr::new).chain(flags.iter().map(OsStr::new));
        let r = run(args.chain([file.as_os_str()]));
        r.expect_code(1);
        assert!(r.stdout.len() < 1_000, "{}: {} bytes of output", r.what, r.stdout.len());
        assert!(r.stdout.contains("invalid: refused: the summary would be disproportionate"), "{}", r.stdout);
    }
    // The same model with a short name is listed in full.
    let short = dir.write("short_name.tflite", &support::shared_operators(1, 20_000, &[], b"t"));
    let r = run([OsStr::new("inspect"), OsStr::new("--json"), short.as_os_str()]);
    let s: Value = serde_json::from_str(&r.expect_code(0).stdout).unwrap();
    assert_eq!(s["io"][0]["inputs"].as_array().unwrap().len(), 20_000);
}

/// A bare VkGraph { values: [VkValue { VkTensor { dims: [m x 1] } }], input_ids: [n x 0] }:
/// about 4(n + m) bytes whose inputs list n x m dimensions.
fn shared_vk_inputs(n: usize, m: usize) -> Vec<u8> {
    let mut b = Bytes::with_identifier(b"VK00");
    // VkGraph: values (slot 2), input_ids (slot 3).
    let graph_vt = b.vtable(&[0, 0, 4, 8], 12);
    let graph = b.table(graph_vt, &[0; 8]);
    b.patch(0, graph);
    let values = b.offsets(1);
    b.patch(graph + 4, values);
    // VkValue: value_type (slot 0, ubyte) = 5 (VkTensor, after NONE and Null), value (slot 1).
    let value_vt = b.vtable(&[8, 4], 12);
    let value = b.table(value_vt, &[0, 0, 0, 0, 5, 0, 0, 0]);
    b.patch(values + 4, value);
    // VkTensor: dims (slot 1), constant_id (slot 2) = -1 (not a constant).
    let tensor_vt = b.vtable(&[0, 4, 8], 12);
    let tensor = b.table(tensor_vt, &[0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]);
    b.patch(value + 4, tensor);
    let dims = b.ints(&vec![1; m]);
    b.patch(tensor + 4, dims);
    let inputs = b.ints(&vec![0; n]);
    b.patch(graph + 8, inputs);
    b.buf
}

#[test]
fn inspect_of_a_vkgraph_with_shared_values_is_refused_within_the_budget() {
    let dir = Scratch::new("inspect_vk_amplified");
    let bytes = shared_vk_inputs(20_000, 20_000);
    assert!(bytes.len() < 200_000);
    let parsed = flatmodel::vkgraph::Blob::parse(&bytes);
    assert!(parsed.is_ok(), "valid: one value named 20,000 times: {:?}", parsed.err());
    let file = dir.write("amplified.vk00", &bytes);
    let r = run([OsStr::new("inspect"), file.as_os_str()]);
    r.expect_code(1);
    assert!(r.stdout.contains("invalid: refused: the summary would be disproportionate"), "{}", r.stdout);
    // The same shape at a small scale is listed in full.
    let small = dir.write("small.vk00", &shared_vk_inputs(3, 4));
    let r = run([OsStr::new("inspect"), OsStr::new("--json"), small.as_os_str()]);
    let s: Value = serde_json::from_str(&r.expect_code(0).stdout).unwrap();
    assert_eq!(s["inputs"].as_array().unwrap().len(), 3);
    assert_eq!(s["inputs"][2]["dims"], serde_json::json!([1, 1, 1, 1]));
}

#[test]
fn extract_onto_its_own_input_keeps_the_input() {
    let dir = Scratch::new("extract_onto_input");
    let original = fs::read(model("sine_float")).unwrap();
    let file = dir.write("model.tflite", &original);
    let r = run([OsStr::new("extract"), file.as_os_str(), OsStr::new("buffer:2"), OsStr::new("-o"), file.as_os_str()]);
    r.no_crash();
    let after = fs::read(&file).unwrap();
    let buffer2 = Model::parse(&original).unwrap().buffer_data(2).unwrap().to_vec();
    // Either refused (input intact) or done (the file now holds the buffer's bytes).
    assert!(
        (r.code != Some(0) && after == original) || (r.code == Some(0) && after == buffer2),
        "exit {:?}, file now {} bytes, stderr {:?}",
        r.code,
        after.len(),
        r.stderr
    );
}

// ---------------------------------------------------------------------------------------------
// Circle: the same commands, the format detected from the bytes

/// The Circle files with ONE's bindings' reference: testdata, plus the corpus when set.
fn circle_models() -> Vec<PathBuf> {
    let mut models = support::files_with_suffix(&support::testdata().join("circle"), ".circle");
    if let Some(corpus) = support::corpus() {
        models.extend(support::files_with_suffix(&corpus.join("circle"), ".circle"));
    }
    models.retain(|m| support::reference(m, "circle_schema.json").is_some());
    assert!(!models.is_empty(), "no Circle models");
    models
}

/// `inspect` names the model file a `RUN_MODEL` operator runs, in text and JSON.
#[test]
fn inspect_shows_run_model_references() {
    let dir = Scratch::new("run-model");
    let file = dir.write("m.circle", &support::run_model_circle(Some(b"sub/next.circle")));
    let r = run([OsStr::new("inspect"), file.as_os_str()]);
    r.expect_code(0);
    assert!(
        r.stdout.contains("runs model:          sub/next.circle (its first subgraph) from subgraph 0 operator 0"),
        "{}",
        r.stdout
    );
    let r = run([OsStr::new("inspect"), OsStr::new("--json"), file.as_os_str()]);
    let s: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        s["run_model"],
        serde_json::json!([{"subgraph": 0, "operator": 0, "location": "sub/next.circle", "signature": null}])
    );
}

/// `inspect` of a Circle 0.10 file shows what it shows of the TFLite file it came from:
/// subgraphs, operators, tensors with shape signatures, signatures and metadata.
#[test]
fn circle_0_10_inspect_shows_what_its_tflite_source_shows() {
    let inspect = |path: &Path| {
        let r = run([OsStr::new("inspect"), OsStr::new("--json"), OsStr::new("--tensors"), path.as_os_str()]);
        r.expect_code(0);
        serde_json::from_str::<Value>(&r.stdout).unwrap()
    };
    let c = inspect(&support::testdata().join("circle/c010_sine_float.circle"));
    let t = inspect(&model("sine_float"));
    assert_eq!(c["circle_revision"], "0.4+");
    assert!(arr(&c["signatures"]).len() == 1 && arr(&c["metadata"]).len() == 2, "{c}");
    for key in ["signatures", "metadata", "subgraphs", "operator_histogram", "buffer_bytes_inside", "model_rules"] {
        assert_eq!(c[key], t[key], "{key}");
    }
    // A named metadata entry comes out as the TFLite source's does.
    let dir = Scratch::new("circle-metadata");
    let circle = support::testdata().join("circle/c010_sine_float.circle");
    let (r, out) = extract(&dir, &circle, "metadata:min_runtime_version");
    r.expect_code(0);
    let (r, expected) = extract(&dir, &model("sine_float"), "metadata:min_runtime_version");
    r.expect_code(0);
    assert_eq!(fs::read(&out).unwrap(), fs::read(&expected).unwrap());
    assert!(fs::read(&out).unwrap().starts_with(b"1.5.0"));
    let text = run([OsStr::new("inspect"), support::testdata().join("circle/c010_sine_float.circle").as_os_str()]);
    assert!(
        text.stdout.contains("serving_default (subgraph 0): inputs [dense_input=0] outputs [dense_2=9]"),
        "{}",
        text.stdout
    );
    assert!(text.stdout.contains("circle revision:     0.4 or later"), "{}", text.stdout);
}

#[test]
fn circle_files_verify_inspect_dump_and_extract() {
    let dir = Scratch::new("circle");
    for m in circle_models() {
        let one = support::read_json(&support::reference(&m, "circle_schema.json").unwrap());
        let flatc = support::read_json(&support::reference(&m, "flatc.json").unwrap());
        // Named as something else, so only the bytes can say it is Circle.
        let bytes = fs::read(&m).unwrap();
        let file = dir.write("model.bin", &bytes);
        let r = run([OsStr::new("verify"), file.as_os_str()]);
        r.expect_code(0);
        assert!(r.stdout.contains("ok (Circle v0"), "{}", r.stdout);

        let r = run([OsStr::new("inspect"), OsStr::new("--json"), OsStr::new("--tensors"), file.as_os_str()]);
        r.expect_code(0);
        let s: Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(s["format"], "Circle", "{}", m.display());
        assert_eq!(s["model_rules"], "ok", "{}", m.display());
        // The histogram: ONE's operator names, counted over the operators of every subgraph.
        let mut expected: BTreeMap<String, u64> = BTreeMap::new();
        for sg in arr(&one["subgraphs"]) {
            for op in arr(&sg["operators"]) {
                let code = &one["operator_codes"][op["opcode_index"].as_u64().unwrap() as usize];
                let name = match code["op"].as_str().unwrap() {
                    "CUSTOM" => format!("CUSTOM:{}", code["custom_code"].as_str().unwrap()),
                    other => other.to_string(),
                };
                *expected.entry(name).or_default() += 1;
            }
        }
        let histogram: BTreeMap<String, u64> = serde_json::from_value(s["operator_histogram"].clone()).unwrap();
        assert_eq!(histogram, expected, "{}", m.display());
        for (ours, theirs) in arr(&s["subgraphs"]).iter().zip(arr(&one["subgraphs"])) {
            assert_eq!(
                ours["data_format"],
                if theirs["data_format"] == 0 { "CHANNELS_LAST" } else { "CHANNELS_FIRST" }
            );
            let tensors = arr(&ours["tensor_list"]);
            assert_eq!(tensors.len(), arr(&theirs["tensors"]).len(), "{}", m.display());
            for (t, r) in tensors.iter().zip(arr(&theirs["tensors"])) {
                assert_eq!((&t["name"], &t["type"], &t["shape"]), (&r["name"], &r["type"], &r["shape"]));
                let size = one["buffers"][r["buffer"].as_u64().unwrap() as usize]["size"].clone();
                assert_eq!(t["data_bytes"], size, "{}: {}", m.display(), t["name"]);
            }
        }

        // These references use revision 0's names, which a model without operators cannot
        // show by its content: ask for them.
        let r = run([OsStr::new("dump"), file.as_os_str(), OsStr::new("--circle-revision"), OsStr::new("0")]);
        r.expect_code(0);
        let dumped: Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(dumped["description"], flatc["description"]);
        assert_eq!(dumped["subgraphs"][0]["data_format"], flatc["subgraphs"][0]["data_format"]);
        assert_eq!(dumped["operator_codes"], flatc["operator_codes"], "{}", m.display());

        // The largest buffer, byte for byte.
        let buffers = arr(&flatc["buffers"]);
        let largest = (0..buffers.len()).max_by_key(|&i| arr(&buffers[i]["data"]).len()).unwrap();
        let (r, out) = extract(&dir, &file, &format!("buffer:{largest}"));
        r.expect_code(0);
        assert!(fs::read(&out).unwrap() == bytes_of(&buffers[largest]["data"]), "{}", r.what);
        let (r, _) = extract(&dir, &file, "metadata:anything");
        r.expect_code(2);
        assert!(r.stderr.contains("no metadata entry named 'anything'"), "{}", r.stderr);
    }
}

#[test]
fn corrupt_circle_files_exit_1_with_a_location() {
    let dir = Scratch::new("circle_corrupt");
    let bytes = fs::read(support::testdata().join("circle/sine_float.circle")).unwrap();
    // Truncated, and a tensor's name no longer NUL-terminated.
    let file = dir.write("cut.circle", &bytes[..bytes.len() / 2]);
    let r = run([OsStr::new("verify"), file.as_os_str()]);
    r.expect_code(1);
    assert!(r.stdout.starts_with(&format!("{}: invalid: ", shown(&file))), "{}", r.stdout);
    let name = b"serving_default_dense_input:0";
    let at = unique_string(&bytes, std::str::from_utf8(name).unwrap()).unwrap();
    let mut broken = bytes.clone();
    broken[at + name.len()] = b'!';
    let file = dir.write("name.circle", &broken);
    let r = run([OsStr::new("verify"), file.as_os_str()]);
    r.expect_code(1);
    assert!(r.stdout.contains("Model.subgraphs[0].tensors[0].name"), "{}", r.stdout);
    every_command_rejects(&dir, &file);
}

// ---------------------------------------------------------------------------------------------
// ExecuTorch: .pte programs, VH00 blobs and bare VkGraphs

fn vk_dir() -> PathBuf {
    support::testdata().join("vkgraph")
}

#[test]
fn executorch_files_verify_inspect_dump_and_extract() {
    let dir = Scratch::new("executorch");
    let all: Vec<PathBuf> =
        [".pte", ".vh00", ".vk00.bin"].iter().flat_map(|s| support::files_with_suffix(&vk_dir(), s)).collect();
    assert!(all.len() >= 19, "{}", all.len());
    for path in &all {
        // Named as something else, so only the bytes can say what it is.
        let file = dir.write("model.bin", &fs::read(path).unwrap());
        let r = run([OsStr::new("verify"), file.as_os_str()]);
        r.expect_code(0);
        assert!(r.stdout.starts_with(&format!("{}: ok (", shown(&file))), "{}", r.stdout);
        let r = run([OsStr::new("dump"), file.as_os_str()]);
        r.expect_code(0);
        let reference = support::reference(path, "flatc.json").or_else(|| support::reference(path, "vk00.flatc.json"));
        let reference = support::read_json(&reference.unwrap());
        let dumped: Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(dumped["version"], reference["version"], "{}", path.display());
    }
    for pte in support::files_with_suffix(&vk_dir(), ".pte") {
        let stem = pte.file_stem().unwrap().to_string_lossy().to_string();
        let reference = flatc(&pte);
        let r = run([OsStr::new("inspect"), OsStr::new("--json"), pte.as_os_str()]);
        r.expect_code(0);
        let s: Value = serde_json::from_str(&r.stdout).unwrap();
        let delegates = arr(&s["delegates"]);
        let expected: Vec<&Value> =
            arr(&reference["execution_plan"]).iter().flat_map(|p| arr(&p["delegates"])).collect();
        assert_eq!(delegates.len(), expected.len(), "{stem}");
        for (n, (ours, theirs)) in delegates.iter().zip(expected).enumerate() {
            assert_eq!(ours["backend_id"], theirs["id"], "{stem}");
            // The graph summary agrees with the blob's own VkGraph reference.
            let graph = support::read_json(&vk_dir().join(format!("{stem}.delegate{n}.vk00.flatc.json")));
            let mut ops: BTreeMap<String, u64> = BTreeMap::new();
            for call in arr(&graph["chain"]) {
                *ops.entry(call["name"].as_str().unwrap().to_string()).or_default() += 1;
            }
            let ours_ops: BTreeMap<String, u64> = arr(&ours["vulkan"]["operators"])
                .iter()
                .map(|o| (o["name"].as_str().unwrap().to_string(), o["count"].as_u64().unwrap()))
                .collect();
            assert_eq!(ours_ops, ops, "{stem} delegate {n}");
            let total: u64 = arr(&graph["constants"]).iter().map(|c| c["length"].as_u64().unwrap()).sum();
            assert_eq!(ours["vulkan"]["constant_bytes"], total, "{stem} delegate {n}");
            assert!(arr(&ours["vulkan"]["constants"]).iter().all(|c| c["found"] == true), "{stem}: {}", ours["vulkan"]);
            // extract delegate:N is the blob ExecuTorch's parser extracted.
            let (r, out) = extract(&dir, &pte, &format!("delegate:{n}"));
            r.expect_code(0);
            let extracted = fs::read(vk_dir().join(format!("{stem}.delegate{n}.vh00"))).unwrap();
            assert!(fs::read(&out).unwrap() == extracted, "{}", r.what);
        }
        // named:KEY writes the segment the program's named data gives.
        if let Some(first) = arr(&reference["named_data"]).first() {
            let key = first["key"].as_str().unwrap();
            let segment = &reference["segments"][first["segment_index"].as_u64().unwrap() as usize];
            let (r, out) = extract(&dir, &pte, &format!("named:{key}"));
            r.expect_code(0);
            assert_eq!(fs::read(&out).unwrap().len() as u64, segment["size"].as_u64().unwrap());
        }
    }
}

#[test]
fn extract_constant_from_a_blob() {
    let dir = Scratch::new("vk_constant");
    let blob = vk_dir().join("vk_mlp_inline_constants.vh00");
    let bytes = fs::read(&blob).unwrap();
    let graph = support::read_json(&vk_dir().join("vk_mlp_inline_constants.vk00.flatc.json"));
    let bytes_offset = u32::from_le_bytes(bytes[18..22].try_into().unwrap()) as usize;
    for (i, c) in arr(&graph["constants"]).iter().enumerate() {
        let (r, out) = extract(&dir, &blob, &format!("constant:{i}"));
        r.expect_code(0);
        let start = bytes_offset + c["offset"].as_u64().unwrap() as usize;
        let end = start + c["length"].as_u64().unwrap() as usize;
        assert!(fs::read(&out).unwrap() == bytes[start..end], "{}", r.what);
    }
    // A 1.5 blob's constants live in the program: the tool says where to look.
    let (r, _) = extract(&dir, &vk_dir().join("vk_mlp.delegate0.vh00"), "constant:0");
    r.expect_code(2);
    assert!(r.stderr.contains("named:"), "{}", r.stderr);
    let (r, _) = extract(&dir, &blob, "constant:99");
    r.expect_code(1);
    assert!(r.stdout.contains("VkGraph.constants[99]"), "{}", r.stdout);
}

#[test]
fn corrupt_executorch_files_exit_1() {
    let dir = Scratch::new("executorch_corrupt");
    let pte = fs::read(vk_dir().join("vk_convnet.pte")).unwrap();
    let cut = dir.write("cut.pte", &pte[..pte.len() - 1000]);
    every_command_rejects(&dir, &cut);
    let blob = fs::read(vk_dir().join("vk_mlp_inline_constants.vh00")).unwrap();
    let mut bad = blob.clone();
    bad[22..30].copy_from_slice(&u64::MAX.to_le_bytes());
    let file = dir.write("bad.vh00", &bad);
    let r = run([OsStr::new("verify"), file.as_os_str()]);
    r.expect_code(1);
    assert!(r.stdout.contains("VH00.bytes_size"), "{}", r.stdout);
}
