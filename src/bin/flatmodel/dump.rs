//! `flatmodel dump FILE`: the root table as JSON.

use crate::input::Input;
use crate::{Failure, Outcome};
use flatmodel::schema::TableType;
use flatmodel::verify::Options;
use flatmodel::{dump, tflite, Format};
use std::ffi::OsString;
use std::io::Write;

/// Writes the model in `path` as JSON to standard output.
pub fn run(path: &OsString) -> Result<Outcome, Failure> {
    let input = Input::open(path)?;
    let bytes = input.bytes();
    let name = path.to_string_lossy();
    let (table, desc) = match flatmodel::detect(bytes) {
        Some(Format::Tflite) => match tflite::Model::parse_structure(bytes) {
            Ok(m) => (m.raw(), tflite::Model::desc()),
            Err(e) => return invalid(&name, &e),
        },
        _ => {
            println!("{name}: invalid: {}", crate::verify::unknown_format(bytes));
            return Ok(Outcome::Invalid);
        }
    };
    let mut text = String::new();
    match dump::dump_table(&mut text, table, desc, &Options::DEFAULT) {
        Ok(()) => {}
        Err(e @ dump::DumpError::TooLarge) => {
            println!("{name}: invalid: {e}");
            return Ok(Outcome::Invalid);
        }
        Err(e) => return Err(Failure(format!("{name}: {e}"))),
    }
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    lock.write_all(text.as_bytes())?;
    lock.flush()?;
    Ok(Outcome::Ok)
}

fn invalid(name: &str, e: &flatmodel::Error) -> Result<Outcome, Failure> {
    println!("{name}: invalid: {e}");
    Ok(Outcome::Invalid)
}
