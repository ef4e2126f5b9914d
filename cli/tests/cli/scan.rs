//! `flatmodel scan FILE...` (`docs/scan.md`): one JSON line per file with its verdict and
//! findings, exit 0 (all clean), 1 (a finding, an invalid or unrecognised file) or 2 (a file
//! that cannot be read); and the library's `scan_json` and `inspect_json`, which must say what
//! the command line prints. Findings are checked against facts established without the tool:
//! flatc's dumps, the corpus's README and extracted files, bytes the test itself appends, the
//! library's own verdicts.

use crate::nnpackage_support::{zip_after, ZipEntry};
use crate::support::{self, cli};
use flatmodel_cli::{inspect_json, scan_json, ReportError, Source};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The one line `scan` prints for `path`, parsed, and its exit code.
fn scan(path: &Path) -> (Value, Option<i32>) {
    let run = cli::run([Path::new("scan"), path]);
    run.no_crash();
    let lines = run.lines();
    assert_eq!(lines.len(), 1, "{}: {}", run.what, run.stdout);
    (serde_json::from_str(lines[0]).unwrap(), run.code)
}

/// The findings of `record` with id `id`.
fn with_id<'v>(record: &'v Value, id: &str) -> Vec<&'v Value> {
    record["findings"].as_array().unwrap().iter().filter(|f| f["id"] == id).collect()
}

/// `flatc`'s JSON dump beside a model (`NAME.flatc.json`, or gzipped `NAME.flatc.json.gz`).
fn flatc_json(model: &Path) -> Value {
    let json = model.with_file_name(format!("{}.flatc.json", model.file_stem().unwrap().to_string_lossy()));
    if json.exists() {
        return serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    }
    let gz = std::fs::File::open(json.with_extension("json.gz")).unwrap();
    serde_json::from_reader(flate2::read::GzDecoder::new(gz)).unwrap()
}

/// The custom codes flatc's dump lists, by operator code index.
fn custom_codes(dump: &Value) -> Vec<(usize, String)> {
    let codes = dump["operator_codes"].as_array().unwrap();
    codes.iter().enumerate().filter_map(|(i, c)| Some((i, c["custom_code"].as_str()?.to_string()))).collect()
}

#[test]
fn custom_and_flex_operators_are_the_codes_flatc_lists() {
    let Some(corpus) = support::corpus() else { return };
    // The corpus README: "custom op \"Sinh\"" and "Flex (Select TF) custom op".
    for (name, flex) in [("litert_custom_sinh", false), ("litert_multi_add_flex", true)] {
        let path = corpus.join(format!("tflite/{name}.tflite"));
        let codes = custom_codes(&flatc_json(&path));
        assert!(!codes.is_empty(), "{name}: flatc lists no custom code");
        let (record, code) = scan(&path);
        assert_eq!(record["verdict"], "valid");
        assert_eq!(code, Some(1), "{name}: a finding is exit 1");
        let found: Vec<(String, String)> = with_id(&record, "custom-operator")
            .iter()
            .map(|f| (f["path"].as_str().unwrap().to_string(), f["name"].as_str().unwrap().to_string()))
            .collect();
        let expected: Vec<(String, String)> =
            codes.iter().map(|(i, c)| (format!("Model.operator_codes[{i}]"), c.clone())).collect();
        assert_eq!(found, expected, "{name}");
        let flex_found: Vec<&str> =
            with_id(&record, "flex-operator").iter().map(|f| f["name"].as_str().unwrap()).collect();
        let flex_expected: Vec<&str> =
            codes.iter().map(|(_, c)| c.as_str()).filter(|c| flex && c.starts_with("Flex")).collect();
        assert_eq!(flex_found, flex_expected, "{name}");
        assert!(flex_found.is_empty() != flex, "{name}: the README says whether it has a Flex operator");
    }
}

#[test]
fn a_vela_model_names_its_ethos_u_delegate() {
    let Some(corpus) = support::corpus() else { return };
    // The corpus README: "Arm Vela output: custom op \"ethos-u\" with command stream".
    let (record, _) = scan(&corpus.join("tflite/tflm_person_detect_vela.tflite"));
    let delegates = with_id(&record, "delegate");
    assert_eq!(delegates.len(), 1, "{record}");
    assert!(delegates[0]["message"].as_str().unwrap().contains("\"ethos-u\""));
    assert!(delegates[0]["name"].as_str().unwrap().contains("Ethos-U"));
}

