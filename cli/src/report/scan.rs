//! The line `scan` prints for one file (`docs/scan.md`): its verdict, the located error of an
//! invalid file, and the findings of a valid one ([`super::findings`]).

use super::findings::{self, Finding, Findings};
use super::{with_source, Held, ReportError, Source};
use crate::input::Access;
use crate::open;
use crate::status::Failure;
use flatmodel::bundle::Bundle;
use flatmodel::nnpackage::Limits;
use flatmodel::{File, Format};
use serde::Serialize;

/// What `scan` says of one file: one JSON object, printed on one line.
#[derive(Debug, Serialize)]
pub struct Record {
    /// The path as given; `null` for bytes given in memory.
    path: Option<String>,
    /// `valid`, `invalid`, `unknown-format`, or (on the command line only) `unreadable`.
    verdict: Verdict,
    /// The format recognised: `tflite`, `circle`, `pte`, `vkgraph`, `cvimodel`, `nnpackage`,
    /// `bundle`, ...;
    /// `null` when none is.
    format: Option<&'static str>,
    /// Why the file is invalid, unrecognised or unreadable; `null` for a valid one.
    error: Option<Located>,
    /// What a scanner should know of a valid file, in a fixed order (empty for the others).
    findings: Vec<Finding>,
    /// How many findings there are: more than `findings` lists when past its limit.
    findings_count: u64,
}

/// A file's verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// A recognised format, verified completely (structure and rules).
    Valid,
    /// A recognised format that fails verification, or an invalid nnpackage.
    Invalid,
    /// Bytes of no format flatmodel reads.
    UnknownFormat,
    /// The file could not be read (printed by the command line; the library returns an error).
    Unreadable,
}

/// An error as `scan` locates it.
#[derive(Debug, Serialize)]
pub struct Located {
    /// The library's error kind (`OutOfBounds`, `Rule`, ...: `flatmodel::ErrorKind`'s variant
    /// name); `null` for an error of the command line's own.
    kind: Option<String>,
    /// The byte offset it was found at; `null` when it has none.
    offset: Option<u64>,
    /// Where in the schema (`Model.subgraphs[0].tensors[3].buffer`); `null` when it has none.
    path: Option<String>,
    /// The error as `verify` and `inspect` print it.
    message: String,
}

impl Located {
    /// The library's `error` of `bytes`, worded as every command words it.
    pub fn of(bytes: &[u8], error: &flatmodel::Error) -> Located {
        let location = error.location().to_string();
        Located {
            kind: Some(kind_name(error.kind())),
            offset: Some(error.offset()),
            path: (!location.is_empty()).then_some(location),
            message: open::reason(bytes, error),
        }
    }

    /// An error with only a message.
    pub fn message(message: String) -> Located {
        Located { kind: None, offset: None, path: None, message }
    }

    /// The error as `verify` and `inspect` print it.
    pub fn text(&self) -> &str {
        &self.message
    }
}

/// `kind`'s variant name: `Rule` for every rule, whatever its text.
fn kind_name(kind: flatmodel::ErrorKind) -> String {
    let debug = format!("{kind:?}");
    debug.split('(').next().unwrap_or_default().to_string()
}

/// The short name of `format` in a record ([`Format::short_name`]).
pub fn format_key(format: Format) -> &'static str {
    format.short_name()
}

impl Record {
    /// The record of a file `path` (its name) that cannot be read, for `message`.
    pub fn unreadable(path: Option<String>, message: String) -> Record {
        let error = Some(Located::message(message));
        Record { path, verdict: Verdict::Unreadable, format: None, error, findings: Vec::new(), findings_count: 0 }
    }

    /// Whether a scanner may pass the file: valid, without findings.
    pub fn is_clean(&self) -> bool {
        self.verdict == Verdict::Valid && self.findings_count == 0
    }

    /// The record as one line of JSON (without its newline).
    pub fn line(&self) -> Result<String, Failure> {
        Ok(serde_json::to_string(self)?)
    }

    fn new(path: Option<String>, verdict: Verdict, format: Option<&'static str>, error: Option<Located>) -> Record {
        Record { path, verdict, format, error, findings: Vec::new(), findings_count: 0 }
    }

    fn with(mut self, findings: Findings) -> Record {
        (self.findings, self.findings_count) = findings.into_parts();
        self
    }
}

/// The record of `source`, named `path` in it, a path read as `access` says; fails only when
/// it cannot be read.
pub fn record(source: Source<'_>, path: Option<String>, access: Access) -> Result<Record, ReportError> {
    let opened = with_source(source, access, |held| {
        Ok::<_, ReportError>(match held {
            Held::Package(package) => {
                let record = Record::new(path.clone(), Verdict::Valid, Some("nnpackage"), None);
                record.with(findings::of_package(package))
            }
            Held::File(bytes) => of_bytes(bytes, path.clone()),
            Held::Bundle(bytes) => of_bundle(bytes, path.clone()),
        })
    });
    match opened {
        Ok(record) => Ok(record),
        Err(ReportError::Invalid { reason, error }) => {
            // A path that is no model file: a directory without a manifest, an invalid package.
            let located = match error {
                Some(e) => Located { message: reason, ..Located::of(&[], &e) },
                None => Located::message(reason),
            };
            Ok(Record::new(path, Verdict::Invalid, None, Some(located)))
        }
        Err(unreadable) => Err(unreadable),
    }
}

/// The record of a model bundle's `bytes`: valid with its model members' findings, each naming
/// its member, or invalid with the error of the member at fault (located in that member, which
/// `error.message` names).
fn of_bundle(bytes: &[u8], path: Option<String>) -> Record {
    match Bundle::read(bytes, &Limits::DEFAULT) {
        Ok(bundle) => Record::new(path, Verdict::Valid, Some("bundle"), None).with(findings::of_bundle(&bundle)),
        Err(e) => {
            let located = match e.model() {
                Some(model) => Located { message: e.to_string(), ..Located::of(&[], model) },
                None => Located::message(e.to_string()),
            };
            Record::new(path, Verdict::Invalid, Some("bundle"), Some(located))
        }
    }
}

/// The record of a model file's `bytes`.
fn of_bytes(bytes: &[u8], path: Option<String>) -> Record {
    let Some(format) = flatmodel::detect(bytes) else {
        let error = Located::of(bytes, &flatmodel::Error::header(flatmodel::ErrorKind::UnknownFormat, 0, &"file"));
        return Record::new(path, Verdict::UnknownFormat, None, Some(Located { path: None, ..error }));
    };
    match File::parse(bytes) {
        Ok(file) => Record::new(path, Verdict::Valid, Some(format_key(format)), None).with(findings::of_file(file)),
        Err(e) => Record::new(path, Verdict::Invalid, Some(format_key(format)), Some(Located::of(bytes, &e))),
    }
}
