//! The nnpackage library API: valid packages (directory and zip, 1.0 and 1.3) read back what
//! was written, and every broken package yields an error naming the file or MANIFEST key at
//! fault, never a panic. Expected model facts come from the TFLite API, not from nnpackage.
#![cfg(feature = "nnpackage")]

mod nnpackage_support;
mod support;

use flatmodel::graph::ModelView;
use flatmodel::nnpackage::{
    model_io, Container, IoRef, Limits, ModelType, Options, Package, PackageError, PackageErrorKind as Kind, Version,
};
use flatmodel::tflite;
use nnpackage_support::*;
use serde_json::json;
use std::path::Path;

fn open(path: &Path) -> Result<Package, PackageError> {
    Package::open(path)
}

/// Opening `path` fails with `kind`, and the message contains each of `needles`.
#[track_caller]
fn fails(path: &Path, kind: Kind, needles: &[&str]) -> PackageError {
    fails_with(path, &Options::default(), kind, needles)
}

#[track_caller]
fn fails_with(path: &Path, options: &Options, kind: Kind, needles: &[&str]) -> PackageError {
    let e = match Package::open_with(path, options) {
        Ok(_) => panic!("{}: opened, expected {kind:?}", path.display()),
        Err(e) => e,
    };
    let text = e.to_string();
    assert_eq!(e.kind(), kind, "{text}");
    for n in needles {
        assert!(text.contains(n), "{text:?} lacks {n:?}");
    }
    e
}

/// A tensor as (name, type code, shape).
type Io = Vec<(String, i8, Vec<i32>)>;

/// The inputs and outputs of subgraph 0 of `bytes`, read with the TFLite API.
fn tflite_io(bytes: &[u8]) -> (Io, Io) {
    let model = tflite::Model::parse(bytes).unwrap();
    let sg = model.subgraphs().unwrap().get(0).unwrap();
    let tensors = sg.tensors().unwrap();
    let side = |v: flatmodel::wire::Vector<'_, i32>| {
        v.iter()
            .map(|i| {
                let t = tensors.get(i as usize).unwrap();
                let shape = t.shape_signature().filter(|s| !s.is_empty()).or(t.shape()).unwrap();
                (t.name().unwrap().to_string(), t.type_().0, shape.iter().collect())
            })
            .collect()
    };
    (side(sg.inputs().unwrap()), side(sg.outputs().unwrap()))
}

fn io_of(model: &flatmodel::nnpackage::PackageModel) -> (Io, Io) {
    let sg = &model.io.as_ref().unwrap().subgraphs[0];
    let side = |ts: &[flatmodel::nnpackage::TensorIo]| {
        ts.iter().map(|t| (t.name.clone().unwrap(), t.element_type.code, t.shape.clone().unwrap())).collect::<Vec<_>>()
    };
    (side(&sg.inputs), side(&sg.outputs))
}

// ---------------------------------------------------------------------------------------------
// Valid packages

#[test]
fn a_one_model_1_0_package() {
    let s = Scratch::new("one");
    let bytes = model_bytes("tf_convnet_int8_full");
    let dir = s.package(
        "pkg",
        &manifest(0, &["convnet.tflite"], json!({"model-types": ["tflite"]})),
        &[("convnet.tflite", &bytes)],
    );
    let p = open(&dir).unwrap();
    assert_eq!(p.container(), Container::Directory);
    assert_eq!(p.version(), Version { major: 1, minor: 0, patch: 0 });
    assert!(p.config().is_none());
    assert!(p.manifest().configs.is_empty() && p.manifest().pkg_inputs.is_empty());
    let [m] = p.models() else { panic!("one model") };
    assert_eq!((m.path.as_str(), m.model_type, m.type_from_extension), ("convnet.tflite", ModelType::Tflite, false));
    assert_eq!(m.bytes.as_bytes(), bytes.as_slice());
    assert_eq!(io_of(m), tflite_io(&bytes));
    let (inputs, outputs) = io_of(m);
    assert_eq!(inputs[0].1, tflite::TensorType::INT8.0);
    assert_eq!((inputs[0].2.as_slice(), outputs[0].2.as_slice()), (&[1, 16, 16, 3][..], &[1, 10][..]));
    assert_eq!(m.io.as_ref().unwrap().subgraphs[0].inputs[0].element_type.name, Some("INT8"));
}

fn check_two_sines(p: &Package) {
    assert_eq!(p.version(), Version { major: 1, minor: 3, patch: 0 });
    let m = p.manifest();
    assert_eq!(m.configs, ["run.cfg", "ignored.cfg"]);
    let config = p.config().unwrap();
    assert_eq!(config.file, "metadata/run.cfg");
    assert_eq!(config.entries, [("BACKENDS".to_string(), "cpu".to_string()), ("EXECUTOR".into(), "Linear".into())]);
    assert_eq!(config.get("EXECUTOR"), Some("Linear"));
    let zero = IoRef { model: 0, subgraph: 0, index: 0 };
    let one = IoRef { model: 1, ..zero };
    assert_eq!((m.pkg_inputs.as_slice(), m.pkg_outputs.as_slice()), (&[zero][..], &[one][..]));
    assert_eq!(m.model_connect.len(), 1);
    assert_eq!((m.model_connect[0].from, m.model_connect[0].to.as_slice()), (zero, &[one][..]));
    let [first, second] = p.models() else { panic!("two models") };
    assert_eq!((first.path.as_str(), first.type_from_extension), ("first.tflite", false));
    assert_eq!(
        (second.path.as_str(), second.model_type, second.type_from_extension),
        ("models/second.tflite", ModelType::Tflite, true)
    );
    let sine = sine();
    for model in [first, second] {
        assert_eq!(model.bytes.as_bytes(), sine.as_slice());
        assert_eq!(io_of(model), tflite_io(&sine));
    }
    // The joined tensors genuinely agree: FLOAT32 [-1, 1] on both sides.
    let (inputs, outputs) = tflite_io(&sine);
    assert_eq!((inputs[0].1, &inputs[0].2), (outputs[0].1, &outputs[0].2));
    assert_eq!(inputs[0].2, [-1, 1]);
}

