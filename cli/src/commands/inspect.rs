//! `flatmodel inspect FILE [--json] [--tensors] [--tflm-resolver]`: what a model holds, at a
//! glance (the summaries are [`crate::summary`]'s); with `--schema`, what any flatbuffer holds.

use crate::input::Access;
use crate::open::{self, Opened};
use crate::output::Out;
use crate::summary::flatbuffer::FlatbufferSummary;
use crate::summary::Summary;
use crate::{Failure, Outcome};
use flatmodel::reflect::{Schema, TableId};
use flatmodel::File;
use std::ffi::OsString;

/// Prints the summary of the model or package in `path`, as text or JSON, with every tensor
/// when asked.
pub fn run(out: &mut Out, path: &OsString, as_json: bool, tensors: bool, access: Access) -> Result<Outcome, Failure> {
    let name = path.to_string_lossy();
    let summary = match open::open(path, access)? {
        Ok(Opened::Package(package)) => Ok(Summary::of_package(&package)),
        Ok(Opened::File(input)) => open::file(input.bytes()).and_then(|file| Summary::of_file(file, tensors)),
        Err(reason) => Err(reason),
    };
    match summary {
        Ok(summary) if as_json => summary.write_json(out)?,
        Ok(summary) => summary.print_text(out, &name)?,
        Err(reason) => return open::report_invalid(out, &name, &reason),
    }
    Ok(Outcome::Ok)
}

/// Prints the summary of the flatbuffer in `path` verified as `schema`'s (from `schema_path`)
/// `root` table, as text or JSON (`--schema`).
pub fn run_schema(
    out: &mut Out,
    path: &OsString,
    as_json: bool,
    schema: &Schema,
    schema_path: &str,
    root: TableId,
    access: Access,
) -> Result<Outcome, Failure> {
    let name = path.to_string_lossy();
    let input = match open::flatbuffer(path, access)? {
        Ok(input) => input,
        Err(reason) => return open::report_invalid(out, &name, &reason),
    };
    let stats = match open::verify_as(schema, root, input.bytes()) {
        Ok((_, stats)) => stats,
        Err(reason) => return open::report_invalid(out, &name, &reason),
    };
    let summary = FlatbufferSummary::of(schema, schema_path, root, input.bytes(), &stats);
    let summary = Summary::Flatbuffer(Box::new(summary));
    if as_json {
        summary.write_json(out)?;
    } else {
        summary.print_text(out, &name)?;
    }
    Ok(Outcome::Ok)
}

/// Prints the TFLite Micro resolver lines for the TFLite model in `path`
/// (`inspect --tflm-resolver`).
pub fn tflm_resolver(out: &mut Out, path: &OsString, access: Access) -> Result<Outcome, Failure> {
    let name = path.to_string_lossy();
    let input = match open::model_file(out, path, "inspect --tflm-resolver", access)? {
        Ok(input) => input,
        Err(outcome) => return Ok(outcome),
    };
    match open::file(input.bytes()) {
        Ok(File::Tflite(model)) => {
            crate::commands::tflm_resolver::print(out, model)?;
            Ok(Outcome::Ok)
        }
        Err(reason) => open::report_invalid(out, &name, &reason),
        Ok(_) => Err(Failure::new(format!(
            "{name}: --tflm-resolver reads TFLite models (TFLite Micro runs no other format)"
        ))),
    }
}
