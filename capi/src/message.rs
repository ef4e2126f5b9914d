//! Reports as text: `fm_report_message`, `fm_report_path`, `fm_format_name`.

use core::ffi::c_char;
use core::fmt::{self, Write};

use crate::raw::{self, BadArgument};
use crate::types::*;

/// Writes the report's message to `text`: "ok", the bad argument, or for `FM_INVALID` the
/// reason the command line prints (what went wrong, at which byte, and where in the schema:
/// `required field missing at byte 812 (Model.subgraphs[0].tensors[3].name)`).
///
/// Writes at most `cap` bytes, NUL-terminated whenever `cap > 0`, as `snprintf` does, cutting
/// only between characters (the text is UTF-8). Returns the message's full length, not counting
/// the NUL: the text was cut if that is `cap` or more. A NULL `report` has the empty message; a
/// NULL `text` is a `cap` of 0.
///
/// # Safety
///
/// `report` is NULL or points to an `fm_report` written by an `fm_` call (or a copy of one);
/// `text` is NULL or points to `cap` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn fm_report_message(report: *const fm_report, text: *mut c_char, cap: usize) -> usize {
    // SAFETY: the caller's promises, forwarded.
    let (report, buffer) = unsafe { (raw::read_report(report), raw::text_buffer(text, cap)) };
    let mut out = Truncating::new(buffer);
    let _ = match report {
        None => Ok(()),
        Some(r) => match (r.status, raw::unstash(r), BadArgument::from_tag(r.opaque_tag)) {
            (_, Some(error), _) => write!(out, "{error}"),
            (FM_BAD_ARGUMENT, _, Some(bad)) => out.write_str(bad.text()),
            (FM_OK, _, _) => out.write_str("ok"),
            _ => out.write_str("not a report an fm_ call wrote"),
        },
    };
    out.finish()
}

/// Writes the schema path of the report's error to `text` (`Model.subgraphs[0].tensors[3].name`,
/// `VH00.bytes_size`), as `fm_report_message` writes (same `cap`, NUL and return rules). The
/// empty string when the report holds no error.
///
/// # Safety
///
/// As for `fm_report_message`.
#[no_mangle]
pub unsafe extern "C" fn fm_report_path(report: *const fm_report, text: *mut c_char, cap: usize) -> usize {
    // SAFETY: the caller's promises, forwarded.
    let (report, buffer) = unsafe { (raw::read_report(report), raw::text_buffer(text, cap)) };
    let mut out = Truncating::new(buffer);
    if let Some(error) = report.and_then(raw::unstash) {
        let _ = write!(out, "{}", error.location());
    }
    out.finish()
}

/// The format's name, a static NUL-terminated string: "tflite", "circle", "vkgraph", "pte",
/// "cvimodel", "xnnpack", "ptd", "litertlm", or "unknown" for any other value.
#[no_mangle]
pub extern "C" fn fm_format_name(format: fm_format) -> *const c_char {
    match format {
        FM_FORMAT_TFLITE => c"tflite",
        FM_FORMAT_CIRCLE => c"circle",
        FM_FORMAT_VKGRAPH => c"vkgraph",
        FM_FORMAT_PTE => c"pte",
        FM_FORMAT_CVIMODEL => c"cvimodel",
        FM_FORMAT_XNNPACK => c"xnnpack",
        FM_FORMAT_PTD => c"ptd",
        FM_FORMAT_LITERTLM => c"litertlm",
        _ => c"unknown",
    }
    .as_ptr()
}

/// A `fmt::Write` into a fixed buffer, as `snprintf` fills one: it keeps what fits before the
/// NUL, whole characters only, and counts the length of everything written.
struct Truncating<'a> {
    buffer: &'a mut [u8],
    /// Bytes of text kept in `buffer`.
    kept: usize,
    /// Bytes of text written, kept or not.
    total: usize,
    /// Whether a character did not fit: nothing after it is kept either.
    full: bool,
}

impl<'a> Truncating<'a> {
    fn new(buffer: &'a mut [u8]) -> Self {
        Truncating { buffer, kept: 0, total: 0, full: false }
    }

    /// Terminates the kept text with a NUL (when the buffer has room for anything) and returns
    /// the full length.
    fn finish(self) -> usize {
        if let Some(nul) = self.buffer.get_mut(self.kept) {
            *nul = 0;
        }
        self.total
    }
}

impl Write for Truncating<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.total = self.total.saturating_add(s.len());
        // Room for text: the buffer less the NUL.
        let room = self.buffer.len().saturating_sub(1).saturating_sub(self.kept);
        let mut take = if self.full { 0 } else { s.len().min(room) };
        while !s.is_char_boundary(take) {
            take = take.saturating_sub(1);
        }
        if take < s.len() {
            self.full = true;
        }
        let end = self.kept.saturating_add(take);
        if let (Some(to), Some(from)) = (self.buffer.get_mut(self.kept..end), s.as_bytes().get(..take)) {
            to.copy_from_slice(from);
            self.kept = end;
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    extern crate std;
    use std::{vec, vec::Vec};

    fn fill(cap: usize, parts: &[&str]) -> (usize, Vec<u8>) {
        let mut buffer = vec![0xAAu8; cap];
        let mut out = Truncating::new(&mut buffer);
        for p in parts {
            out.write_str(p).unwrap();
        }
        (out.finish(), buffer)
    }

    #[test]
    fn keeps_what_fits_and_counts_all() {
        assert_eq!(fill(0, &["abc"]), (3, vec![]));
        assert_eq!(fill(1, &["abc"]), (3, vec![0]));
        assert_eq!(fill(3, &["a", "bc"]), (3, b"ab\0".to_vec()));
        assert_eq!(fill(5, &["a", "bc"]), (3, b"abc\0\xAA".to_vec()));
    }

    #[test]
    fn cuts_between_characters_only() {
        // "…" is three bytes: with room for two, none of it is kept, nor what follows.
        let (len, buffer) = fill(4, &["a", "…", "b"]);
        assert_eq!(len, 5);
        assert_eq!(&buffer[..2], b"a\0");
    }
}
