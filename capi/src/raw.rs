//! Every `unsafe` operation of the C ABI, each with the proof it rests on: turning the caller's
//! pointers into references, and keeping the library's error inside an `fm_report`.
//!
//! What the C caller promises is stated on each `extern "C"` function (`# Safety`) and in
//! `flatmodel.h`: `data` points to `len` readable bytes that do not change during the call,
//! `options` and `report` are NULL or point to their type, `text` to `cap` writable bytes.
//! Everything else is checked here: NULL pointers, lengths past `isize::MAX`, misalignment.

use core::ffi::{c_char, c_void};
use core::mem::{align_of, size_of, MaybeUninit};

use flatmodel::verify::Options;
use flatmodel::Error;

use crate::types::{fm_error_kind, fm_format, fm_options, fm_report, fm_status, FM_REPORT_OPAQUE_WORDS};

/// `fm_report.opaque_tag` when `opaque` holds an [`Error`] placed by [`error_slot`].
const ERROR_TAG: u32 = 0x464D_4552; // "FMER"

// The error fits in the report's opaque words, aligned: what `error_slot` and `unstash` rely on.
const _: () = assert!(size_of::<Error>() <= size_of::<[u64; FM_REPORT_OPAQUE_WORDS]>());
const _: () = assert!(align_of::<Error>() <= align_of::<u64>());

/// A call the C ABI refuses before reading anything (`FM_BAD_ARGUMENT`); its number is kept in
/// `fm_report.opaque_tag` so that `fm_report_message` can say which.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum BadArgument {
    /// `data` is NULL and `len` is not 0.
    NullData = 1,
    /// `len` is larger than any object can be (`PTRDIFF_MAX`), or `data + len` wraps around.
    TooLong = 2,
    /// `options` is not aligned for `fm_options`.
    MisalignedOptions = 3,
    /// `report` is not aligned for `fm_report`.
    MisalignedReport = 4,
    /// `runtime` is none of the `FM_RUNTIME_` constants.
    UnknownRuntime = 5,
}

impl BadArgument {
    /// What the caller did wrong, as `fm_report_message` prints it.
    pub fn text(self) -> &'static str {
        match self {
            BadArgument::NullData => "bad argument: data is NULL and len is not 0",
            BadArgument::TooLong => "bad argument: len is larger than any object (PTRDIFF_MAX) or wraps around",
            BadArgument::MisalignedOptions => "bad argument: options is not aligned for fm_options",
            BadArgument::MisalignedReport => "bad argument: report is not aligned for fm_report",
            BadArgument::UnknownRuntime => "bad argument: runtime is not an FM_RUNTIME_ constant",
        }
    }

    /// The reason whose number is `tag`, if any.
    pub fn from_tag(tag: u32) -> Option<Self> {
        [Self::NullData, Self::TooLong, Self::MisalignedOptions, Self::MisalignedReport, Self::UnknownRuntime]
            .into_iter()
            .find(|b| *b as u32 == tag)
    }
}

/// The `len` bytes at `data`; an empty slice for a NULL `data` with `len` 0.
///
/// # Safety
///
/// Unless it is NULL, `data` points to `len` bytes that are readable and not written to for
/// `'a` (the duration of the C call).
pub unsafe fn bytes<'a>(data: *const c_void, len: usize) -> Result<&'a [u8], BadArgument> {
    if data.is_null() {
        return if len == 0 { Ok(&[]) } else { Err(BadArgument::NullData) };
    }
    let fits = isize::try_from(len).is_ok() && data.addr().checked_add(len).is_some();
    if !fits {
        return Err(BadArgument::TooLong);
    }
    // SAFETY: `data` is not NULL and, by the caller's promise, points to `len` readable bytes
    // that nothing writes during the call; `u8` has alignment 1; `len` is at most `isize::MAX`
    // and the range does not wrap (checked above), as `from_raw_parts` requires.
    Ok(unsafe { core::slice::from_raw_parts(data.cast::<u8>(), len) })
}

/// The limits `options` holds (converted into `storage`), or the defaults for NULL (a static,
/// not a copy: a copy of `Options::DEFAULT` is a `memcpy` on small targets).
///
/// # Safety
///
/// Unless it is NULL, `options` points to a readable `fm_options`.
pub unsafe fn options(options: *const fm_options, storage: &mut MaybeUninit<Options>) -> Result<&Options, BadArgument> {
    if options.is_null() {
        return Ok(&Options::DEFAULT);
    }
    if !options.is_aligned() {
        return Err(BadArgument::MisalignedOptions);
    }
    // SAFETY: not NULL and aligned (checked above), and by the caller's promise readable as an
    // `fm_options`. Every bit pattern is a valid `fm_options` (integers only), so whatever the
    // caller wrote there is read without undefined behaviour.
    Ok(storage.write(Options::from(unsafe { &*options })))
}

/// What a report's opaque words hold, as `fm_report.opaque_tag` records it.
#[derive(Clone, Copy, Debug)]
pub enum Holds {
    /// Nothing to print (the bytes were valid).
    Nothing,
    /// The error [`error_slot`] placed there, which the check filled in.
    Error,
    /// Nothing; the call refused this argument.
    Refusal(BadArgument),
}

