//! `flatmodel dump FILE`: the root table as JSON, streamed to standard output.
//!
//! The dump runs twice: a dry run that only counts, which refuses a dump disproportionate to
//! the file before anything is printed, then the real one straight to the output. Memory stays
//! bounded by the nesting depth whatever the output size.

use crate::open::{self, Graph, Kind, Root};
use crate::output::{Counter, FmtWriter, Out};
use crate::{Failure, Outcome};
use flatmodel::dump::{dump_table, DumpError, Dumpable};
use flatmodel::verify::Options;
use std::ffi::OsString;
use std::io::Write;

/// Writes the model in `path` as JSON to `out`.
pub fn run(out: &mut Out, path: &OsString) -> Result<Outcome, Failure> {
    let name = path.to_string_lossy();
    let input = match open::model_file(out, path, "dump")? {
        Ok(input) => input,
        Err(outcome) => return Ok(outcome),
    };
    let root: Result<Root<'_>, String> = match open::kind(input.bytes()) {
        Kind::Graph(Graph::Tflite(m)) => Ok(Dumpable::new(m)),
        Kind::Graph(Graph::Circle(m)) => Ok(Dumpable::new(m)),
        Kind::Container(container) => (container.root)(input.bytes()),
        Kind::Invalid(reason) => Err(reason),
    };
    let root = match root {
        Ok(root) => root,
        Err(reason) => return open::report_invalid(out, &name, &reason),
    };
    let options = Options::DEFAULT;
    match dump_table(&mut Counter::default(), root, &options) {
        Ok(()) => {}
        Err(e @ DumpError::TooLarge) => return open::report_invalid(out, &name, &e.to_string()),
        Err(e) => return Err(Failure::new(format!("{name}: {e}"))),
    }
    let mut writer = FmtWriter::new(out);
    let written = dump_table(&mut writer, root, &options);
    if let Some(e) = writer.error.take() {
        return Err(e.into());
    }
    written.map_err(|e| Failure::new(format!("{name}: {e}")))?;
    out.flush()?;
    Ok(Outcome::Ok)
}