#[test]
fn a_1_3_package_of_two_connected_models() {
    let s = Scratch::new("two");
    let files = two_sines_files();
    let mut refs: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
    refs.retain(|(n, _)| *n != "metadata/MANIFEST");
    let dir = s.package("pkg", &two_sines_manifest(), &refs);
    check_two_sines(&open(&dir).unwrap());
}

/// A Circle model and a TFLite model in one package, the Circle model's output feeding the
/// TFLite model's input: both formats answer through the shared model graph.
#[test]
fn a_circle_model_connected_to_a_tflite_model() {
    let s = Scratch::new("circle");
    let circle =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/circle/sine_float.circle")).unwrap();
    let extra = json!({
        "pkg-inputs": ["0:0:0"],
        "pkg-outputs": ["1:0:0"],
        "model-connect": [{"from": "0:0:0", "to": ["1:0:0"]}],
    });
    let dir = s.package(
        "pkg",
        &manifest(3, &["a.circle", "b.tflite"], extra),
        &[("a.circle", &circle), ("b.tflite", &sine())],
    );
    let p = open(&dir).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.models()[0].model_type, ModelType::Circle);
    let io = p.models()[0].io.as_ref().unwrap();
    assert_eq!(io.format, flatmodel::Format::Circle);
    // What the Circle API itself says of the first subgraph's output.
    let model = flatmodel::circle::Model::parse(&circle).unwrap();
    let sg = model.subgraphs().unwrap().get(0).unwrap();
    let out = sg.tensors().unwrap().get(sg.outputs().unwrap().get(0).unwrap() as usize).unwrap();
    let expected: Vec<i32> = out.shape().unwrap().iter().collect();
    assert_eq!(io.subgraphs[0].outputs[0].shape.as_deref(), Some(expected.as_slice()));
    assert_eq!(io.subgraphs[0].outputs[0].element_type.name, Some("FLOAT32"));
    // An INT8 TFLite input does not take the Circle model's FLOAT32 output.
    let int8 = model_bytes("tf_convnet_int8_full");
    let dir = s.package(
        "bad",
        &manifest(3, &["a.circle", "b.tflite"], json!({"model-connect": [{"from": "0:0:0", "to": ["1:0:0"]}]})),
        &[("a.circle", &circle), ("b.tflite", &int8)],
    );
    fails(&dir, Kind::ConnectMismatch, &["model-connect", "FLOAT32", "INT8"]);
}

/// A Circle `RUN_MODEL` operator names a file relative to its model's directory, which must
/// lie inside the package (the MANIFEST's path rules) and exist there.
#[test]
fn run_model_references_must_name_a_file_in_the_package() {
    let s = Scratch::new("run-model");
    let m = |location: Option<&str>| support::run_model_circle(location.map(str::as_bytes));
    let next =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/circle/c010_sine_float.circle")).unwrap();
    let good = m(Some("next.circle"));
    let dir =
        s.package("ok", &manifest(0, &["a/m.circle"], json!({})), &[("a/m.circle", &good), ("a/next.circle", &next)]);
    open(&dir).unwrap_or_else(|e| panic!("{e}"));
    // The same in a zip archive.
    let files = [
        ("metadata/MANIFEST", manifest(0, &["a/m.circle"], json!({}))),
        ("a/m.circle", good.clone()),
        ("a/next.circle", next.clone()),
    ];
    let entries: Vec<ZipEntry> = files.iter().map(|(n, d)| ZipEntry::stored(n, d)).collect();
    open(&s.write("ok.zip", &zip(&entries))).unwrap_or_else(|e| panic!("{e}"));
    let at = "a/m.circle: Model.subgraphs[0].operators[0].builtin_options(RunModelOptions).location";
    // Relative to the model's directory: the file beside the package root is not the one.
    let dir = s.package(
        "missing",
        &manifest(0, &["a/m.circle"], json!({})),
        &[("a/m.circle", &good), ("next.circle", &next)],
    );
    let e = fails(&dir, Kind::NotFound, &["\"a/next.circle\" not found", "RUN_MODEL runs \"next.circle\""]);
    assert_eq!(e.at(), at);
    let entries: Vec<ZipEntry> = files[..2].iter().map(|(n, d)| ZipEntry::stored(n, d)).collect();
    let e = fails(&s.write("missing.zip", &zip(&entries)), Kind::NotFound, &["\"a/next.circle\" not found"]);
    assert_eq!(e.at(), at);
    for (location, needle) in
        [("../x.circle", "goes up"), ("/etc/passwd", "absolute path"), ("b\\x.circle", "backslash")]
    {
        let bad = m(Some(location));
        let dir = s.package("escape", &manifest(0, &["a/m.circle"], json!({})), &[("a/m.circle", &bad)]);
        let e = fails(&dir, Kind::PathEscapes, &[needle]);
        assert_eq!(e.at(), at);
    }
    let dir = s.package("none", &manifest(0, &["m.circle"], json!({})), &[("m.circle", &m(None))]);
    fails(&dir, Kind::Model, &["RUN_MODEL names no model file"]);
}

#[test]
fn zip_packages_at_the_root_or_under_one_folder() {
    let s = Scratch::new("zip");
    for folder in ["", "two_sines/"] {
        let path = s.write(&format!("pkg{}.nnpkg", folder.len()), &two_sines_zip(folder));
        let p = open(&path).unwrap_or_else(|e| panic!("{folder:?}: {e}"));
        assert_eq!(p.container(), Container::Zip);
        check_two_sines(&p);
    }
    // Every entry deflated, metadata stored.
    let entries: Vec<ZipEntry> = two_sines_files()
        .iter()
        .map(|(n, d)| if n.ends_with(".tflite") { ZipEntry::deflated(n, d) } else { ZipEntry::stored(n, d) })
        .collect();
    check_two_sines(&open(&s.write("deflated.zip", &zip(&entries))).unwrap());
}

