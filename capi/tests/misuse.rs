//! Calls C code gets wrong, or gets right in unusual ways: NULL pointers, zero lengths, tiny
//! message buffers, misaligned or zeroed structures, unknown runtimes, and limits that bite.
//! None may crash; each gets the status and report the header promises.

use std::ffi::{c_char, c_void, CStr};
use std::mem::MaybeUninit;
use std::ptr::{null, null_mut};

use flatmodel_c::*;

fn sine() -> Vec<u8> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/tflite/sine_float.tflite");
    std::fs::read(path).expect("testdata")
}

/// Runs `fm_verify` with these arguments and returns the status and the report.
fn verify(data: *const c_void, len: usize, options: *const fm_options) -> (fm_status, fm_report) {
    let mut report = MaybeUninit::<fm_report>::uninit();
    // SAFETY: `data` and `options` are NULL or live (each test says), the report is writable.
    let status = unsafe { fm_verify(data, len, options, report.as_mut_ptr()) };
    // SAFETY: a call with an aligned, non-NULL report writes it.
    (status, unsafe { report.assume_init() })
}

fn message(report: *const fm_report, cap: usize) -> (usize, Vec<u8>) {
    let mut buffer = vec![0x55u8; cap];
    let text = if cap == 0 { null_mut() } else { buffer.as_mut_ptr().cast::<c_char>() };
    // SAFETY: `report` is NULL or a live report; `text` holds `cap` bytes.
    let len = unsafe { fm_report_message(report, text, cap) };
    (len, buffer)
}

#[test]
fn null_data_with_a_length_is_a_bad_argument() {
    let (status, report) = verify(null(), 16, null());
    assert_eq!(status, FM_BAD_ARGUMENT);
    assert_eq!(
        (report.status, report.format, report.kind, report.offset),
        (FM_BAD_ARGUMENT, FM_FORMAT_UNKNOWN, FM_ERROR_NONE, 0)
    );
    let (len, text) = message(&report, 128);
    let text = CStr::from_bytes_until_nul(&text).unwrap().to_str().unwrap();
    assert_eq!(text, "bad argument: data is NULL and len is not 0");
    assert_eq!(len, text.len());
}

#[test]
fn null_data_of_length_zero_is_an_empty_input() {
    let (status, report) = verify(null(), 0, null());
    assert_eq!(status, FM_INVALID);
    assert_eq!((report.format, report.kind, report.offset), (FM_FORMAT_UNKNOWN, FM_ERROR_UNKNOWN_FORMAT, 0));
    let sine = sine();
    // SAFETY: a live buffer, read for zero bytes.
    let status = unsafe { fm_verify_tflite(sine.as_ptr().cast(), 0, null(), null_mut()) };
    assert_eq!(status, FM_INVALID, "zero bytes are no TFLite model");
}

#[test]
fn a_length_past_any_object_is_refused_unread() {
    let sine = sine();
    let (status, report) = verify(sine.as_ptr().cast(), usize::MAX, null());
    assert_eq!(status, FM_BAD_ARGUMENT);
    assert!(CStr::from_bytes_until_nul(&message(&report, 128).1).unwrap().to_str().unwrap().contains("len"));
}

#[test]
fn a_null_report_still_gets_the_status() {
    let sine = sine();
    // SAFETY: live data, NULL report (allowed).
    unsafe {
        assert_eq!(fm_verify(sine.as_ptr().cast(), sine.len(), null(), null_mut()), FM_OK);
        assert_eq!(fm_verify(sine.as_ptr().cast(), 7, null(), null_mut()), FM_INVALID);
        assert_eq!(fm_verify(null(), 1, null(), null_mut()), FM_BAD_ARGUMENT);
        assert_eq!(fm_check_runtime(sine.as_ptr().cast(), sine.len(), 99, null(), null_mut()), FM_BAD_ARGUMENT);
    }
    // A NULL report has the empty message.
    let (len, text) = message(null(), 8);
    assert_eq!((len, text[0]), (0, 0));
}

