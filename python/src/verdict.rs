//! `flatmodel.verify`: the verdict `flatmodel verify` prints, as an object. Bad bytes never
//! raise: the verdict carries the error. The GIL is released while the bytes are verified.

use crate::memory::Bytes;
use crate::schema;
use crate::source::Source;
use flatmodel::bundle::{self, Bundle};
use flatmodel::graph::Runtime;
use flatmodel::nnpackage::{self, AssociatedFiles, Package, PackageError, PackageErrorKind};
use flatmodel::ptd::PtdFile;
use flatmodel::pte::DataError;
use flatmodel::verify::Options;
use flatmodel::{Error, ErrorKind, File, Format};
pub use flatmodel_cli::unknown_format;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use std::path::Path;

/// Why a file is not a valid model: what went wrong, where, and the sentence the command
/// line prints after `invalid:`.
#[pyclass(module = "flatmodel", frozen, get_all)]
#[derive(Clone, Debug)]
pub struct ModelError {
    /// The kind of error (`"Truncated"`, `"OutOfBounds"`, `"Rule"`, `"UnknownFormat"`, ...).
    pub kind: String,
    /// The rule's name when `kind` is `"Rule"`.
    pub rule: Option<String>,
    /// The byte offset the error is at, when it has one.
    pub offset: Option<u64>,
    /// The schema path (`Model.subgraphs[0].tensors[3].name`) or package path it concerns.
    pub path: Option<String>,
    /// The whole message.
    pub message: String,
}

#[pymethods]
impl ModelError {
    fn __str__(&self) -> &str {
        &self.message
    }

    fn __repr__(&self) -> String {
        let offset = self.offset.map_or_else(|| "None".to_string(), |o| o.to_string());
        let path = self.path.as_ref().map_or_else(|| "None".to_string(), |p| format!("{p:?}"));
        format!("ModelError(kind={:?}, offset={offset}, path={path})", self.kind)
    }
}

impl ModelError {
    /// The library's error `e`, described by `message`.
    pub fn of(e: &Error, message: String) -> ModelError {
        let (kind, rule) = match e.kind() {
            ErrorKind::Rule(name) => ("Rule".to_string(), Some(name.to_string())),
            other => (format!("{other:?}"), None),
        };
        ModelError { kind, rule, offset: Some(e.offset()), path: Some(e.location().to_string()), message }
    }

    /// The library's error `e`, as it prints.
    pub fn from_error(e: &Error) -> ModelError {
        ModelError::of(e, e.to_string())
    }

    /// An error without a byte offset.
    fn plain(kind: &str, path: Option<String>, message: String) -> ModelError {
        ModelError { kind: kind.into(), rule: None, offset: None, path, message }
    }

    /// A model bundle's error: a failing member's own error (kind, offset in the member, path)
    /// with the message naming the member, else the zip reader's.
    pub fn bundle(e: &PackageError) -> ModelError {
        match e.model() {
            Some(model) => ModelError::of(model, e.to_string()),
            None => ModelError::package(e),
        }
    }

    /// A package's error.
    pub fn package(e: &PackageError) -> ModelError {
        let at = (!e.at().is_empty()).then(|| e.at().to_string());
        ModelError::plain(&format!("{:?}", e.kind()), at, e.to_string())
    }
}

/// What `flatmodel.verify` found.
#[pyclass(module = "flatmodel", frozen, get_all)]
#[derive(Debug)]
pub struct Verdict {
    /// Whether the file is a valid model (or a valid flatbuffer of the schema given).
    pub ok: bool,
    /// `"tflite"`, `"circle"`, `"pte"`, `"vkgraph"`, `"cvimodel"`, `"nnpackage"`, `"bundle"`, or
    /// `"flatbuffer"` with `schema=`; `None` when the bytes are of no format flatmodel reads.
    pub format: Option<&'static str>,
    /// Why the file is invalid; `None` when it is valid.
    pub error: Option<ModelError>,
    /// The advisory findings of a valid file, each a sentence.
    pub warnings: Vec<String>,
}

