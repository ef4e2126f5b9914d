//! The `flatmodel` command line as a library: the reports it prints, for other front ends (the
//! Python package) that must say exactly what the command line says.
//!
//! - [`inspect_json`]: the document `flatmodel inspect --json [--tensors] FILE` prints.
//! - [`scan_json`]: the line `flatmodel scan FILE` prints for one file (`docs/scan.md`).
//!
//! Either reads a [`Source`]: a path, opened as the command line opens it (a snapshot read of
//! a model file, an nnpackage directory or zip), or bytes already in memory, verified in place.
//! Both fail only with a [`ReportError`]. [`Memory::read`] reads a file as the command line does.
//!
//! The modules form layers, each importing only from those below it (`cli/tests/cli/cli_layers.rs`):
//! this file names the public API; [`command_line`] parses the arguments of the binary
//! (`main.rs`, which only calls [`run_command_line`]); `commands` run one command each; they
//! and the public API make their reports through `report` (what `inspect --json` and `scan`
//! say of a source), which reads a path through `open` (the one way to open a package or a
//! file and verify it) and describes a file through `summary` (what `inspect` says, typed, as
//! text or JSON); below them the plumbing: `output`, `input`, `budget`, `suggest`, `help`,
//! `convert` (the number conversions `as` would make), and `status` (how a command ends: its
//! `Outcome`, or the `Failure` that stopped it).
#![deny(unsafe_code)]
// `as` only in `convert.rs`, where each conversion says what it does.
#![deny(clippy::as_conversions)]
#![warn(missing_debug_implementations, missing_docs)]

mod budget;
mod command_line;
mod commands;
mod convert;
mod help;
mod input;
mod open;
mod output;
mod report;
mod status;
mod suggest;
mod summary;

pub use crate::commands::verify::refusal as runtime_refusal;
pub use crate::input::Memory;
pub use crate::open::unknown_format;
pub use crate::report::{inspect_json, scan_json, ReportError, Source};

/// Runs the `flatmodel` command line over the process's arguments, printing to standard output
/// and standard error: the exit status (0, 1 or 2, as `flatmodel help` says). The binary is
/// this call.
#[doc(hidden)]
pub fn run_command_line() -> std::process::ExitCode {
    crate::command_line::main()
}
