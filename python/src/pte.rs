//! ExecuTorch programs (`.pte`) from Python: execution plans with their values (constant
//! tensors readable as arrays), operators and delegates, segments and named data; a Vulkan
//! delegate's blob as a [`crate::vkgraph::VulkanBlob`].

use crate::array::{self, ArrayData};
use crate::core::Shared;
use crate::items::{Items, Kind};
use flatmodel::pte::{ExecutionPlan, KernelTypes, PteFile, ScalarType, TensorDataLocation};
use flatmodel::File;
use pyo3::exceptions::{PyIndexError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// The core's program.
fn program(core: &Shared) -> PyResult<PteFile<'_>> {
    match core.file() {
        File::Pte(p) => Ok(p),
        _ => Err(PyRuntimeError::new_err("not an ExecuTorch program")),
    }
}

/// Execution plan `index` of `file`.
fn plan<'a>(file: &PteFile<'a>, index: usize) -> PyResult<ExecutionPlan<'a>> {
    file.program().execution_plan().and_then(|p| p.get(index)).ok_or_else(|| PyIndexError::new_err("no such plan"))
}

/// A scalar type by name, lower-case, NumPy's where it has one (`float32`, `int64`).
pub fn scalar_dtype(t: ScalarType) -> String {
    match t.name() {
        Some("BYTE") => "uint8".into(),
        Some("CHAR") => "int8".into(),
        Some("SHORT") => "int16".into(),
        Some("INT") => "int32".into(),
        Some("LONG") => "int64".into(),
        Some("HALF") => "float16".into(),
        Some("FLOAT") => "float32".into(),
        Some("DOUBLE") => "float64".into(),
        Some(other) => other.to_ascii_lowercase(),
        None => format!("type({})", t.0),
    }
}

/// An ExecuTorch program, verified in full (segments, delegates and Vulkan blobs included).
#[pyclass(module = "flatmodel", frozen)]
pub struct Program {
    pub core: Shared,
}

#[pymethods]
impl Program {
    /// `"pte"`.
    #[getter]
    fn format(&self) -> &'static str {
        "pte"
    }

    /// `Program.version`.
    #[getter]
    fn version(&self) -> PyResult<u32> {
        Ok(program(&self.core)?.program().version())
    }

    /// The execution plans (`forward`, ...).
    #[getter]
    fn plans(&self, py: Python<'_>) -> PyResult<Vec<Py<Plan>>> {
        let n = program(&self.core)?.program().execution_plan().map_or(0, |p| p.len());
        (0..n).map(|index| Py::new(py, Plan { core: self.core.clone(), index })).collect()
    }

    /// Every plan's delegates, in order: `(plan, index, id)` and the blob.
    #[getter]
    fn delegates(&self, py: Python<'_>) -> PyResult<Vec<Py<Delegate>>> {
        // Bounded by the file: `PteFile::parse` charged this walk to its work budget.
        let n = program(&self.core)?.delegates().count();
        (0..n).map(|index| Py::new(py, Delegate { core: self.core.clone(), index })).collect()
    }

    /// How many segments the program's data lies in.
    #[getter]
    fn segment_count(&self) -> PyResult<usize> {
        Ok(program(&self.core)?.program().segments().map_or(0, |s| s.len()))
    }

    /// Segment `index`'s bytes as a `uint8` array over the file (no copy).
    fn segment(&self, py: Python<'_>, index: usize) -> PyResult<PyObject> {
        let (_, bytes) = program(&self.core)?.segment(index).map_err(|e| crate::invalid(&e))?;
        crate::bytes_array(py, &self.core, bytes)
    }

    /// The keys of the named data.
    #[getter]
    fn named_data_keys(&self) -> PyResult<Vec<String>> {
        let p = program(&self.core)?;
        Ok(p.program().named_data().into_iter().flatten().map(|d| d.key().unwrap_or("").to_string()).collect())
    }

    /// The keys the program reads from named data that its own named data does not hold (or
    /// holds too short): what its `.ptd` files must give, as `(key, reader, bytes)` with the
    /// reader as `verify` names it (`delegate 0.0 (XnnpackBackend)`, `program (plan 0, value
    /// 3)`) and the bytes it reads.
    #[getter]
    fn external_keys(&self) -> PyResult<Vec<(String, String, u64)>> {
        let p = program(&self.core)?;
        let mut keys = Vec::new();
        p.external_keys(&flatmodel::verify::Options::DEFAULT, |k| {
            keys.push((k.key.to_string(), k.reader.to_string(), k.bytes));
        })
        .map_err(|e| crate::invalid(&e))?;
        Ok(keys)
    }

    /// The named datum `key`'s bytes as a `uint8` array over the file, or `None`.
    fn named_data(&self, py: Python<'_>, key: &str) -> PyResult<Option<PyObject>> {
        program(&self.core)?.named_data(key).map(|b| crate::bytes_array(py, &self.core, b)).transpose()
    }

    /// The advisory findings (as `verify` lists them).
    #[getter]
    fn warnings(&self) -> Vec<String> {
        crate::verdict::warnings_of(&self.core.file())
    }

    fn __repr__(&self) -> PyResult<String> {
        let p = program(&self.core)?;
        Ok(format!(
            "<flatmodel.Program v{}, {} plan(s)>",
            p.program().version(),
            p.program().execution_plan().map_or(0, |e| e.len())
        ))
    }
}