#[pymethods]
impl Verdict {
    fn __repr__(&self) -> String {
        let format = self.format.map_or_else(|| "None".to_string(), |f| format!("{f:?}"));
        match &self.error {
            None => format!("Verdict(ok=True, format={format}, warnings={})", self.warnings.len()),
            Some(e) => format!("Verdict(ok=False, format={format}, error={:?})", e.message),
        }
    }
}

impl Verdict {
    fn valid(format: &'static str, warnings: Vec<String>) -> Verdict {
        Verdict { ok: true, format: Some(format), error: None, warnings }
    }

    fn invalid(format: Option<&'static str>, error: ModelError) -> Verdict {
        Verdict { ok: false, format, error: Some(error), warnings: Vec::new() }
    }
}

/// The name Python gives `format` ([`Format::short_name`]).
pub fn format_name(format: Format) -> &'static str {
    format.short_name()
}

/// Verifies a model file, an nnpackage, a model bundle, or bytes: the verdict of `flatmodel verify`.
#[pyfunction]
#[pyo3(signature = (source, *, runtime = None, schema = None, root_type = None, data = None))]
pub fn verify(
    py: Python<'_>,
    source: Source,
    runtime: Option<&str>,
    schema: Option<&str>,
    root_type: Option<&str>,
    data: Option<Vec<Source>>,
) -> PyResult<Verdict> {
    if let Some(data) = data {
        if runtime.is_some() || schema.is_some() || root_type.is_some() {
            return Err(PyValueError::new_err("data= goes with a program alone, not with runtime= or schema="));
        }
        return verify_with_data(py, source, data);
    }
    let runtime = match runtime {
        None => None,
        Some(key) => Some(
            Runtime::from_key(key)
                .ok_or_else(|| PyValueError::new_err(format!("runtime must be \"litert\" or \"tflm\", not {key:?}")))?,
        ),
    };
    if let Some(path) = schema {
        if runtime.is_some() {
            return Err(PyValueError::new_err("runtime= applies to models, not to schema="));
        }
        return verify_schema(py, source, path, root_type);
    }
    if root_type.is_some() {
        return Err(PyValueError::new_err("root_type= goes with schema="));
    }
    if let Source::Path(p) = &source {
        if p.is_dir() && !p.join("metadata").join("MANIFEST").exists() {
            let message = "not a model file or nnpackage directory (no metadata/MANIFEST)".to_string();
            return Ok(Verdict::invalid(None, ModelError::plain("NotAModel", None, message)));
        }
        match nnpackage::container_of(p) {
            Some(nnpackage::Container::Directory) => return verify_package(py, p, runtime),
            // A zip archive is a package when it holds metadata/MANIFEST, else a model bundle.
            Some(nnpackage::Container::Zip) => {
                let bytes = Source::Path(p.clone()).bytes(py)?;
                let held = bytes.get(py);
                if bundle::is_bundle(held) {
                    return Ok(py.allow_threads(|| check_bundle(held, runtime)));
                }
                return verify_package(py, p, runtime);
            }
            None => {}
        }
    }
    let bytes = source.bytes(py)?;
    let held = bytes.get(py);
    if bundle::is_bundle(held) {
        return Ok(py.allow_threads(|| check_bundle(held, runtime)));
    }
    Ok(py.allow_threads(|| check(held, runtime)))
}