#[test]
fn a_zip_package_held_in_memory_opens_as_from_a_file() {
    for folder in ["", "two_sines/"] {
        let bytes = flatmodel::nnpackage::FileBytes::from_vec(two_sines_zip(folder));
        let p = Package::from_zip_bytes(bytes, &Limits::DEFAULT).unwrap_or_else(|e| panic!("{folder:?}: {e}"));
        assert_eq!(p.container(), Container::Zip);
        check_two_sines(&p);
    }
    // Bytes that are no zip archive: an error, as from a file.
    let e = Package::from_zip_bytes(flatmodel::nnpackage::FileBytes::from_vec(sine()), &Limits::DEFAULT).unwrap_err();
    assert_eq!(e.kind(), Kind::Zip, "{e}");
}

#[test]
fn a_symlink_inside_the_package_is_followed() {
    let s = Scratch::new("inner-link");
    let dir = s.package("pkg", &manifest(0, &["link.tflite"], json!({})), &[("real.tflite", &sine())]);
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("real.tflite", dir.join("link.tflite")).unwrap();
        assert_eq!(open(&dir).unwrap().models()[0].bytes.as_bytes(), sine().as_slice());
    }
}

#[test]
fn backend_binaries_are_kept_but_not_parsed() {
    let s = Scratch::new("bin");
    let dir = s.package(
        "pkg",
        &manifest(1, &["m.tflite", "npu.bin"], json!({"pkg-outputs": ["1:0:0"]})),
        &[("m.tflite", &sine()), ("npu.bin", b"opaque")],
    );
    let p = open(&dir).unwrap();
    assert_eq!(p.models()[1].model_type, ModelType::Bin);
    assert!(p.models()[1].io.is_none());
    assert_eq!(p.models()[1].bytes.as_bytes(), b"opaque");
    assert!(p.model_file(1).is_none(), "an opaque binary has no view");
}

/// A package's flatbuffer models come back as views over the bytes the package check
/// verified: the same model a fresh parse reads, over the very bytes the package holds.
#[test]
fn model_files_are_the_verified_views_of_the_package_bytes() {
    let s = Scratch::new("views");
    let convnet = model_bytes("tf_convnet_int8_full");
    let dir = s.package(
        "pkg",
        &manifest(1, &["a.tflite", "b.tflite"], json!({})),
        &[("a.tflite", &sine()), ("b.tflite", &convnet)],
    );
    let p = open(&dir).unwrap();
    for (i, expected) in [sine(), convnet].iter().enumerate() {
        let Some(Ok(flatmodel::File::Tflite(view))) = p.model_file(i) else { panic!("model {i} is a TFLite view") };
        let fresh = tflite::Model::parse(expected).unwrap();
        assert!(std::ptr::eq(view.file(), p.models()[i].bytes.as_bytes()), "model {i}: a view of the held bytes");
        let tensors = |m: tflite::Model<'_>| m.subgraphs().unwrap().get(0).unwrap().tensors().unwrap().len();
        assert_eq!(tensors(view), tensors(fresh), "model {i}");
    }
    assert!(p.model_file(2).is_none(), "no third model");
}

/// Set once the package is open: [`Shifting`] bytes then read as garbage.
static SHIFTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Bytes a careless loader hands out: a valid model until [`SHIFTED`] is set, then the same
/// length with its second half zeroed.
struct Shifting(Vec<u8>, Vec<u8>);

impl AsRef<[u8]> for Shifting {
    fn as_ref(&self) -> &[u8] {
        match SHIFTED.load(std::sync::atomic::Ordering::SeqCst) {
            false => &self.0,
            true => &self.1,
        }
    }
}

fn shifting_loader(file: std::fs::File) -> std::io::Result<flatmodel::nnpackage::SharedBytes> {
    let bytes = flatmodel::nnpackage::read_file(file)?;
    // The first half kept (its root table still reads), the rest zeroed.
    let mut garbage = bytes.as_ref().as_ref().to_vec();
    let half = garbage.len() / 2;
    garbage.iter_mut().skip(half).for_each(|b| *b = 0);
    Ok(std::sync::Arc::new(Shifting(bytes.as_ref().as_ref().to_vec(), garbage)))
}

/// When the loader's bytes are no longer those the check verified, `model_file` verifies them
/// anew rather than give a view of unverified bytes.
#[test]
fn bytes_that_moved_since_the_check_are_verified_anew() {
    let s = Scratch::new("shifting");
    let dir = s.package("pkg", &manifest(0, &["m.tflite"], json!({})), &[("m.tflite", &sine())]);
    let p = Package::open_with(&dir, &Options { loader: shifting_loader, ..Options::default() }).unwrap();
    assert!(matches!(p.model_file(0), Some(Ok(flatmodel::File::Tflite(_)))));
    SHIFTED.store(true, std::sync::atomic::Ordering::SeqCst);
    assert!(matches!(p.model_file(0), Some(Err(_))), "the garbage was verified, and refused");
}

#[test]
fn model_io_reads_tflite_and_refuses_what_it_cannot_read() {
    let sine = sine();
    let io = model_io(&sine).unwrap();
    assert_eq!(io.format, flatmodel::Format::Tflite);
    assert_eq!(io.subgraphs.len(), 1);
    let e = model_io(b"not a model at all").unwrap_err();
    assert_eq!(e.kind(), flatmodel::ErrorKind::UnknownFormat);
    assert!(model_io(&sine[..sine.len() / 2]).is_err());
}

