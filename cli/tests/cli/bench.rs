//! `flatmodel bench FILE...` (`docs/bench.md` §10): every stage of every format timed and
//! reported with the fields documented, `--runs`, `--cold`, `--mmap` and `--json`, invalid and
//! unreadable files with `verify`'s exit status. No assertion is about how long anything took:
//! only the report's shape, its counts (checked against the file, the library and `dump`), and
//! that a minimum never exceeds its median.

use crate::support::cli::{grouped, run, Run, Scratch};
use crate::support::{self};
use serde_json::Value;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

const STAGES: [&str; 5] = ["open", "structure", "rules", "walk", "dump"];

/// `flatmodel bench ARGS...`.
fn bench<I: IntoIterator<Item = S>, S: Into<OsString>>(args: I) -> Run {
    let mut all = vec![OsString::from("bench")];
    all.extend(args.into_iter().map(Into::into));
    run(all)
}

/// `bench --json ARGS...`, parsed, checked to end as `code`.
fn bench_json<I: IntoIterator<Item = S>, S: Into<OsString>>(args: I, code: i32) -> Value {
    let mut all = vec![OsString::from("--json")];
    all.extend(args.into_iter().map(Into::into));
    let r = bench(all);
    r.expect_code(code);
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{}: not JSON ({e}):\n{}", r.what, r.stdout))
}

/// A stage's timing: `runs` runs, and the fastest no slower than the median.
fn assert_timed(file: &Value, stage: &str, runs: u64) {
    let t = &file["stages"][stage];
    assert_eq!(t["runs"], runs, "{}: {stage}: {t}", file["path"]);
    let (min, median) = (t["min_ns"].as_u64().unwrap(), t["median_ns"].as_u64().unwrap());
    assert!(min <= median, "{}: {stage}: min {min} > median {median}", file["path"]);
}

/// One file of every format flatmodel reads, from testdata.
fn one_of_each_format() -> Vec<PathBuf> {
    let t = support::testdata();
    [
        "tflite/sine_float.tflite",
        "circle/sine_float.circle",
        "circle/c010_sine_float.circle",
        "ptd/ptd_mlp_portable.pte",
        "ptd/ptd_mlp_portable.ptd",
        "vkgraph/vk_mlp.delegate0.vh00",
        "vkgraph/vk_mlp.delegate0.vk00.bin",
        "xnnpack/xnn_mlp_fp32.delegate0.xh00",
        "xnnpack/xnn_mlp_fp32.delegate0.xn.bin",
        "cvimodel/tpumlir_tinycnn_int8_cv181x.cvimodel",
        "litertlm/litertlm_sp_llm.litertlm",
    ]
    .iter()
    .map(|p| t.join(p))
    .collect()
}

#[test]
fn every_format_gets_every_stage_timed_in_the_order_given() {
    let files = one_of_each_format();
    let args = [OsString::from("--runs"), "2".into()].into_iter().chain(files.iter().map(Into::into));
    let doc = bench_json(args, 0);
    assert_eq!(doc["format_version"], 1);
    assert_eq!(doc["access"], "read");
    assert_eq!(doc["runs"], 2);
    assert_eq!(doc["cold"], false);
    let entries = doc["files"].as_array().unwrap();
    assert_eq!(entries.len(), files.len(), "one entry per file");
    let mut formats = std::collections::BTreeSet::new();
    for (path, entry) in files.iter().zip(entries) {
        let bytes = std::fs::read(path).unwrap();
        assert_eq!(entry["path"], path.to_string_lossy().as_ref());
        let format = flatmodel::detect(&bytes).unwrap().short_name();
        assert_eq!(entry["format"], format);
        formats.insert(format);
        assert_eq!(entry["bytes"], bytes.len() as u64);
        assert_eq!(entry["verdict"], "valid");
        assert_eq!(entry["error"], Value::Null);
        assert_eq!(entry["cold"], Value::Null);
        assert_eq!(entry["notes"], serde_json::json!([]));
        let mut keys: Vec<&str> = entry["stages"].as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["dump", "open", "rules", "structure", "walk"], "the stages");
        for stage in STAGES {
            assert_timed(entry, stage, 2);
        }
        // The dump counted what `flatmodel dump` prints.
        let dump = run([Path::new("dump"), path]);
        dump.expect_code(0);
        assert_eq!(entry["dump_bytes"], dump.stdout.len() as u64, "{}", path.display());
        assert!(entry["walk_objects"].as_u64().unwrap() > 0, "{}", path.display());
    }
    assert_eq!(formats.len(), 8, "every format: {formats:?}");
}

