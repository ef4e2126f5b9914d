//! Sophgo cvimodels from Python: header facts, programs with their routines, sections (their
//! stored bytes as arrays) and the weight map (each weight as an array over the WEIGHT
//! section).

use crate::array::{self, ArrayData};
use crate::core::Shared;
use flatmodel::cvimodel::{CviModel as View, DType};
use flatmodel::File;
use pyo3::exceptions::{PyIndexError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

fn cvi(core: &Shared) -> PyResult<View<'_>> {
    match core.file() {
        File::Cvimodel(c) => Ok(c),
        _ => Err(PyRuntimeError::new_err("not a cvimodel")),
    }
}

/// A cvimodel type by NumPy's name where it has one (`float32`, `int8`, `bf16`).
fn cvi_dtype(t: DType) -> String {
    match t.name() {
        Some("FP32") => "float32".into(),
        Some(other) => other.to_ascii_lowercase(),
        None => format!("type({})", t.0),
    }
}

fn strings<'a>(v: Option<flatmodel::wire::StrVector<'a>>) -> Vec<String> {
    v.into_iter().flatten().map(str::to_string).collect()
}

/// A cvimodel, verified in full (header, body, sections, LZ4 claims).
#[pyclass(module = "flatmodel", frozen)]
pub struct CviModel {
    pub core: Shared,
}

#[pymethods]
impl CviModel {
    /// `"cvimodel"`.
    #[getter]
    fn format(&self) -> &'static str {
        "cvimodel"
    }

    /// The header's format version, `(major, minor)`.
    #[getter]
    fn version(&self) -> PyResult<(u8, u8)> {
        let h = *cvi(&self.core)?.header();
        Ok((h.major, h.minor))
    }

    /// The chip it is built for (`cv181x`), `None` in a version 1.0 header.
    #[getter]
    fn chip(&self) -> PyResult<Option<String>> {
        Ok(cvi(&self.core)?.header().chip_name().map(str::to_string))
    }

    /// `Model.name`.
    #[getter]
    fn name(&self) -> PyResult<String> {
        Ok(cvi(&self.core)?.model().name().to_string())
    }

    /// Whether the header's MD5 matches the file.
    #[getter]
    fn md5_ok(&self) -> PyResult<bool> {
        Ok(cvi(&self.core)?.md5_check().matches())
    }

    /// The programs: each a dict of `batch_num`, `input_tensors`, `output_tensors`,
    /// `tensors` (names), and `routines` (each `type`, `inputs`, `outputs`, `section`).
    #[getter]
    fn programs<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let c = cvi(&self.core)?;
        let mut out = Vec::new();
        for p in c.model().programs().into_iter().flatten() {
            let d = PyDict::new(py);
            d.set_item("batch_num", p.batch_num())?;
            d.set_item("input_tensors", strings(p.input_tensors()))?;
            d.set_item("output_tensors", strings(p.output_tensors()))?;
            let tensors: Vec<String> = p.tensor_map().into_iter().flatten().map(|t| t.name().to_string()).collect();
            d.set_item("tensors", tensors)?;
            let mut routines = Vec::new();
            for r in p.routines().into_iter().flatten() {
                let rd = PyDict::new(py);
                rd.set_item("type", r.type_().name().unwrap_or("?"))?;
                rd.set_item("inputs", strings(r.in_tensors()))?;
                rd.set_item("outputs", strings(r.out_tensors()))?;
                let section = c.routine_section(&r).ok().flatten().map(|(i, _)| i);
                rd.set_item("section", section)?;
                routines.push(rd);
            }
            d.set_item("routines", routines)?;
            out.push(d);
        }
        Ok(out)
    }

    /// The sections, in file order.
    #[getter]
    fn sections(&self, py: Python<'_>) -> PyResult<Vec<Py<Section>>> {
        let n = cvi(&self.core)?.model().sections().map_or(0, |s| s.len());
        (0..n).map(|index| Py::new(py, Section { core: self.core.clone(), index })).collect()
    }

    /// The weight map.
    #[getter]
    fn weights(&self, py: Python<'_>) -> PyResult<Vec<Py<Weight>>> {
        let n = cvi(&self.core)?.model().weight_map().map_or(0, |s| s.len());
        (0..n).map(|index| Py::new(py, Weight { core: self.core.clone(), index })).collect()
    }

    /// The advisory findings (as `verify` lists them).
    #[getter]
    fn warnings(&self) -> Vec<String> {
        crate::verdict::warnings_of(&self.core.file())
    }

    fn __repr__(&self) -> PyResult<String> {
        Ok(format!("<flatmodel.CviModel {:?}, chip {}>", self.name()?, self.chip()?.unwrap_or_default()))
    }
}

