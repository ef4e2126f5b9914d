//! The arrays `numpy()` returns: no copy. An [`ArrayData`] describes part of a core's bytes
//! through NumPy's `__array_interface__` (read-only), and `numpy.asarray` makes the array over
//! that memory with the `ArrayData` as its base object, which holds the core and so the bytes.

use crate::core::{Core, Shared};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// Part of a model's bytes as NumPy sees it (read-only); the base object of the arrays
/// `numpy()` returns, which keeps the model's bytes alive.
#[pyclass(module = "flatmodel", frozen)]
pub struct ArrayData {
    core: Shared,
    offset: usize,
    len: usize,
    typestr: &'static str,
    shape: Vec<usize>,
}

impl ArrayData {
    /// `part` (bytes of `core`) as elements of `typestr` (NumPy's, `<f4`) of `size` bytes in
    /// `shape`; a flat array of bytes when the shape does not describe `part`'s length; `None`
    /// when `part` is not in the core's bytes.
    pub fn of(
        core: &Shared,
        part: &[u8],
        typestr: &'static str,
        size: usize,
        shape: Option<Vec<usize>>,
    ) -> Option<Self> {
        let offset = core.offset_of(part)?;
        let len = part.len();
        let elements = shape.as_ref().map(|s| s.iter().try_fold(1usize, |n, &d| n.checked_mul(d)));
        let fits = |n: usize| n.checked_mul(size) == Some(len);
        let (typestr, shape) = match (shape, elements) {
            (Some(shape), Some(Some(n))) if fits(n) => (typestr, shape),
            _ if size > 0 && len.is_multiple_of(size) => (typestr, vec![len / size]),
            _ => ("|u1", vec![len]),
        };
        Some(ArrayData { core: Shared::clone(core), offset, len, typestr, shape })
    }

    /// Bytes of `core` as a flat `uint8` array.
    pub fn bytes(core: &Shared, part: &[u8]) -> Option<Self> {
        ArrayData::of(core, part, "|u1", 1, None)
    }
}

/// NumPy's type string for a tensor element type's name (`float32` → `<f4`), with its size;
/// `None` for types NumPy has no dtype for (`int4`, `string`, `bfloat16`, ...).
pub fn typestr(dtype: &str) -> Option<(&'static str, usize)> {
    Some(match dtype {
        "float16" => ("<f2", 2),
        "float32" => ("<f4", 4),
        "float64" => ("<f8", 8),
        "int8" => ("|i1", 1),
        "uint8" => ("|u1", 1),
        "int16" => ("<i2", 2),
        "uint16" => ("<u2", 2),
        "int32" => ("<i4", 4),
        "uint32" => ("<u4", 4),
        "int64" => ("<i8", 8),
        "uint64" => ("<u8", 8),
        "bool" => ("|b1", 1),
        "complex64" => ("<c8", 8),
        "complex128" => ("<c16", 16),
        _ => return None,
    })
}

#[pymethods]
impl ArrayData {
    /// NumPy's array interface (version 3): the address and length of the bytes, read-only.
    #[getter(__array_interface__)]
    fn array_interface<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let bytes: &[u8] = Core::bytes(&self.core);
        let part = bytes
            .get(self.offset..self.offset.saturating_add(self.len))
            .ok_or_else(|| PyValueError::new_err("array outside the model's bytes"))?;
        let d = PyDict::new(py);
        d.set_item("version", 3)?;
        d.set_item("shape", PyTuple::new(py, &self.shape)?)?;
        d.set_item("typestr", self.typestr)?;
        d.set_item("data", (part.as_ptr().addr(), true))?;
        Ok(d)
    }

    /// How many bytes.
    #[getter]
    fn nbytes(&self) -> usize {
        self.len
    }

    /// Where the bytes start in the file.
    #[getter]
    fn offset(&self) -> usize {
        self.offset
    }
}
