//! Opening a model file: map it, recognise its format from the bytes, verify its structure.

use crate::input::Input;
use crate::{Failure, Outcome};
use flatmodel::{circle, tflite, Format};
use std::borrow::Cow;
use std::ffi::OsStr;

/// A structurally verified model of whichever format its bytes show.
pub enum Opened<'a> {
    /// A TFLite model.
    Tflite(tflite::Model<'a>),
    /// A Circle model.
    Circle(circle::Model<'a>),
}

/// Opens `path` and hands its model, with the file's name, to `f`. When the bytes are not a
/// structurally valid model, prints the one-line reason and returns [`Outcome::Invalid`].
pub fn with_model(
    path: &OsStr,
    f: impl FnOnce(&str, Opened<'_>) -> Result<Outcome, Failure>,
) -> Result<Outcome, Failure> {
    let input = Input::open(path)?;
    let name = path.to_string_lossy();
    match open(input.bytes()) {
        Ok(model) => f(&name, model),
        Err(reason) => {
            println!("{name}: invalid: {reason}");
            Ok(Outcome::Invalid)
        }
    }
}

/// The model in `bytes`, structurally verified, or why it is not one.
pub fn open(bytes: &[u8]) -> Result<Opened<'_>, String> {
    match flatmodel::detect(bytes) {
        Some(Format::Tflite) => tflite::Model::parse_structure(bytes).map(Opened::Tflite).map_err(|e| e.to_string()),
        Some(Format::Circle) => circle::Model::parse_structure(bytes).map(Opened::Circle).map_err(|e| e.to_string()),
        _ => Err(unknown_format(bytes)),
    }
}

/// A format read outside the TFLite-family graph (a container of its own), with its command
/// bodies.
pub struct Container {
    /// `inspect`: prints the summary (text or JSON) of the file named `name`.
    pub inspect: fn(&str, &[u8], bool) -> Result<Outcome, Failure>,
    /// `dump`: the root flatbuffer as JSON, or why the file is invalid.
    pub dump: fn(&[u8], &mut String) -> Result<(), String>,
    /// `extract`: the bytes a `WHAT` names; the outer error is a usage error, the inner one says
    /// the file is invalid.
    pub extract: for<'a> fn(&str, &'a [u8], &str) -> Extracted<'a>,
}

/// What `extract` gives: the bytes, or (inner error) why the file is invalid; the outer error
/// is a usage error.
pub type Extracted<'a> = Result<Result<Cow<'a, [u8]>, String>, Failure>;

/// The container format of `bytes`, if they are one (cvimodel, `.pte`, Vulkan blob).
pub fn container(bytes: &[u8]) -> Option<Container> {
    use crate::{cvimodel, executorch};
    if cvimodel::reads(bytes) {
        return Some(Container { inspect: cvimodel::inspect, dump: cvimodel::dump, extract: cvimodel::extract });
    }
    if executorch::reads(bytes) {
        return Some(Container { inspect: executorch::inspect, dump: executorch::dump, extract: executorch::extract });
    }
    None
}

/// Why `bytes` are not a model of a known format, in one line.
pub fn unknown_format(bytes: &[u8]) -> String {
    match bytes.get(4..8) {
        None => format!("not a model: {} bytes is too short for a file identifier", bytes.len()),
        Some(id) => format!(
            "not a model flatmodel reads: bytes 4..8 are {:?}, not a known file identifier (TFL3, CIR0) or magic (CviModel at byte 0)",
            String::from_utf8_lossy(id)
        ),
    }
}