#[test]
fn messages_follow_snprintf() {
    let sine = sine();
    let (status, report) = verify(sine.as_ptr().cast(), 20, null());
    assert_eq!(status, FM_INVALID);
    let (full, text) = message(&report, 512);
    let whole = CStr::from_bytes_until_nul(&text).unwrap().to_bytes().to_vec();
    assert_eq!(full, whole.len());
    assert!(full > 20, "{}", String::from_utf8_lossy(&whole));
    // cap 0: nothing written (NULL text), the full length returned.
    assert_eq!(message(&report, 0).0, full);
    // cap 1: only the NUL.
    let (len, one) = message(&report, 1);
    assert_eq!((len, one), (full, vec![0]));
    // cap 10: nine bytes of the message and the NUL; the byte after untouched.
    let mut buffer = [0x55u8; 11];
    // SAFETY: a live report and a buffer of at least the stated 10 bytes.
    let len = unsafe { fm_report_message(&report, buffer.as_mut_ptr().cast(), 10) };
    assert_eq!(len, full);
    assert_eq!(&buffer[..9], &whole[..9]);
    assert_eq!((buffer[9], buffer[10]), (0, 0x55));
    // A NULL text with a capacity is a capacity of 0.
    // SAFETY: a live report; NULL text.
    assert_eq!(unsafe { fm_report_message(&report, null_mut(), 64) }, full);
}

#[test]
fn reports_that_no_call_wrote_print_no_error() {
    // A zeroed report (as `fm_report r = {0};` gives) is read as no error, whatever its status.
    // SAFETY: every field of `fm_report` is an integer.
    let mut zeroed: fm_report = unsafe { MaybeUninit::zeroed().assume_init() };
    let (_, text) = message(&zeroed, 64);
    assert_eq!(CStr::from_bytes_until_nul(&text).unwrap().to_str().unwrap(), "ok");
    zeroed.status = FM_INVALID;
    let (_, text) = message(&zeroed, 64);
    assert_eq!(CStr::from_bytes_until_nul(&text).unwrap().to_str().unwrap(), "not a report an fm_ call wrote");
    let mut path = [0x55u8; 8];
    // SAFETY: a live report and buffer.
    assert_eq!(unsafe { fm_report_path(&zeroed, path.as_mut_ptr().cast(), 8) }, 0);
    assert_eq!(path[0], 0);
}

#[test]
fn reports_survive_copies_and_outlive_the_data() {
    let mut sine = sine();
    sine[300] ^= 0xFF;
    let (status, report) = verify(sine.as_ptr().cast(), sine.len(), null());
    assert_eq!(status, FM_INVALID);
    let before = message(&report, 256);
    let copy = report;
    drop(sine);
    assert_eq!(message(&copy, 256), before, "a copied report prints the same, with the data gone");
}

#[test]
fn options_are_the_limits_used() {
    let sine = sine();
    let defaults = fm_options_default();
    assert_eq!((defaults.max_depth, defaults.apparent_size_per_byte, defaults.check_alignment), (64, 16, 1));
    assert_eq!(
        (defaults.max_tables, defaults.max_inflated_size, defaults.max_apparent_size),
        (1 << 24, 1 << 30, u64::MAX)
    );
    let shallow = fm_options { max_depth: 1, ..defaults };
    let (status, report) = verify(sine.as_ptr().cast(), sine.len(), &shallow);
    assert_eq!((status, report.kind), (FM_INVALID, FM_ERROR_DEPTH_LIMIT));
    let starved = fm_options { max_apparent_size: 10, ..defaults };
    let (status, report) = verify(sine.as_ptr().cast(), sine.len(), &starved);
    assert_eq!((status, report.kind), (FM_INVALID, FM_ERROR_APPARENT_SIZE_LIMIT));
    let (status, _) = verify(sine.as_ptr().cast(), sine.len(), &defaults);
    assert_eq!(status, FM_OK);
}