/// A model bundle (a zip archive of models that is no nnpackage, such as MediaPipe's `.task`),
/// each member a format claims verified by it, as `flatmodel verify` does: its model members'
/// warnings, each after `MEMBER: `; a failing member's error located in that member, the
/// message naming it.
fn check_bundle(bytes: &[u8], runtime: Option<Runtime>) -> Verdict {
    if let Some(r) = runtime {
        let message = format!("--runtime {} applies to TFLite models, and this is a model bundle", r.key());
        return Verdict::invalid(Some("bundle"), ModelError::plain("RuntimeNotApplicable", None, message));
    }
    let bundle = match Bundle::read(bytes, &nnpackage::Limits::DEFAULT) {
        Ok(bundle) => bundle,
        Err(e) => return Verdict::invalid(Some("bundle"), ModelError::bundle(&e)),
    };
    let mut warnings = Vec::new();
    for (i, member) in bundle.members().iter().enumerate() {
        if let Some(Ok(file)) = bundle.member_file(i) {
            let prefix = format!("{}: ", member.name());
            let mut own = warnings_of(&file);
            if file.format() == Format::Tflite {
                if let Err(e) = AssociatedFiles::read(member.bytes()) {
                    own.push(format!(
                        "{e} (the zip archive appended to the model is corrupt; the model itself is valid)"
                    ));
                }
            }
            warnings.extend(own.into_iter().map(|w| format!("{prefix}{w}")));
        }
    }
    Verdict::valid("bundle", warnings)
}

/// An ExecuTorch program verified with its `.ptd` data files, as `flatmodel verify P.pte --data
/// W.ptd` does: the program, each data file, then every key the program reads resolved in its
/// own named data or a data file with the bytes its reader needs. A source that is not a
/// program, or data that is not a `.ptd`, is a `ValueError` (the command line's usage error).
fn verify_with_data(py: Python<'_>, source: Source, data: Vec<Source>) -> PyResult<Verdict> {
    let program = source.bytes(py)?;
    let mut files = Vec::with_capacity(data.len());
    for (i, d) in data.into_iter().enumerate() {
        let held = d.bytes(py)?;
        if flatmodel::detect(held.get(py)) != Some(Format::Ptd) {
            let message = format!("data[{i}] is not an ExecuTorch data file (.ptd, FT01 at byte 4)");
            return Err(PyValueError::new_err(message));
        }
        files.push(held);
    }
    let program = program.get(py);
    let data: Vec<&[u8]> = files.iter().map(|f| f.get(py)).collect();
    if flatmodel::detect(program) != Some(Format::Pte) {
        let message = match detected(program) {
            Some(format) => format!("data= applies to ExecuTorch programs (.pte), and this is a {format} file"),
            None => "data= applies to ExecuTorch programs (.pte), and this is not one".to_string(),
        };
        return Err(PyValueError::new_err(message));
    }
    Ok(py.allow_threads(|| check_with_data(program, &data)))
}

/// [`verify_with_data`]'s checks, on bytes already read.
fn check_with_data(program: &[u8], data: &[&[u8]]) -> Verdict {
    let verdict = check(program, None);
    let Ok(File::Pte(pte)) = File::parse(program) else { return verdict };
    let mut files = Vec::with_capacity(data.len());
    for (i, bytes) in data.iter().enumerate() {
        match PtdFile::parse(bytes) {
            Ok(file) => files.push(file),
            Err(e) => return Verdict::invalid(Some("pte"), ModelError::of(&e, format!("data[{i}]: {e}"))),
        }
    }
    match pte.check_data(&files, &Options::DEFAULT) {
        Ok(()) => verdict,
        Err(DataError::Unresolved(u)) => Verdict::invalid(Some("pte"), ModelError::of(&Error::from(u), u.to_string())),
        Err(DataError::Invalid(e)) => Verdict::invalid(Some("pte"), ModelError::from_error(&e)),
    }
}

/// `bytes` verified as a model file: structure, rules, and `runtime`'s checks.
fn check(bytes: &[u8], runtime: Option<Runtime>) -> Verdict {
    let file = match File::parse_structure(bytes) {
        Ok(file) => file,
        Err(e) if e.kind() == ErrorKind::UnknownFormat => {
            return Verdict::invalid(None, ModelError::of(&e, unknown_format(bytes)));
        }
        Err(e) => return Verdict::invalid(detected(bytes), ModelError::from_error(&e)),
    };
    let format = format_name(file.format());
    if let (Some(r), false) = (runtime, file.format() == Format::Tflite) {
        let message = format!("--runtime {} applies to TFLite models, and this is a {:?} file", r.key(), file.format());
        return Verdict::invalid(Some(format), ModelError::plain("RuntimeNotApplicable", None, message));
    }
    if let Err(e) = file.check_rules(&Options::DEFAULT) {
        return Verdict::invalid(Some(format), ModelError::from_error(&e));
    }
    if let (File::Tflite(model), Some(r)) = (file, runtime) {
        if let Err(e) = model.check_runtime(r) {
            let message = flatmodel_cli::runtime_refusal(model, r, e);
            return Verdict::invalid(Some(format), ModelError::of(&e, message));
        }
    }
    let mut warnings = warnings_of(&file);
    if file.format() == Format::Tflite {
        if let Err(e) = AssociatedFiles::read(bytes) {
            warnings.push(format!("{e} (the zip archive appended to the model is corrupt; the model itself is valid)"));
        }
    }
    Verdict::valid(format, warnings)
}

