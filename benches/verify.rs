//! Verification and read benchmarks for TFLite, with peer FlatBuffers readers measured in the same run.
//!
//! For each model in `testdata/tflite/*.tflite`, and with `FLATMODEL_CORPUS=DIR` also
//! `DIR/tflite/*.tflite` (files that fail to verify are skipped, with a note on stderr):
//!
//! | id | what is timed |
//! |---|---|
//! | `verify/<model>` | `Model::parse_structure_with` (structural verification only) |
//! | `parse/<model>` | `Model::parse` (structure + TFLite's model rules) |
//! | `walk/<model>` | verification plus a full walk of every accessor (`Walker`) |
//! | `loader_walk/<model>` | a runtime loader's walk over an already verified model (the same reads as `peer_unchecked_walk`) |
//! | `peer_flatbuffers_verify/<model>` | the `flatbuffers` crate's `root_as_model` (flatc-generated code) |
//! | `peer_unchecked_walk/<model>` | `root_as_model_unchecked` on verified bytes, then the loader walk |
//! | `peer_planus_walk/<model>` | planus's `ModelRef::read_as_root` then the loader walk (planus checks as it reads) |
//!
//! Every benchmark's throughput is `Elements(objects)`, with `objects` the tables, vectors and
//! strings flatmodel's verifier counted for that model, so criterion's element rate reads as
//! objects per second for every column. Files are read once, outside the timed loops.
//! `benches/README.md` says how to regenerate the peers' code; `benches/run.sh` runs the benchmarks
//! issue 9 compares, with the C++ verifier (`benches/cpp/`), and `benches/results.py` turns the run
//! into the per-file ratio table in `benches/RESULTS.md`.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};
use flatmodel::schema::{Walk, Walker};
use flatmodel::tflite::Model;
use flatmodel::verify::Options;

#[rustfmt::skip]
#[path = "peers/schema_generated.rs"]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery, unsafe_op_in_unsafe_fn)]
mod fb_generated;

#[rustfmt::skip]
#[path = "peers/planus_generated.rs"]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery, unsafe_op_in_unsafe_fn)]
mod planus_generated;

#[path = "../tests/support/mod.rs"]
mod support;

use fb_generated::tflite as fbt;
use planus_generated::tflite as plt;

/// One model, read once.
struct Input {
    name: String,
    bytes: Vec<u8>,
    objects: u64,
    /// Whether `Model::parse` (the model rules) accepts it.
    rules_ok: bool,
    /// The flatbuffers verifier options that accept it (`None`: it rejects it even with raised limits).
    fb_options: Option<flatbuffers::VerifierOptions>,
}

/// The models to measure: testdata's, then the corpus's that testdata does not already hold.
fn inputs() -> Vec<Input> {
    let mut dirs = vec![support::testdata().join("tflite")];
    if let Some(corpus) = std::env::var_os("FLATMODEL_CORPUS") {
        dirs.push(PathBuf::from(corpus).join("tflite"));
    }
    let mut inputs: Vec<Input> = Vec::new();
    for path in dirs.iter().flat_map(|d| support::tflite_files(d)) {
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let Ok(bytes) = std::fs::read(&path) else {
            eprintln!("skipped {}: unreadable", path.display());
            continue;
        };
        if let Some(seen) = inputs.iter().find(|i| i.name == name) {
            if seen.bytes != bytes {
                eprintln!("skipped {}: a different model of the same name is already measured", path.display());
            }
            continue;
        }
        let objects = match Model::parse_structure_with(&bytes, &Options::DEFAULT) {
            Ok(parsed) => parsed.stats.objects(),
            Err(e) => {
                eprintln!("skipped {}: {e}", path.display());
                continue;
            }
        };
        let rules_ok = Model::parse(&bytes).is_ok();
        if !rules_ok {
            eprintln!("note {name}: fails the model rules, so parse/{name} is not measured");
        }
        let fb_options = fb_options(&bytes);
        if fb_options.is_none() {
            eprintln!("note {name}: the flatbuffers verifier rejects it, so its peer benches are not measured");
        }
        inputs.push(Input { name, bytes, objects, rules_ok, fb_options });
    }
    inputs
}

