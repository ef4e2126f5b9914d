//! One flatmodel entry point and nothing else, for measuring what it costs in flash on a
//! Cortex-M4. The feature names the entry; `footprint.sh` builds each and prints the table.
//! The input comes through `black_box`, so the compiler keeps the whole verifier.
#![no_std]
#![no_main]

use core::hint::black_box;
use cortex_m_rt::entry;

#[cfg(not(any(
    feature = "tflite-structure",
    feature = "tflite-parse",
    feature = "circle-structure",
    feature = "circle-parse",
    feature = "vkgraph-structure",
    feature = "pte-parse",
    feature = "cvimodel-parse",
    feature = "baseline",
)))]
compile_error!("choose the entry point to measure with a feature, e.g. --features tflite-structure");

#[entry]
fn main() -> ! {
    let bytes: &[u8] = black_box(&[]);
    #[cfg(feature = "tflite-structure")]
    black_box(flatmodel::tflite::Model::parse_structure(bytes).is_ok());
    #[cfg(feature = "tflite-parse")]
    black_box(flatmodel::tflite::Model::parse(bytes).is_ok());
    #[cfg(feature = "circle-structure")]
    black_box(flatmodel::circle::Model::parse_structure(bytes).is_ok());
    #[cfg(feature = "circle-parse")]
    black_box(flatmodel::circle::Model::parse(bytes).is_ok());
    #[cfg(feature = "vkgraph-structure")]
    black_box(flatmodel::vkgraph::Blob::parse_structure(bytes).is_ok());
    #[cfg(feature = "pte-parse")]
    black_box(flatmodel::pte::PteFile::parse(bytes).is_ok());
    #[cfg(feature = "cvimodel-parse")]
    black_box(flatmodel::cvimodel::CviModel::parse(bytes).is_ok());
    #[cfg(feature = "baseline")]
    black_box(bytes.is_empty());
    loop {
        cortex_m::asm::wfi();
    }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {
        cortex_m::asm::wfi();
    }
}
