//! Agreement with TensorFlow Lite Micro's interpreter (the `tflite-micro` Python package, which
//! `.ci/run` installs): for every TFLite file of the corpus and of `testdata/`,
//! `flatmodel verify --runtime tflm` exits 0 where TFLite Micro builds the interpreter and
//! allocates its tensors, and 1 where it refuses or crashes. Refusals outside the profile's
//! scope are left out and counted: custom operators (a firmware registers its own) and the
//! checks a kernel makes when it prepares. Skipped when the package does not import.
//!
//! The same run compares `inspect`'s activation arena with what TFLite Micro's greedy memory
//! planner gave the activations of each model it loads ("Arena allocation head"): for a model of
//! one subgraph, flatmodel's plan is never larger (TFLite Micro adds the scratch buffers kernels
//! ask for) and equal for most.

use crate::support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Why TFLite Micro's refusal is outside the profile, if it is, from what it printed.
fn out_of_scope(log: &str) -> Option<&'static str> {
    if log.contains("Failed to get registration from op code CUSTOM") {
        return Some("custom operator");
    }
    // A tensor TFLite Micro cannot size fails the kernel that touches it: in scope.
    if log.contains("failed to prepare") && !log.contains("Failed to populate") {
        return Some("kernel preparation");
    }
    None
}

/// TFLite Micro's verdicts on `files`, from `tests/tflm/verdicts.py`: (verdict, log) each.
fn tflm_verdicts(files: &[PathBuf]) -> Vec<(String, String)> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tflm/verdicts.py");
    let out = Command::new("python3").arg(script).args(files).output().expect("python3 runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), files.len());
    lines.iter().map(|v| (v["verdict"].as_str().unwrap().to_string(), v["log"].as_str().unwrap().to_string())).collect()
}

/// For a model of one subgraph: the greedy plan `inspect --json` gives its activations, and the
/// arena head TFLite Micro's allocator reported in `log`.
fn arena_of(file: &Path, log: &str) -> Option<(u64, u64)> {
    let head = log.split("Arena allocation head ").nth(1)?.split(' ').next()?.parse().ok()?;
    let out = Command::new(env!("CARGO_BIN_EXE_flatmodel")).args(["inspect", "--json"]).arg(file).output().ok()?;
    let summary: Value = serde_json::from_slice(&out.stdout).ok()?;
    let [subgraph] = summary["subgraphs"].as_array()?.as_slice() else { return None };
    Some((subgraph["arena"]["greedy_plan_bytes"].as_u64()?, head))
}

/// `flatmodel verify --runtime tflm FILE`'s exit code.
fn ours(file: &Path) -> i32 {
    let out =
        Command::new(env!("CARGO_BIN_EXE_flatmodel")).args(["verify", "-q", "--runtime", "tflm"]).arg(file).output();
    out.unwrap().status.code().expect("an exit code, not a signal")
}

#[test]
fn verify_runtime_tflm_agrees_with_tflite_micro() {
    let importable = Command::new("python3").args(["-c", "import tflite_micro"]).status().is_ok_and(|s| s.success());
    if !importable {
        support::skip("everything: python3 does not run or its tflite-micro package does not import (python3 -m pip install tflite-micro)");
        return;
    }
    let mut files = support::files_with_suffix(&support::testdata().join("tflite"), ".tflite");
    let corpus = support::corpus();
    let with_corpus = corpus.is_some();
    if let Some(corpus) = corpus {
        files.extend(support::files_with_suffix(&corpus.join("tflite"), ".tflite"));
    }
    let (mut compared, mut skipped, mut refused) = (0, Vec::new(), 0);
    let mut disagreements = Vec::new();
    let (mut arenas, mut arenas_equal) = (Vec::new(), 0);
    for (file, (verdict, log)) in files.iter().zip(tflm_verdicts(&files)) {
        if verdict == "ok" {
            if let Some((ours, theirs)) = arena_of(file, &log) {
                arenas_equal += usize::from(ours == theirs);
                if ours > theirs {
                    disagreements.push(format!("{}: planned arena {ours} > TFLite Micro's {theirs}", file.display()));
                }
                arenas.push(format!("{}: {ours} vs {theirs}", file.display()));
            }
        }
        let expected = match verdict.as_str() {
            "ok" => 0,
            _ => match out_of_scope(&log) {
                Some(why) => {
                    skipped.push(format!("{} ({why})", file.display()));
                    continue;
                }
                None => 1,
            },
        };
        compared += 1;
        refused += expected;
        let code = ours(file);
        if code != expected {
            disagreements
                .push(format!("{}: TFLite Micro {verdict}, flatmodel exits {code}; it printed: {log}", file.display()));
        }
    }
    eprintln!("compared {compared} ({refused} refused), out of scope {}: {skipped:#?}", skipped.len());
    eprintln!("arenas, flatmodel vs TFLite Micro ({arenas_equal} of {} equal): {arenas:#?}", arenas.len());
    assert!(arenas.len() >= 3 && arenas_equal * 2 >= arenas.len(), "{arenas_equal} of {arenas:#?} equal");
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
    // testdata holds 5 models TFLite Micro loads or refuses in scope; with the corpus, 40 and more.
    let (least, least_refused) = if with_corpus { (40, 8) } else { (5, 0) };
    assert!(compared >= least && refused >= least_refused, "compared {compared}, {refused} refused");
}
