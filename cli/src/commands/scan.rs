//! `flatmodel scan FILE...`: one JSON line per file for upload scanners (`docs/scan.md`): its
//! verdict, the located error of an invalid file and the findings of a valid one. The exit
//! status is 0 when every file is valid without findings, 1 when any has a finding or is
//! invalid or of no known format, 2 when any cannot be read (2 wins).

use crate::input::Access;
use crate::output::Out;
use crate::report::scan::{self, Record};
use crate::report::{ReportError, Source};
use crate::status::{Failure, Outcome};
use std::ffi::OsString;
use std::io::Write;
use std::path::Path;

/// Prints the line of each file: the worst outcome of them all.
pub fn run(out: &mut Out, files: &[OsString], access: Access) -> Result<Outcome, Failure> {
    let mut worst = Outcome::Ok;
    for path in files {
        let name = path.to_string_lossy().into_owned();
        let (record, outcome) = match scan::record(Source::Path(Path::new(path)), Some(name.clone()), access) {
            Ok(record) if record.is_clean() => (record, Outcome::Ok),
            Ok(record) => (record, Outcome::Invalid),
            Err(ReportError::Unreadable(message)) => (Record::unreadable(Some(name), message), Outcome::Unreadable),
            Err(invalid) => return Err(invalid.into()),
        };
        writeln!(out, "{}", record.line()?)?;
        worst = worst.max(outcome);
    }
    Ok(worst)
}
