//! `cargo xtask TASK`: the project's tasks, named, so that `.ci/run` and contributors run the
//! same commands (the alias is in `.cargo/config.toml`).
//!
//! - `codegen`: regenerate every `src/formats/*/generated.rs` from its `schema.fbs` (the
//!   generator in `codegen/`, built with the library's bootstrap cfg so that it runs when the
//!   generated code does not build); `codegen --check` fails when one is stale.
//! - `features`: the library checked with no feature, each feature alone, and all of them, on
//!   the host; and on `thumbv7em-none-eabihf` with each feature that builds without `std`.
//! - `msrv`: the library and the C ABI (`capi/`) checked with the toolchain the library's
//!   `rust-version` names (installed with rustup when missing), on the host and on
//!   `thumbv7em-none-eabihf`.
//! - `footprint`: the Cortex-M4 flash table (`examples/cortex-m4/footprint.sh`).
//! - `install-c [--prefix DIR]`: the C ABI (`capi/`) built in release and installed with its
//!   header, pkg-config file and CMake package (`install_c.rs`; `DESTDIR` honoured).
//! - `c-check [--prefix DIR]`: `install-c` into a scratch prefix, then the C and C++ examples
//!   built against it and run, and the C test under AddressSanitizer and UBSan (`c_check.rs`).
//! - `c-firmware-libs [--build-only] [TARGET...]`: the C ABI (`capi/`) as a static library for
//!   each embedded target of [`FIRMWARE_TARGETS`] (or those named; rustup adds the missing
//!   ones), built with no default features in the `firmware` profile (`Cargo.toml`). Prints each
//!   library's path and size, and the flash `fm_verify_tflite` takes: the library's code it
//!   pulls in (linked alone by rust-lld, which fails if the library needs anything it does not
//!   carry), and on the Arm targets a C firmware that calls it, linked by `arm-none-eabi-gcc`
//!   when installed (`examples/c-firmware`, `make footprint`); and the flash of every function.

mod c_check;
mod c_firmware;
mod install_c;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// The embedded target the `no_std` core is built for.
const EMBEDDED: &str = "thumbv7em-none-eabihf";

/// Library features that need `std` (directly or through a dependency), left out of the
/// embedded matrix.
const NEEDS_STD: &[&str] = &["std", "nnpackage"];

/// The embedded targets the C ABI's static library is built for (`c-firmware-libs`): Cortex-M0+,
/// Cortex-M4F, Cortex-M33 and a 32-bit RISC-V core.
const FIRMWARE_TARGETS: &[&str] =
    &["thumbv6m-none-eabi", "thumbv7em-none-eabihf", "thumbv8m.main-none-eabihf", "riscv32imac-unknown-none-elf"];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["codegen"] => codegen(true),
        ["codegen", "--check"] => codegen(false),
        ["features"] => features(),
        ["msrv"] => msrv(),
        ["footprint"] => run(Command::new(root().join("examples/cortex-m4/footprint.sh"))),
        ["install-c", rest @ ..] => install_c::task(rest),
        ["c-check", rest @ ..] => c_check::task(rest),
        ["c-firmware-libs", rest @ ..] => c_firmware::c_firmware_libs(rest),
        [] | ["help" | "--help" | "-h"] => {
            println!("{}", usage());
            Ok(())
        }
        other => Err(format!("unknown task {:?}\n{}", other.join(" "), usage())),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

fn usage() -> &'static str {
    "usage: cargo xtask codegen [--check] | features | msrv | footprint | install-c [--prefix DIR]\n\
     \x20      | c-check [--prefix DIR]\n\
     \x20      | c-firmware-libs [--build-only] [TARGET...]\n\
     (each task's description: xtask/src/main.rs)"
}

/// The repository's root (this crate's parent).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// `cargo` as the running cargo, in the repository's root.
fn cargo() -> Command {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command.current_dir(root());
    command
}

/// Runs `command`, printing it first; an error when it fails.
fn run(mut command: Command) -> Result<(), String> {
    let shown = format!("{command:?}").replace('"', "");
    println!("$ {shown}");
    let status = command.status().map_err(|e| format!("{shown}: {e}"))?;
    status.success().then_some(()).ok_or_else(|| format!("{shown}: {status}"))
}

/// The generator (`codegen/`), built with `--cfg flatmodel_bootstrap`: the library without the
/// modules that include generated code (`src/lib.rs`), so that a stale or missing
/// `generated.rs`, or a new macro grammar, does not keep it from building. In a target directory
/// of its own, so that the flag does not rebuild the workspace's other builds.
fn codegen(write: bool) -> Result<(), String> {
    let mut flags = std::env::var("RUSTFLAGS").unwrap_or_default();
    flags.push_str(" --cfg flatmodel_bootstrap");
    let mut command = cargo();
    command.args(["run", "--quiet", "-p", "flatmodel-codegen", "--"]);
    if !write {
        command.arg("--check");
    }
    command.env("RUSTFLAGS", flags.trim()).env("CARGO_TARGET_DIR", root().join("target/bootstrap"));
    run(command)
}

