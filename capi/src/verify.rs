//! The verdict functions: `fm_verify`, one per format, `fm_check_runtime`, and
//! `fm_options_default`.

use core::ffi::c_void;
use core::mem::MaybeUninit;

use flatmodel::graph::Runtime;
use flatmodel::verify::Options;
use flatmodel::{circle, cvimodel, pte, tflite, vkgraph, Error, File};

use crate::raw::{self, BadArgument};
use crate::types::*;

/// The default limits: depth 64, 16 Mi table visits, 16 units of work per byte, no absolute
/// cap, alignment checked, cvimodel sections inflating to at most 1 GiB together.
#[no_mangle]
pub extern "C" fn fm_options_default() -> fm_options {
    fm_options::from(&Options::DEFAULT)
}

/// Verifies `len` bytes at `data` as whatever format they are (recognised from the bytes, never
/// a file name): the structure, then the format's rules, as the Rust library's `File::parse`.
///
/// `options` may be NULL for the default limits; `report` may be NULL. Returns `FM_OK`,
/// `FM_INVALID` (the report says why) or `FM_BAD_ARGUMENT` (a NULL `data` with a non-zero `len`,
/// a misaligned `options` or `report`; nothing was read).
///
/// # Safety
///
/// `data` is NULL (with `len` 0) or points to `len` readable bytes that nothing writes until the
/// call returns; `options` is NULL or points to an `fm_options`; `report` is NULL or points to
/// an `fm_report` this call may write.
#[no_mangle]
pub unsafe extern "C" fn fm_verify(
    data: *const c_void,
    len: usize,
    options: *const fm_options,
    report: *mut fm_report,
) -> fm_status {
    // SAFETY: the caller's promises, forwarded.
    unsafe {
        run(data, len, options, report, |bytes, options| {
            let format = flatmodel::detect(bytes).map_or(FM_FORMAT_UNKNOWN, format_number);
            (format, File::parse_with(bytes, options).map(drop))
        })
    }
}

/// `fm_verify`, for a TFLite model only: the bytes are checked as TFLite whatever they hold.
/// A firmware that calls only this links only TFLite's verifier and rules.
///
/// # Safety
///
/// As for `fm_verify`.
#[no_mangle]
pub unsafe extern "C" fn fm_verify_tflite(
    data: *const c_void,
    len: usize,
    options: *const fm_options,
    report: *mut fm_report,
) -> fm_status {
    // SAFETY: the caller's promises, forwarded.
    unsafe {
        run(data, len, options, report, |bytes, options| {
            (FM_FORMAT_TFLITE, tflite::Model::parse_with(bytes, options).map(drop))
        })
    }
}

/// `fm_verify`, for a Circle model only.
///
/// # Safety
///
/// As for `fm_verify`.
#[no_mangle]
pub unsafe extern "C" fn fm_verify_circle(
    data: *const c_void,
    len: usize,
    options: *const fm_options,
    report: *mut fm_report,
) -> fm_status {
    // SAFETY: the caller's promises, forwarded.
    unsafe {
        run(data, len, options, report, |bytes, options| {
            (FM_FORMAT_CIRCLE, circle::Model::parse_with(bytes, options).map(drop))
        })
    }
}

/// `fm_verify`, for an ExecuTorch program (`.pte`) only, its Vulkan delegate blobs included.
///
/// # Safety
///
/// As for `fm_verify`.
#[no_mangle]
pub unsafe extern "C" fn fm_verify_pte(
    data: *const c_void,
    len: usize,
    options: *const fm_options,
    report: *mut fm_report,
) -> fm_status {
    // SAFETY: the caller's promises, forwarded.
    unsafe {
        run(data, len, options, report, |bytes, options| {
            (FM_FORMAT_PTE, pte::PteFile::parse_with(bytes, options).map(drop))
        })
    }
}

/// `fm_verify`, for a Vulkan delegate blob (`VH00` header) or a bare VkGraph (`VK00`) only.
///
/// # Safety
///
/// As for `fm_verify`.
#[no_mangle]
pub unsafe extern "C" fn fm_verify_vkgraph(
    data: *const c_void,
    len: usize,
    options: *const fm_options,
    report: *mut fm_report,
) -> fm_status {
    // SAFETY: the caller's promises, forwarded.
    unsafe {
        run(data, len, options, report, |bytes, options| {
            (FM_FORMAT_VKGRAPH, vkgraph::Blob::parse_with(bytes, options).map(drop))
        })
    }
}

