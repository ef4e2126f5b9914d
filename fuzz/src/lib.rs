//! The bodies of the fuzz targets in `fuzz_targets/`, a library so that the main crate's
//! `tests/hostile/fuzz_replay.rs` can replay them on stable. Each takes arbitrary bytes, must never
//! panic on them, and on bytes that verify reads everything reachable through flatmodel's
//! public API: a read that fails on verified bytes fires flatmodel's debug assertion
//! (`wire::broken`).

pub mod capi;
pub mod differential;
pub mod mutator;
pub mod rng;
pub mod schema;
#[cfg(not(fuzzing))]
pub mod seeds;
pub mod views;

use flatmodel::dump::{dump_table, Dumpable};
use flatmodel::graph::{ModelView, Runtime, SubGraphView, Warning};
use flatmodel::nnpackage::{FileBytes, Limits, Manifest, Package};
use flatmodel::schema::{Walk, Walker};
use flatmodel::verify::Options;
use flatmodel::{circle, tflite, Format};

/// A fuzz target's body: the library function it calls, its result dropped.
pub type Body = fn(&[u8]);

/// Every fuzz target by its name in `Cargo.toml`, with the library function its body calls
/// (the result dropped): what the replay tests run each target's seeds and regression files
/// through. A target added to `Cargo.toml` is added here too (a test compares the two lists).
pub const TARGETS: &[(&str, Body)] = &[
    ("tflite", |d| {
        let _ = tflite(d);
    }),
    ("circle", |d| {
        let _ = circle(d);
    }),
    ("xnnpack", |d| {
        let _ = xnnpack(d);
    }),
    ("ptd", |d| {
        let _ = ptd(d);
    }),
    ("litertlm", |d| {
        let _ = litertlm(d);
    }),
    ("vkgraph", |d| {
        let _ = vkgraph(d);
    }),
    ("pte", |d| {
        let _ = pte(d);
    }),
    ("cvimodel", |d| {
        let _ = cvimodel(d);
    }),
    ("package_zip", |d| {
        let _ = package_zip(d);
    }),
    ("bundle", |d| {
        let _ = bundle(d);
    }),
    ("manifest", |d| {
        let _ = manifest(d);
    }),
    ("differential", |d| {
        let _ = differential::tflite(d);
    }),
    ("schema_text", |d| {
        let _ = schema::text(d);
    }),
    ("schema_bfbs", |d| {
        let _ = schema::bfbs(d);
    }),
    ("views", |d| {
        let _ = views::views(d);
    }),
    ("capi", |d| {
        let _ = capi::capi(d);
    }),
];

/// A `fmt::Write` that only counts, so dumps run without allocating.
struct Sink(usize);

impl core::fmt::Write for Sink {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.0 = self.0.wrapping_add(s.len());
        Ok(())
    }
}

/// The most values a format target's dump prints: enough for every field of the small seeds,
/// while a large input's dump stops early ([`flatmodel::dump::DumpError::TooLarge`]) instead of
/// formatting every byte of its data each execution. (The `views` target dumps everything.)
const DUMP_VALUES: u64 = 8192;

/// Dumps `root` into a counting sink, at most [`DUMP_VALUES`] values.
fn dump(root: Dumpable<'_>) {
    let options = Options { max_apparent_size: DUMP_VALUES, ..Options::DEFAULT };
    let _ = dump_table(&mut Sink(0), root, &options);
}

/// A walker with the default work budget for `len` input bytes: a target's work must stay
/// linear in its input, which an unbounded walk of shared subtrees is not.
fn walker(len: usize) -> Walker {
    Walker::with_budget(Options::DEFAULT.apparent_size_budget(len))
}

