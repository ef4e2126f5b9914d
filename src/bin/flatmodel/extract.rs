//! `flatmodel extract FILE WHAT -o OUT`: write a buffer's (or metadata entry's) exact bytes.

use crate::input::Input;
use crate::{Failure, Outcome};
use flatmodel::{tflite, Format};
use std::ffi::OsString;

/// Writes the bytes `what` names in `path` to `out`.
pub fn run(path: &OsString, what: &str, out: &OsString) -> Result<Outcome, Failure> {
    let input = Input::open(path)?;
    let bytes = input.bytes();
    let name = path.to_string_lossy();
    let model = match flatmodel::detect(bytes) {
        Some(Format::Tflite) => match tflite::Model::parse_structure(bytes) {
            Ok(m) => m,
            Err(e) => {
                println!("{name}: invalid: {e}");
                return Ok(Outcome::Invalid);
            }
        },
        _ => {
            println!("{name}: invalid: {}", crate::verify::unknown_format(bytes));
            return Ok(Outcome::Invalid);
        }
    };
    let data = match what.split_once(':') {
        Some(("buffer", n)) => {
            let index: u32 = n.parse().map_err(|_| Failure(format!("'{what}': buffer index must be a number")))?;
            match model.buffer_data(index) {
                Ok(d) => d,
                Err(e) => return Err(Failure(format!("{name}: {what}: {e}"))),
            }
        }
        Some(("metadata", key)) => {
            model.metadata_bytes(key).ok_or_else(|| Failure(format!("{name}: no metadata entry named '{key}'")))?
        }
        _ => return Err(Failure(format!("'{what}': expected buffer:N or metadata:NAME"))),
    };
    std::fs::write(out, data).map_err(|e| Failure(format!("{}: {e}", out.to_string_lossy())))?;
    Ok(Outcome::Ok)
}
