//! `flatmodel verify` and `flatmodel inspect` on nnpackages (directories and zip archives):
//! one line per package, the usual exit codes, and a summary whose facts match what was written.

use crate::nnpackage_support;
use crate::support;

use flatmodel::graph::ModelView;
use flatmodel::tflite;
use nnpackage_support::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(args: &[&std::ffi::OsStr]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_flatmodel")).args(args).output().expect("the binary runs");
    let r = Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert!(r.code.is_some() && !r.stderr.contains("panicked"), "{args:?}: crashed\n{}", r.stderr);
    r
}

fn verify(paths: &[&Path]) -> Run {
    let mut args = vec!["verify".as_ref()];
    args.extend(paths.iter().map(|p| p.as_os_str()));
    run(&args)
}

fn shown(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

fn two_sines_dir(s: &Scratch) -> PathBuf {
    let files = two_sines_files();
    let refs: Vec<(&str, &[u8])> =
        files.iter().filter(|(n, _)| n != "metadata/MANIFEST").map(|(n, b)| (n.as_str(), b.as_slice())).collect();
    s.package("two_sines", &two_sines_manifest(), &refs)
}

#[test]
fn verify_accepts_directories_and_zips() {
    let s = Scratch::new("cli-ok");
    let dir = two_sines_dir(&s);
    let z = s.write("two.nnpkg", &two_sines_zip("two_sines/"));
    let model = support::root().join("testdata/tflite/sine_float.tflite");
    let r = verify(&[&dir, &z, &model]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines[0], format!("{}: ok (nnpackage 1.3, 2 model(s))", shown(&dir)));
    assert_eq!(lines[1], format!("{}: ok (nnpackage 1.3, 2 model(s))", shown(&z)));
    assert!(lines[2].starts_with(&format!("{}: ok (TFLite", shown(&model))), "{}", lines[2]);
    assert_eq!(lines.len(), 3);
    // --quiet prints nothing for valid inputs.
    let r = run(&["verify".as_ref(), "-q".as_ref(), dir.as_os_str()]);
    assert_eq!((r.code, r.stdout.as_str()), (Some(0), ""));
}

#[test]
fn verify_names_what_is_wrong() {
    let s = Scratch::new("cli-bad");
    let good = two_sines_dir(&s);
    let missing = s.package("missing", &manifest(0, &["a.tflite", "x.tflite"], json!({})), &[("a.tflite", &sine())]);
    let no_manifest = s.path("empty");
    std::fs::create_dir_all(&no_manifest).unwrap();
    let mut entries: Vec<ZipEntry> = two_sines_files().iter().map(|(n, d)| ZipEntry::stored(n, d)).collect();
    entries.push(ZipEntry::stored("../x", b"x"));
    let escape = s.write("escape.zip", &zip(&entries));
    let split =
        s.package("split", &manifest(3, &["a.tflite"], json!({"pkg-inputs": ["0:1"]})), &[("a.tflite", &sine())]);
    let r = verify(&[&good, &missing, &no_manifest, &escape, &split]);
    assert_eq!(r.code, Some(1), "{}{}", r.stdout, r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 5, "{}", r.stdout);
    assert!(lines[0].ends_with(": ok (nnpackage 1.3, 2 model(s))"));
    assert_eq!(
        lines[1],
        format!("{}: invalid: metadata/MANIFEST: \"models\"[1]: file \"x.tflite\" not found", shown(&missing))
    );
    assert_eq!(
        lines[2],
        format!("{}: invalid: not a model file or nnpackage directory (no metadata/MANIFEST)", shown(&no_manifest))
    );
    assert!(lines[3].starts_with(&format!("{}: invalid: zip entry \"../x\"", shown(&escape))), "{}", lines[3]);
    assert_eq!(
        lines[4],
        format!(
            "{}: invalid: metadata/MANIFEST: \"pkg-inputs\"[0]: \"0:1\" does not split into m:s:i (three numbers)",
            shown(&split)
        )
    );
}

#[test]
fn verify_lists_each_model_s_warnings() {
    let s = Scratch::new("cli-warned");
    let dup = support::duplicate_metadata_model();
    let package = s.package("warned", &manifest(0, &["a.tflite"], json!({})), &[("a.tflite", &dup)]);
    let r = verify(&[&package]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", r.stdout);
    let warning = format!("{}: warning: model 0 (a.tflite): Model.metadata: two entries share a name", shown(&package));
    assert!(lines[1].starts_with(&warning), "{}", lines[1]);
}

#[test]
fn verify_still_fails_on_io_errors() {
    let s = Scratch::new("cli-io");
    let r = verify(&[&s.path("does-not-exist")]);
    assert_eq!(r.code, Some(2), "{}{}", r.stdout, r.stderr);
}

#[test]
fn inspect_json_shows_the_manifest_and_each_model() {
    let s = Scratch::new("cli-json");
    for path in [two_sines_dir(&s), s.write("two.zip", &two_sines_zip(""))] {
        let r = run(&["inspect".as_ref(), path.as_os_str(), "--json".as_ref()]);
        assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
        let v: Value = serde_json::from_str(&r.stdout).unwrap();
        let zipped = path.extension().is_some_and(|e| e == "zip");
        assert_eq!(v["format"], "nnpackage");
        assert_eq!(v["container"], if zipped { "zip" } else { "directory" });
        assert_eq!(v["version"], "1.3.0");
        assert_eq!(v["configs"], json!(["run.cfg", "ignored.cfg"]));
        assert_eq!(v["config"]["file"], "metadata/run.cfg");
        assert_eq!(
            v["config"]["entries"],
            json!([{"key": "BACKENDS", "value": "cpu"}, {"key": "EXECUTOR", "value": "Linear"}])
        );
        assert_eq!(v["pkg_inputs"], json!(["0:0:0"]));
        assert_eq!(v["pkg_outputs"], json!(["1:0:0"]));
        assert_eq!(v["model_connect"], json!([{"from": "0:0:0", "to": ["1:0:0"]}]));
        let models = v["models"].as_array().unwrap();
        assert_eq!(models.len(), 2);
        assert_eq!(models[0]["path"], "first.tflite");
        assert_eq!(models[0]["type_from"], "model-types");
        assert_eq!(models[1]["path"], "models/second.tflite");
        assert_eq!(models[1]["type_from"], "extension");
        for m in models {
            assert_eq!(m["type"], "tflite");
            assert_eq!(m["bytes"], sine().len());
            assert_eq!(m["summary"]["format"], "TFLite");
            let input = &m["io"][0]["inputs"][0];
            assert_eq!((input["dtype"].as_str(), &input["shape"]), (Some("float32"), &json!([-1, 1])));
        }
        let needs = &v["needs"][0];
        assert_eq!(needs["feature"], "nnpackage_version");
        let detail = needs["detail"].as_str().unwrap();
        assert!(detail.starts_with("nnpackage 1.3.0 manifest") && detail.contains("model-connect"), "{detail}");
        // The package's size: its model files and their weights together.
        assert_eq!(v["file_bytes"], 2 * sine().len());
        let sine = sine();
        let model = tflite::Model::parse(&sine).unwrap();
        let tensors = model.subgraph(0).unwrap().tensors().unwrap();
        let mut buffers: Vec<u32> = tensors.iter().filter(|t| !t.is_variable()).map(|t| t.buffer()).collect();
        buffers.sort_unstable();
        buffers.dedup();
        let one: usize = buffers.iter().map(|&b| model.buffer_data(b).map_or(0, <[u8]>::len)).sum();
        assert!(one > 0);
        assert_eq!(v["weights"]["bytes"], 2 * one, "each sine model's weights: its constant tensors' buffers");
        assert_eq!(v["weights"]["by_operator"][0][0], "FULLY_CONNECTED");
    }
}

#[test]
fn inspect_text_lists_models_and_connections() {
    let s = Scratch::new("cli-text");
    let dir = two_sines_dir(&s);
    let r = run(&["inspect".as_ref(), dir.as_os_str()]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    for needle in [
        "nnpackage 1.3.0 (directory)",
        "BACKENDS=cpu",
        "[0] first.tflite (tflite, ",
        "[1] models/second.tflite (tflite by extension, ",
        "0:0:0 -> 1:0:0",
        ": model 1 (models/second.tflite)",
        "FULLY_CONNECTED",
    ] {
        assert!(r.stdout.contains(needle), "no {needle:?} in\n{}", r.stdout);
    }
    let bad = s.package("bad", b"{", &[]);
    let r = run(&["inspect".as_ref(), bad.as_os_str()]);
    assert_eq!(r.code, Some(1));
    assert!(
        r.stdout.starts_with(&format!("{}: invalid: metadata/MANIFEST: invalid JSON", shown(&bad))),
        "{}",
        r.stdout
    );
}
