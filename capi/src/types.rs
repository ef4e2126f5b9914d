//! The types and constants of `flatmodel.h`, and their conversions from the library's.
//!
//! The enumerations are plain integers with named constants, never Rust enums: a value that C
//! code passes or stores is read as a number, so no bit pattern it writes can be undefined
//! behaviour on this side.

use core::mem::MaybeUninit;

use flatmodel::verify::Options;
use flatmodel::{ErrorKind, Format};

/// What an `fm_` call concluded: `FM_OK`, `FM_INVALID` or `FM_BAD_ARGUMENT`.
pub type fm_status = i32;
/// The bytes are valid: structure and rules hold.
pub const FM_OK: fm_status = 0;
/// The bytes are not valid; the report says why, where and at which byte.
pub const FM_INVALID: fm_status = 1;
/// The call itself was wrong (a NULL `data` with a non-zero length, misaligned options, an
/// unknown runtime); nothing was read.
pub const FM_BAD_ARGUMENT: fm_status = 2;

/// A format: one of the `FM_FORMAT_` constants.
pub type fm_format = i32;
/// No format flatmodel reads was recognised.
pub const FM_FORMAT_UNKNOWN: fm_format = 0;
/// TFLite (identifier `TFL3`).
pub const FM_FORMAT_TFLITE: fm_format = 1;
/// Circle (identifier `CIR0`).
pub const FM_FORMAT_CIRCLE: fm_format = 2;
/// A Vulkan delegate blob (`VH00` header) or a bare VkGraph (`VK00`).
pub const FM_FORMAT_VKGRAPH: fm_format = 3;
/// An ExecuTorch program, `.pte` (identifier `ET12`).
pub const FM_FORMAT_PTE: fm_format = 4;
/// A Sophgo cvimodel.
pub const FM_FORMAT_CVIMODEL: fm_format = 5;
/// An XNNPACK delegate blob (`XH00` header) or a bare XNNGraph (`XN01`), recognised and verified
/// by `fm_verify`.
pub const FM_FORMAT_XNNPACK: fm_format = 6;
/// An ExecuTorch data file, `.ptd` (identifier `FT01`), recognised and verified by `fm_verify`.
pub const FM_FORMAT_PTD: fm_format = 7;
/// A LiteRT-LM file, `.litertlm` (magic `LITERTLM`), recognised and verified by `fm_verify`.
pub const FM_FORMAT_LITERTLM: fm_format = 8;

/// Why bytes were rejected: one of the `FM_ERROR_` constants.
pub type fm_error_kind = i32;
/// No error (the status is `FM_OK`, or `FM_BAD_ARGUMENT`).
pub const FM_ERROR_NONE: fm_error_kind = 0;
/// The input ends before a structure it must hold.
pub const FM_ERROR_TRUNCATED: fm_error_kind = 1;
/// An offset or a length points outside the input.
pub const FM_ERROR_OUT_OF_BOUNDS: fm_error_kind = 2;
/// A value is not aligned as the format requires.
pub const FM_ERROR_MISALIGNED: fm_error_kind = 3;
/// A vtable's own size is odd, too small or past the end of the input.
pub const FM_ERROR_BAD_VTABLE: fm_error_kind = 4;
/// A field's bytes reach past the inline size its vtable gives the table.
pub const FM_ERROR_FIELD_OUTSIDE_TABLE: fm_error_kind = 5;
/// A string has no NUL terminator.
pub const FM_ERROR_UNTERMINATED_STRING: fm_error_kind = 6;
/// A string is not UTF-8.
pub const FM_ERROR_INVALID_UTF8: fm_error_kind = 7;
/// A field the schema marks `required` is absent.
pub const FM_ERROR_MISSING_REQUIRED: fm_error_kind = 8;
/// A union's type and value disagree.
pub const FM_ERROR_UNION_MISMATCH: fm_error_kind = 9;
/// The file identifier is not the one the format requires.
pub const FM_ERROR_WRONG_IDENTIFIER: fm_error_kind = 10;
/// Nesting is deeper than `fm_options.max_depth`.
pub const FM_ERROR_DEPTH_LIMIT: fm_error_kind = 11;
/// More tables than `fm_options.max_tables`.
pub const FM_ERROR_TABLE_LIMIT: fm_error_kind = 12;
/// Verification work passed the apparent-size budget of `fm_options`.
pub const FM_ERROR_APPARENT_SIZE_LIMIT: fm_error_kind = 13;
/// Compressed data claims to inflate to more than `fm_options.max_inflated_size`.
pub const FM_ERROR_INFLATED_SIZE_LIMIT: fm_error_kind = 14;
/// The bytes are not any format flatmodel reads.
pub const FM_ERROR_UNKNOWN_FORMAT: fm_error_kind = 15;
/// A container header field is invalid.
pub const FM_ERROR_BAD_HEADER: fm_error_kind = 16;
/// An index refers to an element that does not exist.
pub const FM_ERROR_INDEX_OUT_OF_RANGE: fm_error_kind = 17;
/// A rule of the format (or of the runtime checked for) is broken; the message names it.
pub const FM_ERROR_RULE: fm_error_kind = 18;
/// Something asked for by name or number does not exist.
pub const FM_ERROR_NOT_FOUND: fm_error_kind = 19;
/// A kind newer than this header; the message describes it.
pub const FM_ERROR_OTHER: fm_error_kind = 255;