#[test]
fn the_walk_visits_what_the_library_walk_visits() {
    use flatmodel::schema::{Walk, Walker};
    let path = support::testdata().join("tflite/sine_float.tflite");
    let bytes = std::fs::read(&path).unwrap();
    let mut w = Walker::default();
    flatmodel::tflite::Model::parse(&bytes).unwrap().walk(&mut w);
    let doc = bench_json([OsString::from("--runs"), "1".into(), path.into()], 0);
    assert_eq!(doc["files"][0]["walk_objects"], w.objects());
}

#[test]
fn runs_makes_exactly_that_many_runs_of_each_stage() {
    let path = support::testdata().join("tflite/sine_float.tflite");
    let doc = bench_json([OsString::from("--runs"), "3".into(), path.clone().into()], 0);
    for stage in STAGES {
        assert_timed(&doc["files"][0], stage, 3);
    }
    // The stages are written in the order they run.
    let r = bench([OsString::from("--json"), "--runs".into(), "1".into(), path.clone().into()]);
    let at: Vec<usize> = STAGES.iter().map(|s| r.stdout.find(&format!("\"{s}\": {{")).unwrap()).collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{}", r.stdout);
    // Without --runs, each stage gets at least 5 runs and `runs` is null.
    let doc = bench_json([path], 0);
    assert_eq!(doc["runs"], Value::Null);
    for stage in STAGES {
        let runs = doc["files"][0]["stages"][stage]["runs"].as_u64().unwrap();
        assert!((5..=10_000).contains(&runs), "{stage}: {runs} runs");
    }
}

#[test]
fn text_shows_a_table_per_file() {
    let a = support::testdata().join("tflite/sine_float.tflite");
    let b = support::testdata().join("ptd/ptd_mlp_portable.pte");
    let r = bench([OsString::from("--runs"), "2".into(), a.clone().into(), b.clone().into()]);
    r.expect_code(0);
    let lines = r.lines();
    let header = |path: &Path, format: &str, bytes: usize| {
        format!("{}: {format}, {} bytes, valid", path.display(), grouped(bytes))
    };
    let at_a = lines.iter().position(|l| *l == header(&a, "tflite", 3164)).expect(&r.stdout);
    let at_b = lines
        .iter()
        .position(|l| *l == header(&b, "pte", std::fs::metadata(&b).unwrap().len() as usize))
        .expect(&r.stdout);
    assert!(at_a < at_b, "in the order given");
    for start in [at_a, at_b] {
        let head: Vec<&str> = lines[start + 1].split_whitespace().collect();
        assert_eq!(head, ["stage", "runs", "min", "median", "MB/s"]);
        let rows: Vec<Vec<&str>> = lines[start + 2..start + 7].iter().map(|l| l.split_whitespace().collect()).collect();
        let names: Vec<&str> = rows.iter().map(|r| r[0]).collect();
        assert_eq!(names, ["open", "structure", "rules", "walk", "dump"]);
        assert_eq!(rows[0][1], "(read)");
        for row in &rows {
            let runs = if row[0] == "open" { row[2] } else { row[1] };
            assert_eq!(runs, "2", "{row:?}");
            assert!(!row.contains(&"—"), "{row:?}");
        }
        assert!(lines[start + 7].contains("the dump writes"), "{}", lines[start + 7]);
    }
}

