//! `cargo xtask c-check [--prefix DIR]`: the C ABI as a C or C++ project meets it, what CI runs.
//!
//! 1. `install-c` into `DIR` (default `target/c-check/prefix`, emptied first), and the files
//!    it must hold;
//! 2. `examples/c-host/build.sh`: `verify.c` linked through pkg-config (shared and static) and
//!    through CMake's `find_package(flatmodel)` (both targets); each binary verifies one model of
//!    each format and a corrupted copy, with the verdicts and exit status expected;
//! 3. `examples/cpp-tflm-pattern/build.sh`: the TFLite Micro pattern, its operators compared
//!    with flatc's JSON of the same models (testdata's `*.flatc.json`, flatc 25.12.19), and
//!    corrupted copies refused before `tflite::GetModel`;
//! 4. `capi/tests/c/run.sh`: the C test under AddressSanitizer and UBSan (with the corpus when
//!    `FLATMODEL_CORPUS` is set).
//!
//! Build products go to `target/c-check/`. Needs a C and a C++ compiler, pkg-config, CMake,
//! readelf, and Debian's `flatbuffers-compiler` and `libflatbuffers-dev` (`.ci/run` installs
//! them).

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::root;

/// One model of each format, with the name `fm_format_name` gives it.
const ONE_OF_EACH: &[(&str, &str)] = &[
    ("tflite/sine_float.tflite", "tflite"),
    ("circle/c010_sine_float.circle", "circle"),
    ("vkgraph/vk_mlp.delegate0.vh00", "vkgraph"),
    ("vkgraph/vk_mlp.pte", "pte"),
    ("cvimodel/tpumlir_tinycnn_int8_cv181x.cvimodel", "cvimodel"),
];

/// The TFLite models whose flatc JSON is not compressed: the C++ example's operators are
/// compared with it.
const WITH_FLATC_JSON: &[&str] = &["sine_float", "tf_convnet_buffer_offset", "tf_convnet_fp16", "tf_convnet_int8_full"];

/// Parses `c-check`'s arguments and runs the four steps.
pub fn task(args: &[&str]) -> Result<(), String> {
    let work = root().join("target/c-check");
    let prefix = match args {
        [] => {
            let prefix = work.join("prefix");
            let _ = std::fs::remove_dir_all(&prefix);
            prefix
        }
        ["--prefix", dir] => std::path::absolute(dir).map_err(|e| format!("{dir}: {e}"))?,
        _ => return Err("usage: cargo xtask c-check [--prefix DIR]".to_string()),
    };
    let _ = std::fs::remove_dir_all(work.join("build"));
    let build = work.join("build");
    std::fs::create_dir_all(&build).map_err(|e| format!("{}: {e}", build.display()))?;

    let installed = crate::install_c::install(&prefix, None)?;
    installed_files(&prefix, &installed.files)?;
    let corrupt = corrupted_copies(&build)?;
    c_host(&prefix, &build.join("c-host"), &corrupt)?;
    cpp_tflm_pattern(&prefix, &build.join("cpp-tflm-pattern"), &corrupt)?;
    let mut sanitize = Command::new(root().join("capi/tests/c/run.sh"));
    sanitize.arg(&prefix).arg(build.join("sanitize"));
    crate::run(sanitize)?;
    println!("c-check: installed, examples built and checked, C test clean under ASan and UBSan");
    Ok(())
}