/// The workspace's `cargo metadata`.
fn metadata() -> Result<Value, String> {
    let out = cargo()
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .output()
        .map_err(|e| format!("cargo metadata: {e}"))?;
    serde_json::from_slice(&out.stdout).map_err(|e| format!("cargo metadata: {e}"))
}

/// The library package's `cargo metadata` entry.
fn library() -> Result<Value, String> {
    package("flatmodel")
}

/// The `cargo metadata` entry of the workspace's package `name`.
fn package(name: &str) -> Result<Value, String> {
    let metadata = metadata()?;
    let packages = metadata["packages"].as_array().cloned().unwrap_or_default();
    packages.into_iter().find(|p| p["name"] == name).ok_or_else(|| format!("no {name} package"))
}

/// The library's features but `default`, by name.
fn feature_names(library: &Value) -> Vec<String> {
    let features = library["features"].as_object().map(|f| f.keys().cloned().collect::<Vec<_>>());
    features.unwrap_or_default().into_iter().filter(|f| f != "default").collect()
}

/// `cargo check` of the library's code with `features` (none: `--no-default-features` alone),
/// with `toolchain` (`+1.88`) and `target` when given.
fn check(toolchain: Option<&str>, target: Option<&str>, features: Option<&str>) -> Result<(), String> {
    check_in(toolchain, target, features, None)
}

/// [`check`], into the target directory `target_dir` when given.
fn check_in(
    toolchain: Option<&str>,
    target: Option<&str>,
    features: Option<&str>,
    target_dir: Option<&Path>,
) -> Result<(), String> {
    let mut command = cargo();
    if let Some(toolchain) = toolchain {
        // A `+toolchain` argument is rustup's: run rustup's cargo proxy, not the current cargo.
        command = Command::new("cargo");
        command.current_dir(root()).arg(toolchain);
    }
    command.args(["check", "--quiet", "-p", "flatmodel", "--lib", "--no-default-features"]);
    if let Some(features) = features {
        command.args(["--features", features]);
    }
    if let Some(target) = target {
        command.args(["--target", target]);
    }
    if let Some(dir) = target_dir {
        command.env("CARGO_TARGET_DIR", dir);
    }
    run(command)
}

fn features() -> Result<(), String> {
    let names = feature_names(&library()?);
    let all = names.join(",");
    let embedded: Vec<String> = names.iter().filter(|n| !NEEDS_STD.contains(&n.as_str())).cloned().collect();
    let all_embedded = embedded.join(",");
    // The embedded checks run beside the host checks, in a target directory of their own (cargo
    // locks one directory per build), each series on one core: about half the time of one series
    // after the other.
    let embedded_series = {
        let embedded = embedded.clone();
        std::thread::spawn(move || -> Result<(), String> {
            let dir = root().join("target/features-embedded");
            check_in(None, Some(EMBEDDED), None, Some(&dir))?;
            for name in &embedded {
                check_in(None, Some(EMBEDDED), Some(name), Some(&dir))?;
            }
            check_in(None, Some(EMBEDDED), Some(&all_embedded), Some(&dir))
        })
    };
    let host = (|| {
        check(None, None, None)?;
        for name in &names {
            check(None, None, Some(name))?;
        }
        check(None, None, Some(&all))
    })();
    let embedded_outcome = embedded_series.join().map_err(|_| "the embedded checks panicked".to_string())?;
    host?;
    embedded_outcome?;
    println!(
        "features: none, each of {} alone, all; on {EMBEDDED}: none, each of {} alone, all",
        names.len(),
        embedded.len()
    );
    Ok(())
}

fn msrv() -> Result<(), String> {
    let library = library()?;
    let version = library["rust_version"].as_str().ok_or("the library declares no rust-version")?.to_string();
    let installed = Command::new("rustup").args(["toolchain", "list"]).output().map_err(|e| format!("rustup: {e}"))?;
    if !String::from_utf8_lossy(&installed.stdout).lines().any(|l| l.starts_with(&format!("{version}-"))) {
        let mut install = Command::new("rustup");
        install.args(["toolchain", "install", &version, "--profile", "minimal", "--target", EMBEDDED]);
        run(install)?;
    } else {
        let mut target = Command::new("rustup");
        target.args(["target", "add", "--toolchain", &version, EMBEDDED]);
        run(target)?;
    }
    let toolchain = format!("+{version}");
    check(Some(&toolchain), None, Some("std,specialize,nested-metadata,nested-xnnpack,nnpackage,lz4,md5"))?;
    check(Some(&toolchain), Some(EMBEDDED), None)?;
    // The C ABI declares the same rust-version: its host build and its firmware build.
    for extra in [&[][..], &["--no-default-features", "--target", EMBEDDED][..]] {
        let mut capi = Command::new("cargo");
        capi.current_dir(root())
            .arg(&toolchain)
            .args(["check", "--quiet", "-p", "flatmodel-capi", "--lib"])
            .args(extra);
        run(capi)?;
    }
    println!("msrv: the library and the C ABI build with Rust {version}");
    Ok(())
}
