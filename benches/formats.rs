//! Parse benchmarks for the formats beyond TFLite, one group per format: the full parse (the
//! structure, then the format's own rules) of every testdata file, and of the corpus's with
//! `FLATMODEL_CORPUS=DIR`.
//!
//! | id | what is timed |
//! |---|---|
//! | `circle_parse/<model>` | `circle::Model::parse` |
//! | `vkgraph_parse/<blob>` | `vkgraph::Blob::parse` of a `VH00` blob or a bare VkGraph |
//! | `pte_parse/<program>` | `pte::PteFile::parse`, Vulkan delegate blobs and their named constants included |
//!
//! Throughput is `Elements(objects)`, the tables, vectors and strings the structural verifier
//! counted in the root flatbuffer, as in `verify.rs`.

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use flatmodel::verify::{Options, Stats};
use flatmodel::{circle, pte, vkgraph};

#[path = "../tests/support/mod.rs"]
mod support;

/// Files ending in `suffix` under `testdata/<dir>` and, when set, the corpus's `<dir>`.
fn files(dir: &str, suffix: &str) -> Vec<(String, Vec<u8>)> {
    let mut dirs = vec![support::testdata().join(dir)];
    if let Some(corpus) = support::corpus() {
        dirs.push(corpus.join(dir));
    }
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    for path in dirs.iter().flat_map(|d| support::files_with_suffix(d, suffix)) {
        let name = name_of(&path);
        if out.iter().any(|(n, _)| *n == name) {
            continue;
        }
        if let Ok(bytes) = std::fs::read(&path) {
            out.push((name, bytes));
        }
    }
    out
}

fn name_of(path: &Path) -> String {
    path.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

/// Benchmarks `parse` over `files` in group `group`, skipping files whose structure `stats`
/// rejects.
fn bench_group(
    c: &mut Criterion,
    group: &str,
    files: &[(String, Vec<u8>)],
    stats: impl Fn(&[u8]) -> Option<Stats>,
    parse: impl Fn(&[u8]) -> bool,
) {
    let mut g = c.benchmark_group(group);
    for (name, bytes) in files {
        let Some(stats) = stats(bytes) else {
            eprintln!("skipped {name}: invalid");
            continue;
        };
        g.throughput(Throughput::Elements(stats.objects()));
        g.bench_function(name, |b| b.iter(|| parse(black_box(bytes))));
    }
    g.finish();
}

fn formats(c: &mut Criterion) {
    let opts = Options::DEFAULT;
    bench_group(
        c,
        "circle_parse",
        &files("circle", ".circle"),
        |b| circle::Model::parse_structure_with(b, &opts).ok().map(|p| p.stats),
        |b| circle::Model::parse(b).is_ok(),
    );
    let mut blobs = files("vkgraph", ".vh00");
    blobs.extend(files("vkgraph", ".vk00.bin"));
    bench_group(
        c,
        "vkgraph_parse",
        &blobs,
        |b| vkgraph::Blob::parse_structure_with(b, &opts).ok().map(|p| p.stats),
        |b| vkgraph::Blob::parse(b).is_ok(),
    );
    bench_group(
        c,
        "pte_parse",
        &files("vkgraph", ".pte"),
        |b| pte::PteFile::parse_structure_with(b, &opts).ok().map(|p| p.stats),
        |b| pte::PteFile::parse(b).is_ok(),
    );
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .sample_size(20)
        .configure_from_args()
}

criterion_group! { name = all; config = config(); targets = formats }
criterion_main!(all);
