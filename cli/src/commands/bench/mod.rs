//! `flatmodel bench FILE...`: how long each stage of reading a model takes on this machine,
//! for each file (`docs/bench.md` §10): open, structure, rules, walk and dump, each timed alone
//! over the same bytes, as the fastest and the median of repeated runs; as text, or one JSON
//! document with `--json`. The exit status is `verify`'s: 1 when a file is invalid, 2 when one
//! cannot be read or is not a model file (2 wins).

mod cold;
mod measure;
mod text;
mod timing;

use crate::input::Access;
use crate::output::Out;
use crate::status::{Failure, Outcome};
use measure::FileBench;
use serde::Serialize;
use std::ffi::OsString;
use std::io::Write;

/// The most runs `--runs` takes.
pub const MAX_RUNS: u32 = 1_000_000;

/// The version of the layout `bench --json` writes, raised when a key changes meaning or goes
/// away, not when one is added.
const BENCH_FORMAT_VERSION: u32 = 1;

/// What the command line asked of `bench`.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// `--runs N`: exactly N timed runs per stage; `None` for as many as fill about 0.3 s per
    /// stage (5 to 10,000).
    pub runs: Option<u32>,
    /// `--cold`: the file's pages evicted from the page cache before each open.
    pub cold: bool,
    /// `--json`: one JSON document instead of text.
    pub json: bool,
    /// How files are opened (`--mmap`).
    pub access: Access,
}

/// The document `bench --json` prints.
#[derive(Serialize)]
struct Document<'a> {
    format_version: u32,
    /// `read` or `map`: how the open stage opened the files.
    access: &'static str,
    /// `--runs`, or `null` when the runs were chosen per stage.
    runs: Option<u32>,
    /// Whether `--cold` was given (each file's `cold` says what it did).
    cold: bool,
    files: &'a [FileBench],
}

/// Benches each file and prints the results: the worst outcome of them all.
pub fn run(out: &mut Out, files: &[OsString], settings: &Settings) -> Result<Outcome, Failure> {
    let access = match settings.access {
        Access::Read => "read",
        Access::Map => "map",
    };
    let mut worst = Outcome::Ok;
    let mut benches = Vec::new();
    for path in files {
        let bench = measure::file(path, settings);
        worst = worst.max(bench.verdict.outcome());
        if settings.json {
            benches.push(bench);
        } else {
            text::print(out, &bench, access)?;
            out.flush()?;
        }
    }
    if settings.json {
        let document = Document {
            format_version: BENCH_FORMAT_VERSION,
            access,
            runs: settings.runs,
            cold: settings.cold,
            files: &benches,
        };
        serde_json::to_writer_pretty(&mut *out, &document)?;
        writeln!(out)?;
    }
    Ok(worst)
}
