//! `cargo xtask install-c [--prefix DIR]`: the C ABI (`capi/`) built in release and installed for
//! C and C++ builds, with `DESTDIR` honoured as `make install` honours it:
//!
//! - `include/flatmodel.h`;
//! - `lib/libflatmodel_c.a`, and the shared library: on Linux `lib/libflatmodel_c.so.X.Y.Z`
//!   with the soname `libflatmodel_c.so.X.Y` (before 1.0, `libflatmodel_c.so.0.Y`: a minor
//!   version may break the ABI, as Cargo reads 0.x versions) and the links `.so.0.Y` and `.so`;
//!   elsewhere the file cargo builds, under its own name;
//! - `lib/pkgconfig/flatmodel.pc`, whose `Libs.private` are the system libraries the static
//!   library needs, as rustc prints them (`--print native-static-libs`);
//! - `lib/cmake/flatmodel/flatmodelConfig.cmake` and `flatmodelConfigVersion.cmake`: the
//!   imported targets `flatmodel::flatmodel` (shared) and `flatmodel::flatmodel_static`.
//!
//! The templates are `templates/*.in`; `@NAME@` is replaced.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::{cargo, package, root};

/// What the build gave: the libraries' paths and the static library's system libraries.
struct Built {
    staticlib: PathBuf,
    cdylib: PathBuf,
    /// `-lgcc_s -lutil ...`, as rustc prints them.
    native_libs: String,
}

/// The files `install` wrote, below `DESTDIR` + `prefix`.
pub struct Installed {
    /// Every file and link written, in order.
    pub files: Vec<PathBuf>,
}

/// Parses `install-c`'s arguments and installs.
pub fn task(args: &[&str]) -> Result<(), String> {
    let prefix = match args {
        [] => PathBuf::from("/usr/local"),
        ["--prefix", dir] => PathBuf::from(dir),
        _ => return Err("usage: cargo xtask install-c [--prefix DIR] (DESTDIR is honoured)".to_string()),
    };
    let destdir = std::env::var_os("DESTDIR").filter(|d| !d.is_empty()).map(PathBuf::from);
    let installed = install(&prefix, destdir.as_deref())?;
    for file in &installed.files {
        println!("installed {}", file.display());
    }
    Ok(())
}

/// Builds the C ABI in release and installs it under `prefix` (staged under `destdir`, when
/// given, as `DESTDIR` stages `make install`: the files name `prefix`).
pub fn install(prefix: &Path, destdir: Option<&Path>) -> Result<Installed, String> {
    let prefix = absolute(prefix)?;
    let capi = package("flatmodel-capi")?;
    let version = capi["version"].as_str().ok_or("flatmodel-capi has no version")?.to_string();
    let mut parts = version.split('.');
    let (major, minor) = (parts.next().unwrap_or("0").to_string(), parts.next().unwrap_or("0").to_string());
    // The soname: what may change only with the ABI (the minor version before 1.0).
    let soname_version = if major == "0" { format!("0.{minor}") } else { major.clone() };
    let linux = cfg!(target_os = "linux");
    let soname = format!("libflatmodel_c.so.{soname_version}");

    let built = build(linux.then_some(soname.as_str()))?;
    let staged = match destdir {
        // DESTDIR/prefix: the prefix's root component is dropped so that it joins below DESTDIR.
        Some(destdir) => destdir.join(prefix.strip_prefix("/").unwrap_or(&prefix)),
        None => prefix.clone(),
    };
    let (include, lib) = (staged.join("include"), staged.join("lib"));
    let (pkgconfig, cmake) = (lib.join("pkgconfig"), lib.join("cmake/flatmodel"));
    for dir in [&include, &lib, &pkgconfig, &cmake] {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }

    let mut files = Vec::new();
    let header = root().join("capi/include/flatmodel.h");
    files.push(copy(&header, &include.join("flatmodel.h"), 0o644)?);
    files.push(copy(&built.staticlib, &lib.join("libflatmodel_c.a"), 0o644)?);
    let shared_file = if linux {
        let real = format!("libflatmodel_c.so.{version}");
        files.push(copy(&built.cdylib, &lib.join(&real), 0o755)?);
        files.push(link(&real, &lib.join(&soname))?);
        files.push(link(&soname, &lib.join("libflatmodel_c.so"))?);
        real
    } else {
        let name = built.cdylib.file_name().ok_or("the shared library has no file name")?;
        files.push(copy(&built.cdylib, &lib.join(name), 0o755)?);
        name.to_string_lossy().into_owned()
    };

    let cmake_libs: Vec<&str> =
        built.native_libs.split_whitespace().map(|l| l.strip_prefix("-l").unwrap_or(l)).collect();
    let values = [
        ("PREFIX", prefix.to_string_lossy().into_owned()),
        ("VERSION", version.clone()),
        ("VERSION_MAJOR", major),
        ("VERSION_MINOR", minor),
        ("NATIVE_LIBS", built.native_libs.clone()),
        ("NATIVE_LIBS_CMAKE", cmake_libs.join(";")),
        ("SHARED_FILE", shared_file.clone()),
        ("SONAME", if linux { soname.clone() } else { shared_file }),
        ("POINTER_BYTES", std::mem::size_of::<usize>().to_string()),
    ];
    let templates = [
        (include_str!("templates/flatmodel.pc.in"), pkgconfig.join("flatmodel.pc")),
        (include_str!("templates/flatmodelConfig.cmake.in"), cmake.join("flatmodelConfig.cmake")),
        (include_str!("templates/flatmodelConfigVersion.cmake.in"), cmake.join("flatmodelConfigVersion.cmake")),
    ];
    for (template, path) in templates {
        let text = fill(template, &values)?;
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        files.push(path);
    }
    Ok(Installed { files })
}

