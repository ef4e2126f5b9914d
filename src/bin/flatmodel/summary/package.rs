//! `flatmodel verify` and `flatmodel inspect` on an nnpackage: a directory holding
//! `metadata/MANIFEST`, or a zip archive of one. The library checks the package; this file maps
//! its model files and prints.

use crate::input::Input;
use crate::output::Out;
use crate::{Failure, Outcome};
use flatmodel::nnpackage::{self, Container, Options, Package, PackageErrorKind, SharedBytes, TensorIo};
use serde_json::{json, Value};
use std::ffi::OsStr;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

/// Whether `path` is a package rather than a model file: a directory, or a file that starts
/// as a zip archive (`PK\x03\x04`).
pub fn is_package(path: &OsStr) -> bool {
    nnpackage::container_of(Path::new(path)).is_some()
}

/// A mapped file as the bytes the library asks its loader for.
struct Mapped(Input);

impl AsRef<[u8]> for Mapped {
    fn as_ref(&self) -> &[u8] {
        self.0.bytes()
    }
}

/// The package's loader: model files and zip archives are mapped, not copied.
fn map_file(file: std::fs::File) -> std::io::Result<SharedBytes> {
    let input = Input::map(&file, "package file").map_err(|f| match f {
        Failure::Message(message) => std::io::Error::other(message),
        Failure::OutputClosed => std::io::Error::from(std::io::ErrorKind::BrokenPipe),
    })?;
    Ok(Arc::new(Mapped(input)))
}

/// The checked package at `path`; `Ok(Err(reason))` when it is not a valid package, `Err` when
/// the path itself cannot be read.
fn open(path: &OsStr) -> Result<Result<Package, String>, Failure> {
    let options = Options { loader: map_file, ..Options::default() };
    match Package::open_with(Path::new(path), &options) {
        Ok(package) => Ok(Ok(package)),
        Err(e) if e.at().is_empty() && matches!(e.kind(), PackageErrorKind::Io | PackageErrorKind::NotFound) => {
            Err(Failure::new(format!("{}: {e}", path.to_string_lossy())))
        }
        Err(e) => Ok(Err(e.to_string())),
    }
}

/// `PATH: ok (nnpackage 1.3, N model(s))`, or `PATH: invalid: REASON`.
pub fn verify(out: &mut Out, path: &OsStr, quiet: bool) -> Result<Outcome, Failure> {
    let name = path.to_string_lossy();
    match open(path)? {
        Ok(package) => {
            if !quiet {
                let v = package.version();
                writeln!(out, "{name}: ok (nnpackage {}.{}, {} model(s))", v.major, v.minor, package.models().len())?;
            }
            for (i, model) in package.models().iter().enumerate() {
                let warnings = crate::commands::verify::warnings_of(model.bytes.as_bytes());
                warnings.print(out, &format!("{name}: warning: model {i} ({}): ", model.path))?;
            }
            Ok(Outcome::Ok)
        }
        Err(reason) => crate::open::report_invalid(out, &name, &reason),
    }
}

/// Prints the package's manifest summary, then each model's summary, as text or JSON.
pub fn inspect(out: &mut Out, path: &OsStr, as_json: bool) -> Result<Outcome, Failure> {
    let name = path.to_string_lossy();
    let package = match open(path)? {
        Ok(p) => p,
        Err(reason) => return crate::open::report_invalid(out, &name, &reason),
    };
    let summary = summarise(&package);
    if as_json {
        crate::output::write_summary(out, summary)?;
    } else {
        print_text(out, &name, &package, &summary)?;
    }
    Ok(Outcome::Ok)
}

/// A subgraph input or output in the port layout of `inspect`'s `io` (the model's own summary
/// adds its quantization), with the type code as stored.
fn tensor_json(t: &TensorIo) -> Value {
    json!({
        "name": t.name,
        "tensor": t.tensor,
        "dtype": crate::summary::facts::dtype(t.element_type),
        "type_code": t.element_type.code,
        "shape": t.shape,
    })
}

