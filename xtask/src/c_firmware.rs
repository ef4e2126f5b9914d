//! `cargo xtask c-firmware-libs`: the C ABI (`capi/`) as static libraries for firmware, and the
//! flash `fm_verify_tflite` takes on each target. For each target, `libflatmodel_c.a` exports
//! every function (`--features all-formats`) and `libflatmodel_c_tflite.a` TFLite's alone
//! (`--features tflite`).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{cargo, metadata, root, run, FIRMWARE_TARGETS};

/// The Arm targets the C firmware example builds for (`examples/c-firmware/Makefile`'s `TARGET`).
const C_TARGETS: &[&str] = &["thumbv6m-none-eabi", "thumbv7em-none-eabihf", "thumbv8m.main-none-eabihf"];

/// Every function of `flatmodel.h`.
const C_ABI: &[&str] = &[
    "fm_verify",
    "fm_verify_tflite",
    "fm_verify_circle",
    "fm_verify_pte",
    "fm_verify_vkgraph",
    "fm_verify_cvimodel",
    "fm_verify_xnnpack",
    "fm_verify_ptd",
    "fm_verify_litertlm",
    "fm_check_runtime",
    "fm_options_default",
    "fm_report_message",
    "fm_report_path",
    "fm_format_name",
];

/// Builds the libraries of `args` (all of [`FIRMWARE_TARGETS`] when none are named) and, unless
/// `--build-only` comes first, prints their sizes and what `fm_verify_tflite` costs on each.
pub fn c_firmware_libs(args: &[&str]) -> Result<(), String> {
    let (build_only, named) = match args {
        ["--build-only", rest @ ..] => (true, rest),
        rest => (false, rest),
    };
    let targets: Vec<&str> = if named.is_empty() { FIRMWARE_TARGETS.to_vec() } else { named.to_vec() };
    if let Some(unknown) = targets.iter().find(|t| !FIRMWARE_TARGETS.contains(t)) {
        return Err(format!("{unknown} is not one of the firmware targets: {}", FIRMWARE_TARGETS.join(", ")));
    }
    add_targets(&targets)?;
    let target_dir = metadata()?["target_directory"].as_str().map(PathBuf::from).ok_or("no target_directory")?;
    let mut rows = Vec::new();
    for target in &targets {
        // First the library of TFLite's functions alone (what a TFLite-only firmware links, and
        // the flash table's C row), kept under its own name; then the one of every function.
        let build = |features: &str| {
            let mut build = cargo();
            build.args(["rustc", "--quiet", "-p", "flatmodel-capi", "--lib", "--profile", "firmware"]);
            build.args([
                "--no-default-features",
                "--features",
                features,
                "--target",
                target,
                "--crate-type",
                "staticlib",
            ]);
            run(build)
        };
        let library = target_dir.join(target).join("firmware/libflatmodel_c.a");
        build("tflite")?;
        let tflite_only = target_dir.join(target).join("firmware/libflatmodel_c_tflite.a");
        std::fs::copy(&library, &tflite_only).map_err(|e| format!("{}: {e}", tflite_only.display()))?;
        build("all-formats")?;
        if !build_only {
            rows.push(Row::measure(target, &library, &target_dir)?);
        }
    }
    if build_only {
        return Ok(());
    }
    println!();
    println!(
        "| target | static library | `fm_verify_tflite`, the library's code alone | a C firmware calling it, \
         TFLite's library | every function |"
    );
    println!("|---|---|---:|---:|---:|");
    for row in &rows {
        let (target, library) = (&row.target, row.library.display());
        println!("| `{target}` | {library} ({} bytes) | {} | {} | {} |", row.size, row.alone, row.c, row.whole);
    }
    println!(
        "(flash: bytes of .text + .rodata. The library's code alone: fm_verify_tflite and what it calls in the \
         library of every function, linked by rust-lld with --gc-sections; every function: the same for all \
         of flatmodel.h. The \
         library needs nothing else: it carries its compiler helpers. A C firmware: examples/c-firmware/footprint.c linked by \
         arm-none-eabi-gcc -Os --gc-sections with newlib-nano and libgcc against libflatmodel_c_tflite.a \
         (--features tflite), less the same firmware calling nothing.)"
    );
    Ok(())
}

/// One target's figures.
struct Row {
    target: String,
    library: PathBuf,
    /// The library file's size, in bytes.
    size: u64,
    /// The flash `fm_verify_tflite` pulls from the library alone.
    alone: u64,
    /// The flash a C caller of `fm_verify_tflite` costs, or why it was not measured.
    c: String,
    /// The flash every function of the C ABI takes together.
    whole: u64,
}