/// The flatbuffers crate's default verifier options, or raised limits if the defaults reject the model.
fn fb_options(bytes: &[u8]) -> Option<flatbuffers::VerifierOptions> {
    let default = flatbuffers::VerifierOptions::default();
    if fbt::root_as_model_with_opts(&default, bytes).is_ok() {
        return Some(default);
    }
    let raised = flatbuffers::VerifierOptions {
        max_tables: usize::MAX,
        max_apparent_size: usize::MAX,
        max_depth: 128,
        ..default
    };
    match fbt::root_as_model_with_opts(&raised, bytes) {
        Ok(_) => {
            eprintln!("note: the flatbuffers verifier needs raised limits for this model");
            Some(raised)
        }
        Err(e) => {
            eprintln!("note: flatbuffers verifier: {e}");
            None
        }
    }
}

/// Folds a value into a checksum, so that no read can be optimised away.
#[derive(Default)]
struct Sum(u64);

impl Sum {
    #[inline(always)]
    fn mix(&mut self, v: u64) {
        self.0 = self.0.rotate_left(5) ^ v;
    }
}

// The loader walks below read the same fields in the same order, each through its own reader:
// what a runtime reads to set a model up (operator codes, buffers' data, every tensor's shape,
// type, buffer, name and quantization scale / zero point, every operator's opcode, inputs,
// outputs and options type, the subgraphs' inputs, outputs and names, the signatures and the
// metadata entries).

/// The loader walk through flatmodel's views.
fn loader_walk(m: Model<'_>) -> u64 {
    let mut s = Sum::default();
    s.mix(u64::from(m.version()));
    for c in m.operator_codes().unwrap_or_default() {
        s.mix(c.builtin_code().0 as u64);
        s.mix(c.deprecated_builtin_code() as u64);
        s.mix(c.version() as u64);
        s.mix(c.custom_code().map_or(0, str::len) as u64);
    }
    for b in m.buffers().unwrap_or_default() {
        s.mix(b.data().map_or(0, |d| d.len()) as u64);
        s.mix(b.offset() ^ b.size());
    }
    for sg in m.subgraphs().unwrap_or_default() {
        for t in sg.tensors().unwrap_or_default() {
            for d in t.shape().unwrap_or_default() {
                s.mix(d as u64);
            }
            s.mix(t.type_().0 as u64);
            s.mix(u64::from(t.buffer()));
            s.mix(t.name().map_or(0, str::len) as u64);
            if let Some(q) = t.quantization() {
                for x in q.scale().unwrap_or_default() {
                    s.mix(u64::from(x.to_bits()));
                }
                for z in q.zero_point().unwrap_or_default() {
                    s.mix(z as u64);
                }
            }
        }
        for op in sg.operators().unwrap_or_default() {
            s.mix(u64::from(op.opcode_index()));
            for i in op.inputs().unwrap_or_default() {
                s.mix(i as u64);
            }
            for o in op.outputs().unwrap_or_default() {
                s.mix(o as u64);
            }
            s.mix(u64::from(op.builtin_options_type()));
        }
        for i in sg.inputs().unwrap_or_default() {
            s.mix(i as u64);
        }
        for o in sg.outputs().unwrap_or_default() {
            s.mix(o as u64);
        }
        s.mix(sg.name().map_or(0, str::len) as u64);
    }
    for sig in m.signature_defs().unwrap_or_default() {
        s.mix(sig.signature_key().map_or(0, str::len) as u64);
        s.mix(u64::from(sig.subgraph_index()));
        for tm in sig.inputs().into_iter().chain(sig.outputs()).flatten() {
            s.mix(tm.name().map_or(0, str::len) as u64);
            s.mix(u64::from(tm.tensor_index()));
        }
    }
    for md in m.metadata().unwrap_or_default() {
        s.mix(md.name().map_or(0, str::len) as u64);
        s.mix(u64::from(md.buffer()));
    }
    s.0
}

