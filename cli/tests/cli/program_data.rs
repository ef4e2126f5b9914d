//! `verify P.pte --data W.ptd`, and what `verify P.pte` alone and `inspect` say of the data a
//! program needs (`docs/executorch.md` §3.11). Keys and sizes come from flatc's dumps.

use crate::support;

use serde_json::Value;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use support::cli::{run, shown, Scratch};

fn json(path: &Path) -> Value {
    support::json_with_bare_floats(&fs::read_to_string(path).unwrap())
}

fn dirs() -> Vec<PathBuf> {
    let mut dirs = vec![support::testdata().join("ptd")];
    if let Some(corpus) = support::corpus() {
        dirs.push(corpus.join("ptd"));
    }
    dirs
}

fn ptd_file(name: &str) -> PathBuf {
    support::testdata().join("ptd").join(name)
}

/// The named keys of a data file's dump, in order, with their segments' sizes.
fn data_keys(ptd: &Path) -> Vec<(String, u64)> {
    let d = json(&ptd.with_extension("ptd.flatc.json"));
    let segments = d["segments"].as_array().unwrap();
    d["named_data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            let s = &segments[n["segment_index"].as_u64().unwrap() as usize];
            (n["key"].as_str().unwrap().to_string(), s["size"].as_u64().unwrap())
        })
        .collect()
}

#[test]
fn every_program_verifies_with_its_data_file() {
    let mut pairs = 0;
    for dir in dirs() {
        for pte in support::files_with_suffix(&dir, ".pte") {
            let ptd = pte.with_extension("ptd");
            let r = run([OsStr::new("verify"), pte.as_os_str(), OsStr::new("--data"), ptd.as_os_str()]);
            r.expect_code(0);
            let keys = data_keys(&ptd).len();
            let lines: Vec<&str> = r.stdout.lines().collect();
            assert_eq!(lines.len(), 2, "{}", r.stdout);
            assert!(lines[0].starts_with(&format!("{}: ok (ExecuTorch program v0, ", shown(&pte))), "{}", r.stdout);
            let expected = format!(
                "{}: data: {keys} key(s) resolved (0 in the program's named data, {keys} in {})",
                shown(&pte),
                shown(&ptd)
            );
            assert_eq!(lines[1], expected);
            // Alone, the program verifies and names the keys it needs, all of its data file's.
            let r = run([OsStr::new("verify"), pte.as_os_str()]);
            r.expect_code(0);
            let lines: Vec<&str> = r.stdout.lines().collect();
            assert_eq!(lines.len(), 2, "{}", r.stdout);
            let names: Vec<String> = data_keys(&ptd).into_iter().map(|(k, _)| k).collect();
            let bytes: u64 = data_keys(&ptd).iter().map(|(_, s)| s).sum();
            let prefix = format!("{}: needs external data: {keys} key(s) ({bytes} bytes) for ", shown(&pte));
            assert!(lines[1].starts_with(&prefix), "{}", lines[1]);
            assert!(lines[1].ends_with(&format!(": {}", names.join(", "))), "{}", lines[1]);
            pairs += 1;
        }
    }
    assert!(pairs >= 2, "{pairs}");
}

