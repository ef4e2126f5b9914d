//! `flatmodel inspect FILE [--json] [--tensors] [--tflm-resolver]`: what a model holds, at a
//! glance (the summaries are [`crate::summary`]'s); with `--schema`, what any flatbuffer holds.

use crate::input::Access;
use crate::open;
use crate::output::Out;
use crate::report::{self, Source};
use crate::status::{Failure, Outcome};
use crate::summary::flatbuffer::FlatbufferSummary;
use crate::summary::Summary;
use flatmodel::reflect::{Schema, TableId};
use flatmodel::File;
use std::ffi::OsString;
use std::io::Write;
use std::path::Path;

/// Prints the summary of the model or package in `path`, as text or JSON, with every tensor
/// when asked.
pub fn run(out: &mut Out, path: &OsString, as_json: bool, tensors: bool, access: Access) -> Result<Outcome, Failure> {
    let name = path.to_string_lossy();
    open::reporting(out, &name, |out| {
        report::with_source(Source::Path(Path::new(path)), access, |held| {
            let summary = report::inspect_summary(held, tensors)?;
            if as_json {
                writeln!(out, "{}", report::document(&summary)?)?;
            } else {
                summary.print_text(out, &name)?;
            }
            Ok(Outcome::Ok)
        })
    })
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
    open::reporting(out, &name, |out| {
        let input = open::flatbuffer(path, access)?;
        let (_, stats) = open::verify_as(schema, root, input.bytes())?;
        let summary = FlatbufferSummary::of(schema, schema_path, root, input.bytes(), &stats);
        let summary = Summary::Flatbuffer(Box::new(summary));
        if as_json {
            summary.write_json(out)?;
        } else {
            summary.print_text(out, &name)?;
        }
        Ok(Outcome::Ok)
    })
}

/// Prints the TFLite Micro resolver lines for the TFLite model in `path`
/// (`inspect --tflm-resolver`).
pub fn tflm_resolver(out: &mut Out, path: &OsString, access: Access) -> Result<Outcome, Failure> {
    let name = path.to_string_lossy();
    open::reporting(out, &name, |out| {
        let input = open::model_file(path, "inspect --tflm-resolver", access)?;
        match open::file(input.bytes())? {
            File::Tflite(model) => {
                crate::commands::tflm_resolver::print(out, model)?;
                Ok(Outcome::Ok)
            }
            _ => Err(Failure::new(format!(
                "{name}: --tflm-resolver reads TFLite models (TFLite Micro runs no other format)"
            ))),
        }
    })
}
