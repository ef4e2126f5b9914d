//! Model bundles (zip archives of models that are no nnpackage, such as MediaPipe's `.task`)
//! from Python: the members' names, formats and sizes, and each model member opened as
//! `flatmodel.open` opens a file.

use crate::core::Core;
use crate::memory::Bytes;
use crate::verdict::{format_name, ModelError};
use flatmodel::bundle::Storage;
use flatmodel::nnpackage::{FileBytes, Limits};
use pyo3::prelude::*;

/// One member: its name, the format its bytes show, and its bytes.
struct Member {
    name: String,
    format: Option<&'static str>,
    bytes: FileBytes,
}

/// A model bundle, every member a format claims verified.
#[pyclass(module = "flatmodel", frozen)]
pub struct Bundle {
    members: Vec<Member>,
}

impl Bundle {
    /// Reads and verifies the bundle `archive` (the GIL released): its error when invalid. A
    /// stored member shares the archive's bytes; a deflated one is held inflated.
    pub fn read(py: Python<'_>, archive: &FileBytes) -> Result<Bundle, ModelError> {
        let bytes = archive.as_bytes();
        let bundle = py
            .allow_threads(|| flatmodel::bundle::Bundle::read(bytes, &Limits::DEFAULT))
            .map_err(|e| ModelError::bundle(&e))?;
        let members = bundle
            .members()
            .iter()
            .map(|m| {
                let stored = match m.storage() {
                    Storage::Stored { offset } => usize::try_from(offset)
                        .ok()
                        .and_then(|start| Some(start..start.checked_add(m.size())?))
                        .and_then(|range| archive.range(range)),
                    Storage::Deflated { .. } => None,
                };
                Member {
                    name: m.name().to_string(),
                    format: m.format().map(format_name),
                    bytes: stored.unwrap_or_else(|| FileBytes::from_vec(m.bytes().to_vec())),
                }
            })
            .collect();
        Ok(Bundle { members })
    }
}

#[pymethods]
impl Bundle {
    /// `"bundle"`.
    #[getter]
    fn format(&self) -> &'static str {
        "bundle"
    }

    /// Each member's name in the archive, in archive order.
    #[getter]
    fn member_names(&self) -> Vec<String> {
        self.members.iter().map(|m| m.name.clone()).collect()
    }

    /// Each member's format (`"tflite"`, `"circle"`, ...), `None` for one no format claims.
    #[getter]
    fn member_types(&self) -> Vec<Option<&'static str>> {
        self.members.iter().map(|m| m.format).collect()
    }

    /// Each member's size in bytes.
    #[getter]
    fn member_sizes(&self) -> Vec<usize> {
        self.members.iter().map(|m| m.bytes.as_bytes().len()).collect()
    }

    /// The members, each model member as `flatmodel.open` gives it; `None` for one no format
    /// claims. A stored member shares the archive's bytes (no copy).
    #[getter]
    fn members(&self, py: Python<'_>) -> PyResult<Vec<Option<PyObject>>> {
        let mut out = Vec::with_capacity(self.members.len());
        for m in &self.members {
            if m.format.is_none() {
                out.push(None);
                continue;
            }
            let core = Core::open(py, Bytes::Shared(m.bytes.clone())).map_err(|e| crate::invalid(&e))?;
            out.push(Some(crate::wrap(py, core)?));
        }
        Ok(out)
    }

    fn __repr__(&self) -> String {
        format!("<flatmodel.Bundle {} member(s)>", self.members.len())
    }
}
