//! `flatmodel dump` against flatc: for every TFLite and Circle file with a `.flatc.json`
//! reference (in `testdata/` always, in the corpus when `FLATMODEL_CORPUS` is set), our JSON
//! parsed equals flatc's, floats within flatc's printing precision. flatc writes non-finite
//! floats as bare `inf`/`nan`, as the dump does, which JSON cannot hold: both sides read those
//! tokens as strings and must agree on them (`docs/executorch.md` §3.8); `u64` values past
//! 2^53 are compared exactly.

use crate::support;

use flatmodel::verify::Options;
use flatmodel::{circle, litertlm, ptd, pte, tflite, vkgraph, xnnpack};
use serde_json::Value;
use std::path::Path;

/// Fields with their defaults (as JSON text) that one side of a comparison may lack: a
/// reference dumped with an older schema cannot show a newer field, and a Circle file whose
/// content does not tell its revision is dumped with one revision's names.
type Defaults = &'static [(&'static str, &'static str)];

/// What a comparison lets differ: fields only ours may show, and fields only flatc's may show,
/// each only while it holds the default given.
struct Allowed {
    extra: Defaults,
    missing: Defaults,
}

/// The LiteRT revision after v2.15 (`docs/tflite.md` §1.7).
const TFLITE_NEWER: Allowed =
    Allowed { extra: &[("external_buffer", "0"), ("debug_metadata_index", "-1")], missing: &[] };

/// Nothing may differ.
const EXACT: Allowed = Allowed { extra: &[], missing: &[] };

/// Circle 0.10 against references made with ONE's `res/CircleSchema/0.10` schema, which the
/// project's (ONE's later 0.10 file) extends by `debug_metadata_index` (corpus README).
const CIRCLE_LATER: Allowed = Allowed { extra: &[("debug_metadata_index", "-1")], missing: &[] };

/// A Circle file whose content does not tell its revision (`circle::Revision::Undetermined`)
/// is dumped with 0.10's names; against a revision-0 reference, the 0.10 scalars revision 0
/// lacks may show in ours at their defaults, and revision 0's `data_format` (deprecated in
/// 0.10, so not dumped) may show in flatc's at its default.
const CIRCLE_UNDETERMINED: Allowed = Allowed {
    extra: &[
        ("debug_metadata_index", "-1"),
        ("deprecated_builtin_code", "0"),
        ("has_rank", "false"),
        ("compression_type", "\"NONE\""),
        ("quantized_dimension", "0"),
        ("large_custom_options_offset", "0"),
        ("large_custom_options_size", "0"),
        ("builtin_options_2_type", "\"NONE\""),
        ("offset", "0"),
        ("size", "0"),
    ],
    missing: &[("data_format", "\"CHANNELS_LAST\"")],
};

/// Whether `allowed` lists field `name` with default `value`.
fn listed(allowed: Defaults, name: &str, value: &Value) -> bool {
    allowed.iter().any(|(n, default)| *n == name && serde_json::from_str::<Value>(default).ok().as_ref() == Some(value))
}

fn same_number(ours: &serde_json::Number, theirs: &serde_json::Number) -> bool {
    if let (Some(a), Some(b)) = (ours.as_i64(), theirs.as_i64()) {
        return a == b;
    }
    if let (Some(a), Some(b)) = (ours.as_u64(), theirs.as_u64()) {
        return a == b;
    }
    let (a, b) = (ours.as_f64().unwrap(), theirs.as_f64().unwrap());
    // flatc prints 6 digits after the point.
    (a - b).abs() <= 5e-7 + 1e-6 * b.abs()
}

fn compare(ours: &Value, theirs: &Value, path: &str, allowed: &Allowed) -> Result<(), String> {
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                match a.get(k) {
                    Some(mine) => compare(mine, v, &format!("{path}.{k}"), allowed)?,
                    None if listed(allowed.missing, k, v) => {}
                    None => return Err(format!("{path}.{k}: missing in ours")),
                }
            }
            for (k, v) in a {
                if !b.contains_key(k) && !listed(allowed.extra, k, v) {
                    return Err(format!("{path}.{k}: only in ours ({v})"));
                }
            }
            Ok(())
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                return Err(format!("{path}: length {} vs flatc's {}", a.len(), b.len()));
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                compare(x, y, &format!("{path}[{i}]"), allowed)?;
            }
            Ok(())
        }
        (Value::Number(a), Value::Number(b)) if same_number(a, b) => Ok(()),
        (a, b) if a == b => Ok(()),
        (a, b) => Err(format!("{path}: ours {a} vs flatc's {b}")),
    }
}

/// A format's dump, by file suffix, and what may differ from a file's reference.
struct Format {
    suffix: &'static str,
    dump: fn(&[u8]) -> Value,
    allowed: fn(&[u8]) -> &'static Allowed,
}

