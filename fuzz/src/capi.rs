//! The `capi` target: flatmodel's C ABI (`flatmodel-capi`, `flatmodel.h`) called as C code
//! calls it: a pointer that need not be aligned and a length, an `fm_options` or NULL, an
//! `fm_report` on the caller's stack or NULL, then the report's message and path into buffers
//! of a few sizes, and a report copied as a struct. What C gets must be what Rust gets:
//!
//! - `fm_verify`'s status is `File::parse`'s verdict, its offset the error's, and the report's
//!   message and path are the error's text and path, cut as `snprintf` cuts;
//! - the same call with the default options passed, or with no report, gives the same status;
//! - the function of the format the bytes show (`fm_verify_tflite`, ...) agrees with
//!   `fm_verify`, and `fm_check_runtime` with `Model::check_runtime` on a TFLite model.
//!
//! The calls are the target's only `unsafe`: each passes pointers to live buffers of the
//! lengths it names, as the header's contract asks.

use core::ffi::{c_char, c_void};
use core::mem::MaybeUninit;

use flatmodel::{File, Format};
use flatmodel_c as c;

/// The ways C code calls `fm_verify` on the same bytes, and what they returned.
#[derive(Debug, PartialEq, Eq)]
pub struct Verdicts {
    /// `fm_verify` with a report and no options.
    pub status: c::fm_status,
    /// The report's message in full.
    pub message: String,
}

/// Calls the C ABI on `data` as C code does and checks it against the Rust library; panics
/// when they disagree.
pub fn capi(data: &[u8]) -> Verdicts {
    // C callers hand over whatever pointer they have: put the bytes at an odd address.
    let mut shifted = vec![0u8; data.len() + 1];
    shifted[1..].copy_from_slice(data);
    let bytes = &shifted[1..];
    let (ptr, len) = (bytes.as_ptr().cast::<c_void>(), bytes.len());

    let mut report = MaybeUninit::<c::fm_report>::zeroed();
    // SAFETY: `ptr` points to `len` readable bytes nothing writes during the call; NULL
    // options; `report` is a writable `fm_report`.
    let status = unsafe { c::fm_verify(ptr, len, core::ptr::null(), report.as_mut_ptr()) };
    // SAFETY: `fm_verify` wrote the whole report (every field is plain data, zeroed above).
    let report = unsafe { report.assume_init() };

    let rust = File::parse(data);
    match &rust {
        Ok(_) => assert_eq!((status, report.offset), (c::FM_OK, 0), "C and Rust: valid"),
        Err(e) => {
            assert_eq!(status, c::FM_INVALID, "C and Rust: invalid ({e})");
            assert_eq!(report.offset, e.offset(), "the report's offset is the error's");
        }
    }
    assert_eq!(report.status, status, "the report holds the status returned");

    let message = text(&report, c::fm_report_message);
    let path = text(&report, c::fm_report_path);
    match &rust {
        Ok(_) => assert_eq!((message.as_str(), path.as_str()), ("ok", "")),
        Err(e) => {
            assert_eq!(message, e.to_string(), "the report's message is the error's text");
            assert_eq!(path, e.location().to_string(), "the report's path is the error's");
        }
    }
    // A report copied as C copies a struct reads the same.
    let copy = report;
    assert_eq!(text(&copy, c::fm_report_message), message, "a copied report");

    let defaults = c::fm_options_default();
    // SAFETY: as above, with `defaults` a live `fm_options` and no report.
    let again = unsafe { c::fm_verify(ptr, len, &defaults, core::ptr::null_mut()) };
    assert_eq!(again, status, "the default options passed, and no report: the same status");

    // SAFETY: as above.
    let own = unsafe { own_format(flatmodel::detect(data), ptr, len) };
    if let Some(own) = own {
        assert_eq!(own, status, "the format's own function agrees with fm_verify");
    }
    if let Ok(File::Tflite(model)) = rust {
        for (runtime, number) in [
            (flatmodel::graph::Runtime::LiteRt, c::FM_RUNTIME_LITERT),
            (flatmodel::graph::Runtime::Tflm, c::FM_RUNTIME_TFLM),
        ] {
            // SAFETY: as above.
            let checked = unsafe { c::fm_check_runtime(ptr, len, number, core::ptr::null(), core::ptr::null_mut()) };
            let expected = if model.check_runtime(runtime).is_ok() { c::FM_OK } else { c::FM_INVALID };
            assert_eq!(checked, expected, "fm_check_runtime and check_runtime ({runtime})");
        }
    }
    Verdicts { status, message }
}

/// The status of the per-format function for `format`, or `None` when the bytes show none.
///
/// # Safety
///
/// `ptr` points to `len` readable bytes that nothing writes during the call.
unsafe fn own_format(format: Option<Format>, ptr: *const c_void, len: usize) -> Option<c::fm_status> {
    let function = match format? {
        Format::Tflite => c::fm_verify_tflite,
        Format::Circle => c::fm_verify_circle,
        Format::VkGraph => c::fm_verify_vkgraph,
        Format::Pte => c::fm_verify_pte,
        Format::Cvimodel => c::fm_verify_cvimodel,
        Format::Xnnpack => c::fm_verify_xnnpack,
        Format::Ptd => c::fm_verify_ptd,
        Format::LitertLm => c::fm_verify_litertlm,
        _ => return None,
    };
    // SAFETY: the caller's promise on `ptr` and `len`; NULL options and report.
    Some(unsafe { function(ptr, len, core::ptr::null(), core::ptr::null_mut()) })
}

/// A report's text read through `read` (`fm_report_message` or `fm_report_path`) as C reads
/// it: the length first (a NULL buffer), then into buffers of 1, 8 and the full length plus
/// one byte, each of which must hold a NUL-terminated prefix of the full text, cut between
/// characters.
fn text(report: &c::fm_report, read: unsafe extern "C" fn(*const c::fm_report, *mut c_char, usize) -> usize) -> String {
    // SAFETY: `report` is a report an `fm_` call wrote (or a copy); a NULL text with cap 0.
    let full = unsafe { read(report, core::ptr::null_mut(), 0) };
    let mut whole = String::new();
    for cap in [full + 1, 1, 8] {
        let mut buffer = vec![0x7fu8; cap];
        // SAFETY: `buffer` holds `cap` writable bytes.
        let length = unsafe { read(report, buffer.as_mut_ptr().cast::<c_char>(), cap) };
        assert_eq!(length, full, "the full length, whatever the buffer");
        let nul = buffer.iter().position(|&b| b == 0).expect("NUL-terminated");
        assert!(nul < cap && nul <= full, "the text fits the buffer with its NUL");
        let written = std::str::from_utf8(&buffer[..nul]).expect("cut between characters");
        if cap == full + 1 {
            assert_eq!(nul, full, "a buffer of the full length plus one holds the whole text");
            whole = written.to_owned();
        } else {
            assert!(whole.starts_with(written), "a cut text is a prefix of the whole");
        }
    }
    whole
}
