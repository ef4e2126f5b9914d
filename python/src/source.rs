//! What a function's first argument names: a file by its path, or bytes in memory. The Python
//! layer (`flatmodel/__init__.py::_source`) turns every accepted type into one of these two;
//! `verify`, `open` and any later function taking "a path or bytes" share it.

use crate::memory::{self, Bytes};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use std::path::PathBuf;

/// A path, or a `bytes` object (immutable: borrowed, never copied).
pub enum Source {
    /// A file or nnpackage by its path.
    Path(PathBuf),
    /// Bytes in memory.
    Bytes(Py<PyBytes>),
}

impl<'py> FromPyObject<'py> for Source {
    fn extract_bound(ob: &Bound<'py, PyAny>) -> PyResult<Self> {
        if let Ok(b) = ob.downcast::<PyBytes>() {
            return Ok(Source::Bytes(b.clone().unbind()));
        }
        if ob.downcast::<PyString>().is_ok() {
            // Encoded as the file system encodes names (undecodable bytes round-trip).
            return Ok(Source::Path(ob.extract::<PathBuf>()?));
        }
        Err(PyTypeError::new_err("expected a path (str) or bytes"))
    }
}

impl Source {
    /// The bytes of a model file: a `bytes` object as it is, a path read whole
    /// ([`memory::read_path`]).
    pub fn bytes(self, py: Python<'_>) -> std::io::Result<Bytes> {
        match self {
            Source::Bytes(b) => Ok(Bytes::Python(b)),
            Source::Path(p) => py.allow_threads(|| memory::read_path(&p)).map(Bytes::Read),
        }
    }
}