#[test]
fn pte_delegates_are_the_blobs_executorch_extracts() {
    // testdata/README: each `*.delegate<i>.vh00` is a delegate blob as ExecuTorch's program
    // parser extracts it.
    let dir = support::testdata().join("vkgraph");
    let pte = dir.join("vk_convnet.pte");
    let bytes = std::fs::read(&pte).unwrap();
    let (record, code) = scan(&pte);
    assert_eq!((record["verdict"].as_str(), record["format"].as_str(), code), (Some("valid"), Some("pte"), Some(1)));
    let delegates = with_id(&record, "delegate");
    assert_eq!(delegates.len(), 2, "the README: two Vulkan delegates");
    for (i, d) in delegates.iter().enumerate() {
        assert_eq!(d["name"], "VulkanBackend");
        assert_eq!(d["path"], format!("Program.execution_plan[0].delegates[{i}]"));
        let blob = std::fs::read(dir.join(format!("vk_convnet.delegate{i}.vh00"))).unwrap();
        let (offset, length) = (d["offset"].as_u64().unwrap() as usize, d["length"].as_u64().unwrap() as usize);
        assert_eq!(&bytes[offset..offset + length], &blob[..], "delegate {i}'s range");
    }
    // Each payload is a Vulkan blob: a flatbuffer nested in the program, over the same range.
    let nested = with_id(&record, "nested-flatbuffer");
    assert_eq!(nested.len(), 2);
    for (n, d) in nested.iter().zip(&delegates) {
        assert_eq!((&n["offset"], &n["length"]), (&d["offset"], &d["length"]));
    }
    // Every segment is data outside the flatbuffer; the delegates' blobs are two of them.
    let segments = with_id(&record, "data-outside-flatbuffer");
    let program: Value = flatc_json(&pte);
    assert_eq!(segments.len(), program["segments"].as_array().unwrap().len());
    for d in &delegates {
        assert!(segments.iter().any(|s| (&s["offset"], &s["length"]) == (&d["offset"], &d["length"])));
    }
}

#[test]
fn an_xnnpack_delegate_payload_shows_its_header() {
    let Some(corpus) = support::corpus() else { return };
    // The corpus README: blobs are SEGMENT delegates with id "XnnpackBackend", header XH00.
    let pte = corpus.join("xnnpack/xnn_mlp_fp32.pte");
    let bytes = std::fs::read(&pte).unwrap();
    let (record, _) = scan(&pte);
    let delegates = with_id(&record, "delegate");
    assert_eq!(delegates.len(), 1);
    assert_eq!(delegates[0]["name"], "XnnpackBackend");
    let blob = std::fs::read(corpus.join("xnnpack/xnn_mlp_fp32.delegate0.xh00")).unwrap();
    let offset = delegates[0]["offset"].as_u64().unwrap() as usize;
    assert_eq!(&bytes[offset..offset + blob.len()], &blob[..]);
    let nested = with_id(&record, "nested-flatbuffer");
    assert_eq!(nested.len(), 1);
    assert!(nested[0]["message"].as_str().unwrap().contains("\"XH00\""), "{}", nested[0]);
}

#[test]
fn buffers_after_the_flatbuffer_are_the_ranges_flatc_lists() {
    let path = support::testdata().join("tflite/tf_convnet_buffer_offset.tflite");
    let dump = flatc_json(&path);
    let expected: Vec<(String, u64, u64)> = dump["buffers"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(_, b)| b["offset"].as_u64().unwrap_or(0) > 1)
        .map(|(i, b)| (format!("Model.buffers[{i}]"), b["offset"].as_u64().unwrap(), b["size"].as_u64().unwrap()))
        .collect();
    assert!(!expected.is_empty());
    let (record, _) = scan(&path);
    let found: Vec<(String, u64, u64)> = with_id(&record, "data-outside-flatbuffer")
        .iter()
        .map(|f| {
            (f["path"].as_str().unwrap().to_string(), f["offset"].as_u64().unwrap(), f["length"].as_u64().unwrap())
        })
        .collect();
    assert_eq!(found, expected);
}

