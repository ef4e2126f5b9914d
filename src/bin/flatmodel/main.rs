//! `flatmodel`: verify, inspect, dump and extract model files.
//!
//! Exit codes: 0 success; 1 an input is not a valid model; 2 usage or I/O error.
#![deny(unsafe_code)]

mod cvimodel;
mod dump;
mod executorch;
mod extract;
mod input;
mod inspect;
mod open;
mod package;
mod verify;

use std::ffi::OsString;
use std::process::ExitCode;

const USAGE: &str = "\
usage:
  flatmodel verify FILE...            check files; exit 1 if any is invalid
  flatmodel inspect FILE [--json] [--tensors]
                                      summarise a model (and list every tensor)
  flatmodel dump FILE                 print the model as JSON (flatc's conventions)
  flatmodel extract FILE WHAT -o OUT  write bytes: WHAT is buffer:N or metadata:NAME (TFLite, Circle),
                                      delegate:N, segment:N or named:KEY (.pte), constant:N (VH00 blob),
                                      section:NAME (stored bytes), section-data:NAME (LZ4 inflated)
                                      or weight:NAME (cvimodel)

The format is detected from the bytes. Exit codes: 0 ok, 1 invalid model, 2 usage or I/O error.";

/// How a command ended.
pub enum Outcome {
    /// Everything asked for was done and every input was valid.
    Ok,
    /// Some input is not a valid model (already reported).
    Invalid,
}

/// A usage or I/O failure: exit 2 with this message.
pub struct Failure(pub String);

impl<E: std::fmt::Display> From<E> for Failure {
    fn from(e: E) -> Self {
        Failure(e.to_string())
    }
}

fn main() -> ExitCode {
    match run(std::env::args_os().skip(1).collect()) {
        Ok(Outcome::Ok) => ExitCode::SUCCESS,
        Ok(Outcome::Invalid) => ExitCode::from(1),
        Err(Failure(message)) => {
            eprintln!("flatmodel: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(args: Vec<OsString>) -> Result<Outcome, Failure> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_args(args);
    let command = match parser.next()? {
        Some(Value(c)) => c.string()?,
        Some(Long("help") | Short('h')) => {
            println!("{USAGE}");
            return Ok(Outcome::Ok);
        }
        Some(Long("version") | Short('V')) => {
            println!("flatmodel {}", env!("CARGO_PKG_VERSION"));
            return Ok(Outcome::Ok);
        }
        _ => return Err(Failure(format!("missing command\n{USAGE}"))),
    };
    let mut positional: Vec<OsString> = Vec::new();
    let mut json = false;
    let mut tensors = false;
    let mut quiet = false;
    let mut out: Option<OsString> = None;
    while let Some(arg) = parser.next()? {
        match arg {
            Long("json") => json = true,
            Long("tensors") => tensors = true,
            Short('q') | Long("quiet") => quiet = true,
            Short('o') | Long("output") => out = Some(parser.value()?),
            Long("help") | Short('h') => {
                println!("{USAGE}");
                return Ok(Outcome::Ok);
            }
            Value(v) => positional.push(v),
            other => return Err(Failure(other.unexpected().to_string())),
        }
    }
    let one = |what: &str| -> Result<OsString, Failure> {
        match positional.as_slice() {
            [file] => Ok(file.clone()),
            _ => Err(Failure(format!("{what} takes exactly one FILE\n{USAGE}"))),
        }
    };
    match command.as_str() {
        "verify" if !positional.is_empty() => verify::run(&positional, quiet),
        "verify" => Err(Failure(format!("verify needs at least one FILE\n{USAGE}"))),
        "inspect" => inspect::run(&one("inspect")?, json, tensors),
        "dump" => dump::run(&one("dump")?),
        "extract" => match (positional.as_slice(), out) {
            ([file, what], Some(out)) => extract::run(file, &what.to_string_lossy(), &out),
            _ => Err(Failure(format!("extract takes FILE WHAT -o OUT\n{USAGE}"))),
        },
        other => Err(Failure(format!("unknown command '{other}'\n{USAGE}"))),
    }
}
