//! How a command ends: its [`Outcome`] (what the exit status says), or the [`Failure`] that
//! stopped it early. Every layer returns these, so they sit at the bottom, beside the other
//! plumbing.

use std::process::ExitCode;

/// How a command ended, worst last: a batch ends with the worst outcome of its files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// Everything asked for was done and every input was valid.
    Ok,
    /// Some input is not a valid model (already reported).
    Invalid,
    /// Some input could not be read (already reported).
    Unreadable,
}

impl Outcome {
    /// The process's exit status for this outcome: 0, 1 or 2.
    pub fn exit_code(self) -> ExitCode {
        match self {
            Outcome::Ok => ExitCode::SUCCESS,
            Outcome::Invalid => ExitCode::from(1),
            Outcome::Unreadable => ExitCode::from(2),
        }
    }
}

/// Why a command stopped early.
#[derive(Debug)]
pub enum Failure {
    /// The input is not a valid model (or its summary or dump would be disproportionate to it):
    /// the command reports `NAME: invalid: REASON` on standard output (`open::reporting`), and
    /// its outcome is [`Outcome::Invalid`].
    Invalid(String),
    /// A usage or I/O error: exit 2 with this message on standard error.
    Message(String),
    /// Standard output was closed by its reader (`| head`): stop quietly.
    OutputClosed,
}

impl Failure {
    /// A usage or I/O error with `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Failure::Message(message.into())
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        match e.kind() {
            std::io::ErrorKind::BrokenPipe => Failure::OutputClosed,
            _ => Failure::Message(e.to_string()),
        }
    }
}

impl From<serde_json::Error> for Failure {
    fn from(e: serde_json::Error) -> Self {
        match e.io_error_kind() {
            Some(std::io::ErrorKind::BrokenPipe) => Failure::OutputClosed,
            _ => Failure::Message(e.to_string()),
        }
    }
}

impl From<lexopt::Error> for Failure {
    fn from(e: lexopt::Error) -> Self {
        Failure::Message(e.to_string())
    }
}
