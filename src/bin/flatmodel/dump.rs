//! `flatmodel dump FILE`: the root table as JSON.

use crate::open::{with_model, Opened};
use crate::{Failure, Outcome};
use flatmodel::schema::TableType;
use flatmodel::verify::Options;
use flatmodel::{circle, dump, tflite};
use std::ffi::OsString;
use std::io::Write;

/// Writes the model in `path` as JSON to standard output.
pub fn run(path: &OsString) -> Result<Outcome, Failure> {
    {
        let input = crate::input::Input::open(path)?;
        if let Some(container) = crate::open::container(input.bytes()) {
            let mut text = String::new();
            if let Err(reason) = (container.dump)(input.bytes(), &mut text) {
                println!("{}: invalid: {reason}", path.to_string_lossy());
                return Ok(Outcome::Invalid);
            }
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())?;
            out.flush()?;
            return Ok(Outcome::Ok);
        }
    }
    with_model(path, |name, model| {
        let (table, desc) = match model {
            Opened::Tflite(m) => (m.raw(), tflite::Model::desc()),
            Opened::Circle(m) => (m.raw(), circle::Model::desc()),
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
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes())?;
        out.flush()?;
        Ok(Outcome::Ok)
    })
}