/// One execution plan of a program.
#[pyclass(module = "flatmodel", frozen)]
pub struct Plan {
    core: Shared,
    /// Its index in `Program.execution_plan`.
    #[pyo3(get)]
    index: usize,
}

#[pymethods]
impl Plan {
    /// `ExecutionPlan.name` (`forward`).
    #[getter]
    fn name(&self) -> PyResult<Option<String>> {
        Ok(plan(&program(&self.core)?, self.index)?.name().map(str::to_string))
    }

    /// The values (tensors, scalars, lists): a lazy sequence of `Value`.
    #[getter]
    fn values(&self) -> PyResult<Items> {
        let n = plan(&program(&self.core)?, self.index)?.values().map_or(0, |v| v.len());
        Ok(Items::new(self.core.clone(), Kind::PlanValues(self.index), n))
    }

    /// The input values' indices.
    #[getter]
    fn inputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, plan(&program(&self.core)?, self.index)?.inputs().unwrap_or_default().iter())
    }

    /// The output values' indices.
    #[getter]
    fn outputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, plan(&program(&self.core)?, self.index)?.outputs().unwrap_or_default().iter())
    }

    /// The kernels it calls, `name.overload` (`aten::add.out`).
    #[getter]
    fn operators(&self) -> PyResult<Vec<String>> {
        let p = plan(&program(&self.core)?, self.index)?;
        Ok(p.operators()
            .into_iter()
            .flatten()
            .map(|o| match o.overload().filter(|s| !s.is_empty()) {
                Some(overload) => format!("{}.{overload}", o.name().unwrap_or("")),
                None => o.name().unwrap_or("").to_string(),
            })
            .collect())
    }

    /// How many instructions each chain holds.
    #[getter]
    fn chains(&self) -> PyResult<Vec<usize>> {
        let p = plan(&program(&self.core)?, self.index)?;
        Ok(p.chains().into_iter().flatten().map(|c| c.instructions().map_or(0, |i| i.len())).collect())
    }

    /// The backend ids of its delegates (`VulkanBackend`, `XnnpackBackend`).
    #[getter]
    fn delegate_ids(&self) -> PyResult<Vec<String>> {
        let p = plan(&program(&self.core)?, self.index)?;
        Ok(p.delegates().into_iter().flatten().map(|d| d.id().unwrap_or("").to_string()).collect())
    }

    fn __repr__(&self) -> PyResult<String> {
        Ok(format!("<flatmodel.Plan {:?}>", self.name()?.unwrap_or_default()))
    }
}

/// One value of an execution plan: a tensor (with `dtype`, `shape`, `numpy()` for constants)
/// or a scalar or list (`kind` says which).
#[pyclass(module = "flatmodel", frozen)]
pub struct Value {
    core: Shared,
    plan: usize,
    /// Its index in the plan's values.
    #[pyo3(get)]
    index: usize,
}

