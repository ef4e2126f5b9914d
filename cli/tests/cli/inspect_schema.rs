//! `inspect --json` keeps its contract: every summary, for every model of testdata and of the
//! corpus (when `FLATMODEL_CORPUS` is set) and for an nnpackage, is valid against
//! `cli/src/inspect.schema.json`, checked by Python's `jsonschema` (the reference
//! implementation of JSON Schema; `.ci/run` installs it). The schema is also shown to reject
//! summaries that break it, so the check cannot pass vacuously.

use crate::nnpackage_support;
use crate::support;

use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The model files to summarise: testdata's, then the corpus's, each with its XNNPACK blobs,
/// bare XNNGraphs, programs and `.ptd` data files, and the model bundles.
fn models() -> Vec<PathBuf> {
    let mut all = Vec::new();
    for root in std::iter::once(support::testdata()).chain(support::corpus()) {
        all.extend(support::model_files(&root));
        for sub in ["xnnpack", "ptd"] {
            for suffix in [".pte", ".xh00", ".xn.bin", ".ptd"] {
                all.extend(support::files_with_suffix(&root.join(sub), suffix));
            }
        }
        all.extend(support::files_with_suffix(&root.join("bundle"), ".task"));
    }
    all
}

/// Each of `docs` validated against the schema by `jsonschema`: `None` when it does not
/// import, else each document's errors (empty when valid).
fn validate(docs: &[Value]) -> Option<Vec<Vec<String>>> {
    let schema = support::root().join("cli/src/inspect.schema.json");
    let script = "import json, sys\n\
                  from jsonschema import Draft202012Validator as V\n\
                  schema = json.load(open(sys.argv[1]))\n\
                  V.check_schema(schema)\n\
                  v = V(schema)\n\
                  for line in sys.stdin:\n\
                  \x20   doc = json.loads(line)\n\
                  \x20   errors = [f\"{'/'.join(map(str, e.absolute_path))}: {e.message}\"[:300] for e in v.iter_errors(doc)]\n\
                  \x20   print(json.dumps(errors))\n";
    let mut child = Command::new("python3")
        .args(["-c", script])
        .arg(&schema)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| support::skip(&format!("the JSON Schema check: python3 does not run ({e})")))
        .ok()?;
    {
        // Python ends at once when jsonschema does not import: the pipe then closes.
        let mut stdin = child.stdin.take().unwrap();
        for doc in docs {
            if writeln!(stdin, "{doc}").is_err() {
                break;
            }
        }
    }
    let out = child.wait_with_output().unwrap();
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("No module named"), "the schema check failed: {err}");
        let why = err.trim().lines().last().unwrap_or_default();
        support::skip(&format!("the JSON Schema check: Python's jsonschema does not import ({why})"));
        return None;
    }
    let text = String::from_utf8(out.stdout).unwrap();
    let results: Vec<Vec<String>> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(results.len(), docs.len());
    Some(results)
}

/// `inspect --json` of `path`, when it gives a summary.
fn summary(path: &Path) -> Option<Value> {
    let r = support::cli::run([std::ffi::OsStr::new("inspect"), std::ffi::OsStr::new("--json"), path.as_os_str()]);
    r.no_crash();
    serde_json::from_str(&r.stdout).ok()
}

#[test]
fn every_summary_keeps_the_schema() {
    let scratch = nnpackage_support::Scratch::new("schema-package");
    let manifest = nnpackage_support::manifest(3, &["sine.tflite"], json!({"model-types": ["tflite"]}));
    let package = scratch.package("sine_pkg", &manifest, &[("sine.tflite", &nnpackage_support::sine())]);
    let mut paths = models();
    paths.push(package);
    let (mut docs, mut names) = (Vec::new(), Vec::new());
    for path in &paths {
        if let Some(doc) = summary(path) {
            docs.push(doc);
            names.push(path.display().to_string());
        }
    }
    assert!(docs.len() >= 30, "{} summaries", docs.len());
    let formats: std::collections::BTreeSet<&str> = docs.iter().filter_map(|d| d["format"].as_str()).collect();
    assert!(formats.len() >= 6, "formats: {formats:?}");
    let Some(results) = validate(&docs) else { return };
    let failures: Vec<String> = names
        .iter()
        .zip(&results)
        .filter(|(_, errors)| !errors.is_empty())
        .map(|(name, errors)| format!("{name}: {}", errors.join("; ")))
        .collect();
    assert!(failures.is_empty(), "{} of {} break the schema:\n{}", failures.len(), docs.len(), failures.join("\n"));
}

