//! Run-time schemas against the compiled-in ones, in the same run.
//!
//! | id | what is timed |
//! |---|---|
//! | `schema_verify/compiled/<model>` | `tflite::Model::parse_structure_with` (the compiled-in schema) |
//! | `schema_verify/run_time/<model>` | `reflect::Schema::verify` with `tflite.fbs` read at run time |
//! | `schema_load/tflite_fbs` | `Schema::from_fbs_text` of the TFLite schema (1,743 lines) |
//! | `schema_load/tflite_bfbs` | `Schema::from_bfbs` of flatc's binary TFLite schema |
//!
//! The two verifications of one model run one after the other, so a change in machine load moves
//! both. Models: `testdata/tflite/*.tflite`, and with `FLATMODEL_CORPUS=DIR` also
//! `DIR/tflite/*.tflite`. `benches/reflect_ratios.py` turns criterion's estimates into the
//! per-model ratios and their geometric mean.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use flatmodel::reflect::Schema;
use flatmodel::tflite::Model;
use flatmodel::verify::Options;

#[path = "../tests/support/mod.rs"]
mod support;

fn env_secs(name: &str, default: f64) -> Duration {
    let secs = std::env::var(name).ok().and_then(|v| v.parse::<f64>().ok()).unwrap_or(default);
    Duration::from_secs_f64(secs)
}

fn benches(c: &mut Criterion) {
    let root = &support::root();
    let text = std::fs::read_to_string(root.join("src/formats/tflite/schema.fbs")).expect("the TFLite schema");
    let schema = Schema::from_fbs_text(&text).expect("the TFLite schema loads");
    let model = schema.root().expect("a root_type");
    let opts = Options::DEFAULT;

    let mut dirs = vec![root.join("testdata/tflite")];
    if let Some(corpus) = std::env::var_os("FLATMODEL_CORPUS") {
        dirs.push(PathBuf::from(corpus).join("tflite"));
    }
    let mut seen: Vec<String> = Vec::new();
    let mut g = c.benchmark_group("schema_verify");
    g.warm_up_time(env_secs("BENCH_WARM_UP", 0.5)).measurement_time(env_secs("BENCH_MEASURE", 1.0));
    g.sample_size(std::env::var("BENCH_SAMPLES").ok().and_then(|v| v.parse().ok()).unwrap_or(30));
    for path in dirs.iter().flat_map(|d| support::tflite_files(d)) {
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        if seen.contains(&name) {
            continue;
        }
        let Ok(bytes) = std::fs::read(&path) else { continue };
        let Ok(parsed) = Model::parse_structure_with(&bytes, &opts) else { continue };
        assert!(schema.verify(&bytes, model, &opts).is_ok(), "{name}: the run-time schema disagrees");
        seen.push(name.clone());
        g.throughput(Throughput::Elements(parsed.stats.objects()));
        g.bench_function(format!("compiled/{name}"), |b| {
            b.iter(|| Model::parse_structure_with(black_box(&bytes), &opts).is_ok())
        });
        g.bench_function(format!("run_time/{name}"), |b| {
            b.iter(|| schema.verify(black_box(&bytes), model, &opts).is_ok())
        });
    }
    g.finish();

    let mut g = c.benchmark_group("schema_load");
    g.bench_function("tflite_fbs", |b| b.iter(|| Schema::from_fbs_text(black_box(&text)).is_ok()));
    if let Ok(bfbs) = std::fs::read(root.join("testdata/schemas/bfbs/tflite.bfbs")) {
        g.bench_function("tflite_bfbs", |b| b.iter(|| Schema::from_bfbs(black_box(&bfbs)).is_ok()));
    }
    g.finish();
}

criterion_group!(reflect, benches);
criterion_main!(reflect);