/// `cargo rustc --release -p flatmodel-capi --lib`, asking rustc for the static library's
/// system libraries, and on Linux giving the shared library its soname. The build is the
/// crate's alone, so the libraries hold flatmodel with the C ABI's features only (a build of
/// the whole workspace unifies them with the command line's). Cargo replays the note when the
/// build is fresh.
fn build(soname: Option<&str>) -> Result<Built, String> {
    let mut command = cargo();
    command.args(["rustc", "--release", "-p", "flatmodel-capi", "--lib", "--message-format=json", "--"]);
    command.args(["--print", "native-static-libs"]);
    if let Some(soname) = soname {
        command.args(["-C", &format!("link-arg=-Wl,-soname,{soname}")]);
    }
    println!("$ {}", format!("{command:?}").replace('"', ""));
    let out = command.stderr(Stdio::inherit()).output().map_err(|e| format!("cargo rustc: {e}"))?;
    let (mut staticlib, mut cdylib, mut native_libs) = (None, None, None);
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(message) = serde_json::from_str::<Value>(line) else { continue };
        match message["reason"].as_str() {
            Some("compiler-message") => {
                let text = message["message"]["message"].as_str().unwrap_or_default();
                if let Some(libs) = text.strip_prefix("native-static-libs: ") {
                    native_libs = Some(libs.trim().to_string());
                } else if !text.starts_with("link against the following native artifacts") {
                    eprint!("{}", message["message"]["rendered"].as_str().unwrap_or_default());
                }
            }
            Some("compiler-artifact") if message["target"]["name"] == "flatmodel_c" => {
                for file in message["filenames"].as_array().into_iter().flatten().filter_map(Value::as_str) {
                    let path = PathBuf::from(file);
                    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                    if name.ends_with(".a") || (name.ends_with(".lib") && !name.ends_with(".dll.lib")) {
                        staticlib = Some(path);
                    } else if name.ends_with(".so") || name.ends_with(".dylib") || name.ends_with(".dll") {
                        cdylib = Some(path);
                    }
                }
            }
            _ => {}
        }
    }
    if !out.status.success() {
        return Err(format!("cargo rustc -p flatmodel-capi: {}", out.status));
    }
    Ok(Built {
        staticlib: staticlib.ok_or("cargo built no static library")?,
        cdylib: cdylib.ok_or("cargo built no shared library")?,
        native_libs: native_libs.ok_or("rustc printed no native-static-libs")?,
    })
}

/// `path`, made absolute against the current directory (the files installed name it).
fn absolute(path: &Path) -> Result<PathBuf, String> {
    std::path::absolute(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Replaces each `@NAME@` of `template`; an error for a placeholder left without a value.
fn fill(template: &str, values: &[(&str, String)]) -> Result<String, String> {
    let mut text = template.to_string();
    for (name, value) in values {
        text = text.replace(&format!("@{name}@"), value);
    }
    for (at, _) in text.match_indices('@') {
        let rest = &text[at + 1..];
        let name_len = rest.find(|c: char| !(c.is_ascii_uppercase() || c == '_')).unwrap_or(rest.len());
        if name_len > 0 && rest[name_len..].starts_with('@') {
            return Err(format!("template placeholder @{}@ has no value", &rest[..name_len]));
        }
    }
    Ok(text)
}

/// Copies `from` to `to` with `mode` (on Unix), replacing `to` rather than writing into it: a
/// program running from the old shared library keeps its copy.
fn copy(from: &Path, to: &Path, mode: u32) -> Result<PathBuf, String> {
    let _ = std::fs::remove_file(to);
    std::fs::copy(from, to).map_err(|e| format!("{} -> {}: {e}", from.display(), to.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(to, std::fs::Permissions::from_mode(mode))
            .map_err(|e| format!("{}: {e}", to.display()))?;
    }
    #[cfg(not(unix))]
    let _ = mode;
    Ok(to.to_path_buf())
}

/// Makes `at` a symbolic link to `target` (a name in the same directory).
fn link(target: &str, at: &Path) -> Result<PathBuf, String> {
    let _ = std::fs::remove_file(at);
    #[cfg(unix)]
    std::os::unix::fs::symlink(target, at).map_err(|e| format!("{}: {e}", at.display()))?;
    #[cfg(not(unix))]
    std::fs::copy(at.with_file_name(target), at).map_err(|e| format!("{}: {e}", at.display()))?;
    Ok(at.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::fill;

    #[test]
    fn fill_replaces_every_name_and_refuses_a_missing_one() {
        let values = [("A", "1".to_string()), ("B_C", "x y".to_string())];
        assert_eq!(fill("@A@-@B_C@ @A@", &values), Ok("1-x y 1".to_string()));
        assert!(fill("@A@ @D@", &values).unwrap_err().contains("@D@"));
        // An @ that starts no placeholder stays.
        assert_eq!(fill("mail@host and @A@", &values), Ok("mail@host and 1".to_string()));
        assert!(fill("mail@host @D@", &values).unwrap_err().contains("@D@"));
    }
}