const TFLITE: Format = Format { suffix: ".tflite", dump: dump_tflite, allowed: |_| &TFLITE_NEWER };
const CIRCLE: Format = Format { suffix: ".circle", dump: dump_circle, allowed: circle_allowed };
/// The corpus's Circle 0.10 files: their references use 0.10's names even where the content
/// reads as revision 0 (operator codes copied from a pre-2.4 TFLite file), so the dump is asked
/// for 0.10's names.
const CIRCLE_0_10: Format = Format { suffix: ".circle", dump: dump_circle_0_10, allowed: |_| &CIRCLE_LATER };
/// A cvimodel's reference covers its flatbuffer body only.
const CVIMODEL: Format = Format { suffix: ".cvimodel", dump: dump_cvimodel, allowed: |_| &EXACT };
const VH00: Format = Format { suffix: ".vh00", dump: dump_vkgraph, allowed: |_| &EXACT };
const VK00: Format = Format { suffix: ".vk00.bin", dump: dump_vkgraph, allowed: |_| &EXACT };
const PTE: Format = Format { suffix: ".pte", dump: dump_pte, allowed: |_| &EXACT };
const XH00: Format = Format { suffix: ".xh00", dump: dump_xnnpack, allowed: |_| &EXACT };
const XN01: Format = Format { suffix: ".xn.bin", dump: dump_xnnpack, allowed: |_| &EXACT };
/// A `.ptd`'s reference is NAME.ptd.flatc.json (NAME.flatc.json is its program's).
const PTD: Format = Format { suffix: ".ptd", dump: dump_ptd, allowed: |_| &EXACT };
/// A `.litertlm`'s reference is NAME.metadata.flatc.json, flatc's dump of its metadata region.
const LITERTLM: Format = Format { suffix: ".litertlm", dump: dump_litertlm, allowed: |_| &EXACT };

/// A revision-0 file dumps with revision 0's schema, exactly; a later one with 0.10's.
fn circle_allowed(bytes: &[u8]) -> &'static Allowed {
    match circle::Model::parse_structure(bytes).expect("structurally valid").revision() {
        circle::Revision::Zero => &EXACT,
        circle::Revision::Later => &CIRCLE_LATER,
        circle::Revision::Undetermined => &CIRCLE_UNDETERMINED,
    }
}

fn to_json(text: &str) -> Value {
    support::json_with_bare_floats(text)
}

fn dump_tflite(bytes: &[u8]) -> Value {
    let model = tflite::Model::parse_structure(bytes).expect("structurally valid");
    let mut text = String::new();
    flatmodel::dump::dump_table(&mut text, flatmodel::dump::Dumpable::new(model), &Options::DEFAULT).unwrap();
    to_json(&text)
}

/// The body table of a cvimodel (after its header, before its sections).
fn dump_cvimodel(bytes: &[u8]) -> Value {
    use flatmodel::cvimodel;
    let file = cvimodel::CviModel::parse_structure(bytes).expect("structurally valid");
    let mut text = String::new();
    flatmodel::dump::dump_table(&mut text, flatmodel::dump::Dumpable::new(file.model()), &Options::DEFAULT).unwrap();
    to_json(&text)
}

fn dump_circle(bytes: &[u8]) -> Value {
    let model = circle::Model::parse_structure(bytes).expect("structurally valid");
    let mut text = String::new();
    flatmodel::dump::dump_table(&mut text, model.dump_root().unwrap(), &Options::DEFAULT).unwrap();
    to_json(&text)
}

fn dump_circle_0_10(bytes: &[u8]) -> Value {
    let model = circle::Model::parse_structure(bytes).expect("structurally valid");
    let root = model.dump_root_as(circle::Revision::Later).unwrap();
    let mut text = String::new();
    flatmodel::dump::dump_table(&mut text, root, &Options::DEFAULT).unwrap();
    to_json(&text)
}

/// The VkGraph of a `VH00` blob or a bare `VK00` flatbuffer.
fn dump_vkgraph(bytes: &[u8]) -> Value {
    let blob = vkgraph::Blob::parse_structure(bytes).expect("structurally valid");
    let mut text = String::new();
    flatmodel::dump::dump_table(&mut text, flatmodel::dump::Dumpable::new(blob.graph()), &Options::DEFAULT).unwrap();
    to_json(&text)
}

/// The XNNGraph of an `XH00` blob or a bare `XN01` flatbuffer.
fn dump_xnnpack(bytes: &[u8]) -> Value {
    let blob = xnnpack::Blob::parse_structure(bytes).expect("structurally valid");
    let mut text = String::new();
    flatmodel::dump::dump_table(&mut text, flatmodel::dump::Dumpable::new(blob.graph()), &Options::DEFAULT).unwrap();
    to_json(&text)
}

