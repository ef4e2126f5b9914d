//! The C ABI allocates nothing: a counting global allocator, armed only on this test's thread
//! around each call, sees no allocation in any function of `flatmodel.h`, on every file of
//! testdata and of the corpus (`FLATMODEL_CORPUS`; skipped when unset), valid or not, and on
//! their messages. (The library's own tests show the model rules allocate nothing on models past
//! the size of their working memory either: `tests/rules/large_graphs.rs`.)

use std::ffi::c_void;
use std::mem::MaybeUninit;
use std::path::{Path, PathBuf};
use std::ptr::null;

use flatmodel_c::*;

#[path = "../../tests/support/counting_alloc.rs"]
mod counting_alloc;
mod support;

use counting_alloc::allocations;

type VerifyFn = unsafe extern "C" fn(*const c_void, usize, *const fm_options, *mut fm_report) -> fm_status;

/// Every function on `bytes`, then the report's message and path: the allocations of all.
fn allocations_of_every_call(bytes: &[u8]) -> (usize, usize) {
    let functions: [VerifyFn; 9] = [
        fm_verify,
        fm_verify_tflite,
        fm_verify_circle,
        fm_verify_pte,
        fm_verify_vkgraph,
        fm_verify_cvimodel,
        fm_verify_xnnpack,
        fm_verify_ptd,
        fm_verify_litertlm,
    ];
    let mut text = [0u8; 256];
    let (invalid, n) = allocations(|| {
        let mut invalid = 0;
        for f in functions {
            let mut report = MaybeUninit::<fm_report>::uninit();
            // SAFETY: a live slice and a writable report; the text buffer holds 256 bytes.
            unsafe {
                let status = f(bytes.as_ptr().cast(), bytes.len(), null(), report.as_mut_ptr());
                invalid += usize::from(status == FM_INVALID);
                fm_report_message(report.as_ptr(), text.as_mut_ptr().cast(), text.len());
                fm_report_path(report.as_ptr(), text.as_mut_ptr().cast(), text.len());
            }
            for runtime in [FM_RUNTIME_LITERT, FM_RUNTIME_TFLM] {
                // SAFETY: as above.
                unsafe { fm_check_runtime(bytes.as_ptr().cast(), bytes.len(), runtime, null(), report.as_mut_ptr()) };
            }
        }
        invalid
    });
    (n, invalid)
}

#[test]
fn counting_allocator_sees_allocations() {
    let (_, n) = allocations(|| vec![1u8; 10]);
    assert!(n >= 1, "the counter must work for the other test to mean anything");
}

#[test]
fn no_call_allocates() {
    let mut dirs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata")];
    match std::env::var_os("FLATMODEL_CORPUS").map(PathBuf::from).filter(|d| d.is_dir()) {
        Some(corpus) => dirs.push(corpus),
        None => eprintln!("skipping in no_call_allocates: the corpus: FLATMODEL_CORPUS is not set"),
    }
    let (mut checked, mut rejections) = (0, 0);
    for dir in dirs {
        for path in support::files(&dir) {
            let bytes = std::fs::read(&path).expect("readable file");
            let (n, invalid) = allocations_of_every_call(&bytes);
            assert_eq!(n, 0, "{}: {n} allocations", path.display());
            checked += 1;
            rejections += invalid;
        }
    }
    assert!(checked >= 60, "{checked} files");
    assert!(rejections > checked, "rejections were exercised too: {rejections}");
}