// ---------------------------------------------------------------------------------------------
// The MANIFEST

#[test]
fn a_missing_manifest() {
    let s = Scratch::new("no-manifest");
    std::fs::create_dir_all(s.path("pkg/metadata")).unwrap();
    s.write("pkg/a.tflite", &sine());
    let e = fails(&s.path("pkg"), Kind::NotFound, &["metadata/MANIFEST: missing"]);
    assert_eq!(e.at(), "metadata/MANIFEST");
    fails(&s.write("empty.zip", &zip(&[])), Kind::NotFound, &["metadata/MANIFEST"]);
}

#[test]
fn invalid_json() {
    let s = Scratch::new("bad-json");
    for text in [&b"{\"models\": [\"a.tflite\""[..], b"", b"\xff\xfe", b"[\"a.tflite\"]"] {
        let dir = s.package("pkg", text, &[("a.tflite", &sine())]);
        let e = open(&dir).unwrap_err();
        assert!(matches!(e.kind(), Kind::InvalidJson | Kind::Manifest), "{e}");
        assert!(e.to_string().starts_with("metadata/MANIFEST: "), "{e}");
    }
}

#[test]
fn a_huge_manifest_is_refused_before_it_is_read() {
    let s = Scratch::new("huge");
    let mut text = manifest(0, &["a.tflite"], json!({}));
    text.splice(1..1, std::iter::repeat_n(b' ', 2 << 20));
    let dir = s.package("pkg", &text, &[("a.tflite", &sine())]);
    fails(&dir, Kind::TooLarge, &["metadata/MANIFEST", "more than the limit of 1048576"]);
    // The same in a zip, where it is refused from its declared size.
    let z = zip(&[ZipEntry::deflated("metadata/MANIFEST", &text), ZipEntry::stored("a.tflite", &sine())]);
    fails(&s.write("huge.zip", &z), Kind::TooLarge, &["metadata/MANIFEST"]);
}

#[test]
fn deeply_nested_json_is_refused() {
    let s = Scratch::new("deep");
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let dir = s.package("pkg", deep.as_bytes(), &[]);
    fails(&dir, Kind::InvalidJson, &["metadata/MANIFEST", "nests deeper than 32"]);
    // Nesting inside an ignored key counts too.
    let mut m: serde_json::Value = serde_json::from_slice(&manifest(0, &["a.tflite"], json!({}))).unwrap();
    m["x"] = serde_json::from_str(&format!("{}1{}", "[".repeat(40), "]".repeat(40))).unwrap();
    let dir = s.package("pkg2", m.to_string().as_bytes(), &[("a.tflite", &sine())]);
    fails(&dir, Kind::InvalidJson, &["nests deeper"]);
}

#[test]
fn keys_of_the_wrong_kind_are_named() {
    let s = Scratch::new("keys");
    let cases: Vec<(serde_json::Value, Kind, &str)> = vec![
        (
            json!({"major-version": "1", "minor-version": "0", "patch-version": "0"}),
            Kind::Manifest,
            "\"models\": must name",
        ),
        (
            json!({"major-version": "1", "minor-version": "0", "models": ["a.tflite"]}),
            Kind::Manifest,
            "\"patch-version\": missing",
        ),
        (
            json!({"major-version": "2", "minor-version": "0", "patch-version": "0", "models": ["a.tflite"]}),
            Kind::UnsupportedVersion,
            "\"major-version\"",
        ),
        (
            json!({"major-version": "1", "minor-version": "4", "patch-version": "0", "models": ["a.tflite"]}),
            Kind::UnsupportedVersion,
            "\"minor-version\"",
        ),
        (
            json!({"major-version": "one", "minor-version": "0", "patch-version": "0", "models": ["a.tflite"]}),
            Kind::Manifest,
            "\"major-version\": \"one\" is not",
        ),
        (
            json!({"major-version": "1", "minor-version": "0", "patch-version": "0", "models": "a.tflite"}),
            Kind::Manifest,
            "\"models\": expected an array",
        ),
        (
            json!({"major-version": "1", "minor-version": "0", "patch-version": "0", "models": ["a.tflite", 7]}),
            Kind::Manifest,
            "\"models\"[1]: expected a string",
        ),
        (
            json!({"major-version": "1", "minor-version": "0", "patch-version": "0", "models": ["a.tflite"], "model-types": ["onnx"]}),
            Kind::Manifest,
            "\"model-types\"[0]: unknown model type \"onnx\"",
        ),
        (
            json!({"major-version": "1", "minor-version": "0", "patch-version": "0", "models": ["a.tflite"], "model-types": ["tflite", "tflite"]}),
            Kind::Manifest,
            "\"model-types\": 2 entries",
        ),
        (
            json!({"major-version": "1", "minor-version": "0", "patch-version": "0", "models": ["a.tflite"], "configs": "c.cfg"}),
            Kind::Manifest,
            "\"configs\": expected an array",
        ),
        (
            json!({"major-version": "1", "minor-version": "3", "patch-version": "0", "models": ["a.tflite"], "model-connect": [{"to": ["0:0:0"]}]}),
            Kind::Manifest,
            "\"model-connect\"[0].from: missing",
        ),
        (
            json!({"major-version": "1", "minor-version": "3", "patch-version": "0", "models": ["a.tflite"], "model-connect": [{"from": "0:0:0", "to": []}]}),
            Kind::Manifest,
            "\"model-connect\"[0].to: names no input",
        ),
    ];
    for (i, (m, kind, needle)) in cases.into_iter().enumerate() {
        let dir = s.package(&format!("pkg{i}"), m.to_string().as_bytes(), &[("a.tflite", &sine())]);
        let e = fails(&dir, kind, &["metadata/MANIFEST: ", needle]);
        assert!(e.at().starts_with("metadata/MANIFEST"), "{e}");
    }
}