#[test]
fn an_appended_zip_is_found_where_the_model_ends() {
    let model = std::fs::read(support::testdata().join("tflite/sine_float.tflite")).unwrap();
    let bytes =
        zip_after(&model, &[ZipEntry::stored("labels.txt", b"a\nb\n"), ZipEntry::deflated("vocab.txt", b"x y z")]);
    let dir = cli::Scratch::new("scan-appended");
    let path = dir.write("with_labels.tflite", &bytes);
    let (record, code) = scan(&path);
    assert_eq!((record["verdict"].as_str(), code), (Some("valid"), Some(1)));
    let appended = with_id(&record, "appended-data");
    assert_eq!(appended.len(), 1, "{record}");
    assert_eq!(appended[0]["offset"].as_u64(), Some(model.len() as u64), "the archive starts where the model ends");
    assert_eq!(appended[0]["length"].as_u64(), Some((bytes.len() - model.len()) as u64));
    let message = appended[0]["message"].as_str().unwrap();
    assert!(message.contains("labels.txt") && message.contains("vocab.txt"), "{message}");
    // Without the archive, no such finding.
    let (plain, _) = scan(&support::testdata().join("tflite/sine_float.tflite"));
    assert!(with_id(&plain, "appended-data").is_empty());
}

#[test]
fn nested_metadata_flatbuffers_are_the_buffers_flatc_lists() {
    // testdata/README: `...TFLITE_METADATA.M001.bin` is the TFLITE_METADATA buffer of the model.
    let dir = support::testdata().join("tflite");
    let path = dir.join("mp_face_detection_short_range.tflite");
    let bytes = std::fs::read(&path).unwrap();
    let metadata = std::fs::read(dir.join("mp_face_detection_short_range.TFLITE_METADATA.M001.bin")).unwrap();
    let (record, _) = scan(&path);
    let nested = with_id(&record, "nested-flatbuffer");
    let entry = nested.iter().find(|f| f["name"] == "TFLITE_METADATA").expect("the TFLITE_METADATA finding");
    let (offset, length) = (entry["offset"].as_u64().unwrap() as usize, entry["length"].as_u64().unwrap() as usize);
    assert_eq!(&bytes[offset..offset + length], &metadata[..]);
    let dump = flatc_json(&path);
    let index = dump["metadata"].as_array().unwrap().iter().position(|m| m["name"] == "TFLITE_METADATA").unwrap();
    assert_eq!(entry["path"], format!("Model.metadata[{index}]"));
    // sine_float carries the converter's record (its CONVERSION_METADATA dump exists).
    let (sine, _) = scan(&dir.join("sine_float.tflite"));
    assert!(with_id(&sine, "nested-flatbuffer").iter().any(|f| f["name"] == "CONVERSION_METADATA"), "{sine}");
}

#[test]
fn runtime_refusals_are_the_librarys_runtime_checks() {
    use flatmodel::graph::Runtime;
    let mut refused = 0;
    for path in tflite_models() {
        let bytes = std::fs::read(&path).unwrap();
        let Ok(flatmodel::File::Tflite(model)) = flatmodel::File::parse(&bytes) else { continue };
        let (record, _) = scan(&path);
        let refusals = with_id(&record, "runtime-refusal");
        for runtime in Runtime::ALL {
            let first = refusals.iter().find(|f| f["name"] == runtime.key());
            match model.check_runtime(runtime) {
                Ok(()) => assert!(first.is_none(), "{}: {runtime} loads it, yet {first:?}", path.display()),
                Err(e) => {
                    refused += 1;
                    let first = first.unwrap_or_else(|| panic!("{}: no {runtime} refusal", path.display()));
                    assert_eq!(first["offset"].as_u64(), Some(e.offset()), "{}", path.display());
                    assert_eq!(first["path"].as_str(), Some(e.location().to_string().as_str()));
                }
            }
        }
    }
    // mp_face_detection_full_range_sparse uses DENSIFY, which TensorFlow Lite Micro has no kernel for.
    assert!(refused > 0, "no model of testdata or the corpus is refused by a runtime");
}

