//! Vulkan delegate blobs (`VH00`, or a bare `VK00` VkGraph) from Python: the graph's values
//! (constant tensors readable as arrays), operator chain, inputs and outputs; a file of its own
//! or a delegate of a `.pte`.

use crate::array::{self, ArrayData};
use crate::core::Shared;
use crate::items::{Items, Kind};
use flatmodel::vkgraph::{Blob, Constant, GraphTypes, VkDataType, VkGraph};
use flatmodel::File;
use pyo3::exceptions::{PyIndexError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// The blob `at` names in `core`: the file itself (`None`), or the Vulkan blob of the
/// program's delegate `n`, with the lookup of the program's named data.
fn blob_of(core: &Shared, at: Option<usize>) -> PyResult<(Blob<'_>, Option<flatmodel::pte::PteFile<'_>>)> {
    match (core.file(), at) {
        (File::VkGraph(b), None) => Ok((b, None)),
        (File::Pte(p), Some(n)) => {
            let d = p.delegate(n).ok_or_else(|| PyIndexError::new_err("no such delegate"))?;
            match p.vulkan_blob(&d) {
                Some(Ok(b)) => Ok((b, Some(p))),
                Some(Err(e)) => Err(crate::invalid(&e)),
                None => Err(PyRuntimeError::new_err("not a Vulkan delegate")),
            }
        }
        _ => Err(PyRuntimeError::new_err("not a Vulkan blob")),
    }
}

/// Constant `index`'s bytes: inline, or the program's named data; `None` for a bare VkGraph
/// (`VK00`: the constant bytes follow the flatbuffer only in a `VH00` blob) and for a named
/// constant of a blob read without its program.
fn constant_bytes<'a>(
    blob: &Blob<'a>,
    program: Option<flatmodel::pte::PteFile<'a>>,
    index: usize,
) -> PyResult<Option<&'a [u8]>> {
    let named = matches!(blob.constant(index), Ok(Constant::Named { .. }));
    if (program.is_none() && named) || (blob.header().is_none() && !named) {
        return Ok(None);
    }
    blob.constant_data(index, |k| program.and_then(|p| p.named_data(k))).map(Some).map_err(|e| crate::invalid(&e))
}

fn graph(core: &Shared, at: Option<usize>) -> PyResult<VkGraph<'_>> {
    Ok(blob_of(core, at)?.0.graph())
}

/// A Vulkan type by name, lower-case (`float32`, `packed_int8_4c1w`).
fn vk_dtype(t: VkDataType) -> String {
    t.name().map_or_else(|| format!("type({})", t.0), str::to_ascii_lowercase)
}

/// A Vulkan delegate's graph (`VkGraph`), from a blob file or a program's delegate.
#[pyclass(module = "flatmodel", frozen)]
pub struct VulkanBlob {
    core: Shared,
    at: Option<usize>,
}

impl VulkanBlob {
    pub fn new(core: Shared, at: Option<usize>) -> VulkanBlob {
        VulkanBlob { core, at }
    }
}

#[pymethods]
impl VulkanBlob {
    /// `"vkgraph"`.
    #[getter]
    fn format(&self) -> &'static str {
        "vkgraph"
    }

    /// Whether the blob has its `VH00` header (a bare VkGraph has none).
    #[getter]
    fn has_header(&self) -> PyResult<bool> {
        Ok(blob_of(&self.core, self.at)?.0.header().is_some())
    }

    /// `VkGraph.version`.
    #[getter]
    fn version(&self) -> PyResult<Option<String>> {
        Ok(graph(&self.core, self.at)?.version().map(str::to_string))
    }

    /// The values (tensors, scalars, lists): a lazy sequence of `VkValue`.
    #[getter]
    fn values(&self) -> PyResult<Items> {
        let n = graph(&self.core, self.at)?.values().map_or(0, |v| v.len());
        Ok(Items::new(self.core.clone(), Kind::VkValues(self.at), n))
    }

    /// The operator calls in order (`chain`): a lazy sequence of `VkOperator`.
    #[getter]
    fn operators(&self) -> PyResult<Items> {
        let n = graph(&self.core, self.at)?.chain().map_or(0, |v| v.len());
        Ok(Items::new(self.core.clone(), Kind::VkOperators(self.at), n))
    }

    /// The input values' indices.
    #[getter]
    fn inputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, graph(&self.core, self.at)?.input_ids().unwrap_or_default().iter())
    }

    /// The output values' indices.
    #[getter]
    fn outputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, graph(&self.core, self.at)?.output_ids().unwrap_or_default().iter())
    }

    /// How many constants `VkGraph.constants` lists.
    #[getter]
    fn constant_count(&self) -> PyResult<usize> {
        Ok(graph(&self.core, self.at)?.constants().map_or(0, |c| c.len()))
    }

    /// Constant `index`'s bytes as a `uint8` array over the file (no copy); a named constant is
    /// read from the program's named data.
    fn constant(&self, py: Python<'_>, index: usize) -> PyResult<PyObject> {
        let (blob, program) = blob_of(&self.core, self.at)?;
        let data =
            blob.constant_data(index, |k| program.and_then(|p| p.named_data(k))).map_err(|e| crate::invalid(&e))?;
        crate::bytes_array(py, &self.core, data)
    }

    /// The advisory findings of a blob file (as `verify` lists them).
    #[getter]
    fn warnings(&self) -> Vec<String> {
        match self.at {
            None => crate::verdict::warnings_of(&self.core.file()),
            Some(_) => Vec::new(),
        }
    }

    fn __repr__(&self) -> PyResult<String> {
        let g = graph(&self.core, self.at)?;
        Ok(format!(
            "<flatmodel.VulkanBlob {} value(s), {} operator(s)>",
            g.values().map_or(0, |v| v.len()),
            g.chain().map_or(0, |v| v.len())
        ))
    }
}