/// The first named key of the XNNPACK program's graph, and its size, from flatc's dump.
fn first_xnn_key() -> (String, u64) {
    let graph = json(&ptd_file("ptd_xnnpack_mlp_fp32.delegate0.xn.flatc.json"));
    let c = graph["constant_data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["named_key"].as_str().is_some_and(|k| !k.is_empty()))
        .unwrap();
    (c["named_key"].as_str().unwrap().to_string(), c["size"].as_u64().unwrap())
}

#[test]
fn a_program_with_missing_data_names_the_key_and_its_delegate() {
    let pte = ptd_file("ptd_xnnpack_mlp_fp32.pte");
    let (key, size) = first_xnn_key();
    // Alone, the program is valid and says it needs that key.
    let r = run([OsStr::new("verify"), pte.as_os_str()]);
    r.expect_code(0);
    assert!(r.stdout.contains("for delegate 0.0 (XnnpackBackend): "), "{}", r.stdout);
    assert!(r.stdout.contains(&key), "{}", r.stdout);
    // With the wrong data file (the portable program's), the key is missing.
    let wrong = ptd_file("ptd_mlp_portable.ptd");
    let r = run([OsStr::new("verify"), pte.as_os_str(), OsStr::new("--data"), wrong.as_os_str()]);
    r.expect_code(1);
    let expected = format!(
        "{}: invalid: key '{key}' (needed by delegate 0.0 (XnnpackBackend), {size} bytes) is missing \
         (looked in the program's named data, {})",
        shown(&pte),
        shown(&wrong)
    );
    assert_eq!(r.stdout.trim_end(), expected);
    // The portable program with the XNNPACK data lacks its first tensor.
    let portable = ptd_file("ptd_mlp_portable.pte");
    let xnn = ptd_file("ptd_xnnpack_mlp_fp32.ptd");
    let r = run([OsStr::new("verify"), portable.as_os_str(), OsStr::new("--data"), xnn.as_os_str()]);
    r.expect_code(1);
    let first = data_keys(&ptd_file("ptd_mlp_portable.ptd")).remove(0);
    let expected = format!("key '{}' (needed by program (plan 0, value ", first.0);
    assert!(r.stdout.contains(&expected), "{}", r.stdout);
    assert!(r.stdout.contains(&format!("{} bytes) is missing", first.1)), "{}", r.stdout);
}

#[test]
fn short_data_is_refused_with_the_sizes_needed_and_found() {
    let dir = Scratch::new("program-data-short");
    let pte = ptd_file("ptd_xnnpack_mlp_fp32.pte");
    let ptd = ptd_file("ptd_xnnpack_mlp_fp32.ptd");
    let mut bytes = fs::read(&ptd).unwrap();
    let (key, size) = data_keys(&ptd).pop().unwrap();
    // The last segment's size, the only 8-aligned `size` in the flatbuffer, halved.
    let end = u64::from_le_bytes(bytes[32..40].try_into().unwrap()) as usize;
    let at: Vec<usize> = (0..end - 8).step_by(4).filter(|&i| bytes[i..i + 8] == size.to_le_bytes()).collect();
    assert_eq!(at.len(), 1, "{at:?}");
    bytes[at[0]..at[0] + 8].copy_from_slice(&(size / 2).to_le_bytes());
    let short = dir.write("short.ptd", &bytes);
    let r = run([OsStr::new("verify"), short.as_os_str()]);
    r.expect_code(0);
    let r = run([OsStr::new("verify"), pte.as_os_str(), OsStr::new("--data"), short.as_os_str()]);
    r.expect_code(1);
    let expected = format!(
        "key '{key}' (needed by delegate 0.0 (XnnpackBackend), {size} bytes) is short: {} bytes found",
        size / 2
    );
    assert!(r.stdout.contains(&expected), "{}", r.stdout);
}

#[test]
fn keys_split_over_several_data_files_pass() {
    let dir = Scratch::new("program-data-split");
    let pte = ptd_file("ptd_xnnpack_mlp_fp32.pte");
    let ptd = ptd_file("ptd_xnnpack_mlp_fp32.ptd");
    let keys: Vec<String> = data_keys(&ptd).into_iter().map(|(k, _)| k).collect();
    let bytes = fs::read(&ptd).unwrap();
    let without = |drop: &[String]| {
        let mut b = bytes.clone();
        for key in drop {
            let at = b.windows(key.len()).position(|w| w == key.as_bytes()).unwrap();
            b[at] = b'x';
        }
        b
    };
    let a = dir.write("a.ptd", &without(&keys[2..]));
    let b = dir.write("b.ptd", &without(&keys[..2]));
    let r = run([
        OsStr::new("verify"),
        pte.as_os_str(),
        OsStr::new("--data"),
        a.as_os_str(),
        OsStr::new("--data"),
        b.as_os_str(),
    ]);
    r.expect_code(0);
    assert!(
        r.stdout.contains(&format!(
            "4 key(s) resolved (0 in the program's named data, 2 in {}, 2 in {})",
            shown(&a),
            shown(&b)
        )),
        "{}",
        r.stdout
    );
    let r = run([OsStr::new("verify"), pte.as_os_str(), OsStr::new("--data"), a.as_os_str()]);
    r.expect_code(1);
    assert!(r.stdout.contains(&format!("key '{}'", keys[2])), "{}", r.stdout);
}

#[test]
fn data_on_other_files_is_a_usage_error() {
    let pte = ptd_file("ptd_xnnpack_mlp_fp32.pte");
    let ptd = ptd_file("ptd_xnnpack_mlp_fp32.ptd");
    let blob = ptd_file("ptd_xnnpack_mlp_fp32.delegate0.xh00");
    // --data on a file that is no program.
    let r = run([OsStr::new("verify"), blob.as_os_str(), OsStr::new("--data"), ptd.as_os_str()]);
    r.expect_code(2);
    assert!(r.stderr.contains("--data applies to ExecuTorch programs (.pte)"), "{}", r.stderr);
    // --data naming a file that is no .ptd.
    let r = run([OsStr::new("verify"), pte.as_os_str(), OsStr::new("--data"), pte.as_os_str()]);
    r.expect_code(2);
    assert!(r.stderr.contains("--data takes ExecuTorch data files (.ptd"), "{}", r.stderr);
    // Two programs with one --data.
    let r = run([OsStr::new("verify"), pte.as_os_str(), pte.as_os_str(), OsStr::new("--data"), ptd.as_os_str()]);
    r.expect_code(2);
    // A .ptd that does not verify is invalid, naming the file.
    let dir = Scratch::new("program-data-broken");
    let mut bytes = fs::read(&ptd).unwrap();
    bytes[12..16].copy_from_slice(&32u32.to_le_bytes());
    let broken = dir.write("broken.ptd", &bytes);
    let r = run([OsStr::new("verify"), pte.as_os_str(), OsStr::new("--data"), broken.as_os_str()]);
    r.expect_code(1);
    assert!(r.stdout.contains(&format!("--data {}: ", shown(&broken))), "{}", r.stdout);
    assert!(r.stdout.contains("FH01.length"), "{}", r.stdout);
    // The help names the option.
    let r = run(["verify", "--help"]);
    r.expect_code(0);
    assert!(r.stdout.contains("--data W.ptd"), "{}", r.stdout);
}

#[test]
fn inspect_lists_backends_external_keys_and_where_weights_live() {
    let pte = ptd_file("ptd_xnnpack_mlp_fp32.pte");
    let r = run([OsStr::new("inspect"), OsStr::new("--json"), pte.as_os_str()]);
    r.expect_code(0);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let data = &v["data"];
    assert_eq!(data["backends"], serde_json::json!([{"id": "XnnpackBackend", "delegates": 1}]));
    let keys = data_keys(&pte.with_extension("ptd"));
    let names: Vec<&str> = keys.iter().map(|(k, _)| k.as_str()).collect();
    let bytes: u64 = keys.iter().map(|(_, s)| s).sum();
    let external = &data["external"][0];
    assert_eq!(external["keys"], serde_json::json!(names));
    assert_eq!((external["plan"].as_u64(), external["delegate"].as_u64()), (Some(0), Some(0)));
    assert_eq!(external["bytes"].as_u64(), Some(bytes));
    assert_eq!(data["weights"], serde_json::json!([{"location": "external", "constants": 4, "bytes": bytes}]));
    // The inline-constant program's weights are in its blob.
    let inline = support::testdata().join("xnnpack/xnn_mlp_inline_constants.pte");
    let r = run([OsStr::new("inspect"), OsStr::new("--json"), inline.as_os_str()]);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    // README: a constant region of 3,232 bytes.
    assert_eq!(v["data"]["weights"][0]["location"], "delegate constant region");
    assert_eq!(v["data"]["weights"][0]["bytes"].as_u64(), Some(3232));
    assert_eq!(v["data"]["external"], serde_json::json!([]));
    let r = run([OsStr::new("inspect"), pte.as_os_str()]);
    assert!(r.stdout.contains("  external:   delegate 0.0 (XnnpackBackend) needs 4 key(s)"), "{}", r.stdout);
}
