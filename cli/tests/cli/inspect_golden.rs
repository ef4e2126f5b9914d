//! The text and JSON `inspect` prints for every model in `testdata/`, kept in
//! `testdata/golden/` so that any change of output is a visible diff. After an intended change,
//! `FLATMODEL_BLESS=1 cargo test -p flatmodel-cli --test cli inspect_golden` writes them anew; review the diff before
//! committing it. (The other CLI tests check what the output says against independent tools;
//! this one only keeps it from changing unnoticed.)

use crate::support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The model files of testdata, relative to the project root.
fn models(root: &Path) -> Vec<PathBuf> {
    let mut all: Vec<PathBuf> = support::model_files(&root.join("testdata"))
        .into_iter()
        .map(|path| path.strip_prefix(root).unwrap().to_path_buf())
        .collect();
    all.sort();
    all
}

/// `flatmodel inspect [--json] MODEL` run from the project root, so the name it prints is the
/// same on every machine.
fn inspect(root: &Path, model: &Path, json: bool) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_flatmodel"));
    command.current_dir(root).arg("inspect");
    if json {
        command.arg("--json");
    }
    let out = command.arg(model).output().unwrap();
    assert!(out.status.code().is_some_and(|c| c <= 1), "{}: {:?}", model.display(), out.status);
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn inspect_output_is_the_kept_output() {
    let root = &support::root();
    let bless = std::env::var_os("FLATMODEL_BLESS").is_some();
    let golden = root.join("testdata").join("golden");
    let models = models(root);
    assert!(models.len() >= 30, "found {} models", models.len());
    let mut differ = Vec::new();
    for model in &models {
        let stem = model.strip_prefix("testdata").unwrap().to_string_lossy().replace(['/', '\\'], "__");
        for (json, ext) in [(false, "txt"), (true, "json")] {
            let ours = inspect(root, model, json);
            let kept = golden.join(format!("{stem}.inspect.{ext}"));
            if bless {
                fs::create_dir_all(&golden).unwrap();
                fs::write(&kept, &ours).unwrap();
            } else if fs::read_to_string(&kept).ok().as_deref() != Some(ours.as_str()) {
                differ.push(kept.strip_prefix(root).unwrap().display().to_string());
            }
        }
    }
    assert!(
        differ.is_empty(),
        "inspect prints other output than kept in {}; if intended, rerun with FLATMODEL_BLESS=1 and review the diff",
        differ.join(", ")
    );
}

#[test]
fn the_readme_shows_the_kept_output() {
    let root = &support::root();
    let readme = fs::read_to_string(root.join("README.md")).unwrap();
    let section = &readme[readme.find("## What `inspect` shows").expect("the README's inspect section")..];
    let start = section.find("```text\n").unwrap() + "```text\n".len();
    let shown = &section[start..start + section[start..].find("```").unwrap()];
    let kept =
        fs::read_to_string(root.join("testdata/golden/tflite__tf_convnet_int8_full.tflite.inspect.txt")).unwrap();
    assert_eq!(shown, kept, "README.md's inspect output is not what inspect prints: copy the kept file in");
}