impl Value {
    pub fn new(core: Shared, plan: usize, index: usize) -> Value {
        Value { core, plan, index }
    }

    fn val<'a>(&self, file: &PteFile<'a>) -> PyResult<KernelTypes<'a>> {
        let v = plan(file, self.plan)?.values().and_then(|v| v.get(self.index));
        Ok(v.ok_or_else(|| PyIndexError::new_err("no such value"))?.val())
    }
}

#[pymethods]
impl Value {
    /// What it holds: `"Tensor"`, `"Int"`, `"Double"`, `"Bool"`, `"String"`, `"IntList"`,
    /// ..., `"Null"` (or `"NONE"`).
    #[getter]
    fn kind(&self) -> PyResult<String> {
        let v = self.val(&program(&self.core)?)?;
        Ok(v.type_name().map_or_else(|| format!("type({})", v.tag()), str::to_string))
    }

    /// A tensor's element type (`float32`, `int64`, `qint8`), else `None`.
    #[getter]
    fn dtype(&self) -> PyResult<Option<String>> {
        Ok(match self.val(&program(&self.core)?)? {
            KernelTypes::Tensor(t) => Some(scalar_dtype(t.scalar_type())),
            _ => None,
        })
    }

    /// A tensor's sizes, else `None`.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        match self.val(&program(&self.core)?)? {
            KernelTypes::Tensor(t) => Ok(Some(PyTuple::new(py, t.sizes().unwrap_or_default().iter())?)),
            _ => Ok(None),
        }
    }

    /// A scalar's value (`Int`, `Double`, `Bool`, `String`), else `None`.
    #[getter]
    fn value(&self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        Ok(match self.val(&program(&self.core)?)? {
            KernelTypes::Int(i) => Some(i.int_val().into_pyobject(py)?.into_any().unbind()),
            KernelTypes::Double(d) => Some(d.double_val().into_pyobject(py)?.into_any().unbind()),
            KernelTypes::Bool(b) => Some(pyo3::types::PyBool::new(py, b.bool_val()).to_owned().into_any().unbind()),
            KernelTypes::String(s) => Some(s.string_val().unwrap_or("").into_pyobject(py)?.into_any().unbind()),
            _ => None,
        })
    }

    /// A constant tensor's data as a read-only NumPy array over the file (no copy): one in
    /// the constant segment or the legacy `constant_buffer`. `None` for other values and for
    /// data outside the file (external, or allocated at run time).
    fn numpy(&self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        let file = program(&self.core)?;
        let KernelTypes::Tensor(t) = self.val(&file)? else { return Ok(None) };
        let external = t.extra_tensor_info().is_some_and(|e| e.location() == TensorDataLocation::EXTERNAL);
        let index = t.data_buffer_idx();
        if external || index == 0 || t.allocation_info().is_some() {
            return Ok(None);
        }
        let dtype = scalar_dtype(t.scalar_type());
        let shape: Vec<usize> =
            t.sizes().into_iter().flatten().map(|d| usize::try_from(d).unwrap_or(usize::MAX)).collect();
        let size = t.scalar_type().element_size().and_then(|s| usize::try_from(s).ok()).unwrap_or(1);
        let nbytes = shape.iter().try_fold(size, |n, &d| n.checked_mul(d)).unwrap_or(usize::MAX);
        let Some(data) = constant_bytes(&file, index, nbytes)? else { return Ok(None) };
        let array = match array::typestr(&dtype) {
            Some((ts, size)) => ArrayData::of(&self.core, data, ts, size, Some(shape)),
            None => ArrayData::bytes(&self.core, data),
        };
        array.map(|a| crate::to_numpy(py, a)).transpose()
    }

    fn __repr__(&self) -> PyResult<String> {
        Ok(format!("<flatmodel.Value {} {}>", self.index, self.kind()?))
    }
}

