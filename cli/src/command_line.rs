//! The command line: parses the arguments, runs one command (`commands`), and ends with the exit
//! status scanners and shells read.
//!
//! Exit codes: 0 success; 1 an input is not a valid model (or its summary or dump would be
//! disproportionate to it; for `scan`, a file has a finding); 2 usage or I/O error. Output to a
//! closed pipe ends a command quietly with the status it had so far (0 for `inspect`, `dump` and
//! `extract`).

use crate::commands::{bench, dump, extract, inspect, path, scan, verify};
use crate::output::{self, Out};
use crate::status::{Failure, Outcome};
use crate::{help, input, open, suggest};
use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

/// Runs the command the process's arguments name, printing to standard output: the exit status.
pub fn main() -> ExitCode {
    let mut out = output::stdout();
    let result = run(std::env::args_os().skip(1).collect(), &mut out);
    let result = result.and_then(|outcome| out.flush().map(|()| outcome).map_err(Failure::from));
    match result {
        Ok(outcome) => outcome.exit_code(),
        Err(Failure::OutputClosed) => ExitCode::SUCCESS,
        Err(Failure::Message(message)) => {
            let _ = out.flush();
            let _ = writeln!(std::io::stderr(), "flatmodel: {message}");
            ExitCode::from(2)
        }
        // Each command reports its invalid input by name; one no command reported still fails.
        Err(Failure::Invalid(reason)) => {
            let _ = out.flush();
            let _ = writeln!(std::io::stderr(), "flatmodel: invalid: {reason}");
            Outcome::Invalid.exit_code()
        }
    }
}

/// The parsed command line.
#[derive(Default)]
struct Args {
    positional: Vec<OsString>,
    json: bool,
    tensors: bool,
    tflm_resolver: bool,
    quiet: bool,
    runtime: Option<flatmodel::graph::Runtime>,
    data: Vec<OsString>,
    circle_revision: Option<flatmodel::circle::Revision>,
    help: bool,
    out: Option<OsString>,
    raw: bool,
    schema: Option<OsString>,
    root_type: Option<String>,
    access: input::Access,
    runs: Option<u32>,
    cold: bool,
}

/// The runtime `--runtime` names.
fn runtime(value: OsString) -> Result<flatmodel::graph::Runtime, Failure> {
    let key = value.to_string_lossy();
    flatmodel::graph::Runtime::from_key(&key).ok_or_else(|| {
        let keys: Vec<&str> = flatmodel::graph::Runtime::ALL.iter().map(|r| r.key()).collect();
        Failure::new(format!(
            "unknown runtime '{key}': --runtime takes {}\n{}",
            keys.join(" or "),
            help::usage_of("verify")
        ))
    })
}

/// The Circle schema revision `--circle-revision` names.
fn circle_revision(value: OsString) -> Result<flatmodel::circle::Revision, Failure> {
    match value.to_string_lossy().as_ref() {
        "0" => Ok(flatmodel::circle::Revision::Zero),
        "0.10" => Ok(flatmodel::circle::Revision::Later),
        other => Err(Failure::new(format!(
            "unknown Circle revision '{other}': --circle-revision takes 0 or 0.10\n{}",
            help::usage_of("dump")
        ))),
    }
}

/// The number of runs `--runs` names: 1 to [`bench::MAX_RUNS`].
fn runs(value: OsString) -> Result<u32, Failure> {
    let text = value.to_string_lossy();
    match text.parse::<u32>() {
        Ok(n) if (1..=bench::MAX_RUNS).contains(&n) => Ok(n),
        _ => Err(Failure::new(format!(
            "--runs takes a number of runs from 1 to {}, not '{text}'\n{}",
            bench::MAX_RUNS,
            help::usage_of("bench")
        ))),
    }
}