/// Every TFLite model of testdata and, when given, the corpus.
fn tflite_models() -> Vec<PathBuf> {
    let mut dirs = vec![support::testdata().join("tflite")];
    dirs.extend(support::corpus().map(|c| c.join("tflite")));
    let mut files: Vec<PathBuf> = dirs
        .iter()
        .flat_map(|d| std::fs::read_dir(d).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tflite"))
        .collect();
    files.sort();
    files
}

#[test]
fn verdicts_and_exit_codes() {
    let dir = cli::Scratch::new("scan-verdicts");
    let sine = std::fs::read(support::testdata().join("tflite/sine_float.tflite")).unwrap();
    let truncated = dir.write("truncated.tflite", &sine[..sine.len() / 2]);
    let text = dir.write("notes.txt", b"just some text, not a model\n");
    let missing = dir.path("missing.tflite");
    // A Circle model of builtin operators with its weights inside and no metadata: nothing to report.
    let clean = support::testdata().join("circle/sine_float.circle");

    let (record, code) = scan(&clean);
    assert_eq!((record["verdict"].as_str(), record["format"].as_str(), code), (Some("valid"), Some("circle"), Some(0)));
    assert_eq!(record["findings"], serde_json::json!([]));
    assert_eq!(record["error"], Value::Null);
    assert_eq!(record["path"], clean.to_string_lossy().as_ref());

    let (record, code) = scan(&truncated);
    assert_eq!(
        (record["verdict"].as_str(), record["format"].as_str(), code),
        (Some("invalid"), Some("tflite"), Some(1))
    );
    let expected = flatmodel::File::parse(&sine[..sine.len() / 2]).unwrap_err();
    assert_eq!(record["error"]["offset"].as_u64(), Some(expected.offset()));
    assert_eq!(record["error"]["path"].as_str(), Some(expected.location().to_string().as_str()));
    assert_eq!(record["error"]["message"].as_str(), Some(expected.to_string().as_str()));
    assert_eq!(record["error"]["kind"].as_str(), Some(format!("{:?}", expected.kind()).as_str()));

    let (record, code) = scan(&text);
    assert_eq!((record["verdict"].as_str(), record["format"].as_str(), code), (Some("unknown-format"), None, Some(1)));
    assert!(record["error"]["message"].as_str().unwrap().contains("not a model"));

    // Several files: one line each, in order; the worst outcome, unreadable over invalid.
    let run = cli::run([Path::new("scan"), &clean, &truncated]);
    run.expect_code(1);
    assert_eq!(run.lines().len(), 2);
    let run = cli::run([Path::new("scan"), &missing, &clean, &text]);
    run.expect_code(2);
    let verdicts: Vec<String> =
        run.lines().iter().map(|l| serde_json::from_str::<Value>(l).unwrap()["verdict"].to_string()).collect();
    assert_eq!(verdicts, ["\"unreadable\"", "\"valid\"", "\"unknown-format\""]);
    cli::run(["scan"]).expect_code(2);
}

/// Every model file of testdata and, when given, the corpus (not its reference outputs).
fn model_files() -> Vec<PathBuf> {
    let mut roots = vec![support::testdata()];
    roots.extend(support::corpus());
    let mut files = Vec::new();
    let mut stack = roots;
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                stack.push(path);
            } else if [".tflite", ".circle", ".pte", ".vh00", ".vk00.bin", ".cvimodel", ".circletr", ".bin"]
                .iter()
                .any(|e| name.ends_with(e))
            {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn scan_json_over_bytes_is_the_command_lines_line() {
    let files = model_files();
    assert!(files.len() > 40, "found {} files", files.len());
    let mut verdicts = std::collections::BTreeMap::<String, usize>::new();
    for path in &files {
        let run = cli::run([Path::new("scan"), path]);
        run.no_crash();
        let bytes = std::fs::read(path).unwrap();
        let mut line: Value = serde_json::from_str(&scan_json(Source::Bytes(&bytes)).unwrap()).unwrap();
        assert_eq!(line["path"], Value::Null);
        line["path"] = Value::String(path.to_string_lossy().into_owned());
        let printed: Value = serde_json::from_str(run.stdout.trim_end()).unwrap();
        assert_eq!(printed, line, "{}", path.display());
        // Over the path, the very text printed.
        assert_eq!(scan_json(Source::Path(path)).unwrap() + "\n", run.stdout, "{}", path.display());
        *verdicts.entry(printed["verdict"].as_str().unwrap().to_string()).or_default() += 1;
    }
    // The corpus's invalid files (and testdata's regressions) are among them.
    assert!(verdicts.len() >= 2, "{verdicts:?}");
}

#[test]
fn inspect_json_is_what_inspect_prints() {
    for path in model_files() {
        let run = cli::run([Path::new("inspect"), &path, Path::new("--json"), Path::new("--tensors")]);
        run.no_crash();
        let bytes = std::fs::read(&path).unwrap();
        match (run.code, inspect_json(Source::Bytes(&bytes), true)) {
            (Some(0), Ok(document)) => {
                assert_eq!(document + "\n", run.stdout, "{}", path.display());
                let plain = cli::run([Path::new("inspect"), &path, Path::new("--json")]);
                assert_eq!(inspect_json(Source::Path(&path), false).unwrap() + "\n", plain.stdout);
            }
            (Some(1), Err(ReportError::Invalid { reason, error })) => {
                assert_eq!(run.stdout, format!("{}: invalid: {reason}\n", path.display()), "{}", path.display());
                if let Some(e) = error {
                    assert!(reason.contains(&format!("at byte {}", e.offset())), "{reason}");
                }
            }
            (code, other) => panic!("{}: the command line exits {code:?}, the library gives {other:?}", path.display()),
        }
    }
}

#[test]
fn report_errors_say_what_the_command_line_says() {
    let dir = cli::Scratch::new("report-errors");
    let missing = dir.path("missing.tflite");
    let run = cli::run([Path::new("inspect"), &missing, Path::new("--json")]);
    run.expect_code(2);
    let error = inspect_json(Source::Path(&missing), false).unwrap_err();
    assert!(matches!(error, ReportError::Unreadable(_)), "{error:?}");
    assert_eq!(run.stderr, format!("flatmodel: {error}\n"));
    assert!(matches!(scan_json(Source::Path(&missing)), Err(ReportError::Unreadable(_))));

    let sine = std::fs::read(support::testdata().join("tflite/sine_float.tflite")).unwrap();
    let cut = &sine[..sine.len() / 2];
    let Err(ReportError::Invalid { error: Some(e), reason }) = inspect_json(Source::Bytes(cut), false) else {
        panic!("a truncated model is invalid with the library's error")
    };
    assert_eq!(e, flatmodel::File::parse_structure(cut).unwrap_err());
    assert_eq!(reason, e.to_string());
    let Err(ReportError::Invalid { error: Some(e), .. }) = inspect_json(Source::Bytes(b"hello"), false) else {
        panic!("text is invalid")
    };
    assert_eq!(e.kind(), flatmodel::ErrorKind::UnknownFormat);
}

#[test]
fn a_package_is_scanned_model_by_model() {
    use crate::nnpackage_support::{two_sines_files, Scratch};
    let dir = Scratch::new("scan-package");
    let files = two_sines_files();
    let files: Vec<(&str, &[u8])> = files.iter().map(|(p, b)| (p.as_str(), b.as_slice())).collect();
    let manifest = files[0].1;
    let package = dir.package("pkg", manifest, &files[1..]);
    let (record, code) = scan(&package);
    assert_eq!((record["verdict"].as_str(), record["format"].as_str()), (Some("valid"), Some("nnpackage")));
    // Each model is sine_float, whose findings (its converter's record) come once per model,
    // named by the model file they are in.
    let (sine, _) = scan(&support::testdata().join("tflite/sine_float.tflite"));
    let per_model = sine["findings"].as_array().unwrap().len();
    assert!(per_model > 0);
    let members: Vec<&str> =
        record["findings"].as_array().unwrap().iter().map(|f| f["member"].as_str().unwrap()).collect();
    let expected: Vec<&str> =
        ["first.tflite", "models/second.tflite"].iter().flat_map(|m| vec![*m; per_model]).collect();
    assert_eq!(members, expected);
    assert_eq!(code, Some(1));
    // A package whose manifest names a missing model is invalid.
    let broken = dir.package("broken", manifest, &files[1..2]);
    let (record, code) = scan(&broken);
    assert_eq!((record["verdict"].as_str(), code), (Some("invalid"), Some(1)), "{record}");
}

#[test]
fn scan_names_each_executorch_file_by_its_format() {
    // Which format each file is, known from how the corpus made it (its name's suffix here).
    let dir = support::testdata();
    let files = [
        ("xnnpack/xnn_convnet_bn_pool.delegate0.xh00", "xnnpack"),
        ("xnnpack/xnn_convnet_bn_pool.delegate0.xn.bin", "xnnpack"),
        ("xnnpack/xnn_convnet_bn_pool.pte", "pte"),
        ("ptd/ptd_mlp_portable.ptd", "ptd"),
        ("ptd/ptd_mlp_portable.pte", "pte"),
    ];
    for (name, format) in files {
        let (record, _) = scan(&dir.join(name));
        assert_eq!((&record["format"], &record["verdict"]), (&Value::from(format), &Value::from("valid")), "{name}");
    }
}
