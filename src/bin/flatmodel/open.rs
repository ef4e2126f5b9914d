//! Opening what a path names, in one place for every command: an nnpackage (a directory or a
//! zip archive, checked by the library) or a model file (mapped, its format recognised and its
//! structure verified once, as a [`flatmodel::File`]).

use crate::input::Input;
use crate::output::Out;
use crate::{Failure, Outcome};
use flatmodel::nnpackage::{self, Package, PackageErrorKind, SharedBytes};
use flatmodel::{ErrorKind, File};
use std::ffi::OsStr;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

/// What a path names.
pub enum Opened {
    /// A checked nnpackage.
    Package(Box<Package>),
    /// A model file's bytes (mapped); [`file()`] verifies them.
    File(Input),
}

/// Opens `path`: `Ok(Err(reason))` when it is no model or an invalid package, `Err` when it
/// cannot be read at all.
pub fn open(path: &OsStr) -> Result<Result<Opened, String>, Failure> {
    let p = Path::new(path);
    if p.is_dir() && !p.join("metadata").join("MANIFEST").exists() {
        return Ok(Err("not a model file or nnpackage directory (no metadata/MANIFEST)".into()));
    }
    if nnpackage::container_of(p).is_some() {
        return Ok(package(path)?.map(|p| Opened::Package(Box::new(p))));
    }
    Input::open(path).map(|input| Ok(Opened::File(input)))
}

/// Opens `path` for a command that reads one model file (`dump`, `extract`, `inspect
/// --tflm-resolver`): its bytes, or (inner `Err`) the outcome of reporting why it is none.
pub fn model_file(out: &mut Out, path: &OsStr, command: &str) -> Result<Result<Input, Outcome>, Failure> {
    let name = path.to_string_lossy();
    Ok(match open(path)? {
        Ok(Opened::File(input)) => Ok(input),
        Ok(Opened::Package(_)) => {
            let reason = format!("an nnpackage holds several models: {command} one of its model files");
            Err(report_invalid(out, &name, &reason)?)
        }
        Err(reason) => Err(report_invalid(out, &name, &reason)?),
    })
}

/// The file in `bytes`, its format recognised and its structure verified (its rules are each
/// command's to check), or why it is no model.
pub fn file(bytes: &[u8]) -> Result<File<'_>, String> {
    File::parse_structure(bytes).map_err(|e| match e.kind() {
        ErrorKind::UnknownFormat => unknown_format(bytes),
        _ => e.to_string(),
    })
}

/// A mapped file as the bytes the package library asks its loader for.
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
fn package(path: &OsStr) -> Result<Result<Package, String>, Failure> {
    let options = nnpackage::Options { loader: map_file, ..nnpackage::Options::default() };
    match Package::open_with(Path::new(path), &options) {
        Ok(package) => Ok(Ok(package)),
        Err(e) if e.at().is_empty() && matches!(e.kind(), PackageErrorKind::Io | PackageErrorKind::NotFound) => {
            Err(Failure::new(format!("{}: {e}", path.to_string_lossy())))
        }
        Err(e) => Ok(Err(e.to_string())),
    }
}

/// Prints `NAME: invalid: REASON`.
pub fn report_invalid(out: &mut Out, name: &str, reason: &str) -> Result<Outcome, Failure> {
    writeln!(out, "{name}: invalid: {reason}")?;
    Ok(Outcome::Invalid)
}

/// Why `bytes` are not a model of a known format, in one line naming what was found.
pub fn unknown_format(bytes: &[u8]) -> String {
    const KNOWN: &str = "TFLite (TFL3 at byte 4), Circle (CIR0), ExecuTorch .pte (ET12), Vulkan blob (VH00) or \
                         VkGraph (VK00), cvimodel (CviModel at byte 0), or an nnpackage directory or zip";
    if bytes.is_empty() {
        return format!("not a model: the file is empty; flatmodel reads {KNOWN}");
    }
    let head = bytes.get(..8).unwrap_or(bytes);
    let hex: Vec<String> = head.iter().map(|b| format!("{b:02x}")).collect();
    let text: String = head.iter().map(|&b| if b.is_ascii_graphic() { b as char } else { '.' }).collect();
    format!("not a model flatmodel reads: it starts with {} (\"{text}\"); flatmodel reads {KNOWN}", hex.join(" "))
}