/// A runtime whose own load checks `fm_check_runtime` applies: one of the `FM_RUNTIME_` constants.
pub type fm_runtime = i32;
/// Google's LiteRT (formerly TensorFlow Lite) interpreter.
pub const FM_RUNTIME_LITERT: fm_runtime = 1;
/// TensorFlow Lite for Microcontrollers, with its full operator resolver's builtin kernels.
pub const FM_RUNTIME_TFLM: fm_runtime = 2;

/// Limits on one verification; `fm_options_default()` gives the defaults. Every limit turns a
/// pathological input into `FM_INVALID`, never into unbounded time or stack.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct fm_options {
    /// Most table visits in one verification (default 16 Mi).
    pub max_tables: u64,
    /// An absolute cap on the verification's work, on top of the per-byte budget (default: none,
    /// `UINT64_MAX`).
    pub max_apparent_size: u64,
    /// cvimodel: the most bytes its LZ4 sections may claim to inflate to together (default 1 GiB).
    pub max_inflated_size: u64,
    /// Deepest nesting of tables, nested flatbuffers included (default 64).
    pub max_depth: u32,
    /// Units of work allowed per input byte, plus 4096 (default 16): what keeps the work linear
    /// in the input's size whatever the input.
    pub apparent_size_per_byte: u32,
    /// Non-zero: data must be aligned as writers align it (default 1).
    pub check_alignment: u8,
    /// Zero.
    pub reserved: [u8; 7],
}

impl From<&Options> for fm_options {
    fn from(o: &Options) -> Self {
        fm_options {
            max_tables: o.max_tables,
            max_apparent_size: o.max_apparent_size,
            max_inflated_size: o.max_inflated_size,
            max_depth: o.max_depth,
            apparent_size_per_byte: o.apparent_size_per_byte,
            check_alignment: u8::from(o.check_alignment),
            reserved: [0; 7],
        }
    }
}

impl From<&fm_options> for Options {
    fn from(o: &fm_options) -> Self {
        Options {
            max_depth: o.max_depth,
            max_tables: o.max_tables,
            apparent_size_per_byte: o.apparent_size_per_byte,
            max_apparent_size: o.max_apparent_size,
            check_alignment: o.check_alignment != 0,
            max_inflated_size: o.max_inflated_size,
        }
    }
}

/// Room for the library's error inside `fm_report`: larger than it is on any target (144 bytes
/// on 64-bit ones), aligned to 8. `src/raw.rs` asserts both at compile time.
pub const FM_REPORT_OPAQUE_WORDS: usize = 20;