/// The loader walk through the flatbuffers crate's generated code.
fn peer_loader_walk(m: fbt::Model<'_>) -> u64 {
    let mut s = Sum::default();
    s.mix(u64::from(m.version()));
    for c in m.operator_codes().unwrap_or_default() {
        s.mix(c.builtin_code().0 as u64);
        s.mix(c.deprecated_builtin_code() as u64);
        s.mix(c.version() as u64);
        s.mix(c.custom_code().map_or(0, str::len) as u64);
    }
    for b in m.buffers().unwrap_or_default() {
        s.mix(b.data().map_or(0, |d| d.len()) as u64);
        s.mix(b.offset() ^ b.size());
    }
    for sg in m.subgraphs().unwrap_or_default() {
        for t in sg.tensors().unwrap_or_default() {
            for d in t.shape().unwrap_or_default() {
                s.mix(d as u64);
            }
            s.mix(t.type_().0 as u64);
            s.mix(u64::from(t.buffer()));
            s.mix(t.name().map_or(0, str::len) as u64);
            if let Some(q) = t.quantization() {
                for x in q.scale().unwrap_or_default() {
                    s.mix(u64::from(x.to_bits()));
                }
                for z in q.zero_point().unwrap_or_default() {
                    s.mix(z as u64);
                }
            }
        }
        for op in sg.operators().unwrap_or_default() {
            s.mix(u64::from(op.opcode_index()));
            for i in op.inputs().unwrap_or_default() {
                s.mix(i as u64);
            }
            for o in op.outputs().unwrap_or_default() {
                s.mix(o as u64);
            }
            s.mix(u64::from(op.builtin_options_type().0));
        }
        for i in sg.inputs().unwrap_or_default() {
            s.mix(i as u64);
        }
        for o in sg.outputs().unwrap_or_default() {
            s.mix(o as u64);
        }
        s.mix(sg.name().map_or(0, str::len) as u64);
    }
    for sig in m.signature_defs().unwrap_or_default() {
        s.mix(sig.signature_key().map_or(0, str::len) as u64);
        s.mix(u64::from(sig.subgraph_index()));
        for tm in sig.inputs().into_iter().chain(sig.outputs()).flatten() {
            s.mix(tm.name().map_or(0, str::len) as u64);
            s.mix(u64::from(tm.tensor_index()));
        }
    }
    for md in m.metadata().unwrap_or_default() {
        s.mix(md.name().map_or(0, str::len) as u64);
        s.mix(u64::from(md.buffer()));
    }
    s.0
}

/// The loader walk through planus's generated code, which checks each field as it reads it.
fn planus_loader_walk(m: plt::ModelRef<'_>) -> planus::Result<u64> {
    let mut s = Sum::default();
    s.mix(u64::from(m.version()?));
    for c in m.operator_codes()?.into_iter().flatten() {
        let c = c?;
        s.mix(c.builtin_code()? as i32 as u64);
        s.mix(c.deprecated_builtin_code()? as u64);
        s.mix(c.version()? as u64);
        s.mix(c.custom_code()?.map_or(0, str::len) as u64);
    }
    for b in m.buffers()?.into_iter().flatten() {
        let b = b?;
        s.mix(b.data()?.map_or(0, |d| d.len()) as u64);
        s.mix(b.offset()? ^ b.size()?);
    }
    for sg in m.subgraphs()?.into_iter().flatten() {
        let sg = sg?;
        for t in sg.tensors()?.into_iter().flatten() {
            let t = t?;
            for d in t.shape()?.into_iter().flatten() {
                s.mix(d as u64);
            }
            s.mix(t.type_()? as i8 as u64);
            s.mix(u64::from(t.buffer()?));
            s.mix(t.name()?.map_or(0, str::len) as u64);
            if let Some(q) = t.quantization()? {
                for x in q.scale()?.into_iter().flatten() {
                    s.mix(u64::from(x.to_bits()));
                }
                for z in q.zero_point()?.into_iter().flatten() {
                    s.mix(z as u64);
                }
            }
        }
        for op in sg.operators()?.into_iter().flatten() {
            let op = op?;
            s.mix(u64::from(op.opcode_index()?));
            for i in op.inputs()?.into_iter().flatten() {
                s.mix(i as u64);
            }
            for o in op.outputs()?.into_iter().flatten() {
                s.mix(o as u64);
            }
            s.mix(u64::from(op.builtin_options()?.is_some()));
        }
        for i in sg.inputs()?.into_iter().flatten() {
            s.mix(i as u64);
        }
        for o in sg.outputs()?.into_iter().flatten() {
            s.mix(o as u64);
        }
        s.mix(sg.name()?.map_or(0, str::len) as u64);
    }
    for sig in m.signature_defs()?.into_iter().flatten() {
        let sig = sig?;
        s.mix(sig.signature_key()?.map_or(0, str::len) as u64);
        s.mix(u64::from(sig.subgraph_index()?));
        for tm in sig.inputs()?.into_iter().chain(sig.outputs()?).flatten() {
            let tm = tm?;
            s.mix(tm.name()?.map_or(0, str::len) as u64);
            s.mix(u64::from(tm.tensor_index()?));
        }
    }
    for md in m.metadata()?.into_iter().flatten() {
        let md = md?;
        s.mix(md.name()?.map_or(0, str::len) as u64);
        s.mix(u64::from(md.buffer()?));
    }
    Ok(s.0)
}

