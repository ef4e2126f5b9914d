//! Replays the run-time schema targets' bodies (`flatmodel_fuzz::schema`: `schema_text` and
//! `schema_bfbs`, see `fuzz/README.md`) on stable: over their seeds, every file of
//! `testdata/schemas/`, their regression files (`testdata/regressions/schema_text-*` and
//! `schema_bfbs-*`), the corpus's schema directories when `FLATMODEL_CORPUS` is set,
//! deterministic mutations of the seeds, and proptest's arbitrary inputs. Nothing may panic; in
//! debug builds a read through a view that fails on verified bytes panics too, and what a body
//! accepts it must do the same way twice.

use crate::support;

use flatmodel_fuzz::rng::Rng;
use flatmodel_fuzz::schema::{self, Run};
use proptest::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

type Body = fn(&[u8]) -> Option<Run>;

/// The two targets, by the prefix of their regression files.
const TARGETS: [(&str, Body); 2] = [("schema_text", schema::text), ("schema_bfbs", schema::bfbs)];

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `body` on `data`, turning a panic into an error.
fn run(body: Body, data: &[u8]) -> Result<Option<Run>, String> {
    catch_unwind(AssertUnwindSafe(|| body(data))).map_err(|e| {
        e.downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| e.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "non-string panic".into())
    })
}

/// Saves a failing input where it can be picked up, returning its path.
fn save_failure(name: &str, data: &[u8]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz_replay_schema-failures");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, data).unwrap();
    path
}

/// Runs `body` on `data` twice: a panic, or an accepted input done differently the second
/// time, is pushed to `failures` (the input saved as `name`).
fn replay(target: &str, body: Body, name: &str, data: &[u8], failures: &mut Vec<String>) -> Option<Run> {
    match run(body, data) {
        Err(msg) => {
            let saved = save_failure(&format!("{target}-{name}.bin"), data);
            failures.push(format!("{target} {name}: panicked: {msg} (saved {})", saved.display()));
            None
        }
        Ok(Some(first)) => {
            let second = run(body, data).unwrap_or(None);
            if second != Some(first) {
                failures.push(format!("{target} {name}: not deterministic: {first:?} then {second:?}"));
            }
            Some(first)
        }
        Ok(None) => None,
    }
}

#[test]
fn seeds_load_verify_and_walk() {
    let mut failures = Vec::new();
    let seeds = schema::text_seeds(repo());
    assert!(seeds.len() >= 13, "{} schema_text seeds", seeds.len());
    for (name, data) in &seeds {
        let got = replay("schema_text", schema::text, name, data, &mut failures);
        eprintln!("schema_text {name}: {got:?}");
        match name.as_str() {
            // Includes itself as d/a.fbs, d/d/a.fbs, ...: refused at the include depth limit.
            "include-chain" => assert_eq!(got, None, "{name}"),
            // Each schema loads, and its buffer (its format's own file, or an empty table)
            // verifies as its root and is walked.
            _ => {
                let run = got.unwrap_or_else(|| panic!("schema_text seed {name} does not load"));
                assert!(run.verified > 0 && run.values > 0 && run.dumped > 0, "{name}: {run:?}");
            }
        }
    }
    let seeds = schema::bfbs_seeds(repo());
    assert!(seeds.iter().any(|(n, _)| n == "features"), "no testdata/schemas/features.bfbs");
    for (name, data) in &seeds {
        let got = replay("schema_bfbs", schema::bfbs, name, data, &mut failures);
        eprintln!("schema_bfbs {name}: {got:?}");
        if name == "features" {
            // flatc's binary schema of features.fbs loads, and some of its tables take the
            // empty table (its root does not: a Monster's name is required).
            let run = got.expect("features.bfbs does not load");
            assert!(run.verified > 0 && run.values > 0, "{name}: {run:?}");
        }
    }
    assert!(failures.is_empty(), "{} seeds failed:\n{}", failures.len(), failures.join("\n"));
}

