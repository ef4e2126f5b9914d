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

use crate::types::{fm_options, fm_report, FM_REPORT_OPAQUE_WORDS};

/// `fm_report.opaque_tag` when `opaque` holds an [`Error`] written by [`stash`].
const ERROR_TAG: u32 = 0x464D_4552; // "FMER"

// The error fits in the report's opaque words, aligned: what `stash` and `unstash` rely on.
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

/// The limits `options` holds, or the defaults for NULL.
///
/// # Safety
///
/// Unless it is NULL, `options` points to a readable `fm_options`.
pub unsafe fn options(options: *const fm_options) -> Result<Options, BadArgument> {
    if options.is_null() {
        return Ok(Options::DEFAULT);
    }
    if !options.is_aligned() {
        return Err(BadArgument::MisalignedOptions);
    }
    // SAFETY: not NULL and aligned (checked above), and by the caller's promise readable as an
    // `fm_options`. Every bit pattern is a valid `fm_options` (integers only), so whatever the
    // caller wrote there is read without undefined behaviour.
    Ok(Options::from(unsafe { &*options }))
}

/// Writes `value` to `report`, unless it is NULL; refuses a misaligned one.
///
/// # Safety
///
/// Unless it is NULL, `report` points to an `fm_report` the caller lets this call write.
pub unsafe fn write_report(report: *mut fm_report, value: &fm_report) -> Result<(), BadArgument> {
    if report.is_null() {
        return Ok(());
    }
    if !report.is_aligned() {
        return Err(BadArgument::MisalignedReport);
    }
    // SAFETY: not NULL and aligned (checked above), and by the caller's promise writable as an
    // `fm_report`; `write` does not read (or drop) the previous contents, which may be
    // uninitialized.
    unsafe { report.write(*value) };
    Ok(())
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

/// The opaque words and tag of a report that holds `error`.
pub fn stash(error: &Error) -> ([MaybeUninit<u64>; FM_REPORT_OPAQUE_WORDS], u32) {
    // Words of any bytes: `Error` has padding, which a typed write leaves uninitialized.
    let mut words = [MaybeUninit::new(0u64); FM_REPORT_OPAQUE_WORDS];
    // SAFETY: `words` is at least `size_of::<Error>()` bytes and aligned at least as `Error`
    // requires (both asserted at compile time above), so it can hold one; `write` does not read
    // or drop what was there.
    unsafe { words.as_mut_ptr().cast::<Error>().write(*error) };
    (words, ERROR_TAG)
}

/// The error a report holds, if [`stash`] put one there.
///
/// Sound as long as a report tagged `ERROR_TAG` holds words `stash` wrote (or a copy of them),
/// which `flatmodel.h` asks of C code: a report is written by the library only. A report that C
/// code zeroed, left uninitialized by a call that never ran, or that a call refused with
/// `FM_BAD_ARGUMENT`, does not carry the tag.
pub fn unstash(report: &fm_report) -> Option<Error> {
    if report.opaque_tag != ERROR_TAG {
        return None;
    }
    // SAFETY: the tag says `stash` wrote an `Error` into these words, in a report C code only
    // copies; the words are large and aligned enough (asserted above); `Error` is `Copy`, so
    // reading it out leaves the report as it was.
    Some(unsafe { report.opaque.as_ptr().cast::<Error>().read() })
}