/// The files `install-c` must have written, by their place below the prefix.
fn installed_files(prefix: &Path, files: &[PathBuf]) -> Result<(), String> {
    let mut names: Vec<String> =
        files.iter().map(|f| f.strip_prefix(prefix).unwrap_or(f).to_string_lossy().into_owned()).collect();
    names.sort();
    println!("installed below {}:", prefix.display());
    for name in &names {
        let path = prefix.join(name);
        let size = std::fs::metadata(&path).map(|m| m.len()).map_err(|e| format!("{}: {e}", path.display()))?;
        let target = std::fs::read_link(&path).map(|t| format!(" -> {}", t.display())).unwrap_or_default();
        println!("  {name}{target} ({size} bytes)");
    }
    let mut want = vec![
        "include/flatmodel.h",
        "lib/cmake/flatmodel/flatmodelConfig.cmake",
        "lib/cmake/flatmodel/flatmodelConfigVersion.cmake",
        "lib/libflatmodel_c.a",
        "lib/pkgconfig/flatmodel.pc",
    ];
    if cfg!(target_os = "linux") {
        want.extend(["lib/libflatmodel_c.so", "lib/libflatmodel_c.so.0.1", "lib/libflatmodel_c.so.0.1.0"]);
        want.sort();
    }
    if names != want {
        return Err(format!("install-c wrote {names:?}, not {want:?}"));
    }
    Ok(())
}

/// Copies of testdata models no reader may accept: sine_float.tflite with its root offset
/// pointing past the end, and cut in half.
fn corrupted_copies(build: &Path) -> Result<Vec<PathBuf>, String> {
    let model = root().join("testdata/tflite/sine_float.tflite");
    let bytes = std::fs::read(&model).map_err(|e| format!("{}: {e}", model.display()))?;
    let mut root_past_end = bytes.clone();
    root_past_end[..4].copy_from_slice(&0xF0F0_F0F0u32.to_le_bytes());
    let copies = [
        ("sine_float.root-past-end.tflite", root_past_end),
        ("sine_float.half.tflite", bytes[..bytes.len() / 2].to_vec()),
    ];
    let mut paths = Vec::new();
    for (name, bytes) in copies {
        let path = build.join(name);
        std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        paths.push(path);
    }
    Ok(paths)
}