/// The long flags `command` takes (for suggesting one after a typo; `run` parses them).
fn flags_of(command: &str) -> &'static [&'static str] {
    match command {
        "verify" => &["--quiet", "--runtime", "--data", "--schema", "--root-type", "--mmap", "--help"],
        "inspect" => &["--json", "--tensors", "--tflm-resolver", "--schema", "--root-type", "--mmap", "--help"],
        "dump" => &["--circle-revision", "--schema", "--root-type", "--mmap", "--help"],
        "extract" => &["--output", "--raw", "--mmap", "--help"],
        "scan" => &["--mmap", "--help"],
        "bench" => &["--runs", "--cold", "--json", "--mmap", "--help"],
        _ => &["--help"],
    }
}

fn run(args: Vec<OsString>, out: &mut Out) -> Result<Outcome, Failure> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_args(args);
    let command = match parser.next()? {
        Some(Value(c)) => c.string()?,
        Some(Long("help") | Short('h')) => return help::print(out, None),
        Some(Long("version") | Short('V')) => {
            writeln!(out, "flatmodel {}", env!("CARGO_PKG_VERSION"))?;
            return Ok(Outcome::Ok);
        }
        Some(other) => return Err(Failure::new(format!("{}\n{}", other.unexpected(), help::USAGE))),
        None => return Err(Failure::new(format!("missing command\n{}", help::USAGE))),
    };
    let Some(command) = help::command(&command) else {
        let hint = suggest::hint(&command, help::commands());
        return Err(Failure::new(format!("unknown command '{command}'{hint}\n{}", help::USAGE)));
    };
    let mut a = Args::default();
    while let Some(arg) = parser.next()? {
        match arg {
            Long("json") if matches!(command, "inspect" | "bench") => a.json = true,
            Long("runs") if matches!(command, "bench") => a.runs = Some(runs(parser.value()?)?),
            Long("cold") if matches!(command, "bench") => a.cold = true,
            Long("tensors") if matches!(command, "inspect") => a.tensors = true,
            Long("tflm-resolver") if matches!(command, "inspect") => a.tflm_resolver = true,
            Short('q') | Long("quiet") if matches!(command, "verify") => a.quiet = true,
            Long("runtime") if matches!(command, "verify") => a.runtime = Some(runtime(parser.value()?)?),
            Long("data") if matches!(command, "verify") => a.data.push(parser.value()?),
            Long("circle-revision") if matches!(command, "dump") => {
                a.circle_revision = Some(circle_revision(parser.value()?)?)
            }
            Short('o') | Long("output") if matches!(command, "extract") => a.out = Some(parser.value()?),
            Long("raw") if matches!(command, "extract") => a.raw = true,
            Long("schema") if matches!(command, "verify" | "inspect" | "dump") => a.schema = Some(parser.value()?),
            Long("root-type") if matches!(command, "verify" | "inspect" | "dump") => {
                a.root_type = Some(parser.value()?.string()?)
            }
            Long("mmap") if matches!(command, "verify" | "inspect" | "scan" | "dump" | "extract" | "bench") => {
                a.access = input::Access::Map
            }
            Long("help") | Short('h') => a.help = true,
            Value(v) => a.positional.push(v),
            other => {
                let hint = match &other {
                    Long(flag) => suggest::hint(&format!("--{flag}"), flags_of(command).iter().copied()),
                    _ => String::new(),
                };
                return Err(Failure::new(format!("{}{hint}\n{}", other.unexpected(), help::usage_of(command))));
            }
        }
    }
    if a.help {
        return help::print(out, Some(command));
    }
    let one = |a: &Args| -> Result<OsString, Failure> {
        match a.positional.as_slice() {
            [file] => Ok(file.clone()),
            _ => Err(Failure::new(format!("{command} takes exactly one FILE\n{}", help::usage_of(command)))),
        }
    };
    if let Some(schema) = a.schema.take() {
        return with_schema(out, command, &a, &schema);
    }
    if a.root_type.is_some() {
        return Err(Failure::new(format!("--root-type names the root of a --schema\n{}", help::usage_of(command))));
    }
    match command {
        "help" => match a.positional.as_slice() {
            [] => help::print(out, None),
            [topic] => match help::command(&topic.to_string_lossy()) {
                Some(c) => help::print(out, Some(c)),
                None => Err(Failure::new(format!("no command '{}'\n{}", topic.to_string_lossy(), help::USAGE))),
            },
            _ => Err(Failure::new(help::usage_of("help"))),
        },
        "verify" if a.positional.is_empty() => {
            Err(Failure::new(format!("verify needs at least one FILE\n{}", help::usage_of(command))))
        }
        "verify" if !a.data.is_empty() && a.runtime.is_some() => Err(Failure::new(format!(
            "--runtime applies to TFLite models and --data to ExecuTorch programs: give one\n{}",
            help::usage_of(command)
        ))),
        "verify" if !a.data.is_empty() => verify::run_with_data(out, &a.positional, &a.data, a.quiet, a.access),
        "verify" => verify::run(out, &a.positional, a.quiet, a.runtime, a.access),
        "scan" if a.positional.is_empty() => {
            Err(Failure::new(format!("scan needs at least one FILE\n{}", help::usage_of(command))))
        }
        "scan" => scan::run(out, &a.positional, a.access),
        "bench" if a.positional.is_empty() => {
            Err(Failure::new(format!("bench needs at least one FILE\n{}", help::usage_of(command))))
        }
        "bench" => {
            let settings = bench::Settings { runs: a.runs, cold: a.cold, json: a.json, access: a.access };
            bench::run(out, &a.positional, &settings)
        }
        "inspect" if a.tflm_resolver => inspect::tflm_resolver(out, &one(&a)?, a.access),
        "inspect" => inspect::run(out, &one(&a)?, a.json, a.tensors, a.access),
        "dump" => match a.positional.as_slice() {
            [file] => dump::run(out, file, None, a.circle_revision, a.access),
            [file, what] => dump::run(out, file, Some(&what.to_string_lossy()), a.circle_revision, a.access),
            _ => Err(Failure::new(format!("dump takes FILE [metadata:NAME]\n{}", help::usage_of(command)))),
        },
        "path" => match a.positional.as_slice() {
            [format, text] => path::run(out, &format.to_string_lossy(), &text.to_string_lossy()),
            _ => Err(Failure::new(format!("path takes FORMAT TEXT\n{}", help::usage_of(command)))),
        },
        _ => match (a.positional.as_slice(), &a.out) {
            ([file, what], Some(to)) => extract::run(out, file, &what.to_string_lossy(), to, a.raw, a.access),
            _ => Err(Failure::new(format!("extract takes FILE WHAT -o OUT\n{}", help::usage_of(command)))),
        },
    }
}