// ---------------------------------------------------------------------------------------------
// Paths

#[test]
fn paths_that_leave_the_package_are_refused() {
    let s = Scratch::new("escape");
    s.write("x.tflite", &sine()); // a valid model just outside the package
    for (path, needle) in [
        ("../x.tflite", "goes up"),
        ("a/../../x.tflite", "goes up"),
        ("/etc/passwd", "absolute path"),
        ("C:/x.tflite", "drive letter"),
        ("..\\x.tflite", "backslash"),
        ("", "empty path"),
    ] {
        let dir = s.package("pkg", &manifest(0, &["a.tflite", path], json!({})), &[("a.tflite", &sine())]);
        let e = fails(&dir, Kind::PathEscapes, &["metadata/MANIFEST: \"models\"[1]", needle]);
        assert_eq!(e.at(), "metadata/MANIFEST: \"models\"[1]");
    }
    let dir =
        s.package("pkg", &manifest(0, &["a.tflite"], json!({"configs": ["../../x.cfg"]})), &[("a.tflite", &sine())]);
    fails(&dir, Kind::PathEscapes, &["\"configs\"[0]"]);
}

#[cfg(unix)]
#[test]
fn symlinks_cannot_lead_outside() {
    use std::os::unix::fs::symlink;
    let s = Scratch::new("symlink");
    let outside = s.write("outside/x.tflite", &sine());
    // A model that is a symlink to a file outside.
    let dir = s.package("pkg", &manifest(0, &["a.tflite"], json!({})), &[]);
    symlink(&outside, dir.join("a.tflite")).unwrap();
    let e =
        fails(&dir, Kind::PathEscapes, &["metadata/MANIFEST: \"models\"[0]", "\"a.tflite\"", "outside the package"]);
    assert_eq!(e.at(), "metadata/MANIFEST: \"models\"[0]");
    // A directory on the way that is a symlink to one outside.
    let dir = s.package("pkg2", &manifest(0, &["models/x.tflite"], json!({})), &[]);
    symlink(s.path("outside"), dir.join("models")).unwrap();
    fails(&dir, Kind::PathEscapes, &["\"models\"[0]", "outside the package"]);
    // The MANIFEST itself as a symlink to a file outside.
    let real = s.write("outside/MANIFEST", &manifest(0, &["a.tflite"], json!({})));
    let dir = s.path("pkg3");
    std::fs::create_dir_all(dir.join("metadata")).unwrap();
    std::fs::write(dir.join("a.tflite"), sine()).unwrap();
    symlink(&real, dir.join("metadata/MANIFEST")).unwrap();
    fails(&dir, Kind::PathEscapes, &["metadata/MANIFEST", "outside the package"]);
    // A package reached through a symlink is fine: the root is resolved first.
    let good = s.package("good", &manifest(0, &["a.tflite"], json!({})), &[("a.tflite", &sine())]);
    symlink(&good, s.path("via-link")).unwrap();
    assert!(open(&s.path("via-link")).is_ok());
}

/// An absolute symlink is refused even when it names a file inside the package: files are
/// opened beneath the package's directory handle, where an absolute path leads outside.
#[cfg(unix)]
#[test]
fn an_absolute_symlink_is_refused_even_into_the_package() {
    let s = Scratch::new("abs-link");
    let dir = s.package("pkg", &manifest(0, &["link.tflite"], json!({})), &[("real.tflite", &sine())]);
    std::os::unix::fs::symlink(dir.join("real.tflite").canonicalize().unwrap(), dir.join("link.tflite")).unwrap();
    fails(&dir, Kind::PathEscapes, &["\"models\"[0]", "\"link.tflite\"", "outside the package"]);
}

/// A FIFO named as a model is refused as not a regular file; opening it does not block.
#[cfg(unix)]
#[test]
fn a_fifo_in_the_package_is_refused_without_blocking() {
    let s = Scratch::new("fifo");
    let dir = s.package("pkg", &manifest(0, &["m.tflite"], json!({})), &[]);
    let made = std::process::Command::new("mkfifo").arg(dir.join("m.tflite")).status();
    if !made.is_ok_and(|status| status.success()) {
        support::skip("the FIFO: mkfifo is not available");
        return;
    }
    fails(&dir, Kind::Io, &["\"models\"[0]", "\"m.tflite\" is not a regular file"]);
}

/// What a swapped symlink may lead the next read to, for [`swapping_loader`].
static SWAP: std::sync::Mutex<Option<(std::path::PathBuf, std::path::PathBuf)>> = std::sync::Mutex::new(None);

/// A loader that, once a file is open, points the package's `models` folder outside the package
/// (the moment a racing attacker would pick), then reads what it was given.
#[cfg(unix)]
fn swapping_loader(file: std::fs::File) -> std::io::Result<flatmodel::nnpackage::SharedBytes> {
    if let Some((link, outside)) = SWAP.lock().unwrap().take() {
        let tmp = link.with_extension("tmp");
        std::os::unix::fs::symlink(&outside, &tmp)?;
        std::fs::rename(&tmp, &link)?;
    }
    flatmodel::nnpackage::read_file(file)
}

/// The bytes read are those of the file that was checked and opened: a folder swapped for a
/// symlink to the outside between the open and the read changes nothing.
#[cfg(unix)]
#[test]
fn a_symlink_swapped_in_after_the_open_is_not_read() {
    let s = Scratch::new("swap-after-open");
    let outside_model = model_bytes("tf_convnet_int8_full");
    s.write("outside/x.tflite", &outside_model);
    let dir = s.package("pkg", &manifest(0, &["models/x.tflite"], json!({})), &[]);
    s.write("pkg/models_in/x.tflite", &sine());
    std::os::unix::fs::symlink("models_in", dir.join("models")).unwrap();
    *SWAP.lock().unwrap() = Some((dir.join("models"), s.path("outside")));
    let options = Options { loader: swapping_loader, ..Options::default() };
    let p = Package::open_with(&dir, &options).unwrap();
    assert!(SWAP.lock().unwrap().is_none(), "the loader ran and swapped the folder");
    assert_eq!(p.models()[0].bytes.as_bytes(), sine().as_slice());
    // The swap happened: opening again now fails, rather than reading the outside file.
    fails(&dir, Kind::PathEscapes, &["\"models/x.tflite\"", "outside the package"]);
}

