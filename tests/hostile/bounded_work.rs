//! Library calls after `parse_structure` on shared subtrees (legal, and linear to verify):
//! `for_each_warning` and the bounded walk charge the apparent-size budget and stop, where an
//! unbounded traversal would visit the whole logical (expanded) model; on real models they
//! complete with the same results as without a budget.

use crate::support;

use flatmodel::graph::{Runtime, Warning};
use flatmodel::schema::{walk_bounded, Walk, Walker};
use flatmodel::tflite::Model;
use flatmodel::verify::Options;
use flatmodel::ErrorKind;
use support::{shared_operators, shared_subtrees};

/// 10,000 subgraph offsets to one subgraph of 10,000 inputs and operators: about 10^8 operator
/// visits for a traversal that expands the sharing, in a file of about 120 KB.
fn amplified() -> Vec<u8> {
    let bytes = shared_operators(10_000, 10_000, &[], b"t");
    assert!(bytes.len() < 130_000, "about 120 KB, got {}", bytes.len());
    bytes
}

/// What a walk saw: its counts and checksum.
fn seen(w: &Walker) -> (u64, u64, u64, u64) {
    (w.tables, w.vectors, w.strings, w.checksum)
}

/// No budget to speak of: 2^64 units.
const UNLIMITED: Options =
    Options { apparent_size_per_byte: u32::MAX, max_apparent_size: u64::MAX, ..Options::DEFAULT };

#[test]
fn warnings_on_an_amplified_model_stop_at_the_budget() {
    let bytes = amplified();
    let model = Model::parse_structure(&bytes).expect("shared subtrees are valid structure");
    let mut seen = 0usize;
    let err = model.for_each_warning(|_| seen += 1).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ApparentSizeLimit);
    assert_eq!(seen, 0, "every operator input is a subgraph input: nothing to report");
    // The rules charge at least as much, so they reject it too (it breaks no other rule).
    assert_eq!(Model::parse(&bytes).map(|_| ()).unwrap_err().kind(), ErrorKind::ApparentSizeLimit);
    // A smaller fan-out fits the budget and completes.
    let small = shared_operators(20, 20, &[], b"t");
    let model = Model::parse_structure(&small).unwrap();
    assert!(model.for_each_warning(|_| {}).is_ok());
    assert!(Model::parse(&small).is_ok());
}

/// Options whose budget is exactly `units` whatever the input length.
fn budget(units: u64) -> Options {
    Options { apparent_size_per_byte: u32::MAX, max_apparent_size: units, ..Options::DEFAULT }
}

#[test]
fn warnings_fit_the_smallest_budget_the_rules_accept() {
    // Shared operators (the rules' work) and metadata names compared for duplicates.
    let long = [b'n'; 100];
    let names: [&[u8]; 5] = [b"a", &long, b"b", &long, b"c"];
    let bytes = shared_operators(60, 80, &names, b"t");
    // The smallest budget `parse_with` accepts, by bisection.
    let (mut low, mut high) = (0u64, 1 << 30);
    assert!(Model::parse_with(&bytes, &budget(high)).is_ok());
    while high - low > 1 {
        let mid = low + (high - low) / 2;
        if Model::parse_with(&bytes, &budget(mid)).is_ok() {
            high = mid;
        } else {
            low = mid;
        }
    }
    assert!(high > 60 * 80, "the rules' work follows the sharing: {high}");
    let model = Model::parse_with(&bytes, &budget(high)).unwrap().value;
    let mut found = Vec::new();
    model.for_each_warning_with(&budget(high), |w| found.push(w)).expect("within the rules' budget");
    assert_eq!(found, [Warning::DuplicateMetadataName]);
    // The runtime profiles fit it too, whatever their verdict.
    for runtime in Runtime::ALL {
        let verdict = model.check_runtime_with(runtime, &budget(high));
        assert!(verdict.map_or_else(|e| e.kind() != ErrorKind::ApparentSizeLimit, |()| true), "{runtime}");
    }
    // A budget too small for the walk stops it.
    let err = model.for_each_warning_with(&budget(60 * 80), |_| {}).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ApparentSizeLimit);
    let err = model.check_runtime_with(Runtime::Tflm, &budget(60 * 80)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ApparentSizeLimit);
}

#[test]
fn the_bounded_walk_of_an_amplified_model_stops_at_the_budget() {
    let bytes = amplified();
    let model = Model::parse_structure(&bytes).unwrap();
    let err = walk_bounded(&model, bytes.len(), &Options::DEFAULT).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ApparentSizeLimit);
    assert_eq!(err.location().to_string(), "Model");
    assert!((err.offset() as usize) < bytes.len());
    // A walker with its own budget stops there too, having entered no more than it allowed.
    let mut w = Walker::with_budget(10_000);
    model.walk(&mut w);
    assert!(w.is_exhausted());
    assert!(w.tables <= 10_000, "{} tables", w.tables);
    assert!(w.stopped_at().is_some_and(|at| at < bytes.len()));
}

