//! ExecuTorch `.ptd` data files from Python: segments and named data, a named tensor readable
//! as an array in its layout's type and shape.

use crate::array::{self, ArrayData};
use crate::core::Shared;
use crate::pte::scalar_dtype;
use flatmodel::ptd::{NamedData, PtdFile, TensorLayout};
use flatmodel::File;
use pyo3::exceptions::{PyKeyError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

fn data_file(core: &Shared) -> PyResult<PtdFile<'_>> {
    match core.file() {
        File::Ptd(p) => Ok(p),
        _ => Err(PyRuntimeError::new_err("not an ExecuTorch data file")),
    }
}

/// The named datum `key` and its segment's bytes, or `KeyError`.
fn entry<'a>(file: &PtdFile<'a>, key: &str) -> PyResult<(NamedData<'a>, &'a [u8])> {
    file.named_data(key).ok_or_else(|| PyKeyError::new_err(key.to_string()))
}

/// A tensor layout as Python sees it: `(dtype, shape, dim_order)`.
type Layout<'py> = (String, Bound<'py, PyTuple>, Bound<'py, PyTuple>);

/// A layout's element type as the `.pte` names it (`float32`).
fn layout_dtype(layout: &TensorLayout<'_>) -> String {
    scalar_dtype(flatmodel::pte::ScalarType(layout.scalar_type().0))
}

/// A layout's sizes as array dimensions (a negative size, which verification refuses, reads as
/// `usize::MAX` and so describes no bytes).
fn layout_shape(layout: &TensorLayout<'_>) -> Vec<usize> {
    layout.sizes().unwrap_or_default().iter().map(|s| usize::try_from(s).unwrap_or(usize::MAX)).collect()
}

/// An ExecuTorch data file (`.ptd`): the weights of programs exported with their data apart.
#[pyclass(module = "flatmodel", frozen)]
pub struct DataFile {
    pub core: Shared,
}

#[pymethods]
impl DataFile {
    /// `"ptd"`.
    #[getter]
    fn format(&self) -> &'static str {
        "ptd"
    }

    /// `FlatTensor.version`.
    #[getter]
    fn version(&self) -> PyResult<u32> {
        Ok(data_file(&self.core)?.flat_tensor().version())
    }

    /// The segments as `(file offset, length)` pairs.
    #[getter]
    fn segments(&self) -> PyResult<Vec<(usize, usize)>> {
        let file = data_file(&self.core)?;
        let n = file.flat_tensor().segments().map_or(0, |s| s.len());
        (0..n).map(|i| file.segment(i).map(|(at, b)| (at, b.len())).map_err(|e| crate::invalid(&e))).collect()
    }

    /// The keys of the named data, in file order.
    #[getter]
    fn keys(&self) -> PyResult<Vec<String>> {
        let file = data_file(&self.core)?;
        Ok(file.flat_tensor().named_data().into_iter().flatten().map(|d| d.key().unwrap_or("").to_string()).collect())
    }

    /// The tensor layout of `key` as `(dtype, shape, dim_order)`, or `None` for a datum
    /// without one (XNNPACK's weights); `KeyError` for a key the file lacks.
    fn layout<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Option<Layout<'py>>> {
        let (datum, _) = entry(&data_file(&self.core)?, key)?;
        let Some(layout) = datum.tensor_layout() else { return Ok(None) };
        let shape = PyTuple::new(py, layout.sizes().unwrap_or_default().iter())?;
        let order = PyTuple::new(py, layout.dim_order().unwrap_or_default().iter())?;
        Ok(Some((layout_dtype(&layout), shape, order)))
    }

    /// The named datum `key` as a read-only NumPy array over the file (no copy): in its
    /// layout's type and shape when it has one NumPy knows, else its segment's bytes as
    /// `uint8`; `KeyError` for a key the file lacks.
    fn named_data(&self, py: Python<'_>, key: &str) -> PyResult<PyObject> {
        let (datum, bytes) = entry(&data_file(&self.core)?, key)?;
        let typed = datum.tensor_layout().and_then(|layout| {
            let (ts, size) = array::typestr(&layout_dtype(&layout))?;
            let shape = layout_shape(&layout);
            let n = shape.iter().try_fold(size, |n, &d| n.checked_mul(d))?;
            ArrayData::of(&self.core, bytes.get(..n)?, ts, size, Some(shape))
        });
        match typed {
            Some(a) => crate::to_numpy(py, a),
            None => crate::bytes_array(py, &self.core, bytes),
        }
    }

    fn __len__(&self) -> PyResult<usize> {
        Ok(data_file(&self.core)?.flat_tensor().named_data().map_or(0, |d| d.len()))
    }

    fn __contains__(&self, key: &str) -> PyResult<bool> {
        Ok(data_file(&self.core)?.named_data(key).is_some())
    }

    /// The advisory findings (as `verify` lists them).
    #[getter]
    fn warnings(&self) -> Vec<String> {
        crate::verdict::warnings_of(&self.core.file())
    }

    fn __repr__(&self) -> PyResult<String> {
        let file = data_file(&self.core)?;
        let t = file.flat_tensor();
        Ok(format!(
            "<flatmodel.DataFile {} segment(s), {} named datum(s)>",
            t.segments().map_or(0, |s| s.len()),
            t.named_data().map_or(0, |d| d.len())
        ))
    }
}