#[test]
fn misaligned_structures_are_refused_not_read() {
    let sine = sine();
    let defaults = fm_options_default();
    // Options copied one byte into a buffer: a misaligned pointer to valid contents.
    let mut storage = vec![0u8; size_of::<fm_options>() + 8];
    let at = if storage.as_ptr().align_offset(8) == 0 { 1 } else { 0 };
    // SAFETY: the buffer holds `size_of::<fm_options>()` bytes from `at`.
    unsafe { std::ptr::write_unaligned(storage.as_mut_ptr().add(at).cast::<fm_options>(), defaults) };
    let options = storage[at..].as_ptr().cast::<fm_options>();
    let (status, report) = verify(sine.as_ptr().cast(), sine.len(), options);
    assert_eq!(status, FM_BAD_ARGUMENT);
    assert!(CStr::from_bytes_until_nul(&message(&report, 128).1).unwrap().to_str().unwrap().contains("options"));
    // A misaligned report is neither written nor read.
    let mut storage = vec![0xEEu8; size_of::<fm_report>() + 8];
    let at = if storage.as_ptr().align_offset(8) == 0 { 4 } else { 0 };
    let report = storage[at..].as_mut_ptr().cast::<fm_report>();
    // SAFETY: live data; the report pointer is misaligned, which the call checks before writing.
    assert_eq!(unsafe { fm_verify(sine.as_ptr().cast(), sine.len(), null(), report) }, FM_BAD_ARGUMENT);
    assert!(storage.iter().all(|&b| b == 0xEE), "nothing written");
    assert_eq!(message(report, 16).0, 0, "a misaligned report prints nothing");
}

#[test]
fn unknown_runtimes_are_bad_arguments() {
    let sine = sine();
    for runtime in [0, 3, -1, i32::MAX] {
        let mut report = MaybeUninit::<fm_report>::uninit();
        // SAFETY: live data and report.
        let status =
            unsafe { fm_check_runtime(sine.as_ptr().cast(), sine.len(), runtime, null(), report.as_mut_ptr()) };
        assert_eq!(status, FM_BAD_ARGUMENT, "runtime {runtime}");
        // SAFETY: written by the call.
        let report = unsafe { report.assume_init() };
        assert!(CStr::from_bytes_until_nul(&message(&report, 128).1).unwrap().to_str().unwrap().contains("runtime"));
    }
}

#[test]
fn format_names_are_static_strings() {
    let name = |f| {
        // SAFETY: `fm_format_name` returns a static NUL-terminated string for any value.
        unsafe { CStr::from_ptr(fm_format_name(f)) }.to_str().unwrap()
    };
    assert_eq!(
        [1, 2, 3, 4, 5, 6, 7, 8, 0, 9, -1].map(name),
        [
            "tflite", "circle", "vkgraph", "pte", "cvimodel", "xnnpack", "ptd", "litertlm", "unknown", "unknown",
            "unknown"
        ]
    );
}

#[test]
fn calls_from_many_threads_agree() {
    let sine = std::sync::Arc::new(sine());
    // Miri runs the same calls, fewer of them (it is about a thousand times slower).
    let (threads, rounds) = if cfg!(miri) { (4, 2) } else { (8, 50) };
    let threads: Vec<_> = (0..threads)
        .map(|i| {
            let sine = sine.clone();
            std::thread::spawn(move || {
                let len = if i % 2 == 0 { sine.len() } else { 100 };
                (0..rounds).map(|_| verify(sine.as_ptr().cast(), len, null()).0).collect::<Vec<_>>()
            })
        })
        .collect();
    for (i, t) in threads.into_iter().enumerate() {
        let expected = if i % 2 == 0 { FM_OK } else { FM_INVALID };
        assert!(t.join().unwrap().iter().all(|&s| s == expected), "thread {i}");
    }
}