/// Verifies `data` as TFLite; when it verifies, walks every accessor of every reachable
/// table (within the work budget), the runtime helpers and the dump. Returns the walk, or
/// `None` if `data` is invalid.
pub fn tflite(data: &[u8]) -> Option<Walker> {
    let parsed = tflite::Model::parse_structure_with(data, &Options::DEFAULT).ok()?;
    let model = parsed.value;
    let mut walker = walker(data.len());
    model.walk(&mut walker);
    let valid = model.check_rules(&Options::DEFAULT).is_ok();
    graph_helpers(model, valid, |op| {
        let _ = model.operator_code(op).map(|c| c.builtin_operator());
    });
    // Each runtime's first refusal among the warnings, and its verdict: the same error.
    let mut first: Vec<(Runtime, flatmodel::Error)> = Vec::new();
    let warnings = model.for_each_warning(|w| {
        if let Warning::RuntimeRefuses { runtime, error, .. } = w {
            if !first.iter().any(|(r, _)| *r == runtime) {
                first.push((runtime, error));
            }
        }
    });
    if valid {
        debug_assert!(warnings.is_ok(), "the warnings of a valid model must fit the rules' budget");
    }
    for runtime in Runtime::ALL {
        let verdict = model.check_runtime(runtime);
        if valid {
            let refusal = first.iter().find(|(r, _)| *r == runtime).map(|(_, e)| *e);
            debug_assert_eq!(verdict.err(), refusal, "{runtime}: the verdict is the first refusal warned of");
        }
    }
    // The nested metadata flatbuffers: verified (the model rules verified them already), walked.
    if let Some(meta) = model.support_metadata() {
        debug_assert!(!valid || meta.is_ok(), "a valid model's TFLITE_METADATA verifies");
        if let Ok(meta) = meta {
            meta.walk(&mut walker);
        }
    }
    if let Some(record) = model.conversion_metadata() {
        debug_assert!(!valid || record.is_ok(), "a valid model's CONVERSION_METADATA verifies");
        if let Ok(record) = record {
            record.walk(&mut walker);
        }
    }
    let _ = model.min_runtime_version();
    let _ = model.metadata_bytes_with_identifier("TFLITE_METADATA", *b"M001");
    if let Some(key) = model.signature_defs().and_then(|s| s.get(0)).and_then(|s| s.signature_key()) {
        debug_assert!(model.signature(key).is_some(), "a signature must be found by its own key");
    }
    dump(Dumpable::new(model));
    Some(walker)
}

/// Verifies `data` as Circle; when it verifies, walks every accessor of every reachable table
/// (within the work budget), the shared helpers and the dump. Returns the walk, or `None` if
/// `data` is invalid.
pub fn circle(data: &[u8]) -> Option<Walker> {
    let parsed = circle::Model::parse_structure_with(data, &Options::DEFAULT).ok()?;
    let model = parsed.value;
    let mut walker = walker(data.len());
    model.walk(&mut walker);
    let valid = model.check_rules(&Options::DEFAULT).is_ok();
    graph_helpers(model, valid, |_| {});
    let warnings = model.for_each_warning(|_| {});
    if valid {
        debug_assert!(warnings.is_ok(), "the warnings of a valid model must fit the rules' budget");
    }
    // The nested training parameters: verified (the model rules verified them already), walked.
    if let Some(training) = model.training() {
        debug_assert!(!valid || training.is_ok(), "a valid model's CIRCLE_TRAINING verifies");
        if let Ok(training) = training {
            training.walk(&mut walker);
        }
    }
    let _ = model.revision();
    model.for_each_run_model(|_| {});
    if let Ok(root) = model.dump_root() {
        dump(root);
    }
    dump(Dumpable::new(model));
    Some(walker)
}

/// [`tflite`] or [`circle`], as the bytes' identifier says ([`tflite`] when it names neither).
pub fn any(data: &[u8]) -> Option<Walker> {
    match flatmodel::detect(data) {
        Some(Format::Circle) => circle(data),
        Some(Format::VkGraph) => vkgraph(data),
        Some(Format::Xnnpack) => xnnpack(data),
        Some(Format::Ptd) => ptd(data),
        Some(Format::LitertLm) => litertlm(data),
        Some(Format::Pte) => pte(data),
        Some(Format::Cvimodel) => cvimodel(data),
        _ => tflite(data),
    }
}

