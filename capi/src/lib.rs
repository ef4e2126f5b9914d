//! flatmodel's C ABI: `include/flatmodel.h`, generated from this crate by cbindgen.
//!
//! Every function checks its arguments (a NULL `data` with a non-zero length is
//! `FM_BAD_ARGUMENT`, never a crash), keeps no state (so each is thread-safe and reentrant) and
//! writes its verdict to a caller's `fm_report`. None allocates (`tests/no_alloc.rs`), in host
//! and firmware builds alike, whatever the model's size. The library never panics on any input; were it to, the panic could not cross into C: an `extern "C"` function aborts
//! instead of unwinding.
//!
//! - `types.rs`: the header's types and constants, and their conversions from the library's.
//! - `verify.rs`: `fm_verify`, `fm_verify_tflite` and the other formats, `fm_check_runtime`.
//! - `message.rs`: `fm_report_message`, `fm_report_path`, `fm_format_name`.
//! - `raw.rs`: every `unsafe` operation, each with its proof.
//!
//! The host build (default features) is the Rust library's default build; firmware builds take
//! `--no-default-features` (no `std`, the verifier not specialized: the Cortex-M4 flash table's
//! configuration), and this crate then brings a panic handler for C firmware to link.
#![no_std]
// The `extern "C"` functions are `unsafe` (their pointers) and `#[no_mangle]`; the unsafe
// operations themselves are all in `raw.rs`.
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]
#![warn(missing_docs)]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::arithmetic_side_effects)]
// The header's names are C's: `fm_report`, `FM_OK`.
#![allow(non_camel_case_types)]

#[cfg(feature = "std")]
extern crate std;

mod message;
mod raw;
mod types;
mod verify;

pub use message::{fm_format_name, fm_report_message, fm_report_path};
pub use types::*;
pub use verify::*;

/// Without `std` (firmware): the library never panics on any input, so this is never reached;
/// a C firmware has no Rust runtime to bring one.
#[cfg(all(not(feature = "std"), not(test)))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    loop {
        core::hint::spin_loop();
    }
}
