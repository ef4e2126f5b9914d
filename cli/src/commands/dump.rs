//! `flatmodel dump FILE [metadata:NAME | section:N]`: the root table, or the flatbuffer nested
//! in a metadata entry or (a `.litertlm` file's TFLite model) in a section, as JSON, streamed
//! to standard output; with `--schema`, any flatbuffer as that schema reads it.
//!
//! The dump runs twice: a dry run that only counts, which refuses a dump disproportionate to
//! the file before anything is printed, then the real one straight to the output. Memory stays
//! bounded by the nesting depth whatever the output size.

use crate::input::Access;
use crate::open;
use crate::output::{Counter, FmtWriter, Out};
use crate::status::{Failure, Outcome};
use flatmodel::dump::{dump_table, DumpError, Dumpable};
use flatmodel::reflect::{Schema, TableId};
use flatmodel::verify::Options;
use flatmodel::{circle, File, Format};
use std::ffi::OsString;
use std::fmt;
use std::io::Write;

/// Writes the model in `path`, or with `what` the nested flatbuffer it names, as JSON to `out`;
/// a Circle model by the names of `revision`'s schema when given, else of the one its content
/// shows.
pub fn run(
    out: &mut Out,
    path: &OsString,
    what: Option<&str>,
    revision: Option<circle::Revision>,
    access: Access,
) -> Result<Outcome, Failure> {
    let name = path.to_string_lossy();
    open::reporting(out, &name, |out| {
        let input = open::model_file(path, "dump", access)?;
        let file = open::file(input.bytes());
        if revision.is_some() && (what.is_some() || file.as_ref().ok().map(File::format) != Some(Format::Circle)) {
            return Err(Failure::new(format!("{name}: --circle-revision applies to the model of a Circle file")));
        }
        let file = file?;
        let root = match what {
            Some(what) => nested(&name, file, what)?,
            None => whole(file, revision)?,
        };
        stream(out, &name, |mut w| dump_table(&mut w, root, &Options::DEFAULT))
    })
}

/// Writes the flatbuffer in `path`, verified as `schema`'s `root` table, as JSON to `out`
/// (`--schema`).
pub fn run_schema(
    out: &mut Out,
    path: &OsString,
    schema: &Schema,
    root: TableId,
    access: Access,
) -> Result<Outcome, Failure> {
    let name = path.to_string_lossy();
    open::reporting(out, &name, |out| {
        let input = open::flatbuffer(path, access)?;
        let (table, _) = open::verify_as(schema, root, input.bytes())?;
        stream(out, &name, |mut w| schema.dump(&mut w, table, &Options::DEFAULT))
    })
}

/// Runs `dump` twice: into a counter, refusing a dump disproportionate to the file (`name`,
/// [`Failure::Invalid`]) before anything is printed, then straight to `out`.
fn stream(
    out: &mut Out,
    name: &str,
    dump: impl Fn(&mut dyn fmt::Write) -> Result<(), DumpError>,
) -> Result<Outcome, Failure> {
    match dump(&mut Counter::default()) {
        Ok(()) => {}
        Err(e @ DumpError::TooLarge) => return Err(Failure::Invalid(e.to_string())),
        Err(e) => return Err(Failure::new(format!("{name}: {e}"))),
    }
    let mut writer = FmtWriter::new(out);
    let written = dump(&mut writer);
    if let Some(e) = writer.error.take() {
        return Err(e.into());
    }
    written.map_err(|e| Failure::new(format!("{name}: {e}")))?;
    out.flush()?;
    Ok(Outcome::Ok)
}

/// The file's root table (a Circle model's by `revision`'s names, when given), or why the
/// file cannot be dumped so ([`Failure::Invalid`]).
fn whole(file: File<'_>, revision: Option<circle::Revision>) -> Result<Dumpable<'_>, Failure> {
    match (file, revision) {
        (File::Circle(m), Some(revision)) => m.dump_root_as(revision),
        _ => file.dump_root(),
    }
    .map_err(|e| Failure::Invalid(e.to_string()))
}

/// The verified root of the flatbuffer `what` names in the model (`metadata:NAME`) or in the
/// LiteRT-LM file (`section:N`, a TFLite model) called `file_name`, why it is invalid
/// ([`Failure::Invalid`]), or a usage error.
fn nested<'a>(file_name: &str, file: File<'a>, what: &str) -> Result<Dumpable<'a>, Failure> {
    if let File::LitertLm(f) = file {
        return crate::commands::extract::litertlm::tflite_model(file_name, &f, what).map(Dumpable::new);
    }
    let Some(name) = what.strip_prefix("metadata:") else {
        return Err(Failure::new(format!(
            "dump takes FILE [metadata:NAME] (a .litertlm file: FILE [section:N]), not '{what}'"
        )));
    };
    match file {
        File::Tflite(m) if name == flatmodel::tflite_metadata::METADATA_NAME => {
            found(name, m.support_metadata().map(|v| v.map(Dumpable::new)))
        }
        File::Tflite(m) if name == flatmodel::conversion_metadata::METADATA_NAME => {
            found(name, m.conversion_metadata().map(|v| v.map(Dumpable::new)))
        }
        File::Circle(m) if name == flatmodel::circle_training::METADATA_NAME => {
            found(name, m.training().map(|v| v.map(Dumpable::new)))
        }
        _ => Err(Failure::new(format!(
            "metadata:{name} names no flatbuffer flatmodel reads in this file (TFLite models: metadata:{} or \
             metadata:{}; Circle models: metadata:{})",
            flatmodel::tflite_metadata::METADATA_NAME,
            flatmodel::conversion_metadata::METADATA_NAME,
            flatmodel::circle_training::METADATA_NAME
        ))),
    }
}

/// The verified root of a nested flatbuffer, why it is invalid ([`Failure::Invalid`]), or (a
/// usage error, as `extract` says it) that the model has no such entry.
fn found<'a>(name: &str, root: Option<Result<Dumpable<'a>, flatmodel::Error>>) -> Result<Dumpable<'a>, Failure> {
    match root {
        Some(verified) => verified.map_err(|e| Failure::Invalid(e.to_string())),
        None => Err(Failure::new(format!("the model has no metadata entry named '{name}'"))),
    }
}