#[test]
fn a_walk_costs_one_unit_per_table_and_offset_vector_and_element() {
    // Model -> [n x SG] -> SG -> [m x T] -> T, all shared: 1 model table, the subgraphs vector
    // (1 + n), and per subgraph visit 1 table, its tensors vector (1 + m) and m tensor tables.
    let (n, m) = (30u64, 40u64);
    let bytes = shared_subtrees(n as usize, m as usize, b"t");
    let model = Model::parse_structure(&bytes).unwrap();
    let units = 1 + (1 + n) + n * (1 + (1 + m) + m);
    let mut exact = Walker::with_budget(units);
    model.walk(&mut exact);
    assert!(!exact.is_exhausted());
    assert_eq!(exact.tables, 1 + n + n * m, "every path through the sharing is walked");
    let mut short = Walker::with_budget(units - 1);
    model.walk(&mut short);
    assert!(short.is_exhausted());
    // Without a budget the walk is the whole logical tree, as with an exact one.
    let mut full = Walker::default();
    model.walk(&mut full);
    assert_eq!(
        (full.tables, full.vectors, full.strings, full.checksum),
        (exact.tables, exact.vectors, exact.strings, exact.checksum)
    );
}

/// The models `parse` accepts, from testdata and the corpus.
fn valid_models() -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut paths = support::files_with_suffix(&support::testdata().join("tflite"), ".tflite");
    if let Some(corpus) = support::corpus() {
        paths.extend(support::files_with_suffix(&corpus.join("tflite"), ".tflite"));
    }
    let models: Vec<_> = paths
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .filter(|(_, bytes)| Model::parse(bytes).is_ok())
        .collect();
    assert!(models.len() >= 8, "{} models", models.len());
    models
}

#[test]
fn on_valid_models_the_budgets_change_nothing() {
    for (path, bytes) in valid_models() {
        let model = Model::parse(&bytes).unwrap();
        let mut bounded: Vec<Warning> = Vec::new();
        model.for_each_warning(|w| bounded.push(w)).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut unbounded = Vec::new();
        model.for_each_warning_with(&UNLIMITED, |w| unbounded.push(w)).unwrap();
        assert_eq!(bounded, unbounded, "{}", path.display());

        let walked =
            walk_bounded(&model, bytes.len(), &Options::DEFAULT).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut full = Walker::default();
        model.walk(&mut full);
        assert!(full.tables > 0 && !full.is_exhausted());
        assert_eq!(seen(&walked), seen(&full), "{}", path.display());
    }
}

#[cfg(feature = "nnpackage")]
#[test]
fn nnpackage_model_io_copies_no_more_than_the_budget() {
    // 20,000 subgraph inputs naming one tensor with a 60 KB name: 1.2 GB of name copies
    // unbounded, in a valid model of about 220 KB.
    let name = vec![b'x'; 60_000];
    let bytes = shared_operators(1, 20_000, &[], &name);
    assert!(Model::parse(&bytes).is_ok(), "a valid model");
    let err = flatmodel::nnpackage::model_io(&bytes).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ApparentSizeLimit);
    // With a short name the same model's inputs are all read.
    let bytes = shared_operators(1, 20_000, &[], b"t");
    let io = flatmodel::nnpackage::model_io(&bytes).unwrap();
    assert_eq!(io.subgraphs[0].inputs.len(), 20_000);
    assert_eq!(io.subgraphs[0].inputs[19_999].name.as_deref(), Some("t"));
}

#[test]
fn duplicate_metadata_names_are_looked_for_64_entries_ahead() {
    let names: Vec<Vec<u8>> = (0..70).map(|i| format!("name{i}").into_bytes()).collect();
    let with_repeat_at = |distance: usize| {
        let mut names = names.clone();
        names[distance] = names[0].clone();
        let refs: Vec<&[u8]> = names.iter().map(|n| &n[..]).collect();
        shared_operators(1, 1, &refs, b"t")
    };
    let warnings = |bytes: &[u8]| {
        let mut found = Vec::new();
        Model::parse(bytes).unwrap().for_each_warning(|w| found.push(w)).unwrap();
        found
    };
    assert_eq!(warnings(&with_repeat_at(64)), [Warning::DuplicateMetadataName]);
    assert_eq!(warnings(&with_repeat_at(65)), []);
}
