//! LiteRT-LM files (`.litertlm`) from Python: the version, the system metadata, and the
//! sections with their types, ranges and bytes.

use crate::core::Shared;
use flatmodel::litertlm::{KeyValuePair, LitertLmFile, VData};
use flatmodel::File;
use pyo3::exceptions::{PyIndexError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

fn container(core: &Shared) -> PyResult<LitertLmFile<'_>> {
    match core.file() {
        File::LitertLm(f) => Ok(f),
        _ => Err(PyRuntimeError::new_err("not a LiteRT-LM file")),
    }
}

/// A metadata value as Python's: `int`, `float`, `bool` or `str`; `None` for a value type this
/// schema does not name.
fn value(py: Python<'_>, v: VData<'_>) -> PyResult<PyObject> {
    Ok(match v {
        VData::UInt8(x) => x.value().into_pyobject(py)?.into_any().unbind(),
        VData::Int8(x) => x.value().into_pyobject(py)?.into_any().unbind(),
        VData::UInt16(x) => x.value().into_pyobject(py)?.into_any().unbind(),
        VData::Int16(x) => x.value().into_pyobject(py)?.into_any().unbind(),
        VData::UInt32(x) => x.value().into_pyobject(py)?.into_any().unbind(),
        VData::Int32(x) => x.value().into_pyobject(py)?.into_any().unbind(),
        VData::UInt64(x) => x.value().into_pyobject(py)?.into_any().unbind(),
        VData::Int64(x) => x.value().into_pyobject(py)?.into_any().unbind(),
        VData::Float32(x) => x.value().into_pyobject(py)?.into_any().unbind(),
        VData::Double(x) => x.value().into_pyobject(py)?.into_any().unbind(),
        VData::Bool(x) => x.value().into_pyobject(py)?.to_owned().into_any().unbind(),
        VData::StringValue(x) => x.value().into_pyobject(py)?.into_any().unbind(),
        _ => py.None(),
    })
}

/// Key-value pairs as a dict (a later duplicate key wins).
fn pairs<'py, 'a>(
    py: Python<'py>,
    entries: impl IntoIterator<Item = KeyValuePair<'a>>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for e in entries {
        d.set_item(e.key(), value(py, e.value())?)?;
    }
    Ok(d)
}

/// A LiteRT-LM file (`.litertlm`), verified: its header, metadata, section ranges, TFLite
/// sections, protobuf sections and HF tokenizers' zlib streams.
#[pyclass(module = "flatmodel", frozen)]
pub struct LitertLm {
    pub core: Shared,
}

#[pymethods]
impl LitertLm {
    /// `"litertlm"`.
    #[getter]
    fn format(&self) -> &'static str {
        "litertlm"
    }

    /// The file version as `(major, minor, patch)`.
    #[getter]
    fn version(&self) -> PyResult<(u32, u32, u32)> {
        let h = container(&self.core)?.header();
        Ok((h.major, h.minor, h.patch))
    }

    /// The system metadata's key-value pairs as a dict.
    fn system_metadata<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let f = container(&self.core)?;
        let entries = f.metadata().system_metadata().and_then(|s| s.entries());
        pairs(py, entries.into_iter().flatten())
    }

    /// The sections as `(type, begin, end)`: the type's name (`TFLiteModel`,
    /// `SP_Tokenizer`), or its number for one this schema does not name, and the file range.
    #[getter]
    fn sections(&self) -> PyResult<Vec<(String, u64, u64)>> {
        let f = container(&self.core)?;
        (0..f.section_count())
            .map(|i| {
                let s = f.section(i).map_err(|e| crate::invalid(&e))?;
                let kind = s.data_type.name().map_or_else(|| s.data_type.0.to_string(), str::to_string);
                Ok((kind, s.begin, s.end))
            })
            .collect()
    }

    /// Section `index`'s bytes as a `uint8` array over the file (no copy).
    fn section(&self, py: Python<'_>, index: usize) -> PyResult<PyObject> {
        let f = container(&self.core)?;
        if index >= f.section_count() {
            return Err(PyIndexError::new_err("no such section"));
        }
        let s = f.section(index).map_err(|e| crate::invalid(&e))?;
        crate::bytes_array(py, &self.core, s.bytes)
    }

    /// Section `index`'s items (`SectionObject.items`) as a dict.
    fn section_items<'py>(&self, py: Python<'py>, index: usize) -> PyResult<Bound<'py, PyDict>> {
        let f = container(&self.core)?;
        if index >= f.section_count() {
            return Err(PyIndexError::new_err("no such section"));
        }
        let s = f.section(index).map_err(|e| crate::invalid(&e))?;
        pairs(py, s.object.items().into_iter().flatten())
    }

    /// The advisory findings (as `verify` lists them).
    #[getter]
    fn warnings(&self) -> Vec<String> {
        crate::verdict::warnings_of(&self.core.file())
    }

    fn __repr__(&self) -> PyResult<String> {
        let f = container(&self.core)?;
        let h = f.header();
        Ok(format!("<flatmodel.LitertLm v{}.{}.{}, {} section(s)>", h.major, h.minor, h.patch, f.section_count()))
    }
}