/// Verifies `data` as a cvimodel; when its header and body verify, walks every accessor, resolves
/// every section, weight, routine and tagged offset, and dumps the body. Returns the walk, or
/// `None` if `data` is invalid.
pub fn cvimodel(data: &[u8]) -> Option<Walker> {
    use flatmodel::cvimodel::CviModel;
    let file = CviModel::parse_structure_with(data, &Options::DEFAULT).ok()?.value;
    let model = file.model();
    let mut walker = walker(data.len());
    model.walk(&mut walker);
    let valid = file.check(&Options::DEFAULT).is_ok();
    for (i, section) in file.sections().enumerate() {
        if valid {
            debug_assert!(section.is_ok(), "a valid model's sections must resolve");
        }
        if valid {
            // Verification walked every unencrypted LZ4 block: lz4_flex must inflate it exactly.
            let inflated = file.decompress_section(i);
            let encrypted = section.as_ref().is_ok_and(|r| r.section.encrypt());
            debug_assert!(inflated.is_ok() || encrypted, "a verified section must decompress: {inflated:?}");
        }
    }
    // Lookups by name scan the sections or weights: only the first few, so the target stays
    // linear in the input (`check` bounds its own lookups by the work budget).
    for (i, w) in model.weight_map().into_iter().flatten().enumerate() {
        let _ = w.address();
        if i < 16 {
            let _ = file.weight_data(&w);
            if let Some(name) = w.name() {
                debug_assert!(file.weight(name).is_some(), "a weight must be found by its own name");
            }
        }
    }
    for p in model.programs().into_iter().flatten().take(16) {
        for r in p.routines().into_iter().flatten().take(16) {
            let resolved = file.routine_section(&r);
            if valid {
                debug_assert!(resolved.is_ok(), "a valid model's routines must resolve");
            }
        }
        for t in p.tensor_map().unwrap_or_default() {
            let _ = t.address();
        }
    }
    let _ = file.memory_usage();
    let _ = file.for_each_warning(|_| {});
    dump(Dumpable::new(model));
    Some(walker)
}

/// The shared model graph's helpers, which must not panic whatever the model rules say; on a
/// model that passed them (`valid`), every buffer must resolve. `per_op` is called for each
/// operator visited. The visits of operators and tensors are counted against the default work
/// budget, as shared subgraphs can make them far more than the file holds.
fn graph_helpers<'a, M: ModelView<'a>>(model: M, valid: bool, mut per_op: impl FnMut(&M::Operator)) {
    for i in 0..model.buffer_count().unwrap_or(0) {
        let data = u32::try_from(i).ok().map(|i| model.buffer_data(i));
        if valid {
            debug_assert!(data.is_some_and(|d| d.is_ok()), "a valid model's buffer must resolve");
        }
    }
    let _ = model.buffer_bytes();
    let mut budget = Options::DEFAULT.apparent_size_budget(model.file().len());
    for sg in model.subgraph_list().unwrap_or_default() {
        let ops = sg.operators();
        let tensors = sg.tensors();
        let visits = ops.map_or(0, |o| o.len()).saturating_add(tensors.map_or(0, |t| t.len()));
        match budget.checked_sub(visits as u64) {
            Some(left) => budget = left,
            None => return,
        }
        for op in ops.unwrap_or_default() {
            let options = model.custom_options(&op);
            if valid {
                debug_assert!(options.is_ok(), "a valid model's custom options must resolve");
            }
            let _ = model.operator_kind(&op);
            per_op(&op);
        }
        for t in tensors.unwrap_or_default() {
            let _ = model.tensor_data(&t);
        }
    }
}

/// Reads `data` as a Vulkan delegate blob (or bare VkGraph); when its structure verifies,
/// walks every table, resolves every constant and shader, runs the graph rules and the dump.
pub fn vkgraph(data: &[u8]) -> Option<Walker> {
    let blob = flatmodel::vkgraph::Blob::parse_structure(data).ok()?;
    let mut walker = walker(data.len());
    blob.graph().walk(&mut walker);
    vkgraph_helpers(&blob, |_| None);
    let _ = blob.check_rules(&Options::DEFAULT);
    dump(Dumpable::new(blob.graph()));
    Some(walker)
}

/// Reads `data` as an ExecuTorch program; when its structure verifies, walks every table,
/// every segment, delegate blob (Vulkan ones as blobs, constants through the named data) and
/// named datum, runs the program's rules, lists the keys it reads from named data and checks
/// them against none, and runs the dump. One walker, with the work budget of
/// `data`, walks the program and the blobs.
pub fn pte(data: &[u8]) -> Option<Walker> {
    let file = flatmodel::pte::PteFile::parse_structure(data).ok()?;
    let mut walker = walker(data.len());
    file.program().walk(&mut walker);
    for i in 0..file.program().segments().map_or(0, |s| s.len()) {
        let _ = file.segment(i);
    }
    for i in 0..file.program().named_data().map_or(0, |n| n.len()) {
        let _ = file.named_data_at(i);
    }
    for delegate in file.delegates().take(1024) {
        let _ = file.delegate_blob(&delegate);
        if let Some(Ok(blob)) = file.vulkan_blob(&delegate) {
            blob.graph().walk(&mut walker);
            vkgraph_helpers(&blob, |key| file.named_data(key));
        }
        if let Some(Ok(blob)) = file.xnnpack_blob(&delegate) {
            blob.graph().walk(&mut walker);
            xnnpack_helpers(&blob, |key| file.named_data(key));
        }
    }
    if file.check_rules(&Options::DEFAULT).is_ok() {
        // The keys it reads from named data, and the check against none (within the budget).
        let _ = file.data_keys(&Options::DEFAULT, |k| {
            let _ = file.find_data(&k, &[]);
        });
        let _ = file.check_data(&[], &Options::DEFAULT).map_err(flatmodel::Error::from);
    }
    dump(Dumpable::new(file.program()));
    Some(walker)
}