/// The error of a call that writes `report`: a blank [`Error`] placed in the report's opaque
/// words, for the check to fill in place (`parse_into`), so that the error is built once, where
/// it stays, with no copy of it on the way (a copy of an `Error` is a `memcpy` on small
/// targets). `None` for a NULL report; refuses a misaligned one.
///
/// # Safety
///
/// Unless it is NULL, `report` points to an `fm_report` the caller lets this call write, and
/// which nothing else reads or writes until the call returns.
pub unsafe fn error_slot<'r>(report: *mut fm_report) -> Result<Option<&'r mut Error>, BadArgument> {
    if report.is_null() {
        return Ok(None);
    }
    if !report.is_aligned() {
        return Err(BadArgument::MisalignedReport);
    }
    // SAFETY: `report` is not NULL and aligned (checked above), so its field `opaque` is at an
    // 8-aligned address inside the report, without reading the report (which may be
    // uninitialized).
    let words = unsafe { core::ptr::addr_of_mut!((*report).opaque) }.cast::<Error>();
    // SAFETY: the words are at least `size_of::<Error>()` bytes and aligned at least as `Error`
    // requires (both asserted at compile time above), writable by the caller's promise, and
    // nothing else uses them during the call; `write` neither reads nor drops what was there,
    // and leaves a valid `Error`, which the `&mut` then borrows for the call.
    unsafe {
        words.write(blank_error());
        Ok(Some(&mut *words))
    }
}

/// A valid error to be overwritten: what [`error_slot`] places in a report.
pub fn blank_error() -> Error {
    static REPORT: &str = "report";
    Error::header(flatmodel::ErrorKind::Truncated, 0, &REPORT)
}

/// Writes the report's public fields and its tag, unless `report` is NULL or misaligned; the
/// opaque words are left as they are.
///
/// # Safety
///
/// Unless it is NULL, `report` points to an `fm_report` the caller lets this call write, and
/// no reference to its fields but the opaque words is live.
pub unsafe fn write_fields(
    report: *mut fm_report,
    status: fm_status,
    format: fm_format,
    kind: fm_error_kind,
    offset: u64,
    holds: Holds,
) {
    if report.is_null() || !report.is_aligned() {
        return;
    }
    let tag = match holds {
        Holds::Nothing => 0,
        Holds::Error => ERROR_TAG,
        Holds::Refusal(bad) => bad as u32,
    };
    // SAFETY: not NULL and aligned (checked above), writable by the caller's promise; each
    // write goes to one integer field through a place that reads nothing, and none of these
    // fields is borrowed (an error slot borrows only `opaque`).
    unsafe {
        core::ptr::addr_of_mut!((*report).status).write(status);
        core::ptr::addr_of_mut!((*report).format).write(format);
        core::ptr::addr_of_mut!((*report).kind).write(kind);
        core::ptr::addr_of_mut!((*report).opaque_tag).write(tag);
        core::ptr::addr_of_mut!((*report).offset).write(offset);
    }
}

/// The report `report` points to, or `None` for NULL or a misaligned pointer.
///
/// # Safety
///
/// Unless it is NULL, `report` points to a readable `fm_report`.
pub unsafe fn read_report<'a>(report: *const fm_report) -> Option<&'a fm_report> {
    if report.is_null() || !report.is_aligned() {
        return None;
    }
    // SAFETY: not NULL and aligned (checked above), readable by the caller's promise; every bit
    // pattern is a valid `fm_report` (integers only).
    Some(unsafe { &*report })
}

/// The `cap` writable bytes at `text`; empty for a NULL `text` or a `cap` of 0.
///
/// # Safety
///
/// Unless it is NULL, `text` points to `cap` bytes the caller lets this call write, which
/// nothing else reads or writes during it.
pub unsafe fn text_buffer<'a>(text: *mut c_char, cap: usize) -> &'a mut [u8] {
    let fits = isize::try_from(cap).is_ok() && text.addr().checked_add(cap).is_some();
    if text.is_null() || cap == 0 || !fits {
        return &mut [];
    }
    // SAFETY: not NULL, and by the caller's promise `cap` writable bytes used by nothing else
    // during the call; `u8` and `c_char` have the same size and alignment 1; `cap` is at most
    // `isize::MAX` and the range does not wrap (checked above).
    unsafe { core::slice::from_raw_parts_mut(text.cast::<u8>(), cap) }
}

/// The error a report holds, if [`error_slot`] placed one there and the check filled it.
///
/// Sound as long as a report tagged `ERROR_TAG` holds words `error_slot` wrote (or a copy of them),
/// which `flatmodel.h` asks of C code: a report is written by the library only. A report that C
/// code zeroed, left uninitialized by a call that never ran, or that a call refused with
/// `FM_BAD_ARGUMENT`, does not carry the tag.
pub fn unstash(report: &fm_report) -> Option<Error> {
    if report.opaque_tag != ERROR_TAG {
        return None;
    }
    // SAFETY: the tag says `error_slot` placed an `Error` in these words (which the check may have
    // overwritten with another whole `Error`), in a report C code only
    // copies; the words are large and aligned enough (asserted above); `Error` is `Copy`, so
    // reading it out leaves the report as it was.
    Some(unsafe { report.opaque.as_ptr().cast::<Error>().read() })
}
