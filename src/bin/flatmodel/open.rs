//! Opening what a path names, in one place for every command: an nnpackage (directory or zip),
//! or a file mapped and recognised from its bytes.

use crate::input::Input;
use crate::output::Out;
use crate::{Failure, Outcome};
use flatmodel::{circle, tflite, Format};
use std::borrow::Cow;
use std::ffi::OsStr;
use std::io::Write;
use std::path::Path;

/// What a path names.
pub enum Target {
    /// An nnpackage: a directory holding `metadata/MANIFEST`, or a zip archive.
    Package,
    /// A file's bytes (mapped).
    File(Input),
    /// Something that is no model: why.
    NotModel(String),
}

/// Opens `path`; `Err` when it cannot be read at all.
pub fn target(path: &OsStr) -> Result<Target, Failure> {
    let p = Path::new(path);
    if p.is_dir() {
        return Ok(if p.join("metadata").join("MANIFEST").exists() {
            Target::Package
        } else {
            Target::NotModel("not a model file or nnpackage directory (no metadata/MANIFEST)".into())
        });
    }
    if crate::summary::package::is_package(path) {
        return Ok(Target::Package);
    }
    Input::open(path).map(Target::File)
}

/// Opens `path` for a command that reads one model file (`dump`, `extract`): its bytes, or
/// (inner `Err`) the outcome of reporting why it is none.
pub fn model_file(out: &mut Out, path: &OsStr, command: &str) -> Result<Result<Input, Outcome>, Failure> {
    let name = path.to_string_lossy();
    Ok(match target(path)? {
        Target::File(input) => Ok(input),
        Target::Package => {
            let reason = format!("an nnpackage holds several models: {command} one of its model files");
            Err(report_invalid(out, &name, &reason)?)
        }
        Target::NotModel(reason) => Err(report_invalid(out, &name, &reason)?),
    })
}

/// A structurally verified model of the TFLite family.
pub enum Graph<'a> {
    /// A TFLite model.
    Tflite(tflite::Model<'a>),
    /// A Circle model.
    Circle(circle::Model<'a>),
}

/// What a file's bytes are.
pub enum Kind<'a> {
    /// A structurally verified TFLite or Circle model.
    Graph(Graph<'a>),
    /// A format with a container of its own (cvimodel, `.pte`, Vulkan blob), and its commands.
    Container(Container),
    /// Not a model: why (an unknown format, or a TFLite or Circle file whose structure is
    /// broken).
    Invalid(String),
}

/// Recognises `bytes`, verifying the structure of TFLite and Circle models.
pub fn kind(bytes: &[u8]) -> Kind<'_> {
    let graph = match flatmodel::detect(bytes) {
        Some(Format::Tflite) => tflite::Model::parse_structure(bytes).map(Graph::Tflite),
        Some(Format::Circle) => circle::Model::parse_structure(bytes).map(Graph::Circle),
        _ => return container(bytes).map_or_else(|| Kind::Invalid(unknown_format(bytes)), Kind::Container),
    };
    graph.map_or_else(|e| Kind::Invalid(e.to_string()), Kind::Graph)
}

/// A format read outside the TFLite-family graph (a container of its own), with its command
/// bodies.
pub struct Container {
    /// `verify`: full verification; a short description or why the file is invalid.
    pub check: fn(&[u8]) -> Result<crate::commands::verify::Verdict, String>,
    /// `inspect`: prints the summary (text or JSON) of the file named `name`.
    pub inspect: fn(&mut Out, &str, &[u8], bool) -> Result<Outcome, Failure>,
    /// `dump`: the root table and its descriptor, or why the file is invalid.
    pub root: for<'a> fn(&'a [u8]) -> Result<Root<'a>, String>,
    /// `extract`: the bytes a `WHAT` names; the outer error is a usage error, the inner one
    /// says the file is invalid.
    pub extract: for<'a> fn(&str, &'a [u8], &str) -> Extracted<'a>,
}

/// A verified root table and its type's descriptor, for `dump`.
pub type Root<'a> = flatmodel::dump::Dumpable<'a>;

/// What `extract` gives: the bytes, or (inner error) why the file is invalid; the outer error
/// is a usage error.
pub type Extracted<'a> = Result<Result<Cow<'a, [u8]>, String>, Failure>;

/// The container format of `bytes`, if they are one (cvimodel, `.pte`, Vulkan blob).
pub fn container(bytes: &[u8]) -> Option<Container> {
    use crate::summary::{cvimodel, executorch};
    if cvimodel::reads(bytes) {
        return Some(Container {
            check: cvimodel::check,
            inspect: cvimodel::inspect,
            root: cvimodel::root,
            extract: cvimodel::extract,
        });
    }
    if executorch::reads(bytes) {
        return Some(Container {
            check: executorch::check,
            inspect: executorch::inspect,
            root: executorch::root,
            extract: executorch::extract,
        });
    }
    None
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