/// Reads `data` as an XNNPACK delegate blob (or bare XNNGraph); when its structure verifies,
/// walks every table, resolves every constant, reads every node's ids, runs the graph rules and
/// the dump.
pub fn xnnpack(data: &[u8]) -> Option<Walker> {
    let blob = flatmodel::xnnpack::Blob::parse_structure(data).ok()?;
    let mut walker = walker(data.len());
    blob.graph().walk(&mut walker);
    xnnpack_helpers(&blob, |_| None);
    let _ = blob.check_rules(&Options::DEFAULT);
    dump(Dumpable::new(blob.graph()));
    Some(walker)
}

/// Reads `data` as an ExecuTorch data file (`.ptd`); when its structure verifies, walks every
/// table, resolves every segment and named datum, runs the rules and the dump.
pub fn ptd(data: &[u8]) -> Option<Walker> {
    let file = flatmodel::ptd::PtdFile::parse_structure(data).ok()?;
    let mut walker = walker(data.len());
    file.flat_tensor().walk(&mut walker);
    for i in 0..file.flat_tensor().segments().map_or(0, |s| s.len()).min(4096) {
        let _ = file.segment(i);
    }
    for d in file.flat_tensor().named_data().unwrap_or_default().into_iter().take(64) {
        let _ = d.key().map(|k| file.named_data(k));
    }
    let _ = file.check_rules(&Options::DEFAULT);
    dump(Dumpable::new(file.flat_tensor()));
    Some(walker)
}

/// Reads `data` as a LiteRT-LM file (`.litertlm`); when its header and metadata verify, walks
/// the metadata, resolves every section (each TFLite one verified as a model, and walked when it
/// verifies), runs the rules and the dump.
pub fn litertlm(data: &[u8]) -> Option<Walker> {
    use flatmodel::litertlm::{AnySectionDataType, LitertLmFile};
    let file = LitertLmFile::parse_structure(data).ok()?;
    let mut walker = walker(data.len());
    file.metadata().walk(&mut walker);
    let valid = file.check_rules(&Options::DEFAULT).is_ok();
    for i in 0..file.section_count().min(4096) {
        let Ok(section) = file.section(i) else {
            debug_assert!(!valid, "every section of a valid file lies inside it");
            continue;
        };
        if section.data_type == AnySectionDataType::TFLiteModel {
            let model = file.tflite_model(i, &Options::DEFAULT);
            debug_assert!(!valid || model.is_ok(), "every TFLite section of a valid file verifies");
            if let Ok(model) = model {
                model.walk(&mut walker);
            }
        }
    }
    let _ = file.section(usize::MAX);
    dump(Dumpable::new(file.metadata()));
    Some(walker)
}

/// Every constant of `blob`, resolved, and every node's and value's helpers (bounded, as a
/// fuzzed graph can be long).
fn xnnpack_helpers<'a>(blob: &flatmodel::xnnpack::Blob<'a>, named: impl Fn(&str) -> Option<&'a [u8]> + Copy) {
    for i in 0..blob.graph().constant_data().map_or(0, |c| c.len()).min(4096) {
        let _ = blob.constant(i);
        let _ = blob.constant_data(i, named);
    }
    for node in blob.graph().xnodes().unwrap_or_default().into_iter().take(4096) {
        if let Some(ids) = flatmodel::xnnpack::NodeIds::of(&node.xnode_union()) {
            for i in 0..ids.inputs().len() {
                let _ = (ids.is_absent(i), ids.field(i));
            }
            let _ = ids.outputs();
        }
    }
    for value in blob.graph().xvalues().unwrap_or_default().into_iter().take(4096) {
        if let Some(t) = value.tensor() {
            let _ = t.datatype().element_bits();
        }
        let _ = value.quantized().map(|q| q.quant_params());
    }
}