#[test]
fn a_file_failing_its_structure_is_located_and_the_later_stages_are_null() {
    let dir = Scratch::new("bench-invalid");
    let bytes = support::tensors_named(3, 1, b"\xff\xfe");
    let path = dir.write("bad.tflite", &bytes);
    let expected = flatmodel::File::parse_structure(&bytes).unwrap_err();
    let doc = bench_json([OsString::from("--runs"), "2".into(), path.clone().into()], 1);
    let entry = &doc["files"][0];
    assert_eq!(entry["verdict"], "invalid");
    assert_eq!(entry["format"], "tflite");
    let error = &entry["error"];
    assert_eq!(error["stage"], "structure");
    assert_eq!(error["offset"], expected.offset());
    assert_eq!(error["path"], expected.location().to_string());
    assert_eq!(error["path"], "Model.subgraphs[0].tensors[1].name", "the tensor named badly");
    assert_timed(entry, "open", 2);
    assert_timed(entry, "structure", 2);
    for stage in ["rules", "walk", "dump"] {
        assert_eq!(entry["stages"][stage], Value::Null, "{stage}");
    }
    assert_eq!(entry["walk_objects"], Value::Null);
    assert_eq!(entry["dump_bytes"], Value::Null);
    // The text: the same reason `verify` gives, and a dash for each stage not run.
    let verify = run([Path::new("verify"), &path]);
    verify.expect_code(1);
    let reason = verify.stdout.lines().next().unwrap().split_once(": invalid: ").unwrap().1.to_string();
    let r = bench([OsString::from("--runs"), "2".into(), path.into()]);
    r.expect_code(1);
    assert!(r.stdout.contains(&format!("invalid (structure): {reason}")), "{}", r.stdout);
    for stage in ["rules", "walk", "dump"] {
        let row = r.lines().into_iter().find(|l| l.trim_start().starts_with(stage)).unwrap();
        assert_eq!(row.split_whitespace().collect::<Vec<_>>(), [stage, "—", "—", "—", "—"]);
    }
}

#[test]
fn a_file_failing_its_rules_is_still_walked_and_dumped() {
    let dir = Scratch::new("bench-rules");
    // A buffer stored past the end of the file: a rule, not the structure.
    let bytes = support::external_buffer_model(1 << 40, 16);
    let expected = flatmodel::File::parse(&bytes).unwrap_err();
    assert!(flatmodel::File::parse_structure(&bytes).is_ok());
    let path = dir.write("rules.tflite", &bytes);
    let doc = bench_json([OsString::from("--runs"), "2".into(), path.into()], 1);
    let entry = &doc["files"][0];
    assert_eq!(entry["verdict"], "invalid");
    assert_eq!(entry["error"]["stage"], "rules");
    let kind = format!("{:?}", expected.kind());
    assert_eq!(entry["error"]["kind"], kind.split('(').next().unwrap());
    assert_eq!(entry["error"]["path"], expected.location().to_string());
    assert_eq!(entry["error"]["offset"], expected.offset());
    for stage in STAGES {
        assert_timed(entry, stage, 2);
    }
}