impl Row {
    fn measure(target: &str, library: &Path, target_dir: &Path) -> Result<Row, String> {
        let size = std::fs::metadata(library).map_err(|e| format!("{}: {e}", library.display()))?.len();
        let alone = linked_alone(library, &["fm_verify_tflite"])?;
        let whole = linked_alone(library, C_ABI)?;
        let c = if !C_TARGETS.contains(&target) {
            "not measured (no C cross-compiler here)".to_string()
        } else if Command::new("arm-none-eabi-gcc").arg("--version").output().is_err() {
            "not measured (no arm-none-eabi-gcc)".to_string()
        } else {
            let example = root().join("examples/c-firmware");
            let mut make = Command::new("make");
            make.current_dir(&example).args(["--quiet", "footprint"]).arg(format!("TARGET={target}"));
            make.env("CARGO_TARGET_DIR", target_dir);
            run(make)?;
            let out = example.join("build").join(target);
            let caller = code_and_constants(&out.join("footprint-tflite.elf"))?;
            let empty = code_and_constants(&out.join("footprint-empty.elf"))?;
            caller.checked_sub(empty).ok_or("the empty C firmware is the larger")?.to_string()
        };
        Ok(Row { target: target.to_string(), library: library.to_path_buf(), size, alone, c, whole })
    }
}

/// The flash the functions `entries` take with what they call, linked from `library` alone by
/// rust-lld with `--gc-sections` (written beside the library, as `ENTRY.elf` for the first).
fn linked_alone(library: &Path, entries: &[&str]) -> Result<u64, String> {
    let first = entries.first().ok_or("no entry point to link")?;
    let name = if entries.len() == 1 { format!("{first}.elf") } else { "c-abi.elf".to_string() };
    let linked = library.with_file_name(name);
    let mut link = Command::new(rust_lld()?);
    link.args(["-flavor", "gnu", "--gc-sections", "-e", first]);
    for entry in entries {
        link.args(["-u", entry]);
    }
    link.arg("-o").arg(&linked).arg(library);
    run(link)?;
    code_and_constants(&linked)
}

/// `rustup target add` for those of `targets` the toolchain does not have yet.
fn add_targets(targets: &[&str]) -> Result<(), String> {
    let listed = Command::new("rustup")
        .current_dir(root())
        .args(["target", "list", "--installed"])
        .output()
        .map_err(|e| format!("rustup: {e}"))?;
    let installed = String::from_utf8_lossy(&listed.stdout).lines().map(str::to_string).collect::<Vec<_>>();
    let missing: Vec<&&str> = targets.iter().filter(|t| !installed.iter().any(|i| i == **t)).collect();
    if missing.is_empty() {
        return Ok(());
    }
    let mut add = Command::new("rustup");
    add.current_dir(root()).args(["target", "add"]).args(missing);
    run(add)
}

/// The linker that ships with the Rust toolchain (`lib/rustlib/HOST/bin/rust-lld`).
fn rust_lld() -> Result<PathBuf, String> {
    let rustc = |args: &[&str]| -> Result<String, String> {
        let out = Command::new("rustc").current_dir(root()).args(args).output().map_err(|e| format!("rustc: {e}"))?;
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let sysroot = rustc(&["--print", "sysroot"])?;
    let version = rustc(&["-vV"])?;
    let host = version.lines().find_map(|l| l.strip_prefix("host: ")).ok_or("rustc -vV names no host")?;
    Ok(Path::new(sysroot.trim()).join("lib/rustlib").join(host).join("bin/rust-lld"))
}

/// The flash an ELF file's code and constants take, as `examples/cortex-m4/footprint.sh` counts
/// it: the bytes of its `.text` and `.rodata` sections (and RISC-V's `.srodata`, small constants).
/// A 32-bit little-endian file, as every firmware target's is.
fn code_and_constants(path: &Path) -> Result<u64, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let bad = || format!("{}: not a 32-bit little-endian ELF file", path.display());
    if bytes.get(..6) != Some(b"\x7fELF\x01\x01") {
        return Err(bad());
    }
    let u16_at = |at: usize| bytes.get(at..at + 2).map(|b| usize::from(u16::from_le_bytes([b[0], b[1]])));
    let u32_at = |at: usize| bytes.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    let header = |i: usize| -> Option<(u32, u32, u32)> {
        let at = usize::try_from(u32_at(0x20)?).ok()? + i * u16_at(0x2E)?;
        Some((u32_at(at)?, u32_at(at + 16)?, u32_at(at + 20)?))
    };
    let (count, names_index) = u16_at(0x30).zip(u16_at(0x32)).ok_or_else(bad)?;
    let (_, names_offset, _) = header(names_index).ok_or_else(bad)?;
    let mut total = 0u64;
    for i in 0..count {
        let (name, _, size) = header(i).ok_or_else(bad)?;
        let start = names_offset as usize + name as usize;
        let name = bytes.get(start..).and_then(|b| b.split(|&c| c == 0).next()).ok_or_else(bad)?;
        if matches!(name, b".text" | b".rodata" | b".srodata") {
            total += u64::from(size);
        }
    }
    Ok(total)
}