/// While another thread keeps moving the package's `models` folder aside and putting a symlink
/// to an outside folder in its place (and back), every open either reads the inside model or
/// fails: it never returns the outside file, whichever moment the swap hits.
#[cfg(unix)]
#[test]
fn a_folder_swapped_for_a_symlink_while_the_package_is_read_never_leads_outside() {
    use std::sync::atomic::{AtomicBool, Ordering};
    const OPENS: usize = 3000;
    let s = Scratch::new("swap-race");
    s.write("outside/x.tflite", &model_bytes("tf_convnet_int8_full"));
    let dir = s.package("pkg", &manifest(0, &["models/x.tflite"], json!({})), &[("models/x.tflite", &sine())]);
    /// Stops the swapping thread when dropped, also when an assertion fails (the scope waits
    /// for the thread, so a failure would otherwise hang).
    struct Stop<'a>(&'a AtomicBool);
    impl Drop for Stop<'_> {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Relaxed);
        }
    }
    let stop = AtomicBool::new(false);
    let (mut inside, mut refused) = (0, 0);
    std::thread::scope(|scope| {
        let _stop = Stop(&stop);
        scope.spawn(|| {
            let (models, aside, outside) = (dir.join("models"), dir.join("models.aside"), s.path("outside"));
            while !stop.load(Ordering::Relaxed) {
                std::fs::rename(&models, &aside).unwrap();
                std::os::unix::fs::symlink(&outside, &models).unwrap();
                std::fs::remove_file(&models).unwrap();
                std::fs::rename(&aside, &models).unwrap();
            }
        });
        for _ in 0..OPENS {
            match open(&dir) {
                Ok(p) => {
                    assert_eq!(p.models()[0].bytes.as_bytes(), sine().as_slice(), "read a file outside the package");
                    inside += 1;
                }
                Err(e) => {
                    assert!(matches!(e.kind(), Kind::PathEscapes | Kind::NotFound | Kind::Io), "{e}");
                    refused += 1;
                }
            }
        }
    });
    assert_eq!(inside + refused, OPENS);
}

// ---------------------------------------------------------------------------------------------
// Models

#[test]
fn a_missing_model_file() {
    let s = Scratch::new("missing");
    let dir = s.package("pkg", &manifest(0, &["a.tflite", "x.tflite"], json!({})), &[("a.tflite", &sine())]);
    let e = fails(&dir, Kind::NotFound, &[]);
    assert_eq!(e.to_string(), "metadata/MANIFEST: \"models\"[1]: file \"x.tflite\" not found");
    let dir = s.package("pkg2", &manifest(1, &["a.tflite"], json!({"configs": ["c.cfg"]})), &[("a.tflite", &sine())]);
    let e = fails(&dir, Kind::NotFound, &[]);
    assert_eq!(e.to_string(), "metadata/MANIFEST: \"configs\"[0]: file \"metadata/c.cfg\" not found");
}

#[test]
fn a_directory_where_a_model_belongs() {
    let s = Scratch::new("dir-model");
    let dir = s.package("pkg", &manifest(0, &["m.tflite"], json!({})), &[("m.tflite/inner", b"x")]);
    fails(&dir, Kind::Io, &["\"models\"[0]", "not a regular file"]);
}

#[test]
fn model_types_must_match_the_bytes() {
    let s = Scratch::new("types");
    let dir =
        s.package("pkg", &manifest(0, &["a.tflite"], json!({"model-types": ["circle"]})), &[("a.tflite", &sine())]);
    let e = fails(&dir, Kind::TypeMismatch, &["declared circle", "TFLite (TFL3)"]);
    assert_eq!(e.at(), "metadata/MANIFEST: \"model-types\"[0]");
    let dir = s.package(
        "pkg2",
        &manifest(0, &["a.tflite", "b.circle"], json!({})),
        &[("a.tflite", &sine()), ("b.circle", &sine())],
    );
    let e = fails(&dir, Kind::TypeMismatch, &["model 1 \"b.circle\" is circle by its extension", "TFLite"]);
    assert_eq!(e.at(), "metadata/MANIFEST: \"models\"[1]");
    let mut circle = sine();
    circle[4..8].copy_from_slice(b"CIR0");
    let dir = s.package("pkg3", &manifest(0, &["c.tflite"], json!({})), &[("c.tflite", &circle)]);
    fails(&dir, Kind::TypeMismatch, &["\"models\"[0]", "Circle (CIR0)"]);
    let dir = s.package("pkg4", &manifest(0, &["a.onnx"], json!({})), &[("a.onnx", &sine())]);
    fails(&dir, Kind::Manifest, &["\"models\"[0]", "extension names no model type"]);
}

#[test]
fn invalid_models_are_named() {
    let s = Scratch::new("invalid");
    let sine = sine();
    let dir = s.package("pkg", &manifest(0, &["a.tflite"], json!({})), &[("a.tflite", b"garbage, no identifier")]);
    let e = fails(
        &dir,
        Kind::Model,
        &["metadata/MANIFEST: \"models\"[0]", "\"a.tflite\" is tflite by its extension but is not one"],
    );
    assert!(std::error::Error::source(&e).is_none(), "no model was verified: {e}");
    let half = &sine[..sine.len() / 2];
    let dir = s.package("pkg2", &manifest(0, &["a.tflite"], json!({})), &[("a.tflite", half)]);
    fails(&dir, Kind::Model, &["metadata/MANIFEST: \"models\"[0]", "\"a.tflite\": invalid model"]);
}