/// One value of a Vulkan graph: a tensor (`dtype`, `shape`, `numpy()` of a constant) or a
/// scalar or list.
#[pyclass(module = "flatmodel", frozen)]
pub struct VkValue {
    core: Shared,
    at: Option<usize>,
    /// Its index in the graph's values.
    #[pyo3(get)]
    index: usize,
}

impl VkValue {
    pub fn new(core: Shared, at: Option<usize>, index: usize) -> VkValue {
        VkValue { core, at, index }
    }

    fn value<'a>(&self, core: &'a Shared) -> PyResult<GraphTypes<'a>> {
        let v = graph(core, self.at)?.values().and_then(|v| v.get(self.index));
        Ok(v.ok_or_else(|| PyIndexError::new_err("no such value"))?.value())
    }
}

#[pymethods]
impl VkValue {
    /// What it holds: `"VkTensor"`, `"Int"`, `"Double"`, `"IntList"`, ...
    #[getter]
    fn kind(&self) -> PyResult<String> {
        let v = self.value(&self.core)?;
        Ok(v.type_name().map_or_else(|| format!("type({})", v.tag()), str::to_string))
    }

    /// A tensor's element type (`float32`, `packed_int8_4c1w`), else `None`.
    #[getter]
    fn dtype(&self) -> PyResult<Option<String>> {
        Ok(match self.value(&self.core)? {
            GraphTypes::VkTensor(t) => Some(vk_dtype(t.datatype())),
            _ => None,
        })
    }

    /// A tensor's dimensions, else `None`.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        match self.value(&self.core)? {
            GraphTypes::VkTensor(t) => Ok(Some(PyTuple::new(py, t.dims().unwrap_or_default().iter())?)),
            _ => Ok(None),
        }
    }

    /// A tensor's `constant_id` (negative: not a constant), else `None`.
    #[getter]
    fn constant_id(&self) -> PyResult<Option<i32>> {
        Ok(match self.value(&self.core)? {
            GraphTypes::VkTensor(t) => Some(t.constant_id()),
            _ => None,
        })
    }

    /// A constant tensor's data as a read-only NumPy array over the file (no copy); `None` for
    /// other values, and for a named constant of a blob read alone (its data is in the
    /// program's named data).
    fn numpy(&self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        let GraphTypes::VkTensor(t) = self.value(&self.core)? else { return Ok(None) };
        let Ok(id) = usize::try_from(t.constant_id()) else { return Ok(None) };
        let (blob, program) = blob_of(&self.core, self.at)?;
        let Some(data) = constant_bytes(&blob, program, id)? else { return Ok(None) };
        let shape: Vec<usize> =
            t.dims().into_iter().flatten().map(|d| usize::try_from(d).unwrap_or(usize::MAX)).collect();
        let array = match array::typestr(&vk_dtype(t.datatype())) {
            Some((ts, size)) => ArrayData::of(&self.core, data, ts, size, Some(shape)),
            None => ArrayData::bytes(&self.core, data),
        };
        array.map(|a| crate::to_numpy(py, a)).transpose()
    }

    fn __repr__(&self) -> PyResult<String> {
        Ok(format!("<flatmodel.VkValue {} {}>", self.index, self.kind()?))
    }
}

/// One operator call of a Vulkan graph.
#[pyclass(module = "flatmodel", frozen)]
pub struct VkOperator {
    core: Shared,
    at: Option<usize>,
    /// Its index in the graph's chain.
    #[pyo3(get)]
    index: usize,
}

impl VkOperator {
    pub fn new(core: Shared, at: Option<usize>, index: usize) -> VkOperator {
        VkOperator { core, at, index }
    }
}

#[pymethods]
impl VkOperator {
    /// The operator's name (`aten.convolution.default`).
    #[getter]
    fn name(&self) -> PyResult<Option<String>> {
        let op = graph(&self.core, self.at)?.chain().and_then(|c| c.get(self.index));
        Ok(op.ok_or_else(|| PyIndexError::new_err("no such operator"))?.name().map(str::to_string))
    }

    /// `OperatorCall.node_id`.
    #[getter]
    fn node_id(&self) -> PyResult<u32> {
        let op = graph(&self.core, self.at)?.chain().and_then(|c| c.get(self.index));
        Ok(op.ok_or_else(|| PyIndexError::new_err("no such operator"))?.node_id())
    }

    /// The values it reads and writes, by index.
    #[getter]
    fn args<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let op = graph(&self.core, self.at)?.chain().and_then(|c| c.get(self.index));
        PyTuple::new(py, op.ok_or_else(|| PyIndexError::new_err("no such operator"))?.args().unwrap_or_default().iter())
    }

    fn __repr__(&self) -> PyResult<String> {
        Ok(format!("<flatmodel.VkOperator {} {}>", self.index, self.name()?.unwrap_or_default()))
    }
}
