//! The C ABI gives the Rust library's verdict: the same status, format, error kind, byte offset,
//! message and path, for every file of testdata and of the corpus (`FLATMODEL_CORPUS`; skipped
//! when unset), for corrupted and truncated copies of them, and for each function (`fm_verify`,
//! the per-format ones, `fm_check_runtime`). The functions are called as C calls them, through
//! their `extern "C"` entry points.

use std::ffi::{c_void, CStr};
use std::path::{Path, PathBuf};

use flatmodel::graph::Runtime;
use flatmodel::verify::Options;
use flatmodel::{circle, cvimodel, litertlm, ptd, pte, tflite, vkgraph, xnnpack, Error, File, Format};
use flatmodel_c::*;

mod support;

type VerifyFn = unsafe extern "C" fn(*const c_void, usize, *const fm_options, *mut fm_report) -> fm_status;

/// What a C caller sees of one call: the status, the report's public fields, the message and
/// the path.
#[derive(Debug, PartialEq)]
struct Seen {
    status: fm_status,
    format: fm_format,
    kind: fm_error_kind,
    offset: u64,
    message: String,
    path: String,
}

fn text_of(
    report: &fm_report,
    write: unsafe extern "C" fn(*const fm_report, *mut std::ffi::c_char, usize) -> usize,
) -> String {
    let mut buffer = [0x55u8; 512];
    // SAFETY: a report an fm_ call wrote, and a buffer of its stated length.
    let len = unsafe { write(report, buffer.as_mut_ptr().cast(), buffer.len()) };
    let text = CStr::from_bytes_until_nul(&buffer).expect("NUL-terminated").to_str().expect("UTF-8");
    assert_eq!(len, text.len(), "the returned length is the message's (all fit in 512 bytes): {text}");
    text.to_owned()
}

fn seen(status: fm_status, report: &fm_report) -> Seen {
    assert_eq!(report.status, status, "the report's status is the one returned");
    Seen {
        status,
        format: report.format,
        kind: report.kind,
        offset: report.offset,
        message: text_of(report, fm_report_message),
        path: text_of(report, fm_report_path),
    }
}

fn call(f: VerifyFn, bytes: &[u8]) -> Seen {
    let mut report = std::mem::MaybeUninit::<fm_report>::uninit();
    // SAFETY: `bytes` is a live slice; the report is written by the call before it is read.
    let status = unsafe { f(bytes.as_ptr().cast(), bytes.len(), std::ptr::null(), report.as_mut_ptr()) };
    // SAFETY: every call with a non-NULL, aligned report writes it.
    seen(status, unsafe { &report.assume_init() })
}

fn runtime_call(runtime: fm_runtime, bytes: &[u8]) -> Seen {
    let mut report = std::mem::MaybeUninit::<fm_report>::uninit();
    // SAFETY: as in `call`.
    let status =
        unsafe { fm_check_runtime(bytes.as_ptr().cast(), bytes.len(), runtime, std::ptr::null(), report.as_mut_ptr()) };
    // SAFETY: as in `call`.
    seen(status, unsafe { &report.assume_init() })
}

/// What the C ABI must say of the library's `verdict` on bytes checked as `format`.
fn expected(format: fm_format, verdict: Result<(), Error>) -> Seen {
    match verdict {
        Ok(()) => {
            Seen { status: FM_OK, format, kind: FM_ERROR_NONE, offset: 0, message: "ok".into(), path: String::new() }
        }
        Err(e) => Seen {
            status: FM_INVALID,
            format,
            kind: kind_of(&e),
            offset: e.offset(),
            message: e.to_string(),
            path: e.location().to_string(),
        },
    }
}

/// The header's number for the library's kind, written out here rather than taken from the
/// crate, so that a wrong mapping there fails.
fn kind_of(e: &Error) -> fm_error_kind {
    use flatmodel::ErrorKind::*;
    match e.kind() {
        Truncated => 1,
        OutOfBounds => 2,
        Misaligned => 3,
        BadVtable => 4,
        FieldOutsideTable => 5,
        UnterminatedString => 6,
        InvalidUtf8 => 7,
        MissingRequired => 8,
        UnionMismatch => 9,
        WrongIdentifier => 10,
        DepthLimit => 11,
        TableLimit => 12,
        ApparentSizeLimit => 13,
        InflatedSizeLimit => 14,
        UnknownFormat => 15,
        BadHeader => 16,
        IndexOutOfRange => 17,
        Rule(_) => 18,
        NotFound => 19,
        _ => 255,
    }
}

