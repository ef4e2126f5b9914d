//! The bodies of the fuzz targets in `fuzz/`, kept in the library so `cargo test` can replay
//! them on stable. Each takes arbitrary bytes, must never panic on them, and on bytes that
//! verify reads everything reachable: a read that fails on verified bytes fires the debug
//! assertion in [`crate::wire::broken`].

use crate::graph::{ModelView, SubGraphView};
use crate::schema::{TableType, Walk, Walker};
use crate::verify::Options;
use crate::{circle, tflite, Format};

/// A `fmt::Write` that only counts, so dumps run without allocating.
struct Sink(usize);

impl core::fmt::Write for Sink {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.0 = self.0.wrapping_add(s.len());
        Ok(())
    }
}

/// Verifies `data` as TFLite; when it verifies, walks every accessor of every reachable
/// table, the runtime helpers and the dump. Returns the walk, or `None` if `data` is invalid.
pub fn tflite(data: &[u8]) -> Option<Walker> {
    let parsed = tflite::Model::parse_structure_with(data, &Options::DEFAULT).ok()?;
    let model = parsed.model;
    let mut walker = Walker::default();
    model.walk(&mut walker);
    graph_helpers(model, tflite::Model::parse(data).is_ok());
    model.for_each_warning(|_| {});
    for sg in model.subgraphs().into_iter().flat_map(|s| s.iter()) {
        for op in sg.operators().into_iter().flat_map(|o| o.iter()) {
            let _ = model.operator_code(&op).map(|c| c.builtin_operator());
        }
    }
    let _ = model.min_runtime_version();
    let _ = model.metadata_flatbuffer("TFLITE_METADATA", Some(*b"M001"));
    if let Some(key) = model.signature_defs().and_then(|s| s.get(0)).and_then(|s| s.signature_key()) {
        debug_assert!(model.signature(key).is_some(), "a signature must be found by its own key");
    }
    let _ = crate::dump::dump_table(&mut Sink(0), model.raw(), tflite::Model::desc(), &Options::DEFAULT);
    Some(walker)
}

/// Verifies `data` as Circle; when it verifies, walks every accessor of every reachable table,
/// the shared helpers and the dump. Returns the walk, or `None` if `data` is invalid.
pub fn circle(data: &[u8]) -> Option<Walker> {
    let parsed = circle::Model::parse_structure_with(data, &Options::DEFAULT).ok()?;
    let model = parsed.model;
    let mut walker = Walker::default();
    model.walk(&mut walker);
    graph_helpers(model, circle::Model::parse(data).is_ok());
    model.for_each_warning(|_| {});
    let _ = crate::dump::dump_table(&mut Sink(0), model.raw(), circle::Model::desc(), &Options::DEFAULT);
    Some(walker)
}

/// [`tflite`] or [`circle`], as the bytes' identifier says ([`tflite`] when it names neither).
pub fn any(data: &[u8]) -> Option<Walker> {
    match crate::detect(data) {
        Some(Format::Circle) => circle(data),
        _ => tflite(data),
    }
}

/// The shared model graph's helpers, which must not panic whatever the model rules say; on a
/// model that passed them (`valid`), every buffer must resolve.
fn graph_helpers<'a, M: ModelView<'a>>(model: M, valid: bool) {
    for i in 0..model.buffer_count().unwrap_or(0) {
        let data = u32::try_from(i).ok().map(|i| model.buffer_data(i));
        if valid {
            debug_assert!(data.is_some_and(|d| d.is_ok()), "a valid model's buffer must resolve");
        }
    }
    let _ = model.buffer_bytes();
    for sg in model.subgraph_list().into_iter().flat_map(|s| s.iter()) {
        for op in sg.operators().into_iter().flat_map(|o| o.iter()) {
            let _ = model.custom_options(&op);
            let _ = model.operator_kind(&op);
        }
        for t in sg.tensors().into_iter().flat_map(|t| t.iter()) {
            let _ = model.tensor_data(&t);
        }
    }
}

/// For the fuzz targets' stable fallback: runs `target` on each file named on the command
/// line. Returns whether every file could be read (a panic in `target` ends the process).
#[cfg(feature = "std")]
pub fn replay_args<T>(target: fn(&[u8]) -> T) -> bool {
    let mut all_read = true;
    for path in std::env::args_os().skip(1) {
        match std::fs::read(&path) {
            Ok(bytes) => {
                target(&bytes);
                std::println!("{}: ok", path.to_string_lossy());
            }
            Err(e) => {
                std::eprintln!("{}: {e}", path.to_string_lossy());
                all_read = false;
            }
        }
    }
    all_read
}
