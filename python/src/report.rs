//! `inspect` and `scan`: the documents `flatmodel inspect --json` and `flatmodel scan` print,
//! made by the command line's own library (`flatmodel_cli`), so Python and the shell can never
//! disagree. They reach Python as JSON text, which `flatmodel/__init__.py` turns into a `dict`.

use crate::source::Source;
use crate::verdict::ModelError;
use flatmodel_cli::ReportError;
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;

/// Runs `report` over `source` with the GIL released: a path as the command line opens it, or
/// a `bytes` object in place.
fn with_source(
    py: Python<'_>,
    source: Source,
    report: impl FnOnce(flatmodel_cli::Source<'_>) -> Result<String, ReportError> + Send,
) -> Result<String, ReportError> {
    match source {
        Source::Path(path) => py.allow_threads(|| report(flatmodel_cli::Source::Path(&path))),
        Source::Bytes(bytes) => {
            let held = bytes.as_bytes(py);
            py.allow_threads(|| report(flatmodel_cli::Source::Bytes(held)))
        }
    }
}

/// The Python exception for `e`: `OSError` for an input that could not be read, `InvalidModel`
/// (with `.error`) for an invalid one.
fn raise(py: Python<'_>, e: ReportError) -> PyErr {
    match e {
        ReportError::Unreadable(message) => PyOSError::new_err(message),
        ReportError::Invalid { reason, error: Some(error) } => crate::invalid_model(py, ModelError::of(&error, reason)),
        ReportError::Invalid { reason, error: None } => {
            let error = ModelError { kind: "Invalid".into(), rule: None, offset: None, path: None, message: reason };
            crate::invalid_model(py, error)
        }
    }
}

/// The JSON text `flatmodel inspect --json [--tensors]` prints for `source`.
#[pyfunction]
#[pyo3(signature = (source, tensors = false))]
pub fn inspect(py: Python<'_>, source: Source, tensors: bool) -> PyResult<String> {
    with_source(py, source, |s| flatmodel_cli::inspect_json(s, tensors)).map_err(|e| raise(py, e))
}

/// The JSON line `flatmodel scan` prints for `source`.
#[pyfunction]
pub fn scan(py: Python<'_>, source: Source) -> PyResult<String> {
    with_source(py, source, flatmodel_cli::scan_json).map_err(|e| raise(py, e))
}