fn group<'c>(c: &'c mut Criterion, name: &str) -> BenchmarkGroup<'c, criterion::measurement::WallTime> {
    c.benchmark_group(name)
}

fn benches(c: &mut Criterion) {
    let inputs = inputs();
    let opts = Options::DEFAULT;

    let mut g = group(c, "verify");
    for i in &inputs {
        g.throughput(Throughput::Elements(i.objects));
        g.bench_function(&i.name, |b| b.iter(|| Model::parse_structure_with(black_box(&i.bytes), &opts).is_ok()));
    }
    g.finish();

    let mut g = group(c, "parse");
    for i in inputs.iter().filter(|i| i.rules_ok) {
        g.throughput(Throughput::Elements(i.objects));
        g.bench_function(&i.name, |b| b.iter(|| Model::parse(black_box(&i.bytes)).is_ok()));
    }
    g.finish();

    let mut g = group(c, "walk");
    for i in &inputs {
        g.throughput(Throughput::Elements(i.objects));
        g.bench_function(&i.name, |b| {
            b.iter(|| {
                let mut walker = Walker::default();
                if let Ok(parsed) = Model::parse_structure_with(black_box(&i.bytes), &opts) {
                    parsed.value.walk(&mut walker);
                }
                black_box(walker)
            })
        });
    }
    g.finish();

    let mut g = group(c, "loader_walk");
    for i in &inputs {
        let Ok(parsed) = Model::parse_structure_with(&i.bytes, &opts) else { continue };
        g.throughput(Throughput::Elements(i.objects));
        g.bench_function(&i.name, |b| b.iter(|| loader_walk(black_box(parsed.value))));
    }
    g.finish();

    let mut g = group(c, "peer_flatbuffers_verify");
    for i in &inputs {
        let Some(fb_opts) = &i.fb_options else { continue };
        g.throughput(Throughput::Elements(i.objects));
        g.bench_function(&i.name, |b| b.iter(|| fbt::root_as_model_with_opts(fb_opts, black_box(&i.bytes)).is_ok()));
    }
    g.finish();

    let mut g = group(c, "peer_unchecked_walk");
    for i in inputs.iter().filter(|i| i.fb_options.is_some()) {
        g.throughput(Throughput::Elements(i.objects));
        g.bench_function(&i.name, |b| {
            b.iter(|| {
                // SAFETY: `fb_options` is only `Some` for bytes that the flatbuffers verifier
                // (`root_as_model_with_opts`, in `inputs()`) accepted, and the bytes are not changed
                // since: they are exactly what `root_as_model_unchecked` requires.
                let model = unsafe { fbt::root_as_model_unchecked(black_box(&i.bytes)) };
                peer_loader_walk(model)
            })
        });
    }
    g.finish();

    let mut g = group(c, "peer_planus_walk");
    for i in &inputs {
        let walk = |bytes: &[u8]| {
            <plt::ModelRef<'_> as planus::ReadAsRoot<'_>>::read_as_root(bytes).and_then(planus_loader_walk)
        };
        if let Err(e) = walk(&i.bytes) {
            eprintln!("note {}: planus rejects it ({e}), so peer_planus_walk is not measured", i.name);
            continue;
        }
        g.throughput(Throughput::Elements(i.objects));
        g.bench_function(&i.name, |b| b.iter(|| walk(black_box(&i.bytes)).is_ok()));
    }
    g.finish();
}

