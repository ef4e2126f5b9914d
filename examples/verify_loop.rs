//! Verifies one TFLite file N times (default 2000) with `Model::parse_structure`, for counting
//! instructions per call, which load on a shared machine does not change:
//!
//! ```text
//! cargo build --release --example verify_loop
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/verify_loop MODEL.tflite 2000
//! ```
//!
//! (the total less that of `... MODEL.tflite 0`, divided by N; see `benches/RESULTS.md`).
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let n: usize = std::env::args().nth(2).map_or(2000, |s| s.parse().unwrap());
    let bytes = std::fs::read(path).unwrap();
    let mut ok = 0;
    for _ in 0..n {
        ok += flatmodel::tflite::Model::parse_structure(std::hint::black_box(&bytes)).is_ok() as usize;
    }
    println!("{ok}");
}
