//! Standard output for every command: one buffered writer, passed down, whose errors (a closed
//! pipe above all) come back as values instead of the panics of `println!`.

use crate::convert::to_u64;
use std::io::{self, Write};

/// Buffered standard output.
pub type Out = io::BufWriter<io::StdoutLock<'static>>;

/// Standard output, buffered.
pub fn stdout() -> Out {
    io::BufWriter::with_capacity(64 * 1024, io::stdout().lock())
}

/// The version of the layout `inspect --json` writes (`cli/src/inspect.schema.json`):
/// raised when a key changes meaning or goes away, not when one is added.
pub const INSPECT_FORMAT_VERSION: u32 = 1;

/// Writes an `inspect --json` summary with its layout's version (`format_version`), then a
/// newline.
pub fn write_summary(out: &mut dyn Write, mut summary: serde_json::Value) -> Result<(), serde_json::Error> {
    if let Some(map) = summary.as_object_mut() {
        map.insert("format_version".into(), INSPECT_FORMAT_VERSION.into());
    }
    serde_json::to_writer_pretty(&mut *out, &summary)?;
    writeln!(out).map_err(serde_json::Error::io)
}

/// A [`std::fmt::Write`] over an [`io::Write`], for the library's `no_std` writers (the dump),
/// keeping the I/O error that `fmt::Error` cannot carry.
pub struct FmtWriter<'w, W: Write> {
    inner: &'w mut W,
    /// The first write error, if any.
    pub error: Option<io::Error>,
}

impl<'w, W: Write> FmtWriter<'w, W> {
    /// Writes through to `inner`.
    pub fn new(inner: &'w mut W) -> Self {
        FmtWriter { inner, error: None }
    }
}

/// The error kept, not the writer.
impl<W: Write> std::fmt::Debug for FmtWriter<'_, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FmtWriter").field("error", &self.error).finish_non_exhaustive()
    }
}

impl<W: Write> std::fmt::Write for FmtWriter<'_, W> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.inner.write_all(s.as_bytes()).map_err(|e| {
            self.error = Some(e);
            std::fmt::Error
        })
    }
}

/// A [`std::fmt::Write`] that only counts: a dry run that measures output without holding it.
#[derive(Debug, Default)]
pub struct Counter {
    /// Bytes written so far.
    pub bytes: u64,
}

impl std::fmt::Write for Counter {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.bytes = self.bytes.saturating_add(to_u64(s.len()));
        Ok(())
    }
}
