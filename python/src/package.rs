//! nnpackages (a directory or zip of models with a MANIFEST) from Python: the package's facts
//! and its models, each opened as `flatmodel.open` opens a file.

use crate::core::Core;
use crate::memory::Bytes;
use pyo3::prelude::*;
use std::sync::Arc;

/// A checked nnpackage.
#[pyclass(module = "flatmodel", frozen)]
pub struct Package {
    pub package: Arc<flatmodel::nnpackage::Package>,
}

#[pymethods]
impl Package {
    /// `"nnpackage"`.
    #[getter]
    fn format(&self) -> &'static str {
        "nnpackage"
    }

    /// The MANIFEST's version, `(major, minor)`.
    #[getter]
    fn version(&self) -> (u32, u32) {
        let v = self.package.version();
        (v.major, v.minor)
    }

    /// `"directory"` or `"zip"`.
    #[getter]
    fn container(&self) -> &'static str {
        match self.package.container() {
            flatmodel::nnpackage::Container::Directory => "directory",
            _ => "zip",
        }
    }

    /// Each model's path in the package.
    #[getter]
    fn model_paths(&self) -> Vec<String> {
        self.package.models().iter().map(|m| m.path.clone()).collect()
    }

    /// Each model's type (`tflite`, `circle`, `bin`, ...).
    #[getter]
    fn model_types(&self) -> Vec<&'static str> {
        self.package.models().iter().map(|m| m.model_type.name()).collect()
    }

    /// The models, each as `flatmodel.open` gives it (`Model` for TFLite and Circle); `None`
    /// for a backend's opaque binary. Each shares its bytes with the package (no copy).
    #[getter]
    fn models(&self, py: Python<'_>) -> PyResult<Vec<Option<PyObject>>> {
        let mut out = Vec::new();
        for m in self.package.models() {
            if !m.model_type.is_flatbuffer() {
                out.push(None);
                continue;
            }
            let core = Core::open(py, Bytes::Shared(m.bytes.clone())).map_err(|e| crate::invalid(&e))?;
            out.push(Some(crate::wrap(py, core)?));
        }
        Ok(out)
    }

    fn __repr__(&self) -> String {
        format!("<flatmodel.Package {} model(s)>", self.package.models().len())
    }
}
