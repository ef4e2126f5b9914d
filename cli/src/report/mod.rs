//! What the command line reports of one source, in one place for the commands and the public
//! API (`lib.rs`): the summary `inspect --json` prints ([`inspect_summary`], [`document`]) and
//! the line `scan` prints ([`scan::record`]), over a path opened as every command opens one or
//! bytes already in memory ([`Source`], [`with_source`]).

pub mod findings;
pub mod scan;

use crate::input::Access;
use crate::open::{self, Opened};
use crate::status::Failure;
use crate::summary::Summary;
use flatmodel::nnpackage::Package;
use flatmodel::File;
use std::path::Path;

/// Where a report reads its model from.
#[derive(Clone, Copy, Debug)]
pub enum Source<'a> {
    /// A path, opened exactly as the command line opens one: a model file read whole as one
    /// consistent snapshot, an nnpackage (a directory with `metadata/MANIFEST`, or a zip), or a
    /// model bundle (a zip archive without one).
    Path(&'a Path),
    /// A model file's or model bundle's bytes, already in memory: verified in place, never
    /// copied (a bundle's deflated members are inflated).
    Bytes(&'a [u8]),
}

/// Why a report could not be made.
#[derive(Clone, Debug)]
pub enum ReportError {
    /// The input could not be read (a missing file, a permission, an I/O error): the command
    /// line's exit status 2. The text is the message it prints on standard error (after
    /// `flatmodel: `).
    Unreadable(String),
    /// The input is not a valid model (the command line's exit status 1): only `inspect`
    /// fails so, as `scan` reports an invalid model in its line.
    Invalid {
        /// The reason the command line prints after `NAME: invalid: `.
        reason: String,
        /// The library's error, when the reason is one (its kind, byte offset and schema
        /// path); `None` for a reason of the command line's own (an invalid nnpackage, a model
        /// whose summary would be disproportionate to it).
        error: Option<flatmodel::Error>,
    },
}

/// The text the command line prints for it: the message, or the reason.
impl std::fmt::Display for ReportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReportError::Unreadable(message) => f.write_str(message),
            ReportError::Invalid { reason, .. } => f.write_str(reason),
        }
    }
}

impl std::error::Error for ReportError {}

impl ReportError {
    /// The invalid model `error` (of `bytes`) as the command line words it.
    fn invalid(bytes: &[u8], error: flatmodel::Error) -> ReportError {
        ReportError::Invalid { reason: open::reason(bytes, &error), error: Some(error) }
    }
}

impl From<Failure> for ReportError {
    fn from(f: Failure) -> Self {
        match f {
            Failure::Invalid(reason) => ReportError::Invalid { reason, error: None },
            Failure::Message(message) => ReportError::Unreadable(message),
            Failure::OutputClosed => ReportError::Unreadable("output closed".into()),
        }
    }
}

impl From<ReportError> for Failure {
    fn from(e: ReportError) -> Self {
        match e {
            ReportError::Unreadable(message) => Failure::Message(message),
            ReportError::Invalid { reason, .. } => Failure::Invalid(reason),
        }
    }
}

/// A source once opened: a checked package, or a model file's bytes (not yet verified).
#[derive(Clone, Copy, Debug)]
pub enum Held<'a> {
    /// A checked nnpackage.
    Package(&'a Package),
    /// A model file's bytes.
    File(&'a [u8]),
    /// A model bundle's bytes (a zip archive that is no nnpackage), not yet read.
    Bundle(&'a [u8]),
}

/// Runs `f` on `source` opened (a path read as `access` says): an invalid package or a path
/// that names no model is [`ReportError::Invalid`], one that cannot be read
/// [`ReportError::Unreadable`], before `f` runs.
pub fn with_source<T, E: From<ReportError>>(
    source: Source<'_>,
    access: Access,
    f: impl FnOnce(Held<'_>) -> Result<T, E>,
) -> Result<T, E> {
    match source {
        Source::Bytes(bytes) if flatmodel::bundle::is_bundle(bytes) => f(Held::Bundle(bytes)),
        Source::Bytes(bytes) => f(Held::File(bytes)),
        Source::Path(path) => match open::open(path.as_os_str(), access).map_err(ReportError::from)? {
            Opened::Package(package) => f(Held::Package(&package)),
            Opened::File(input) => f(Held::File(input.bytes())),
            Opened::Bundle(input) => f(Held::Bundle(input.bytes())),
        },
    }
}

/// What `inspect` says of `held`, every tensor listed when `tensors`, or why it is no valid
/// model.
pub fn inspect_summary(held: Held<'_>, tensors: bool) -> Result<Summary, ReportError> {
    match held {
        Held::Package(package) => Ok(Summary::of_package(package)),
        Held::Bundle(bytes) => Ok(Summary::of_bundle(&open::bundle(bytes)?, tensors)),
        Held::File(bytes) => {
            let file = File::parse_structure(bytes).map_err(|e| ReportError::invalid(bytes, e))?;
            Summary::of_file(file, tensors).map_err(|r| ReportError::Invalid { reason: r.to_string(), error: r.error })
        }
    }
}

/// The JSON document `inspect --json` prints for `summary`, pretty-printed, without the
/// newline the command line ends it with.
pub fn document(summary: &Summary) -> Result<String, Failure> {
    let mut bytes = Vec::new();
    summary.write_json(&mut bytes)?;
    if bytes.last() == Some(&b'\n') {
        bytes.pop();
    }
    String::from_utf8(bytes).map_err(|e| Failure::new(e.to_string()))
}

/// The document `flatmodel inspect --json [--tensors] FILE` prints, as a JSON string:
/// pretty-printed (two-space indents, one key per line), without the final newline the
/// command line prints after it. Its layout is `cli/src/inspect.schema.json`'s.
///
/// A `Path` is opened as the command line opens it; `Bytes` are verified in place. Fails with
/// [`ReportError::Unreadable`] when the path cannot be read, [`ReportError::Invalid`] when it
/// holds no valid model (with the reason the command line prints).
pub fn inspect_json(source: Source<'_>, tensors: bool) -> Result<String, ReportError> {
    with_source(source, Access::Read, |held| {
        let summary = inspect_summary(held, tensors)?;
        document(&summary).map_err(ReportError::from)
    })
}

/// The JSON object `flatmodel scan FILE` prints for one file, on one line (without its
/// newline): its verdict (`valid`, `invalid` or `unknown-format`), the error of an invalid
/// file, and the findings of a valid one, as `docs/scan.md` lists them. `path` is the path as
/// given (lossily UTF-8), or `null` for `Bytes`.
///
/// An invalid or unrecognised file is a verdict, not an error: this fails only with
/// [`ReportError::Unreadable`], when the path cannot be read.
pub fn scan_json(source: Source<'_>) -> Result<String, ReportError> {
    let name = match source {
        Source::Path(p) => Some(p.to_string_lossy().into_owned()),
        Source::Bytes(_) => None,
    };
    let record = scan::record(source, name, Access::Read)?;
    record.line().map_err(ReportError::from)
}