#[test]
fn the_schema_rejects_summaries_that_break_it() {
    let model = support::testdata().join("tflite/tf_convnet_int8_full.tflite");
    let good = summary(&model).unwrap();
    let mut broken = Vec::new();
    for edit in [
        |d: &mut Value| d["format_version"] = json!(2),
        |d: &mut Value| d["io"][0]["inputs"][0]["quantization"]["kind"] = json!("per-channel"),
        |d: &mut Value| d["weights"]["by_dtype"][0] = json!(["int8"]),
        |d: &mut Value| d["subgraphs"][0]["arena"]["greedy_plan_bytes"] = json!(-1),
        |d: &mut Value| d["needs"][0]["feature"] = json!("time_travel"),
        |d: &mut Value| {
            d.as_object_mut().unwrap().remove("format");
        },
    ] {
        let mut doc = good.clone();
        edit(&mut doc);
        broken.push(doc);
    }
    let count = broken.len();
    broken.insert(0, good);
    let Some(results) = validate(&broken) else { return };
    assert!(results[0].is_empty(), "the unedited summary: {:?}", results[0]);
    for (i, errors) in results.iter().enumerate().skip(1) {
        assert!(!errors.is_empty(), "edit {i} of {count} passed the schema");
    }
}

/// The XNNPACK and `.ptd` parts of the schema check what they describe: summaries of a blob
/// and of a data file pass, and each edit that breaks them is rejected.
#[test]
fn the_schema_rejects_broken_xnnpack_and_data_file_summaries() {
    let blob = summary(&support::testdata().join("xnnpack/xnn_linear_dq_int4_group32.delegate0.xh00")).unwrap();
    let pte = summary(&support::testdata().join("xnnpack/xnn_mlp_fp32.pte")).unwrap();
    let ptd = summary(&support::testdata().join("ptd/ptd_mlp_portable.ptd")).unwrap();
    /// A summary and an edit that breaks it.
    type Edit<'a> = (&'a Value, fn(&mut Value));
    let edits: [Edit<'_>; 6] = [
        (&blob, |d| d["constants"][1]["stored"] = json!("nowhere")),
        (&blob, |d| {
            d.as_object_mut().unwrap().remove("nodes");
        }),
        (&blob, |d| d["weight_groups"]["by_dtype"][0]["count"] = json!(-1)),
        (&pte, |d| d["delegates"][0]["xnnpack"]["value_count"] = json!("seven")),
        (&ptd, |d| d["named_data"][0]["segment"] = json!(-1)),
        (&ptd, |d| {
            d["named_data"][0]["layout"].as_object_mut().unwrap().remove("shape");
        }),
    ];
    let mut docs = vec![blob.clone(), pte.clone(), ptd.clone()];
    for (good, edit) in edits {
        let mut doc = good.clone();
        edit(&mut doc);
        docs.push(doc);
    }
    let Some(results) = validate(&docs) else { return };
    for (i, errors) in results.iter().enumerate() {
        assert_eq!(errors.is_empty(), i < 3, "document {i}: {errors:?}");
    }
}

/// The LiteRT-LM part of the schema checks what it describes: a `.litertlm` summary passes, and
/// each edit that breaks it (a section without its range, a negative offset, a type code past a
/// byte, a metadata value that is an object, a TFLite section's summary without its subgraphs)
/// is rejected.
#[test]
fn the_schema_rejects_broken_litertlm_summaries() {
    let good = summary(&support::testdata().join("litertlm/litertlm_many_sections.litertlm")).unwrap();
    let edits: [fn(&mut Value); 5] = [
        |d| {
            d["sections"][0].as_object_mut().unwrap().remove("end_offset");
        },
        |d| d["sections"][1]["begin_offset"] = json!(-1),
        |d| d["sections"][1]["type_code"] = json!(256),
        |d| d["system_metadata"][0]["value"] = json!({"nested": true}),
        |d| {
            d["sections"][2]["summary"].as_object_mut().unwrap().remove("subgraphs");
        },
    ];
    let mut docs = vec![good.clone()];
    for edit in edits {
        let mut doc = good.clone();
        edit(&mut doc);
        docs.push(doc);
    }
    let Some(results) = validate(&docs) else { return };
    for (i, errors) in results.iter().enumerate() {
        assert_eq!(errors.is_empty(), i == 0, "document {i}: {errors:?}");
    }
}