/// Every constant and shader of `blob`, resolved (bounded, as a fuzzed graph can be long).
fn vkgraph_helpers<'a>(blob: &flatmodel::vkgraph::Blob<'a>, named: impl Fn(&str) -> Option<&'a [u8]> + Copy) {
    for i in 0..blob.graph().constants().map_or(0, |c| c.len()).min(4096) {
        let _ = blob.constant_data(i, named);
    }
    for i in 0..blob.graph().shaders().map_or(0, |s| s.len()).min(4096) {
        let _ = blob.shader(i);
    }
}

/// Limits for fuzzing packages: the defaults, with the inflated total capped at 64 MiB so
/// that a zip bomb is refused quickly (the cap is what is under test, not its size).
const PACKAGE_LIMITS: Limits = Limits { max_zip_bytes: 64 << 20, ..Limits::DEFAULT };

/// Opens `data` as a zip archive of an nnpackage held in memory; when it opens, reads what the
/// package holds (MANIFEST, config, each model's bytes and inputs and outputs). Returns the
/// number of bytes and tensors seen, or `None` if `data` is no valid package.
pub fn package_zip(data: &[u8]) -> Option<usize> {
    let package = Package::from_zip_bytes(FileBytes::from_vec(data.to_vec()), &PACKAGE_LIMITS).ok()?;
    let mut seen = package.manifest().models.len();
    if let Some(config) = package.config() {
        seen = seen.wrapping_add(config.entries.len());
    }
    for model in package.models() {
        seen = seen.wrapping_add(model.bytes.as_bytes().len());
        for subgraph in model.io.iter().flat_map(|io| io.subgraphs.iter()) {
            seen = seen.wrapping_add(subgraph.inputs.len()).wrapping_add(subgraph.outputs.len());
        }
    }
    Some(seen)
}

/// Reads `data` as a model bundle (a zip of models that is not an nnpackage, such as a
/// MediaPipe `.task`) held in memory: the zip reader, inflation within the limits, each
/// member's format verified; when it reads, each model member is opened again and walked
/// ([`any`]).
/// Returns the members' sizes added up with the objects walked, or `None` if it is invalid.
pub fn bundle(data: &[u8]) -> Option<usize> {
    use flatmodel::bundle::Bundle;
    let is_bundle = flatmodel::bundle::is_bundle(data);
    let bundle = Bundle::read(data, &PACKAGE_LIMITS).ok()?;
    // `is_bundle` wants the bytes to start as a zip archive (a local file header, or the end
    // record of an empty one), while the zip reader finds the central directory from the end
    // (bytes before the first entry are allowed); and it leaves a zip to a model format that
    // claims its first bytes (a zip whose header's version and flags spell `FT01` is a `.ptd`).
    let starts_as_zip = data.starts_with(b"PK\x03\x04") || data.starts_with(b"PK\x05\x06");
    let claimed = flatmodel::detect(data).is_some();
    debug_assert!(is_bundle || claimed || !starts_as_zip, "a bundle that reads is recognised as one");
    let mut seen = 0usize;
    for (i, member) in bundle.members().iter().enumerate() {
        seen = seen.wrapping_add(member.size());
        match bundle.member_file(i) {
            Some(Ok(_)) => {
                // Each model member walked as its format's target walks it.
                let walked = any(member.bytes()).map_or(0, |w| w.objects());
                seen = seen.wrapping_add(usize::try_from(walked).unwrap_or(usize::MAX));
            }
            Some(Err(_)) => debug_assert!(false, "a member of a bundle that read verifies again"),
            None => debug_assert!(member.format().is_none(), "a member a format claims opens"),
        }
    }
    Some(seen)
}

/// Parses `data` as an nnpackage MANIFEST. Returns how many models it lists, or `None` if it
/// is invalid.
pub fn manifest(data: &[u8]) -> Option<usize> {
    Manifest::parse(data, &PACKAGE_LIMITS).ok().map(|m| m.models.len())
}

/// For the fuzz targets' stable fallback: runs `target` on each file named on the command
/// line. Returns whether every file could be read (a panic in `target` ends the process).
pub fn replay_args<T>(target: fn(&[u8]) -> T) -> bool {
    let mut all_read = true;
    for path in std::env::args_os().skip(1) {
        match std::fs::read(&path) {
            Ok(bytes) => {
                target(&bytes);
                println!("{}: ok", path.to_string_lossy());
            }
            Err(e) => {
                eprintln!("{}: {e}", path.to_string_lossy());
                all_read = false;
            }
        }
    }
    all_read
}