/// The format `bytes` show, by name.
fn detected(bytes: &[u8]) -> Option<&'static str> {
    flatmodel::detect(bytes).map(format_name)
}

/// Every warning of a valid file, as sentences; when the list stops early (its work budget
/// spent), the last says so.
pub fn warnings_of(file: &File<'_>) -> Vec<String> {
    let mut warnings = Vec::new();
    if let Err(e) = file.for_each_warning(|w| warnings.push(w.to_string())) {
        warnings.push(format!("the list of warnings stops here: {e}"));
    }
    warnings
}

/// An nnpackage (directory or zip) checked end to end: its models' warnings, each after
/// `model I (PATH): `.
fn verify_package(py: Python<'_>, path: &Path, runtime: Option<Runtime>) -> PyResult<Verdict> {
    if let Some(r) = runtime {
        let message = format!("--runtime {} applies to TFLite models, and this is an nnpackage", r.key());
        return Ok(Verdict::invalid(Some("nnpackage"), ModelError::plain("RuntimeNotApplicable", None, message)));
    }
    let package = match py.allow_threads(|| open_package(path))? {
        Ok(p) => p,
        Err(e) => return Ok(Verdict::invalid(Some("nnpackage"), e)),
    };
    let mut warnings = Vec::new();
    for (i, model) in package.models().iter().enumerate() {
        if let Some(Ok(file)) = package.model_file(i) {
            let prefix = format!("model {i} ({}): ", model.path);
            warnings.extend(warnings_of(&file).into_iter().map(|w| format!("{prefix}{w}")));
        }
    }
    Ok(Verdict::valid("nnpackage", warnings))
}

/// The checked package at `path`: `Ok(Err(..))` when it is invalid, `Err` (an `OSError`) when
/// the path itself cannot be read.
pub fn open_package(path: &Path) -> PyResult<Result<Package, ModelError>> {
    match Package::open(path) {
        Ok(p) => Ok(Ok(p)),
        Err(e) if e.at().is_empty() && matches!(e.kind(), PackageErrorKind::Io | PackageErrorKind::NotFound) => {
            Err(PyOSError::new_err(format!("{}: {e}", path.display())))
        }
        Err(e) => Ok(Err(ModelError::package(&e))),
    }
}

/// `verify(..., schema=PATH, root_type=NAME)`: the bytes as a flatbuffer of that schema.
fn verify_schema(py: Python<'_>, source: Source, path: &str, root_type: Option<&str>) -> PyResult<Verdict> {
    let (schema, root) = schema::load(path, root_type)?;
    if let Source::Path(p) = &source {
        if p.is_dir() {
            let message = "a directory, not a flatbuffer file".to_string();
            return Ok(Verdict::invalid(None, ModelError::plain("NotAFlatbuffer", None, message)));
        }
    }
    let bytes: Bytes = source.bytes(py)?;
    let held = bytes.get(py);
    let identifier = schema::identifier_of(&schema, root);
    let result = py.allow_threads(|| schema.verify_with_stats(held, root, identifier, &Options::DEFAULT).map(|_| ()));
    Ok(match result {
        Ok(()) => Verdict::valid("flatbuffer", Vec::new()),
        Err(e) => Verdict::invalid(Some("flatbuffer"), ModelError::of(&e, schema.error_text(&e, root).to_string())),
    })
}