/// A program's exit code and standard output.
fn output(mut command: Command) -> Result<(Option<i32>, String), String> {
    let shown = format!("{command:?}").replace('"', "");
    println!("$ {shown}");
    let out = command.output().map_err(|e| format!("{shown}: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    print!("{stdout}");
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    Ok((out.status.code(), stdout))
}

/// `examples/c-host`: four builds of `verify.c`, each run over one model of each format and the
/// corrupted copies: a line `PATH: ok (FORMAT)` for each model, `PATH: invalid: ...` for each
/// copy, exit status 1.
fn c_host(prefix: &Path, out: &Path, corrupt: &[PathBuf]) -> Result<(), String> {
    let mut build = Command::new(root().join("examples/c-host/build.sh"));
    build.arg(prefix).arg(out);
    crate::run(build)?;
    let testdata = root().join("testdata");
    let programs = [
        ("verify_pkgconfig", true),
        ("verify_pkgconfig_static", false),
        ("cmake/verify_cmake", true),
        ("cmake/verify_cmake_static", false),
    ];
    for (program, shared) in programs {
        let binary = out.join(program);
        linked_as(&binary, shared)?;
        let mut command = Command::new(&binary);
        command.args(ONE_OF_EACH.iter().map(|(file, _)| testdata.join(file))).args(corrupt);
        let (code, stdout) = output(command)?;
        let mut want: Vec<String> = ONE_OF_EACH
            .iter()
            .map(|(file, format)| format!("{}: ok ({format})", testdata.join(file).display()))
            .collect();
        want.extend(corrupt.iter().map(|c| format!("{}: invalid: ", c.display())));
        let lines: Vec<&str> = stdout.lines().collect();
        let matches = lines.len() == want.len() && lines.iter().zip(&want).all(|(l, w)| l.starts_with(w.as_str()));
        if code != Some(1) || !matches {
            return Err(format!("{program}: exit {code:?}, lines {lines:#?}, wanted lines starting {want:#?}"));
        }
    }
    Ok(())
}

/// Whether `binary` needs the shared library by its soname (`shared`) or has the static one
/// linked in (no dependency on it), as `readelf -d` lists its needs.
fn linked_as(binary: &Path, shared: bool) -> Result<(), String> {
    let out = Command::new("readelf").arg("-d").arg(binary).output().map_err(|e| format!("readelf: {e}"))?;
    let dynamic = String::from_utf8_lossy(&out.stdout);
    let needs = dynamic.contains("[libflatmodel_c.so.0.1]");
    let needs_any = dynamic.contains("libflatmodel_c");
    match (shared, needs, needs_any) {
        (true, true, _) | (false, _, false) => Ok(()),
        _ => Err(format!(
            "{}: linked {}, readelf -d says:\n{dynamic}",
            binary.display(),
            if shared { "shared" } else { "static" }
        )),
    }
}

/// `examples/cpp-tflm-pattern`: each model with an uncompressed flatc JSON is read, its
/// operators as flatc's JSON lists them; `--runtime tflm` accepts sine_float (TFLite Micro's
/// hello-world model); the corrupted copies are refused before `GetModel`.
fn cpp_tflm_pattern(prefix: &Path, out: &Path, corrupt: &[PathBuf]) -> Result<(), String> {
    let mut build = Command::new(root().join("examples/cpp-tflm-pattern/build.sh"));
    build.arg(prefix).arg(out);
    crate::run(build)?;
    let binary = out.join("tflm_pattern");
    let tflite = root().join("testdata/tflite");
    for name in WITH_FLATC_JSON {
        let model = tflite.join(format!("{name}.tflite"));
        let (code, stdout) = output(with_arg(&binary, &model))?;
        let want = operators_from_flatc_json(&tflite.join(format!("{name}.flatc.json")))?;
        let got: Vec<String> = stdout
            .lines()
            .filter(|l| l.starts_with("subgraph ") || l.starts_with("  "))
            .map(|l| l.trim().to_string())
            .collect();
        let read = stdout.lines().next().is_some_and(|l| l.contains("read with tflite::GetModel"));
        if code != Some(0) || !read || got != want {
            return Err(format!("tflm_pattern {name}: exit {code:?}, printed {got:#?}, flatc's JSON says {want:#?}"));
        }
    }
    let mut tflm = Command::new(&binary);
    tflm.args(["--runtime", "tflm"]).arg(tflite.join("sine_float.tflite"));
    let (code, _) = output(tflm)?;
    if code != Some(0) {
        return Err(format!("tflm_pattern --runtime tflm sine_float: exit {code:?}"));
    }
    for copy in corrupt {
        let (code, stdout) = output(with_arg(&binary, copy))?;
        let refused = stdout.starts_with(&format!("{}: rejected, not read: ", copy.display()));
        if code != Some(1) || !refused || stdout.contains("GetModel") || stdout.lines().count() != 1 {
            return Err(format!("tflm_pattern {}: exit {code:?}, printed {stdout:?}", copy.display()));
        }
    }
    Ok(())
}

/// The lines the C++ example prints for a model's operators, from flatc's JSON of it:
/// `subgraph S: N operators`, then `I NAME vVERSION` (`I CUSTOM NAME` for a custom operator).
/// The name is `builtin_code`'s; the files compared set it for every code.
fn operators_from_flatc_json(path: &Path) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let json: Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let codes = json["operator_codes"].as_array().cloned().unwrap_or_default();
    let mut lines = Vec::new();
    for (s, subgraph) in json["subgraphs"].as_array().into_iter().flatten().enumerate() {
        let operators = subgraph["operators"].as_array().cloned().unwrap_or_default();
        lines.push(format!("subgraph {s}: {} operators", operators.len()));
        for (i, operator) in operators.iter().enumerate() {
            let index = operator["opcode_index"].as_u64().unwrap_or(0);
            let code = usize::try_from(index).ok().and_then(|i| codes.get(i)).ok_or("opcode_index out of range")?;
            let name = code["builtin_code"].as_str().ok_or("builtin_code is no name")?;
            lines.push(match name {
                "CUSTOM" => format!("{i} CUSTOM {}", code["custom_code"].as_str().unwrap_or_default()),
                _ => format!("{i} {name} v{}", code["version"].as_i64().unwrap_or(1)),
            });
        }
    }
    Ok(lines)
}

/// `binary ARG`.
fn with_arg(binary: &Path, arg: &Path) -> Command {
    let mut command = Command::new(binary);
    command.arg(arg);
    command
}
