//! Opening a model file: map it, recognise its format from the bytes, verify its structure.

use crate::input::Input;
use crate::{Failure, Outcome};
use flatmodel::{circle, tflite, Format};
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

/// Why `bytes` are not a model of a known format, in one line.
pub fn unknown_format(bytes: &[u8]) -> String {
    match bytes.get(4..8) {
        None => format!("not a model: {} bytes is too short for a file identifier", bytes.len()),
        Some(id) => format!(
            "not a model flatmodel reads: bytes 4..8 are {:?}, not a known file identifier (TFL3, CIR0)",
            String::from_utf8_lossy(id)
        ),
    }
}