/// The shared-subtree inputs of the linear-work tests: 500 offsets to one SubGraph whose 1000
/// tensor offsets point at one Tensor (about 6 KB), and 30,000 offsets to one Tensor named with
/// a 64 KiB string (about 186 KB). Each reader verifies them with its default limits; flatmodel
/// then reads every tensor's name.
fn attacks(c: &mut Criterion) {
    let long_name = vec![b'a'; 64 * 1024];
    let cases = [
        ("shared_subgraphs_6k", support::shared_subtrees(500, 1000, b"t")),
        ("shared_64k_string_186k", support::shared_subtrees(1, 30_000, &long_name)),
    ];
    let mut g = c.benchmark_group("attack");
    g.sample_size(10);
    for (name, bytes) in &cases {
        g.bench_function(format!("flatmodel/{name}"), |b| {
            b.iter(|| Model::parse_structure_with(black_box(bytes), &Options::DEFAULT).is_ok())
        });
        // After verification, reading every tensor's name: no second UTF-8 check, so this
        // costs the references, not their 30,000 x 64 KiB.
        let model = Model::parse_structure_with(bytes, &Options::DEFAULT).expect("a valid attack").value;
        g.bench_function(format!("flatmodel_read_names/{name}"), |b| {
            b.iter(|| {
                let subgraphs = black_box(model).subgraphs().into_iter().flatten();
                let tensors = subgraphs.flat_map(|sg| sg.tensors().into_iter().flatten());
                tensors.map(|t| t.name().map_or(0, str::len)).sum::<usize>()
            })
        });
        let default = flatbuffers::VerifierOptions::default();
        g.bench_function(format!("peer_flatbuffers/{name}"), |b| {
            b.iter(|| fbt::root_as_model_with_opts(&default, black_box(bytes)).is_ok())
        });
    }
    g.finish();
}

fn config() -> Criterion {
    // Short runs: ~50 models x 7 benchmarks stay within a few minutes on 2 cores. Criterion's
    // command-line options (`--measurement-time`, `--warm-up-time`, ...) override these.
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(1))
        .sample_size(30)
        .configure_from_args()
}

/// cvimodel files (testdata's, then the corpus's): `verify/cvimodel_<stem>` times the header and
/// the body's structural verification (`CviModel::parse_structure_with`), `parse/cvimodel_<stem>`
/// adds the section, weight and routine rules (`CviModel::parse_with`).
fn cvimodels(c: &mut Criterion) {
    use flatmodel::cvimodel::CviModel;
    let mut dirs = vec![support::testdata().join("cvimodel")];
    if let Some(corpus) = std::env::var_os("FLATMODEL_CORPUS") {
        dirs.push(PathBuf::from(corpus).join("cvimodel"));
    }
    let mut inputs: Vec<(String, Vec<u8>, u64)> = Vec::new();
    for path in dirs.iter().flat_map(|d| support::files_with_suffix(d, ".cvimodel")) {
        let name = format!("cvimodel_{}", path.file_stem().map(|s| s.to_string_lossy()).unwrap_or_default());
        let Ok(bytes) = std::fs::read(&path) else { continue };
        if inputs.iter().any(|(n, _, _)| *n == name) {
            continue;
        }
        match CviModel::parse_with(&bytes, &Options::DEFAULT).map(|p| p.stats.objects()) {
            Ok(objects) => inputs.push((name, bytes, objects)),
            Err(e) => eprintln!("skipped {}: {e}", path.display()),
        }
    }
    let opts = Options::DEFAULT;
    let mut g = group(c, "verify");
    for (name, bytes, objects) in &inputs {
        g.throughput(Throughput::Elements(*objects));
        g.bench_function(name, |b| b.iter(|| CviModel::parse_structure_with(black_box(bytes), &opts).is_ok()));
    }
    g.finish();
    let mut g = group(c, "parse");
    for (name, bytes, objects) in &inputs {
        g.throughput(Throughput::Elements(*objects));
        g.bench_function(name, |b| b.iter(|| CviModel::parse_with(black_box(bytes), &opts).is_ok()));
    }
    g.finish();
}

criterion_group! { name = verify; config = config(); targets = benches, attacks, cvimodels }
criterion_main!(verify);