#[test]
fn a_walk_and_dump_the_budget_refuses_are_null_with_a_note_not_a_number() {
    let dir = Scratch::new("bench-shared");
    // Every subgraph and tensor offset shares one table: small to verify, huge to walk.
    let bytes = support::shared_subtrees(2000, 2000, b"t");
    let file = flatmodel::File::parse_structure(&bytes).unwrap();
    let path = dir.write("shared.tflite", &bytes);
    let code = if file.check_rules(&Default::default()).is_ok() { 0 } else { 1 };
    let doc = bench_json([OsString::from("--runs"), "1".into(), path.into()], code);
    let entry = &doc["files"][0];
    assert_timed(entry, "structure", 1);
    assert_eq!(entry["stages"]["walk"], Value::Null);
    assert_eq!(entry["stages"]["dump"], Value::Null);
    assert_eq!(entry["walk_objects"], Value::Null);
    let notes: Vec<&str> = entry["notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    assert!(notes.iter().any(|n| n.starts_with("walk: stopped by the work budget")), "{notes:?}");
    assert!(notes.iter().any(|n| n.starts_with("dump: ")), "{notes:?}");
}

#[test]
fn unknown_unreadable_and_package_paths_get_their_verdicts_and_the_worst_status() {
    let dir = Scratch::new("bench-other");
    let junk = dir.write("junk.bin", b"\x7fELF\x02\x01\x01\0rest of it");
    let good = support::testdata().join("tflite/sine_float.tflite");
    let doc = bench_json([OsString::from("--runs"), "1".into(), good.clone().into(), junk.clone().into()], 1);
    let junk_entry = &doc["files"][1];
    assert_eq!(junk_entry["verdict"], "unknown-format");
    assert_eq!(junk_entry["format"], Value::Null);
    assert_eq!(junk_entry["error"]["stage"], "structure");
    assert_eq!(junk_entry["stages"]["rules"], Value::Null);
    // A missing file and a model bundle: not timed, status 2 over the invalid file's 1.
    let missing = dir.path("missing.tflite");
    let bundle = support::testdata().join("bundle/two_models_stored.task");
    let doc = bench_json(
        [OsString::from("--runs"), "1".into(), junk.into(), missing.into(), bundle.clone().into(), good.into()],
        2,
    );
    let verdicts: Vec<&str> = doc["files"].as_array().unwrap().iter().map(|f| f["verdict"].as_str().unwrap()).collect();
    assert_eq!(verdicts, ["unknown-format", "unreadable", "unsupported", "valid"]);
    for entry in &doc["files"].as_array().unwrap()[1..3] {
        assert_eq!(entry["error"]["stage"], Value::Null);
        assert!(entry["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{entry}");
        for stage in STAGES {
            assert_eq!(entry["stages"][stage], Value::Null, "{stage}");
        }
    }
    let r = bench([OsString::from("--runs"), "1".into(), bundle.clone().into()]);
    r.expect_code(2);
    assert!(r.stdout.starts_with(&format!("{}: not timed: ", bundle.display())), "{}", r.stdout);
}

#[test]
fn cold_evicts_before_each_open_or_says_it_cannot() {
    let path = support::testdata().join("tflite/sine_float.tflite");
    let doc = bench_json([OsString::from("--cold"), "--runs".into(), "2".into(), path.clone().into()], 0);
    assert_eq!(doc["cold"], true);
    let entry = &doc["files"][0];
    let cold = entry["cold"].as_str().unwrap();
    if cfg!(target_os = "linux") {
        assert_eq!(cold, "evicted");
    } else {
        assert_eq!(cold, "unsupported");
    }
    for stage in STAGES {
        assert_timed(entry, stage, 2);
    }
    let r = bench([OsString::from("--cold"), "--runs".into(), "1".into(), path.into()]);
    r.expect_code(0);
    let said = if cold == "evicted" { "cold (evicted from the page cache" } else { "cold requested but unsupported" };
    assert!(r.lines()[0].contains(said), "{}", r.stdout);
}

#[test]
fn mmap_maps_the_file_for_the_open_stage() {
    let path = support::testdata().join("circle/sine_float.circle");
    let doc = bench_json([OsString::from("--mmap"), "--runs".into(), "2".into(), path.clone().into()], 0);
    assert_eq!(doc["access"], "map");
    for stage in STAGES {
        assert_timed(&doc["files"][0], stage, 2);
    }
    let r = bench([OsString::from("--mmap"), "--runs".into(), "1".into(), path.into()]);
    r.expect_code(0);
    assert!(r.stdout.contains("open (map)"), "{}", r.stdout);
}

#[test]
fn usage_errors_say_what_bench_takes() {
    let path = support::testdata().join("tflite/sine_float.tflite");
    for runs in ["0", "x", "-3", "1000001"] {
        let r = bench([OsString::from("--runs"), runs.into(), path.clone().into()]);
        r.expect_code(2);
        assert!(r.stderr.contains("--runs takes a number of runs from 1 to 1000000"), "{runs}: {}", r.stderr);
    }
    let r = bench(Vec::<OsString>::new());
    r.expect_code(2);
    assert!(r.stderr.contains("bench needs at least one FILE"), "{}", r.stderr);
    let r = bench([OsString::from("--rns"), "3".into(), path.into()]);
    r.expect_code(2);
    assert!(r.stderr.contains("--runs"), "a typo gets the flag: {}", r.stderr);
    // Flags of other commands are refused.
    let r = run(["inspect", "--cold", "x.tflite"]);
    r.expect_code(2);
}