#[test]
fn an_invalid_model_s_error_is_the_package_error_s_source() {
    let s = Scratch::new("source");
    let sine = sine();
    // A string of the model made not UTF-8: an error with a path inside the model.
    let mut bad = sine.clone();
    let name = b"serving_default";
    let at = bad.windows(name.len()).position(|w| w == name).expect("sine names its signature");
    bad[at] = 0xFF;
    for (package, bytes) in [("half", &sine[..sine.len() / 2]), ("utf8", &bad[..])] {
        let expected = tflite::Model::parse(bytes).map(drop).expect_err("an invalid model");
        if package == "utf8" {
            assert_eq!(expected.kind(), flatmodel::ErrorKind::InvalidUtf8);
            assert!(expected.location().to_string().contains('.'), "a path inside the model: {expected}");
        }
        let dir = s.package(package, &manifest(0, &["a.tflite"], json!({})), &[("a.tflite", bytes)]);
        let e = fails(&dir, Kind::Model, &["\"a.tflite\": invalid model"]);
        let source = std::error::Error::source(&e).expect("the model's error as the source");
        let model = source.downcast_ref::<flatmodel::Error>().expect("a flatmodel::Error");
        assert_eq!(
            (model.kind(), model.offset(), model.location().to_string()),
            (expected.kind(), expected.offset(), expected.location().to_string()),
            "{package}"
        );
        assert_eq!(model, &expected, "{package}");
        assert!(e.to_string().ends_with(&expected.to_string()), "{e} / {expected}");
    }
}

#[test]
fn bad_config_lines_are_named() {
    let s = Scratch::new("config");
    let dir = s.package(
        "pkg",
        &manifest(1, &["a.tflite"], json!({"configs": ["c.cfg"]})),
        &[("a.tflite", &sine()), ("metadata/c.cfg", b"A=1\nno equals sign\n")],
    );
    let e = fails(&dir, Kind::Config, &[]);
    assert_eq!(e.to_string(), "metadata/c.cfg: line 2: expected key=value, found \"no equals sign\"");
}

// ---------------------------------------------------------------------------------------------
// pkg-inputs, pkg-outputs, model-connect

fn two_models(s: &Scratch, name: &str, second: &[u8], extra: serde_json::Value) -> std::path::PathBuf {
    s.package(name, &manifest(3, &["a.tflite", "b.tflite"], extra), &[("a.tflite", &sine()), ("b.tflite", second)])
}

#[test]
fn io_refs_that_do_not_split_in_three() {
    let s = Scratch::new("split");
    for (extra, key) in [
        (json!({"pkg-inputs": ["0:1"]}), "\"pkg-inputs\"[0]"),
        (json!({"pkg-outputs": ["0:0:0", "1:0:0:0"]}), "\"pkg-outputs\"[1]"),
        (json!({"model-connect": [{"from": "a:b:c", "to": ["1:0:0"]}]}), "\"model-connect\"[0].from"),
        (json!({"model-connect": [{"from": "0:0:0", "to": ["1:0:0", "1:0"]}]}), "\"model-connect\"[0].to[1]"),
    ] {
        let dir = two_models(&s, "pkg", &sine(), extra);
        let e = fails(&dir, Kind::BadIoRef, &["does not split into m:s:i"]);
        assert_eq!(e.at(), format!("metadata/MANIFEST: {key}"));
    }
    let dir = two_models(&s, "pkg", &sine(), json!({"pkg-inputs": ["0:1"]}));
    assert_eq!(
        open(&dir).unwrap_err().to_string(),
        "metadata/MANIFEST: \"pkg-inputs\"[0]: \"0:1\" does not split into m:s:i (three numbers)"
    );
}

#[test]
fn io_refs_that_point_at_nothing() {
    let s = Scratch::new("range");
    for (extra, key, needle) in [
        (json!({"pkg-inputs": ["2:0:0"]}), "\"pkg-inputs\"[0]", "model 2 does not exist (the package has 2)"),
        (json!({"pkg-inputs": ["0:1:0"]}), "\"pkg-inputs\"[0]", "model 0 has no subgraph 1 (it has 1)"),
        (
            json!({"pkg-inputs": ["0:0:0", "0:0:3"]}),
            "\"pkg-inputs\"[1]",
            "model 0 subgraph 0 has no input 3 (it has 1)",
        ),
        (json!({"pkg-outputs": ["1:0:1"]}), "\"pkg-outputs\"[0]", "model 1 subgraph 0 has no output 1 (it has 1)"),
        (
            json!({"model-connect": [{"from": "0:0:4", "to": ["1:0:0"]}]}),
            "\"model-connect\"[0].from",
            "has no output 4",
        ),
        (
            json!({"model-connect": [{"from": "0:0:0", "to": ["1:0:0", "5:0:0"]}]}),
            "\"model-connect\"[0].to[1]",
            "model 5 does not exist",
        ),
    ] {
        let dir = two_models(&s, "pkg", &sine(), extra);
        let e = fails(&dir, Kind::OutOfRange, &[needle]);
        assert_eq!(e.at(), format!("metadata/MANIFEST: {key}"));
    }
}

