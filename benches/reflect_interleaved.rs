//! Run-time schemas against the compiled-in ones, sample by sample: the ratio that
//! `benches/reflect.rs` estimates, measured so that machine load cannot move one path alone.
//!
//! For each model, a sample is a batch of verifications lasting about 40 µs; the two paths'
//! samples alternate, `BENCH_ROUNDS` (default 301) of each, and each path keeps its fastest
//! sample (the one least disturbed). Prints each model's times and ratio (run-time over
//! compiled-in), then the geometric mean and the worst. Models: as `benches/reflect.rs`
//! (`testdata/tflite`, and `FLATMODEL_CORPUS/tflite` when set).
//!
//! `cargo bench -p flatmodel-benches --bench reflect_interleaved`

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use flatmodel::reflect::Schema;
use flatmodel::tflite::Model;
use flatmodel::verify::Options;

#[path = "../tests/support/mod.rs"]
mod support;

/// How long one sample's batch lasts, about.
const SAMPLE: Duration = Duration::from_micros(40);

/// The fastest time per call of `f` over `rounds` samples of `batch` calls, alternating with
/// `g`'s samples; returns both.
fn interleaved(rounds: usize, batch: u32, mut f: impl FnMut(), mut g: impl FnMut()) -> (f64, f64) {
    let time = |run: &mut dyn FnMut()| {
        let start = Instant::now();
        for _ in 0..batch {
            run();
        }
        start.elapsed().as_secs_f64() / f64::from(batch)
    };
    let (mut best_f, mut best_g) = (f64::MAX, f64::MAX);
    for _ in 0..rounds {
        best_f = best_f.min(time(&mut f));
        best_g = best_g.min(time(&mut g));
    }
    (best_f, best_g)
}

fn main() {
    let root = &support::root();
    let text = std::fs::read_to_string(root.join("src/formats/tflite/schema.fbs")).expect("the TFLite schema");
    let schema = Schema::from_fbs_text(&text).expect("the TFLite schema loads");
    let model = schema.root().expect("a root_type");
    let opts = Options::DEFAULT;
    let rounds = std::env::var("BENCH_ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(301);

    let mut dirs = vec![root.join("testdata/tflite")];
    if let Some(corpus) = std::env::var_os("FLATMODEL_CORPUS") {
        dirs.push(PathBuf::from(corpus).join("tflite"));
    }
    let mut seen: Vec<String> = Vec::new();
    let mut logs = Vec::new();
    let mut worst = (0.0, String::new());
    println!("| model | compiled (µs) | run time (µs) | ratio |");
    println!("|---|---:|---:|---:|");
    for path in dirs.iter().flat_map(|d| support::tflite_files(d)) {
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        if seen.contains(&name) {
            continue;
        }
        let Ok(bytes) = std::fs::read(&path) else { continue };
        if Model::parse_structure_with(&bytes, &opts).is_err() {
            continue;
        }
        assert!(schema.verify(&bytes, model, &opts).is_ok(), "{name}: the run-time schema disagrees");
        seen.push(name.clone());
        let compiled = || {
            black_box(Model::parse_structure_with(black_box(&bytes), &opts).is_ok());
        };
        let run_time = || {
            black_box(schema.verify(black_box(&bytes), model, &opts).is_ok());
        };
        // A batch of compiled-in verifications lasting about one sample.
        let start = Instant::now();
        let mut batch = 0u32;
        while start.elapsed() < SAMPLE {
            compiled();
            batch += 1;
        }
        let (c, r) = interleaved(rounds, batch, compiled, run_time);
        let ratio = r / c;
        println!("| {name} | {:.2} | {:.2} | {ratio:.3} |", c * 1e6, r * 1e6);
        logs.push(ratio.ln());
        if ratio > worst.0 {
            worst = (ratio, name);
        }
    }
    assert!(!logs.is_empty(), "no TFLite models found");
    let geo = (logs.iter().sum::<f64>() / logs.len() as f64).exp();
    println!("\n{} models: geometric mean {geo:.3}, worst {:.3} ({})", logs.len(), worst.0, worst.1);
}