/// The `nbytes` bytes of constant buffer `index`: in the legacy `constant_buffer` when the
/// program has one, else at `constant_segment.offsets[index]` in the constant segment.
fn constant_bytes<'a>(file: &PteFile<'a>, index: u32, nbytes: usize) -> PyResult<Option<&'a [u8]>> {
    let p = file.program();
    let i = usize::try_from(index).unwrap_or(usize::MAX);
    if let Some(buffers) = p.constant_buffer().filter(|b| !b.is_empty()) {
        return Ok(buffers.get(i).and_then(|b| b.storage()).map(|s| s.as_slice()));
    }
    let Some(segment) = p.constant_segment() else { return Ok(None) };
    let (_, bytes) =
        file.segment(usize::try_from(segment.segment_index()).unwrap_or(usize::MAX)).map_err(|e| crate::invalid(&e))?;
    let Some(start) = segment.offsets().and_then(|o| o.get(i)).and_then(|o| usize::try_from(o).ok()) else {
        return Ok(None);
    };
    Ok(start.checked_add(nbytes).and_then(|end| bytes.get(start..end)))
}

/// One delegate of a program: its backend, where its blob lies, and its Vulkan or XNNPACK
/// graph.
#[pyclass(module = "flatmodel", frozen)]
pub struct Delegate {
    core: Shared,
    index: usize,
}

impl Delegate {
    fn get<'a>(&self, file: &PteFile<'a>) -> PyResult<flatmodel::pte::Delegate<'a>> {
        file.delegate(self.index).ok_or_else(|| PyIndexError::new_err("no such delegate"))
    }
}

#[pymethods]
impl Delegate {
    /// The backend id (`VulkanBackend`, `XnnpackBackend`).
    #[getter]
    fn id(&self) -> PyResult<Option<String>> {
        Ok(self.get(&program(&self.core)?)?.id.map(str::to_string))
    }

    /// The execution plan it belongs to.
    #[getter]
    fn plan(&self) -> PyResult<usize> {
        Ok(self.get(&program(&self.core)?)?.plan)
    }

    /// Its offset in the file and length, as stored (inline or in a segment).
    #[getter]
    fn blob_range(&self) -> PyResult<(usize, usize)> {
        let file = program(&self.core)?;
        let (at, bytes) = file.delegate_blob(&self.get(&file)?).map_err(|e| crate::invalid(&e))?;
        Ok((at, bytes.len()))
    }

    /// The blob's bytes as a `uint8` array over the file (no copy).
    fn data(&self, py: Python<'_>) -> PyResult<PyObject> {
        let file = program(&self.core)?;
        let (_, bytes) = file.delegate_blob(&self.get(&file)?).map_err(|e| crate::invalid(&e))?;
        crate::bytes_array(py, &self.core, bytes)
    }

    /// The Vulkan delegate's graph (`VulkanBlob`), or `None` for another backend.
    #[getter]
    fn vulkan(&self, py: Python<'_>) -> PyResult<Option<Py<crate::vkgraph::VulkanBlob>>> {
        let file = program(&self.core)?;
        let d = self.get(&file)?;
        match file.vulkan_blob(&d) {
            None => Ok(None),
            Some(Err(e)) => Err(crate::invalid(&e)),
            Some(Ok(_)) => Py::new(py, crate::vkgraph::VulkanBlob::new(self.core.clone(), Some(self.index))).map(Some),
        }
    }

    /// The XNNPACK delegate's graph (`XnnpackBlob`), or `None` for another backend.
    #[getter]
    fn xnnpack(&self, py: Python<'_>) -> PyResult<Option<Py<crate::xnnpack::XnnpackBlob>>> {
        let file = program(&self.core)?;
        let d = self.get(&file)?;
        match file.xnnpack_blob(&d) {
            None => Ok(None),
            Some(Err(e)) => Err(crate::invalid(&e)),
            Some(Ok(_)) => Py::new(py, crate::xnnpack::XnnpackBlob::new(self.core.clone(), Some(self.index))).map(Some),
        }
    }

    fn __repr__(&self) -> PyResult<String> {
        Ok(format!("<flatmodel.Delegate {} {:?}>", self.index, self.id()?.unwrap_or_default()))
    }
}
