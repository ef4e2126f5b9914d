//! The verdict functions: `fm_verify`, one per format, `fm_check_runtime`, and
//! `fm_options_default`.
//!
//! The per-format functions are written out, not made by a macro: cbindgen reads this source as
//! it is (it does not expand macros on stable), and each needs its own doc comment in the header.
//! What they share is `run`.

use core::ffi::c_void;
use core::mem::MaybeUninit;

use flatmodel::verify::Options;
use flatmodel::Error;

use crate::raw::{self, BadArgument, Holds};
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
/// In a library built with every format (the default; a firmware library of one format exports
/// that format's function alone).
///
/// No call allocates, whatever the model's size: the model rules work in fixed-size sets on the
/// stack.
///
/// # Safety
///
/// `data` is NULL (with `len` 0) or points to `len` readable bytes that nothing writes until the
/// call returns; `options` is NULL or points to an `fm_options`; `report` is NULL or points to
/// an `fm_report` this call may write.
#[cfg(all(feature = "tflite", feature = "circle", feature = "pte", feature = "vkgraph", feature = "cvimodel"))]
#[no_mangle]
pub unsafe extern "C" fn fm_verify(
    data: *const c_void,
    len: usize,
    options: *const fm_options,
    report: *mut fm_report,
) -> fm_status {
    // SAFETY: the caller's promises, forwarded.
    unsafe {
        run(data, len, options, report, |bytes, options, error| {
            let format = flatmodel::detect(bytes).map_or(FM_FORMAT_UNKNOWN, format_number);
            (format, flatmodel::File::parse_into(bytes, options, error).is_some())
        })
    }
}

/// `fm_verify`, for a TFLite model only: the bytes are checked as TFLite whatever they hold.
/// A firmware that calls only this links only TFLite's verifier and rules.
///
/// # Safety
///
/// As for `fm_verify`.
#[cfg(feature = "tflite")]
#[no_mangle]
pub unsafe extern "C" fn fm_verify_tflite(
    data: *const c_void,
    len: usize,
    options: *const fm_options,
    report: *mut fm_report,
) -> fm_status {
    // SAFETY: the caller's promises, forwarded.
    unsafe {
        run(data, len, options, report, |bytes, options, error| {
            (FM_FORMAT_TFLITE, flatmodel::tflite::Model::parse_into(bytes, options, error).is_some())
        })
    }
}

/// `fm_verify`, for a Circle model only.
///
/// # Safety
///
/// As for `fm_verify`.
#[cfg(feature = "circle")]
#[no_mangle]
pub unsafe extern "C" fn fm_verify_circle(
    data: *const c_void,
    len: usize,
    options: *const fm_options,
    report: *mut fm_report,
) -> fm_status {
    // SAFETY: the caller's promises, forwarded.
    unsafe {
        run(data, len, options, report, |bytes, options, error| {
            (FM_FORMAT_CIRCLE, flatmodel::circle::Model::parse_into(bytes, options, error).is_some())
        })
    }
}

/// `fm_verify`, for an ExecuTorch program (`.pte`) only, its Vulkan delegate blobs included and,
/// in a library built with the `nested-xnnpack` feature (the host default), its XNNPACK ones.
///
/// # Safety
///
/// As for `fm_verify`.
#[cfg(feature = "pte")]
#[no_mangle]
pub unsafe extern "C" fn fm_verify_pte(
    data: *const c_void,
    len: usize,
    options: *const fm_options,
    report: *mut fm_report,
) -> fm_status {
    // SAFETY: the caller's promises, forwarded.
    unsafe {
        run(data, len, options, report, |bytes, options, error| {
            (FM_FORMAT_PTE, flatmodel::pte::PteFile::parse_into(bytes, options, error).is_some())
        })
    }
}

/// `fm_verify`, for a Vulkan delegate blob (`VH00` header) or a bare VkGraph (`VK00`) only.
///
/// # Safety
///
/// As for `fm_verify`.
#[cfg(feature = "vkgraph")]
#[no_mangle]
pub unsafe extern "C" fn fm_verify_vkgraph(
    data: *const c_void,
    len: usize,
    options: *const fm_options,
    report: *mut fm_report,
) -> fm_status {
    // SAFETY: the caller's promises, forwarded.
    unsafe {
        run(data, len, options, report, |bytes, options, error| {
            (FM_FORMAT_VKGRAPH, flatmodel::vkgraph::Blob::parse_into(bytes, options, error).is_some())
        })
    }
}

/// `fm_verify`, for an XNNPACK delegate blob (`XH00` header) or a bare XNNGraph (`XN01`) only:
/// its graph's rules and its inline constants' ranges (named constants live in a program's named
/// data or a `.ptd` file, which a blob alone cannot check).
///
/// # Safety
///
/// As for `fm_verify`.
#[cfg(feature = "xnnpack")]
#[no_mangle]
pub unsafe extern "C" fn fm_verify_xnnpack(
    data: *const c_void,
    len: usize,
    options: *const fm_options,
    report: *mut fm_report,
) -> fm_status {
    // SAFETY: the caller's promises, forwarded.
    unsafe {
        run(data, len, options, report, |bytes, options, error| {
            (FM_FORMAT_XNNPACK, flatmodel::xnnpack::Blob::parse_into(bytes, options, error).is_some())
        })
    }
}

/// `fm_verify`, for an ExecuTorch data file (`.ptd`) only: its header, segments, named data
/// and tensor layouts.
///
/// # Safety
///
/// As for `fm_verify`.
#[cfg(feature = "ptd")]
#[no_mangle]
pub unsafe extern "C" fn fm_verify_ptd(
    data: *const c_void,
    len: usize,
    options: *const fm_options,
    report: *mut fm_report,
) -> fm_status {
    // SAFETY: the caller's promises, forwarded.
    unsafe {
        run(data, len, options, report, |bytes, options, error| {
            (FM_FORMAT_PTD, flatmodel::ptd::PtdFile::parse_into(bytes, options, error).is_some())
        })
    }
}