/// `fm_verify`, for a Sophgo cvimodel only.
///
/// # Safety
///
/// As for `fm_verify`.
#[no_mangle]
pub unsafe extern "C" fn fm_verify_cvimodel(
    data: *const c_void,
    len: usize,
    options: *const fm_options,
    report: *mut fm_report,
) -> fm_status {
    // SAFETY: the caller's promises, forwarded.
    unsafe {
        run(data, len, options, report, |bytes, options| {
            (FM_FORMAT_CVIMODEL, cvimodel::CviModel::parse_with(bytes, options).map(drop))
        })
    }
}

/// Verifies a TFLite model as `fm_verify_tflite` does, then the load checks of `runtime`
/// (`FM_RUNTIME_LITERT` or `FM_RUNTIME_TFLM`): what that runtime refuses while building its
/// interpreter or allocating tensors, as the command line's `verify --runtime`. Any other
/// `runtime` is `FM_BAD_ARGUMENT`.
///
/// # Safety
///
/// As for `fm_verify`.
#[no_mangle]
pub unsafe extern "C" fn fm_check_runtime(
    data: *const c_void,
    len: usize,
    runtime: fm_runtime,
    options: *const fm_options,
    report: *mut fm_report,
) -> fm_status {
    let runtime = match runtime {
        FM_RUNTIME_LITERT => Runtime::LiteRt,
        FM_RUNTIME_TFLM => Runtime::Tflm,
        // SAFETY: the caller's promise on `report`, forwarded.
        _ => return unsafe { refuse(report, BadArgument::UnknownRuntime) },
    };
    // SAFETY: the caller's promises, forwarded.
    unsafe {
        run(data, len, options, report, |bytes, options| {
            let verdict = tflite::Model::parse_with(bytes, options)
                .and_then(|parsed| parsed.value.check_runtime_with(runtime, options));
            (FM_FORMAT_TFLITE, verdict)
        })
    }
}

/// Reads the caller's arguments, runs `check` and writes its verdict to `report`.
///
/// # Safety
///
/// As for `fm_verify`.
#[inline(always)]
unsafe fn run(
    data: *const c_void,
    len: usize,
    options: *const fm_options,
    report: *mut fm_report,
    check: impl FnOnce(&[u8], &Options) -> (fm_format, Result<(), Error>),
) -> fm_status {
    // SAFETY: the caller's promises on `data` and `options`, forwarded.
    let arguments = unsafe { (raw::bytes(data, len), raw::options(options)) };
    let (bytes, options) = match arguments {
        (Ok(bytes), Ok(options)) => (bytes, options),
        // SAFETY: the caller's promise on `report`, forwarded.
        (Err(bad), _) | (_, Err(bad)) => return unsafe { refuse(report, bad) },
    };
    let (format, verdict) = check(bytes, &options);
    let mut value = fm_report {
        status: FM_OK,
        format,
        kind: FM_ERROR_NONE,
        opaque_tag: 0,
        offset: 0,
        opaque: [MaybeUninit::new(0); FM_REPORT_OPAQUE_WORDS],
    };
    if let Err(error) = verdict {
        (value.status, value.kind, value.offset) = (FM_INVALID, kind_number(error.kind()), error.offset());
        (value.opaque, value.opaque_tag) = raw::stash(&error);
    }
    // SAFETY: the caller's promise on `report`, forwarded.
    match unsafe { raw::write_report(report, &value) } {
        Ok(()) => value.status,
        Err(_) => FM_BAD_ARGUMENT,
    }
}

/// Writes a report of `bad` (when `report` can hold one) and returns `FM_BAD_ARGUMENT`.
///
/// # Safety
///
/// `report` is NULL or points to an `fm_report` this call may write.
unsafe fn refuse(report: *mut fm_report, bad: BadArgument) -> fm_status {
    let value = fm_report {
        status: FM_BAD_ARGUMENT,
        format: FM_FORMAT_UNKNOWN,
        kind: FM_ERROR_NONE,
        opaque_tag: bad as u32,
        offset: 0,
        opaque: [MaybeUninit::new(0); FM_REPORT_OPAQUE_WORDS],
    };
    // SAFETY: the caller's promise on `report`, forwarded. A misaligned report stays unwritten.
    let _ = unsafe { raw::write_report(report, &value) };
    FM_BAD_ARGUMENT
}