/// The regression files of the schema targets, each through its own target; every file of
/// `testdata/schemas/` (and of the corpus's `schemas/` when `FLATMODEL_CORPUS` is set) through
/// both, as a `.bfbs` and as a lone schema text.
#[test]
fn regressions_and_schema_files_do_not_panic() {
    let mut failures = Vec::new();
    let regressions = support::files_with_suffix(&support::testdata().join("regressions"), ".bin");
    let mut replayed = 0;
    for path in &regressions {
        let file = path.file_name().unwrap().to_string_lossy().to_string();
        let Some(&(target, body)) = TARGETS.iter().find(|(t, _)| file.starts_with(&format!("{t}-"))) else {
            continue;
        };
        replay(target, body, &file, &std::fs::read(path).unwrap(), &mut failures);
        replayed += 1;
    }
    let mut files = support::files_with_suffix(&support::testdata().join("schemas"), "");
    if let Some(corpus) = support::corpus() {
        files.extend(support::files_with_suffix(&corpus.join("schemas"), ""));
    }
    assert!(!files.is_empty(), "no testdata/schemas");
    for path in &files {
        let data = std::fs::read(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        for (target, body) in TARGETS {
            replay(target, body, &name, &data, &mut failures);
        }
    }
    eprintln!("{replayed} regression files, {} schema files", files.len());
    assert!(failures.is_empty(), "{} inputs failed:\n{}", failures.len(), failures.join("\n"));
}

/// How many mutants of a seed of `len` bytes to try: many for small seeds, few for large (the
/// large ones are whole format schemas, whose every mutant is read and resolved again).
fn mutant_count(len: usize) -> usize {
    (600_000 / len.max(1)).clamp(10, 400)
}

/// Mutants of each seed, one to three edits each (`flatmodel_fuzz::schema::mutate`: text-aware
/// and byte-level). Nothing may panic; some mutants must still load and verify, some not.
#[test]
fn mutated_seeds_do_not_panic() {
    let mut failures = Vec::new();
    let text_seeds = schema::text_seeds(repo());
    let bfbs_seeds = schema::bfbs_seeds(repo());
    let all = [("schema_text", schema::text as Body, &text_seeds), ("schema_bfbs", schema::bfbs as Body, &bfbs_seeds)];
    for (target, body, seeds) in all {
        let (mut mutants, mut loaded, mut verified) = (0usize, 0usize, 0usize);
        for (s, (name, seed)) in seeds.iter().enumerate() {
            for i in 0..mutant_count(seed.len()) {
                let mut rng = Rng(0x5C4E_3A00 ^ ((s as u64) << 32) ^ i as u64);
                let mut data = seed.clone();
                for _ in 0..1 + rng.below(3) {
                    schema::mutate(&mut rng, &mut data);
                }
                mutants += 1;
                if let Some(run) = replay(target, body, &format!("{name}-{i}"), &data, &mut failures) {
                    loaded += 1;
                    verified += usize::from(run.verified > 0);
                }
            }
        }
        eprintln!("{target}: {mutants} mutants, {loaded} load, {verified} of them verify a buffer");
        assert!(loaded > 0 && loaded < mutants, "{target}: vacuous mutator: {loaded} of {mutants} load");
        assert!(verified > 0, "{target}: no mutant verified a buffer");
    }
    assert!(failures.is_empty(), "{} mutants failed:\n{}", failures.len(), failures.join("\n"));
}

/// Schema-like text: tokens of the schema language in any order, then perhaps a buffer.
fn schema_like() -> impl Strategy<Value = Vec<u8>> {
    let token = proptest::sample::select(schema::TOKENS.to_vec());
    let words = proptest::sample::select(vec!["T", "S", "U", "E", "a", "b", "x.y.T", "A", "B"]);
    let piece = prop_oneof![3 => token.prop_map(|t| t.to_string()), 2 => words.prop_map(|w| format!("{w} "))];
    (proptest::collection::vec(piece, 0..64), any::<bool>(), proptest::collection::vec(any::<u8>(), 0..256)).prop_map(
        |(pieces, with_buffer, buffer)| {
            let mut v = pieces.concat().into_bytes();
            if with_buffer {
                v.push(schema::BUFFER_SEPARATOR);
                v.extend_from_slice(&schema::empty_table(None));
                v.extend_from_slice(&buffer);
            }
            v
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_inputs_do_not_panic(
        data in prop_oneof![proptest::collection::vec(any::<u8>(), 0..2048), schema_like()]
    ) {
        for (_, body) in TARGETS {
            let first = body(&data);
            prop_assert_eq!(first, body(&data));
        }
    }
}

/// `fuzz/dict/schema.dict` (libFuzzer's dictionary for `schema_text`) holds the mutator's tokens.
#[test]
fn the_dictionary_holds_the_tokens() {
    let dict = std::fs::read_to_string(repo().join("fuzz/dict/schema.dict")).unwrap();
    let mut entries = Vec::new();
    for line in dict.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let quoted = line.strip_prefix('"').and_then(|l| l.strip_suffix('"')).unwrap_or_else(|| panic!("{line}"));
        let (mut bytes, mut rest) = (Vec::new(), quoted.as_bytes());
        while let Some((&b, tail)) = rest.split_first() {
            rest = tail;
            match (b, rest) {
                (b'\\', [b'x', h, l, tail @ ..]) => {
                    bytes.push(u8::from_str_radix(std::str::from_utf8(&[*h, *l]).unwrap(), 16).unwrap());
                    rest = tail;
                }
                (b'\\', [c, tail @ ..]) => {
                    bytes.push(*c);
                    rest = tail;
                }
                _ => bytes.push(b),
            }
        }
        entries.push(String::from_utf8(bytes).unwrap());
    }
    let tokens: Vec<String> = schema::TOKENS.iter().map(|t| t.to_string()).collect();
    assert_eq!(entries, tokens);
}