/// `fm_verify`, for a LiteRT-LM file (`.litertlm`) only: its header, metadata, section ranges,
/// TFLite sections, protobuf sections and HF tokenizers' zlib streams (inflated with the
/// default `zlib` feature, through a 32 KiB window on the stack).
///
/// # Safety
///
/// As for `fm_verify`.
#[cfg(feature = "litertlm")]
#[no_mangle]
pub unsafe extern "C" fn fm_verify_litertlm(
    data: *const c_void,
    len: usize,
    options: *const fm_options,
    report: *mut fm_report,
) -> fm_status {
    // SAFETY: the caller's promises, forwarded.
    unsafe {
        run(data, len, options, report, |bytes, options, error| {
            (FM_FORMAT_LITERTLM, flatmodel::litertlm::LitertLmFile::parse_into(bytes, options, error).is_some())
        })
    }
}

/// `fm_verify`, for a Sophgo cvimodel only.
///
/// # Safety
///
/// As for `fm_verify`.
#[cfg(feature = "cvimodel")]
#[no_mangle]
pub unsafe extern "C" fn fm_verify_cvimodel(
    data: *const c_void,
    len: usize,
    options: *const fm_options,
    report: *mut fm_report,
) -> fm_status {
    // SAFETY: the caller's promises, forwarded.
    unsafe {
        run(data, len, options, report, |bytes, options, error| {
            (FM_FORMAT_CVIMODEL, flatmodel::cvimodel::CviModel::parse_into(bytes, options, error).is_some())
        })
    }
}

/// Verifies a TFLite model as `fm_verify_tflite` does, then the load checks of `runtime`
/// (`FM_RUNTIME_LITERT` or `FM_RUNTIME_TFLM`): what that runtime refuses while building its
/// interpreter or allocating tensors, as the command line's `verify --runtime`. Any other
/// `runtime` is `FM_BAD_ARGUMENT`. In a library built with the `runtime` feature (the default).
///
/// # Safety
///
/// As for `fm_verify`.
#[cfg(feature = "runtime")]
#[no_mangle]
pub unsafe extern "C" fn fm_check_runtime(
    data: *const c_void,
    len: usize,
    runtime: fm_runtime,
    options: *const fm_options,
    report: *mut fm_report,
) -> fm_status {
    let runtime = match runtime {
        FM_RUNTIME_LITERT => flatmodel::graph::Runtime::LiteRt,
        FM_RUNTIME_TFLM => flatmodel::graph::Runtime::Tflm,
        // SAFETY: the caller's promise on `report`, forwarded.
        _ => return unsafe { refuse(report, BadArgument::UnknownRuntime) },
    };
    // SAFETY: the caller's promises, forwarded.
    unsafe {
        run(data, len, options, report, |bytes, options, error| {
            let valid = match flatmodel::tflite::Model::parse_into(bytes, options, error) {
                None => false,
                Some(parsed) => parsed.value.check_runtime_with(runtime, options).map_err(|e| *error = e).is_ok(),
            };
            (FM_FORMAT_TFLITE, valid)
        })
    }
}

/// Reads the caller's arguments, runs `check` and writes its verdict to `report`. `check` gets
/// the bytes, the limits and the error to fill in place when it fails (the report's own, or a
/// local one for a NULL report), and says which format it checked the bytes as and whether they
/// are valid.
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
    check: impl FnOnce(&[u8], &Options, &mut Error) -> (fm_format, bool),
) -> fm_status {
    let mut converted = MaybeUninit::<Options>::uninit();
    // SAFETY: the caller's promises on `data`, `options` and `report`, forwarded.
    let arguments = unsafe { (raw::bytes(data, len), raw::options(options, &mut converted), raw::error_slot(report)) };
    let mut local = MaybeUninit::<Error>::uninit();
    let (bytes, options, error) = match arguments {
        (Ok(bytes), Ok(options), Ok(Some(slot))) => (bytes, options, slot),
        (Ok(bytes), Ok(options), Ok(None)) => (bytes, options, local.write(raw::blank_error())),
        // SAFETY: the caller's promise on `report`, forwarded.
        (Err(bad), _, _) | (_, Err(bad), _) | (_, _, Err(bad)) => return unsafe { refuse(report, bad) },
    };
    let (format, valid) = check(bytes, options, error);
    let (status, kind, offset, holds) = match valid {
        true => (FM_OK, FM_ERROR_NONE, 0, Holds::Nothing),
        false => (FM_INVALID, kind_number(error.kind()), error.offset(), Holds::Error),
    };
    // SAFETY: the caller's promise on `report`, forwarded; `error` is not used again.
    unsafe { raw::write_fields(report, status, format, kind, offset, holds) };
    status
}

/// Writes a report of `bad` (when `report` can hold one) and returns `FM_BAD_ARGUMENT`.
///
/// # Safety
///
/// `report` is NULL or points to an `fm_report` this call may write.
unsafe fn refuse(report: *mut fm_report, bad: BadArgument) -> fm_status {
    // SAFETY: the caller's promise on `report`, forwarded. A misaligned report stays unwritten.
    unsafe { raw::write_fields(report, FM_BAD_ARGUMENT, FM_FORMAT_UNKNOWN, FM_ERROR_NONE, 0, Holds::Refusal(bad)) };
    FM_BAD_ARGUMENT
}