fn format_of(bytes: &[u8]) -> fm_format {
    match flatmodel::detect(bytes) {
        None => 0,
        Some(Format::Tflite) => 1,
        Some(Format::Circle) => 2,
        Some(Format::VkGraph) => 3,
        Some(Format::Pte) => 4,
        Some(Format::Cvimodel) => 5,
        Some(Format::Xnnpack) => 6,
        Some(Format::Ptd) => 7,
        Some(Format::LitertLm) => 8,
        Some(other) => panic!("a format this test does not know: {other:?}"),
    }
}

/// Every function of the C ABI on `bytes`, against the library. Returns whether `fm_verify`
/// accepted them.
fn agree(name: &str, bytes: &[u8]) -> bool {
    let o = &Options::DEFAULT;
    let any = call(fm_verify, bytes);
    assert_eq!(any, expected(format_of(bytes), File::parse_with(bytes, o).map(drop)), "fm_verify: {name}");
    let per_format: [(VerifyFn, fm_format, Result<(), Error>); 8] = [
        (fm_verify_tflite, 1, tflite::Model::parse_with(bytes, o).map(drop)),
        (fm_verify_circle, 2, circle::Model::parse_with(bytes, o).map(drop)),
        (fm_verify_vkgraph, 3, vkgraph::Blob::parse_with(bytes, o).map(drop)),
        (fm_verify_pte, 4, pte::PteFile::parse_with(bytes, o).map(drop)),
        (fm_verify_cvimodel, 5, cvimodel::CviModel::parse_with(bytes, o).map(drop)),
        (fm_verify_xnnpack, 6, xnnpack::Blob::parse_with(bytes, o).map(drop)),
        (fm_verify_ptd, 7, ptd::PtdFile::parse_with(bytes, o).map(drop)),
        (fm_verify_litertlm, 8, litertlm::LitertLmFile::parse_with(bytes, o).map(drop)),
    ];
    for (f, format, verdict) in per_format {
        assert_eq!(call(f, bytes), expected(format, verdict), "format {format}: {name}");
    }
    for (runtime, number) in [(Runtime::LiteRt, FM_RUNTIME_LITERT), (Runtime::Tflm, FM_RUNTIME_TFLM)] {
        let verdict = tflite::Model::parse_with(bytes, o).and_then(|p| p.value.check_runtime_with(runtime, o));
        assert_eq!(runtime_call(number, bytes), expected(1, verdict), "runtime {number}: {name}");
    }
    any.status == FM_OK
}

/// Each file, then copies of it with one byte changed at 16 places spread over it and cut at
/// 6 lengths; larger files only as they are.
fn check_tree(dir: &Path) -> (usize, usize, usize) {
    let (mut checked, mut accepted, mut copies) = (0, 0, 0);
    for path in support::files(dir) {
        let name = path.display().to_string();
        let bytes = std::fs::read(&path).expect("readable file");
        checked += 1;
        accepted += usize::from(agree(&name, &bytes));
        if bytes.len() > 1 << 20 {
            continue;
        }
        for i in 0..16 {
            let mut copy = bytes.clone();
            if let Some(b) = copy.get_mut(bytes.len() * i / 16) {
                *b ^= 0x5A;
                agree(&format!("{name} with byte {} changed", bytes.len() * i / 16), &copy);
                copies += 1;
            }
        }
        for cut in [0, 4, 8, 9, bytes.len() / 2, bytes.len().saturating_sub(1)] {
            if let Some(prefix) = bytes.get(..cut) {
                agree(&format!("{name} cut to {cut} bytes"), prefix);
                copies += 1;
            }
        }
    }
    (checked, accepted, copies)
}

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace root").to_path_buf()
}

#[test]
fn testdata_verdicts_are_the_librarys() {
    let (checked, accepted, copies) = check_tree(&repository().join("testdata"));
    println!("testdata: {checked} files, {accepted} accepted, {copies} corrupted copies");
    // testdata's models, metadata and regression files; most models are valid.
    assert!(checked >= 40, "{checked} files");
    assert!(accepted >= 30, "{accepted} of {checked} accepted");
    assert!(copies >= 500, "{copies} corrupted copies");
}

#[test]
fn corpus_verdicts_are_the_librarys() {
    let Some(corpus) = std::env::var_os("FLATMODEL_CORPUS").map(PathBuf::from).filter(|d| d.is_dir()) else {
        eprintln!("skipping in corpus_verdicts_are_the_librarys: the corpus: FLATMODEL_CORPUS is not set");
        return;
    };
    let (checked, accepted, copies) = check_tree(&corpus);
    println!("corpus: {checked} files, {accepted} accepted, {copies} corrupted copies");
    assert!(checked >= 100, "{checked} files");
    assert!(accepted >= 80, "{accepted} of {checked} accepted");
}