/// What an `fm_` call found. `format`, `kind` and `offset` are for C code to read; the rest is
/// the library's error, which `fm_report_message` and `fm_report_path` print. A report may be
/// copied (by assignment or `memcpy`) and read later from any thread; it holds no pointer into
/// the verified bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct fm_report {
    /// The call's status (as returned).
    pub status: fm_status,
    /// The format the bytes were checked as: recognised from the bytes by `fm_verify` (or
    /// `FM_FORMAT_UNKNOWN`), the function's own by `fm_verify_tflite` and the others.
    pub format: fm_format,
    /// Why the bytes were rejected, `FM_ERROR_NONE` when they were not.
    pub kind: fm_error_kind,
    /// Private: whether `opaque` holds an error, or which bad argument (set by the library only).
    pub opaque_tag: u32,
    /// The byte, counted from the start of `data`, where the fault was found (0 when none). For
    /// an offset or length that points outside the input, the byte it points to, which may lie
    /// past `len`.
    pub offset: u64,
    /// Private: the library's error. Not to be read or written by C code.
    // `MaybeUninit`: the error's padding bytes are not initialized, so to Rust these are words
    // that may hold any bytes (C sees `uint64_t`).
    pub opaque: [MaybeUninit<u64>; FM_REPORT_OPAQUE_WORDS],
}

/// The `fm_format` of a library [`Format`].
pub fn format_number(format: Format) -> fm_format {
    match format {
        Format::Tflite => FM_FORMAT_TFLITE,
        Format::Circle => FM_FORMAT_CIRCLE,
        Format::VkGraph => FM_FORMAT_VKGRAPH,
        Format::Pte => FM_FORMAT_PTE,
        Format::Cvimodel => FM_FORMAT_CVIMODEL,
        Format::Xnnpack => FM_FORMAT_XNNPACK,
        Format::Ptd => FM_FORMAT_PTD,
        Format::LitertLm => FM_FORMAT_LITERTLM,
        _ => FM_FORMAT_UNKNOWN,
    }
}

/// The `fm_error_kind` of a library [`ErrorKind`].
pub fn kind_number(kind: ErrorKind) -> fm_error_kind {
    match kind {
        ErrorKind::Truncated => FM_ERROR_TRUNCATED,
        ErrorKind::OutOfBounds => FM_ERROR_OUT_OF_BOUNDS,
        ErrorKind::Misaligned => FM_ERROR_MISALIGNED,
        ErrorKind::BadVtable => FM_ERROR_BAD_VTABLE,
        ErrorKind::FieldOutsideTable => FM_ERROR_FIELD_OUTSIDE_TABLE,
        ErrorKind::UnterminatedString => FM_ERROR_UNTERMINATED_STRING,
        ErrorKind::InvalidUtf8 => FM_ERROR_INVALID_UTF8,
        ErrorKind::MissingRequired => FM_ERROR_MISSING_REQUIRED,
        ErrorKind::UnionMismatch => FM_ERROR_UNION_MISMATCH,
        ErrorKind::WrongIdentifier => FM_ERROR_WRONG_IDENTIFIER,
        ErrorKind::DepthLimit => FM_ERROR_DEPTH_LIMIT,
        ErrorKind::TableLimit => FM_ERROR_TABLE_LIMIT,
        ErrorKind::ApparentSizeLimit => FM_ERROR_APPARENT_SIZE_LIMIT,
        ErrorKind::InflatedSizeLimit => FM_ERROR_INFLATED_SIZE_LIMIT,
        ErrorKind::UnknownFormat => FM_ERROR_UNKNOWN_FORMAT,
        ErrorKind::BadHeader => FM_ERROR_BAD_HEADER,
        ErrorKind::IndexOutOfRange => FM_ERROR_INDEX_OUT_OF_RANGE,
        ErrorKind::Rule(_) => FM_ERROR_RULE,
        ErrorKind::NotFound => FM_ERROR_NOT_FOUND,
        _ => FM_ERROR_OTHER,
    }
}