/// One section of a cvimodel: weights, a command buffer, a CPU function.
#[pyclass(module = "flatmodel", frozen)]
pub struct Section {
    core: Shared,
    /// Its index in `Model.sections`.
    #[pyo3(get)]
    index: usize,
}

impl Section {
    fn get<'a>(&self, c: &View<'a>) -> PyResult<flatmodel::cvimodel::SectionRef<'a>> {
        c.section_at(self.index).map_err(|e| crate::invalid(&e))
    }
}

#[pymethods]
impl Section {
    /// `Section.name`.
    #[getter]
    fn name(&self) -> PyResult<String> {
        Ok(self.get(&cvi(&self.core)?)?.section.name().to_string())
    }

    /// `Section.type`: `WEIGHT`, `CMDBUF`, `FUNC_X86`, `FUNC_AARCH64`, `DMABUF`.
    #[getter]
    fn kind(&self) -> PyResult<String> {
        let t = self.get(&cvi(&self.core)?)?.section.type_();
        Ok(t.name().map_or_else(|| format!("type({})", t.0), str::to_string))
    }

    /// Where the stored payload starts in the file, and its length.
    #[getter]
    fn range(&self) -> PyResult<(usize, usize)> {
        let s = self.get(&cvi(&self.core)?)?;
        Ok((s.file_offset, s.payload.len()))
    }

    /// Whether the payload is LZ4-compressed.
    #[getter]
    fn compressed(&self) -> PyResult<bool> {
        Ok(self.get(&cvi(&self.core)?)?.section.is_lz4())
    }

    /// Whether the payload is marked encrypted.
    #[getter]
    fn encrypted(&self) -> PyResult<bool> {
        Ok(self.get(&cvi(&self.core)?)?.section.encrypt())
    }

    /// The stored payload as a `uint8` array over the file (no copy; compressed as stored).
    fn data(&self, py: Python<'_>) -> PyResult<PyObject> {
        let s = self.get(&cvi(&self.core)?)?;
        crate::bytes_array(py, &self.core, s.payload)
    }

    fn __repr__(&self) -> PyResult<String> {
        Ok(format!("<flatmodel.Section {} {:?} {}>", self.index, self.name()?, self.kind()?))
    }
}

/// One entry of a cvimodel's weight map.
#[pyclass(module = "flatmodel", frozen)]
pub struct Weight {
    core: Shared,
    index: usize,
}

impl Weight {
    fn get<'a>(&self, c: &View<'a>) -> PyResult<flatmodel::cvimodel::Weight<'a>> {
        c.model().weight_map().and_then(|w| w.get(self.index)).ok_or_else(|| PyIndexError::new_err("no such weight"))
    }
}

#[pymethods]
impl Weight {
    /// `Weight.name`.
    #[getter]
    fn name(&self) -> PyResult<Option<String>> {
        Ok(self.get(&cvi(&self.core)?)?.name().map(str::to_string))
    }

    /// The element type (`float32`, `int8`, `bf16`, ...).
    #[getter]
    fn dtype(&self) -> PyResult<String> {
        Ok(cvi_dtype(self.get(&cvi(&self.core)?)?.type_()))
    }

    /// `Weight.shape`, or `None`.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let w = self.get(&cvi(&self.core)?)?;
        w.shape().map(|s| PyTuple::new(py, s.dim().unwrap_or_default().iter())).transpose()
    }

    /// The weight's bytes in the WEIGHT section as a read-only NumPy array (no copy), in its
    /// shape and type (flat bytes for `bf16`).
    fn numpy(&self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        let c = cvi(&self.core)?;
        let w = self.get(&c)?;
        let data = c.weight_data(&w).map_err(|e| crate::invalid(&e))?;
        let shape: Option<Vec<usize>> = w
            .shape()
            .map(|s| s.dim().into_iter().flatten().map(|d| usize::try_from(d).unwrap_or(usize::MAX)).collect());
        let array = match array::typestr(&cvi_dtype(w.type_())) {
            Some((ts, size)) => ArrayData::of(&self.core, data, ts, size, shape),
            None => ArrayData::bytes(&self.core, data),
        };
        array.map(|a| crate::to_numpy(py, a)).transpose()
    }

    fn __repr__(&self) -> PyResult<String> {
        Ok(format!("<flatmodel.Weight {:?}>", self.name()?.unwrap_or_default()))
    }
}