/// `verify`, `dump` or `inspect` with `--schema`: the files read as flatbuffers of that schema.
fn with_schema(out: &mut Out, command: &str, a: &Args, schema_path: &OsString) -> Result<Outcome, Failure> {
    let other = [
        (a.runtime.is_some(), "--runtime"),
        (!a.data.is_empty(), "--data"),
        (a.circle_revision.is_some(), "--circle-revision"),
        (a.tensors, "--tensors"),
        (a.tflm_resolver, "--tflm-resolver"),
    ];
    if let Some((_, flag)) = other.iter().find(|(given, _)| *given) {
        return Err(Failure::new(format!(
            "{flag} reads the formats flatmodel knows, not a --schema's flatbuffers\n{}",
            help::usage_of(command)
        )));
    }
    let files = a.positional.as_slice();
    match (command, files) {
        ("verify", []) => {
            return Err(Failure::new(format!("verify needs at least one FILE\n{}", help::usage_of(command))))
        }
        ("verify", _) | (_, [_]) => {}
        _ => {
            return Err(Failure::new(format!("{command} --schema takes exactly one FILE\n{}", help::usage_of(command))))
        }
    }
    let (schema, root) = open::schema(schema_path, a.root_type.as_deref())?;
    match (command, files) {
        ("dump", [file]) => dump::run_schema(out, file, &schema, root, a.access),
        ("inspect", [file]) => {
            inspect::run_schema(out, file, a.json, &schema, &schema_path.to_string_lossy(), root, a.access)
        }
        _ => verify::run_schema(out, files, a.quiet, &schema, root, a.access),
    }
}