/// The package as JSON: the manifest's keys, the config, and each model with its summary.
fn summarise(package: &Package) -> Value {
    let m = package.manifest();
    let refs = |v: &[nnpackage::IoRef]| -> Vec<String> { v.iter().map(ToString::to_string).collect() };
    let models: Vec<Value> = package
        .models()
        .iter()
        .enumerate()
        .map(|(i, model)| {
            let io: Option<Vec<Value>> = model.io.as_ref().map(|io| {
                io.subgraphs
                    .iter()
                    .enumerate()
                    .map(|(s, sg)| {
                        json!({
                            "subgraph": s,
                            "inputs": sg.inputs.iter().map(tensor_json).collect::<Vec<_>>(),
                            "outputs": sg.outputs.iter().map(tensor_json).collect::<Vec<_>>(),
                        })
                    })
                    .collect()
            });
            let summary = match model.io {
                Some(_) => crate::commands::inspect::summary_of(model.bytes.as_bytes()).unwrap_or_else(|e| json!({ "error": e })),
                None => Value::Null,
            };
            json!({
                "index": i,
                "path": model.path,
                "type": model.model_type.name(),
                "type_from": if model.type_from_extension { "extension" } else { "model-types" },
                "bytes": model.bytes.as_bytes().len(),
                "io": io,
                "summary": summary,
            })
        })
        .collect();
    let connections: Vec<Value> =
        m.model_connect.iter().map(|c| json!({ "from": c.from.to_string(), "to": refs(&c.to) })).collect();
    let config = package.config().map(|c| {
        json!({
            "file": c.file,
            "entries": c.entries.iter().map(|(k, v)| json!({ "key": k, "value": v })).collect::<Vec<_>>(),
        })
    });
    json!({
        "format": "nnpackage",
        "container": match package.container() { Container::Directory => "directory", Container::Zip => "zip" },
        "version": m.version.to_string(),
        "configs": m.configs,
        "config": config,
        "models": models,
        "pkg_inputs": refs(&m.pkg_inputs),
        "pkg_outputs": refs(&m.pkg_outputs),
        "model_connect": connections,
    })
}

fn print_text(out: &mut Out, name: &str, package: &Package, s: &Value) -> std::io::Result<()> {
    let list = |v: &Value| -> String {
        let items: Vec<String> = v
            .as_array()
            .into_iter()
            .flatten()
            .map(|x| x.as_str().map_or_else(|| x.to_string(), String::from))
            .collect();
        if items.is_empty() {
            "-".into()
        } else {
            items.join(", ")
        }
    };
    writeln!(out, "{name}")?;
    writeln!(
        out,
        "  format:      nnpackage {} ({})",
        s["version"].as_str().unwrap_or("-"),
        s["container"].as_str().unwrap_or("-")
    )?;
    writeln!(out, "  configs:     {}", list(&s["configs"]))?;
    if let Some(config) = package.config() {
        writeln!(out, "  config:      {}", config.file)?;
        for (k, v) in &config.entries {
            writeln!(out, "    {k}={v}")?;
        }
    }
    writeln!(out, "  models:      {}", package.models().len())?;
    for (i, model) in package.models().iter().enumerate() {
        let from = if model.type_from_extension { " by extension" } else { "" };
        writeln!(
            out,
            "    [{i}] {} ({}{from}, {} bytes)",
            model.path,
            model.model_type.name(),
            model.bytes.as_bytes().len()
        )?;
        for (sg, io) in model.io.iter().flat_map(|io| io.subgraphs.iter().enumerate()) {
            let side = |ts: &[TensorIo]| -> String {
                let parts: Vec<String> = ts
                    .iter()
                    .map(|t| {
                        let shape =
                            t.shape.as_ref().map_or_else(|| "[?]".into(), |d| format!("{d:?}").replace(' ', ""));
                        format!("{} {} {shape}", t.name.as_deref().unwrap_or("-"), t.element_type)
                    })
                    .collect();
                parts.join("; ")
            };
            writeln!(out, "        subgraph {sg}: inputs [{}] outputs [{}]", side(&io.inputs), side(&io.outputs))?;
        }
    }
    writeln!(out, "  pkg-inputs:  {}", list(&s["pkg_inputs"]))?;
    writeln!(out, "  pkg-outputs: {}", list(&s["pkg_outputs"]))?;
    writeln!(out, "  connections:{}", if package.manifest().model_connect.is_empty() { " -" } else { "" })?;
    for c in &package.manifest().model_connect {
        let to: Vec<String> = c.to.iter().map(ToString::to_string).collect();
        writeln!(out, "    {} -> {}", c.from, to.join(", "))?;
    }
    for (i, model) in s["models"].as_array().into_iter().flatten().enumerate() {
        let summary = &model["summary"];
        if summary.is_null() {
            continue;
        }
        writeln!(out)?;
        let title = format!("{name}: model {i} ({})", model["path"].as_str().unwrap_or("-"));
        match summary.get("error").and_then(Value::as_str) {
            Some(e) => writeln!(out, "{title}: {e}")?,
            None => crate::commands::inspect::print_text(out, &title, summary)?,
        }
    }
    Ok(())
}