fn dump_ptd(bytes: &[u8]) -> Value {
    let file = ptd::PtdFile::parse_structure(bytes).expect("structurally valid");
    let mut text = String::new();
    flatmodel::dump::dump_table(&mut text, flatmodel::dump::Dumpable::new(file.flat_tensor()), &Options::DEFAULT)
        .unwrap();
    to_json(&text)
}

/// The `LiteRTLMMetaData` of a `.litertlm` file.
fn dump_litertlm(bytes: &[u8]) -> Value {
    let file = litertlm::LitertLmFile::parse_structure(bytes).expect("structurally valid");
    let mut text = String::new();
    flatmodel::dump::dump_table(&mut text, flatmodel::dump::Dumpable::new(file.metadata()), &Options::DEFAULT).unwrap();
    to_json(&text)
}

fn dump_pte(bytes: &[u8]) -> Value {
    let file = pte::PteFile::parse_structure(bytes).expect("structurally valid");
    let mut text = String::new();
    flatmodel::dump::dump_table(&mut text, flatmodel::dump::Dumpable::new(file.program()), &Options::DEFAULT).unwrap();
    to_json(&text)
}

fn check_dir(dir: &Path, format: &Format) -> usize {
    let mut checked = 0;
    let mut failures = Vec::new();
    for model in support::files_with_suffix(dir, format.suffix) {
        // A blob's reference is its graph's: NAME.vh00 has NAME.vk00.flatc.json, NAME.xh00
        // NAME.xn.flatc.json.
        let own = format!("{}.flatc.json", &format.suffix[1..]);
        let reference = support::reference(&model, &own)
            .or_else(|| support::reference(&model, "flatc.json"))
            .or_else(|| support::reference(&model, "vk00.flatc.json"))
            .or_else(|| support::reference(&model, "xn.flatc.json"))
            .or_else(|| support::reference(&model, "metadata.flatc.json"));
        let Some(reference) = reference else { continue };
        let bytes = std::fs::read(&model).unwrap();
        let theirs = match reference.extension().is_some_and(|e| e == "gz") {
            true => support::read_json(&reference),
            false => support::json_with_bare_floats(&std::fs::read_to_string(&reference).unwrap()),
        };
        if let Err(e) = compare(&(format.dump)(&bytes), &theirs, "", (format.allowed)(&bytes)) {
            failures.push(format!("{}: {e}", model.display()));
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{} of {checked} dumps differ:\n{}", failures.len(), failures.join("\n"));
    checked
}

#[test]
fn testdata_dumps_equal_flatc() {
    let checked = check_dir(&support::testdata().join("tflite"), &TFLITE);
    assert!(checked >= 8, "expected the shipped models, checked {checked}");
    let checked = check_dir(&support::testdata().join("circle"), &CIRCLE);
    assert!(checked >= 1, "expected the shipped Circle model, checked {checked}");
}

#[test]
fn vkgraph_and_pte_dumps_equal_flatc() {
    // All the corpus's VkGraph files may ship, so testdata holds them all.
    for (format, at_least) in [(&VH00, 7), (&VK00, 7), (&PTE, 5)] {
        let mut checked = check_dir(&support::testdata().join("vkgraph"), format);
        if let Some(corpus) = support::corpus() {
            checked += check_dir(&corpus.join("vkgraph"), format);
        }
        assert!(checked >= at_least, "{}: checked {checked}", format.suffix);
    }
}

#[test]
fn xnnpack_dumps_equal_flatc() {
    // The corpus's XNNPACK files may ship, so testdata holds them all.
    for (format, at_least) in [(&XH00, 9), (&XN01, 9), (&PTE, 9), (&PTD, 2)] {
        let mut checked = 0;
        for dir in ["xnnpack", "ptd"] {
            checked += check_dir(&support::testdata().join(dir), format);
            if let Some(corpus) = support::corpus() {
                checked += check_dir(&corpus.join(dir), format);
            }
        }
        assert!(checked >= at_least, "{}: checked {checked}", format.suffix);
    }
}

#[test]
fn litertlm_dumps_equal_flatc() {
    // The corpus's LiteRT-LM files may ship, so testdata holds them all.
    let mut checked = check_dir(&support::testdata().join("litertlm"), &LITERTLM);
    if let Some(corpus) = support::corpus() {
        checked += check_dir(&corpus.join("litertlm"), &LITERTLM);
    }
    assert!(checked >= 3, "checked {checked}");
}

/// The liberty the comparisons take is exactly the tokens JSON cannot hold: a bare `inf`
/// agrees with `inf` only, and no other bare word passes.
#[test]
fn bare_floats_are_read_as_their_tokens() {
    let a = support::json_with_bare_floats(r#"{"x": inf, "y": -inf, "z": nan, "s": "inf \" nan"}"#);
    assert_eq!(a["x"], "inf");
    assert_eq!(a["y"], "-inf");
    assert_eq!(a["z"], "nan");
    assert_eq!(a["s"], "inf \" nan");
    let b = support::json_with_bare_floats(r#"{"x": -inf, "y": -inf, "z": nan, "s": "inf \" nan"}"#);
    assert!(compare(&a, &b, "", &EXACT).is_err());
    let big = support::json_with_bare_floats("[18446744073709551615]");
    assert_eq!(big[0].as_u64(), Some(u64::MAX));
    assert!(std::panic::catch_unwind(|| support::json_with_bare_floats("{\"x\": infinity}")).is_err());
}

#[test]
fn corpus_dumps_equal_flatc() {
    let Some(corpus) = support::corpus() else {
        return;
    };
    let checked = check_dir(&corpus.join("tflite"), &TFLITE);
    assert!(checked >= 30, "checked {checked}");
}

#[test]
fn corpus_circle_dumps_equal_flatc() {
    let Some(corpus) = support::corpus() else {
        return;
    };
    let checked = check_dir(&corpus.join("circle"), &CIRCLE);
    assert!(checked >= 10, "checked {checked}");
}

#[test]
fn corpus_circle_0_10_dumps_equal_flatc() {
    let Some(corpus) = support::corpus() else {
        return;
    };
    let checked = check_dir(&corpus.join("circle-0.10"), &CIRCLE_0_10);
    assert!(checked >= 30, "checked {checked}");
    // Where the content shows a later revision, the names chosen by content are 0.10's too.
    let mut later = 0;
    for file in support::files_with_suffix(&corpus.join("circle-0.10"), ".circle") {
        let bytes = std::fs::read(&file).unwrap();
        let model = circle::Model::parse_structure(&bytes).unwrap();
        if model.revision() == circle::Revision::Later {
            assert_eq!(dump_circle(&bytes), dump_circle_0_10(&bytes), "{}", file.display());
            later += 1;
        }
    }
    assert!(later >= 30, "{later} files show a later revision");
}

#[test]
fn comparison_catches_differences() {
    // The comparison itself must be able to fail.
    let a: Value = serde_json::json!({"x": [1, 2.0000001], "name": "a"});
    assert!(compare(&a, &serde_json::json!({"x": [1, 2.0], "name": "a"}), "", &TFLITE_NEWER).is_ok());
    assert!(compare(&a, &serde_json::json!({"x": [1, 2.1], "name": "a"}), "", &TFLITE_NEWER).is_err());
    assert!(compare(&a, &serde_json::json!({"x": [1], "name": "a"}), "", &TFLITE_NEWER).is_err());
    assert!(compare(&a, &serde_json::json!({"x": [1, 2.0]}), "", &TFLITE_NEWER).is_err());
    let newer = serde_json::json!({"external_buffer": 0});
    assert!(compare(&newer, &serde_json::json!({}), "", &TFLITE_NEWER).is_ok());
    assert!(compare(&newer, &serde_json::json!({}), "", &CIRCLE_UNDETERMINED).is_err());
    assert!(compare(&serde_json::json!({"external_buffer": 7}), &serde_json::json!({}), "", &TFLITE_NEWER).is_err());
    assert!(compare(&serde_json::json!({"size": 0}), &serde_json::json!({}), "", &CIRCLE_UNDETERMINED).is_ok());
    // A missing field passes only where allowed, and only at its default.
    let r0 = serde_json::json!({"data_format": "CHANNELS_LAST"});
    assert!(compare(&serde_json::json!({}), &r0, "", &CIRCLE_UNDETERMINED).is_ok());
    assert!(compare(&serde_json::json!({}), &r0, "", &EXACT).is_err());
    let first = serde_json::json!({"data_format": "CHANNELS_FIRST"});
    assert!(compare(&serde_json::json!({}), &first, "", &CIRCLE_UNDETERMINED).is_err());
    assert!(compare(&serde_json::json!({"has_rank": true}), &serde_json::json!({}), "", &CIRCLE_UNDETERMINED).is_err());
}

#[test]
fn cvimodel_dumps_equal_flatc() {
    let checked = check_dir(&support::testdata().join("cvimodel"), &CVIMODEL);
    assert!(checked >= 2, "expected the shipped cvimodels, checked {checked}");
    if let Some(corpus) = support::corpus() {
        let checked = check_dir(&corpus.join("cvimodel"), &CVIMODEL);
        assert!(checked >= 8, "checked {checked}");
    }
}