#[test]
fn connected_tensors_must_agree() {
    let s = Scratch::new("connect");
    // sine's FLOAT32 [-1, 1] output feeding int8 convnet's INT8 [1, 16, 16, 3] input.
    let dir = two_models(
        &s,
        "pkg",
        &model_bytes("tf_convnet_int8_full"),
        json!({"model-connect": [{"from": "0:0:0", "to": ["1:0:0"]}]}),
    );
    let e = fails(&dir, Kind::ConnectMismatch, &[]);
    assert_eq!(
        e.to_string(),
        "metadata/MANIFEST: \"model-connect\"[0].to[0]: model 1 input 0 is INT8 [1,16,16,3] but the output \"0:0:0\" is FLOAT32 [-1,1]"
    );
    // Same type, other shape: convnet's FLOAT32 [1, 10] output into sine's [-1, 1] input.
    let dir = s.package(
        "pkg2",
        &manifest(3, &["c.tflite", "a.tflite"], json!({"model-connect": [{"from": "0:0:0", "to": ["1:0:0"]}]})),
        &[("c.tflite", &model_bytes("tf_convnet_buffer_offset")), ("a.tflite", &sine())],
    );
    fails(
        &dir,
        Kind::ConnectMismatch,
        &["\"model-connect\"[0].to[0]", "FLOAT32 [-1,1] but the output \"0:0:0\" is FLOAT32 [1,10]"],
    );
    // A self-connection of sine agrees (-1 matches the other side's dimension).
    let dir = two_models(&s, "pkg3", &sine(), json!({"model-connect": [{"from": "1:0:0", "to": ["0:0:0"]}]}));
    assert!(open(&dir).is_ok());
}

// ---------------------------------------------------------------------------------------------
// Zip archives

#[test]
fn a_truncated_zip() {
    let s = Scratch::new("trunc");
    let z = two_sines_zip("");
    let e = fails(&s.write("t.zip", &z[..z.len() - 10]), Kind::Zip, &["zip archive", "end of central directory"]);
    assert_eq!(e.at(), "");
    // Prefixes and byte flips spread over the archive: an error or a package, never a panic.
    for n in (0..z.len()).step_by(13) {
        let _ = open(&s.write("p.zip", &z[..n]));
    }
    for i in (0..z.len()).step_by(11) {
        let mut bad = z.clone();
        bad[i] ^= 0x5a;
        let _ = open(&s.write("f.zip", &bad));
    }
}

#[test]
fn a_crc_mismatch() {
    let s = Scratch::new("crc");
    let mut entries: Vec<ZipEntry> = two_sines_files().iter().map(|(n, d)| ZipEntry::stored(n, d)).collect();
    entries[2].crc = Some(0x1234_5678);
    let e = fails(&s.write("crc.zip", &zip(&entries)), Kind::Zip, &["zip entry \"first.tflite\": CRC-32 mismatch"]);
    assert_eq!(e.at(), "metadata/MANIFEST: \"models\"[0]");
}

#[test]
fn zip_bombs_stop_at_the_limits() {
    let s = Scratch::new("bomb");
    let zeros = vec![0u8; 4 << 20];
    // An entry that lies about its size: 4 MiB of zeros declared as 100 bytes.
    let mut files: Vec<ZipEntry> = two_sines_files().iter().map(|(n, d)| ZipEntry::stored(n, d)).collect();
    files[2] = ZipEntry { size: Some(100), ..ZipEntry::deflated("first.tflite", &zeros) };
    fails(
        &s.write("liar.zip", &zip(&files)),
        Kind::TooLarge,
        &["\"models\"[0]", "inflates to more than its declared 100 bytes"],
    );
    // Honest entries whose total passes the package's budget.
    files[2] = ZipEntry::deflated("first.tflite", &zeros);
    let options = Options { limits: Limits { max_zip_bytes: 2 << 20, ..Limits::DEFAULT }, ..Options::default() };
    fails_with(&s.write("big.zip", &zip(&files)), &options, Kind::TooLarge, &["\"models\"[0]", "more than the"]);
    // Too many entries.
    let many: Vec<ZipEntry> = (0..20).map(|i| ZipEntry::stored(&format!("f{i}"), b"")).collect();
    let options = Options { limits: Limits { max_zip_entries: 10, ..Limits::DEFAULT }, ..Options::default() };
    fails_with(&s.write("many.zip", &zip(&many)), &options, Kind::TooLarge, &["20 entries"]);
}

#[test]
fn zip_entries_that_leave_the_package() {
    let s = Scratch::new("zip-escape");
    for name in ["../x", "/etc/passwd", "a\\..\\..\\x", "C:/x"] {
        let mut files: Vec<ZipEntry> = two_sines_files().iter().map(|(n, d)| ZipEntry::stored(n, d)).collect();
        files.push(ZipEntry::stored(name, b"x"));
        let e = fails(&s.write("e.zip", &zip(&files)), Kind::PathEscapes, &[&format!("zip entry {name:?}")]);
        assert_eq!(e.at(), "");
    }
}

#[test]
fn unsupported_zip_features() {
    let s = Scratch::new("zip-features");
    let base = || -> Vec<ZipEntry> { two_sines_files().iter().map(|(n, d)| ZipEntry::stored(n, d)).collect() };
    let mut encrypted = base();
    encrypted[2].flags = 1;
    fails(&s.write("enc.zip", &zip(&encrypted)), Kind::Zip, &["\"first.tflite\"", "encrypted"]);
    let mut bzip2 = base();
    bzip2[2].method = Some(12);
    fails(&s.write("bz.zip", &zip(&bzip2)), Kind::Zip, &["compression method 12"]);
    let mut twice = base();
    twice.push(ZipEntry::stored("./first.tflite", b"other"));
    fails(&s.write("dup.zip", &zip(&twice)), Kind::Zip, &["\"first.tflite\": appears twice"]);
    let mut corrupt = base();
    corrupt[0] = ZipEntry::deflated("metadata/MANIFEST", &two_sines_manifest());
    let mut z = zip(&corrupt);
    z[30 + "metadata/MANIFEST".len()] = 0xff; // a reserved block type
    fails(&s.write("bad-deflate.zip", &z), Kind::Zip, &["metadata/MANIFEST", "corrupt deflate data"]);
}
