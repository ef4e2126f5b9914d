//! TFLite and Circle models from Python: light wrappers that hold the file's core and indices,
//! and read the views on each access (nothing is materialised up front).

use crate::array::{self, ArrayData};
use crate::core::Shared;
use crate::items::{Items, Kind};
use flatmodel::graph::{ModelView, OperatorKind, SignatureView, SubGraphView, TensorView};
use flatmodel::File;
use pyo3::exceptions::{PyIndexError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

/// Runs `$body` with `$m` bound to the core's TFLite or Circle model view.
macro_rules! with_model {
    ($core:expr, $m:ident => $body:expr) => {
        match $core.file() {
            File::Tflite($m) => $body,
            File::Circle($m) => $body,
            _ => Err(PyRuntimeError::new_err("not a TFLite or Circle model")),
        }
    };
}

/// A `Vector<i32>` (or none) as a tuple of ints.
fn ints<'py>(py: Python<'py>, v: Option<flatmodel::wire::Vector<'_, i32>>) -> PyResult<Bound<'py, PyTuple>> {
    PyTuple::new(py, v.unwrap_or_default().iter())
}

fn gone() -> PyErr {
    PyIndexError::new_err("no such item in the model")
}

/// A TFLite or Circle model, verified in full. Its lists are read lazily from the file's bytes.
#[pyclass(module = "flatmodel", frozen)]
pub struct Model {
    pub core: Shared,
}

#[pymethods]
impl Model {
    /// `"tflite"` or `"circle"`.
    #[getter]
    fn format(&self) -> &'static str {
        crate::verdict::format_name(self.core.file().format())
    }

    /// `Model.version`, the schema version.
    #[getter]
    fn version(&self) -> PyResult<u32> {
        with_model!(self.core, m => Ok(m.schema_version()))
    }

    /// `Model.description`.
    #[getter]
    fn description(&self) -> PyResult<Option<String>> {
        with_model!(self.core, m => Ok(m.description().map(str::to_string)))
    }

    /// The subgraphs, the first the main one.
    #[getter]
    fn subgraphs(&self, py: Python<'_>) -> PyResult<Vec<Py<Subgraph>>> {
        let n = with_model!(self.core, m => Ok(m.subgraph_list().map_or(0, |s| s.len())))?;
        (0..n).map(|index| Py::new(py, Subgraph { core: self.core.clone(), index })).collect()
    }

    /// The signatures (`SignatureDef`): named entry points.
    #[getter]
    fn signatures(&self, py: Python<'_>) -> PyResult<Vec<Py<Signature>>> {
        let n = with_model!(self.core, m => Ok(m.signature_list().map_or(0, |s| s.len())))?;
        (0..n).map(|index| Py::new(py, Signature { core: self.core.clone(), index })).collect()
    }

    /// The metadata entries (name and buffer), in file order.
    #[getter]
    fn metadata(&self, py: Python<'_>) -> PyResult<Vec<Py<Metadata>>> {
        let n = with_model!(self.core, m => Ok(m.metadata_list().map_or(0, |s| s.len())))?;
        (0..n).map(|index| Py::new(py, Metadata { core: self.core.clone(), index })).collect()
    }

    /// How many buffers `Model.buffers` holds.
    #[getter]
    fn buffer_count(&self) -> PyResult<usize> {
        with_model!(self.core, m => Ok(m.buffer_count().unwrap_or(0)))
    }

    /// The advisory findings (as `verify` lists them).
    #[getter]
    fn warnings(&self) -> Vec<String> {
        crate::verdict::warnings_of(&self.core.file())
    }

    /// The file's size in bytes.
    #[getter]
    fn nbytes(&self) -> usize {
        self.core.bytes().len()
    }

    /// The file's bytes as a read-only `uint8` NumPy array (no copy).
    fn data(&self, py: Python<'_>) -> PyResult<PyObject> {
        crate::bytes_array(py, &self.core, self.core.bytes())
    }

    fn __repr__(&self) -> PyResult<String> {
        let n = with_model!(self.core, m => Ok(m.subgraph_list().map_or(0, |s| s.len())))?;
        Ok(format!("<flatmodel.Model {} v{}, {n} subgraph(s)>", self.format(), self.version()?))
    }
}

/// One subgraph of a TFLite or Circle model.
#[pyclass(module = "flatmodel", frozen)]
pub struct Subgraph {
    core: Shared,
    /// Its index in `Model.subgraphs`.
    #[pyo3(get)]
    index: usize,
}

#[pymethods]
impl Subgraph {
    /// `SubGraph.name`.
    #[getter]
    fn name(&self) -> PyResult<Option<String>> {
        with_model!(self.core, m => Ok(m.subgraph(self.index).ok_or_else(gone)?.name().map(str::to_string)))
    }

    /// The tensors: a lazy sequence of `Tensor`.
    #[getter]
    fn tensors(&self) -> PyResult<Items> {
        let n =
            with_model!(self.core, m => Ok(m.subgraph(self.index).ok_or_else(gone)?.tensors().map_or(0, |t| t.len())))?;
        Ok(Items::new(self.core.clone(), Kind::Tensors(self.index), n))
    }

    /// The operators in execution order: a lazy sequence of `Operator`.
    #[getter]
    fn operators(&self) -> PyResult<Items> {
        let n = with_model!(self.core, m => Ok(m.subgraph(self.index).ok_or_else(gone)?.operators().map_or(0, |t| t.len())))?;
        Ok(Items::new(self.core.clone(), Kind::Operators(self.index), n))
    }

    /// The input tensors' indices.
    #[getter]
    fn inputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        with_model!(self.core, m => ints(py, m.subgraph(self.index).ok_or_else(gone)?.inputs()))
    }

    /// The output tensors' indices.
    #[getter]
    fn outputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        with_model!(self.core, m => ints(py, m.subgraph(self.index).ok_or_else(gone)?.outputs()))
    }

    fn __repr__(&self) -> PyResult<String> {
        Ok(format!("<flatmodel.Subgraph {} {:?}>", self.index, self.name()?.unwrap_or_default()))
    }
}

/// One tensor of a subgraph.
#[pyclass(module = "flatmodel", frozen)]
pub struct Tensor {
    core: Shared,
    subgraph: usize,
    /// Its index in the subgraph's tensors.
    #[pyo3(get)]
    index: usize,
}

impl Tensor {
    pub fn new(core: Shared, subgraph: usize, index: usize) -> Tensor {
        Tensor { core, subgraph, index }
    }
}

/// The tensor `t` of subgraph `sg` of `m`.
fn tensor_of<'a, M: ModelView<'a>>(m: M, sg: usize, t: usize) -> PyResult<M::Tensor> {
    m.subgraph(sg).and_then(|s| s.tensors()?.get(t)).ok_or_else(gone)
}

/// The operator `o` of subgraph `sg` of `m`.
fn operator_of<'a, M: ModelView<'a>>(m: M, sg: usize, o: usize) -> PyResult<M::Operator> {
    m.subgraph(sg).and_then(|s| s.operators()?.get(o)).ok_or_else(gone)
}

/// A tensor's element type by name, lower-case (`float32`, `int8`, `string`), or
/// `type(CODE)` for a code the schema does not name.
fn dtype_of<'a, T: TensorView<'a>>(t: &T) -> String {
    let e = t.element_type();
    e.name.map_or_else(|| format!("type({})", e.code), str::to_ascii_lowercase)
}

#[pymethods]
impl Tensor {
    /// `Tensor.name`.
    #[getter]
    fn name(&self) -> PyResult<Option<String>> {
        with_model!(self.core, m => Ok(tensor_of(m, self.subgraph, self.index)?.name().map(str::to_string)))
    }

    /// The element type: `"float32"`, `"int8"`, `"string"`, ... (the format's name, lower-case).
    #[getter]
    fn dtype(&self) -> PyResult<String> {
        with_model!(self.core, m => Ok(dtype_of(&tensor_of(m, self.subgraph, self.index)?)))
    }

    /// `Tensor.shape`, a tuple of ints.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        with_model!(self.core, m => ints(py, tensor_of(m, self.subgraph, self.index)?.shape()))
    }

    /// `Tensor.shape_signature` (-1 for a dimension known at run time), or `None`.
    #[getter]
    fn shape_signature<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        with_model!(self.core, m => {
            let s = tensor_of(m, self.subgraph, self.index)?.shape_signature();
            s.map(|s| ints(py, Some(s))).transpose()
        })
    }

    /// `Tensor.buffer`: the index of its buffer in `Model.buffers` (0: none).
    #[getter]
    fn buffer(&self) -> PyResult<u32> {
        with_model!(self.core, m => Ok(tensor_of(m, self.subgraph, self.index)?.buffer()))
    }

    /// `Tensor.is_variable`.
    #[getter]
    fn is_variable(&self) -> PyResult<bool> {
        with_model!(self.core, m => Ok(tensor_of(m, self.subgraph, self.index)?.is_variable()))
    }

    /// The quantization parameters as a dict (`scale`, `zero_point`, `min`, `max` as lists,
    /// `quantized_dimension`, and `blockwise` when block-wise), or `None` when the tensor has
    /// none (or an empty table).
    #[getter]
    fn quantization<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        with_model!(self.core, m => {
            let Some(q) = TensorView::quantization(&tensor_of(m, self.subgraph, self.index)?) else { return Ok(None) };
            let empty = |v: Option<usize>| v.unwrap_or(0) == 0;
            if empty(q.scale.map(|v| v.len())) && empty(q.zero_point.map(|v| v.len())) && empty(q.min.map(|v| v.len()))
                && empty(q.max.map(|v| v.len())) && q.blockwise.is_none()
            {
                return Ok(None);
            }
            let d = PyDict::new(py);
            d.set_item("scale", PyList::new(py, q.scale.unwrap_or_default().iter())?)?;
            d.set_item("zero_point", PyList::new(py, q.zero_point.unwrap_or_default().iter())?)?;
            d.set_item("min", PyList::new(py, q.min.unwrap_or_default().iter())?)?;
            d.set_item("max", PyList::new(py, q.max.unwrap_or_default().iter())?)?;
            d.set_item("quantized_dimension", q.quantized_dimension)?;
            if let Some(b) = q.blockwise {
                let bd = PyDict::new(py);
                bd.set_item("scales", b.scales)?;
                bd.set_item("zero_points", b.zero_points)?;
                bd.set_item("block_size", b.block_size)?;
                d.set_item("blockwise", bd)?;
            }
            Ok(Some(d))
        })
    }

    /// The data's description for `numpy()` (internal): `None` when the tensor has no data.
    fn _array(&self) -> PyResult<Option<ArrayData>> {
        with_model!(self.core, m => {
            let t = tensor_of(m, self.subgraph, self.index)?;
            let data = m.tensor_data(&t).map_err(|e| crate::invalid(&e))?;
            if data.is_empty() {
                return Ok(None);
            }
            let shape: Option<Vec<usize>> =
                t.shape().map(|s| s.into_iter().map(|d| usize::try_from(d).unwrap_or(usize::MAX)).collect());
            Ok(match array::typestr(&dtype_of(&t)) {
                Some((ts, size)) => ArrayData::of(&self.core, data, ts, size, Some(shape.unwrap_or_default())),
                None => ArrayData::bytes(&self.core, data),
            })
        })
    }

    /// The data as a read-only NumPy array sharing memory with the file's bytes (no copy), in
    /// the tensor's shape and type (flat `uint8` bytes for types NumPy lacks, such as `int4`
    /// or `string`); `None` for a tensor without data.
    fn numpy(&self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        self._array()?.map(|d| crate::to_numpy(py, d)).transpose()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "<flatmodel.Tensor {} {:?} {} {}>",
            self.index,
            self.name()?.unwrap_or_default(),
            self.dtype()?,
            self.shape(py)?
        ))
    }
}

/// An operator's code: its name, the builtin code (`None` for a custom operator), its version.
struct Code {
    name: String,
    code: Option<i32>,
    version: i32,
}

/// One operator of a subgraph.
#[pyclass(module = "flatmodel", frozen)]
pub struct Operator {
    core: Shared,
    subgraph: usize,
    /// Its index in the subgraph's operators.
    #[pyo3(get)]
    index: usize,
}

impl Operator {
    pub fn new(core: Shared, subgraph: usize, index: usize) -> Operator {
        Operator { core, subgraph, index }
    }

    fn kind(&self) -> PyResult<Option<Code>> {
        with_model!(self.core, m => {
            let op = operator_of(m, self.subgraph, self.index)?;
            Ok(m.operator_kind(&op).map(|k| match k {
                OperatorKind::Builtin { code, name, version } => Code {
                    name: name.map_or_else(|| format!("BuiltinOperator({code})"), str::to_string),
                    code: Some(code),
                    version,
                },
                OperatorKind::Custom { name, version } => Code { name: name.to_string(), code: None, version },
            }))
        })
    }
}

#[pymethods]
impl Operator {
    /// The builtin operator's name (`"CONV_2D"`) or the custom operator's `custom_code`.
    #[getter]
    fn name(&self) -> PyResult<Option<String>> {
        Ok(self.kind()?.map(|k| k.name))
    }

    /// The builtin code, `None` for a custom operator.
    #[getter]
    fn code(&self) -> PyResult<Option<i32>> {
        Ok(self.kind()?.and_then(|k| k.code))
    }

    /// Whether it is a custom operator.
    #[getter]
    fn custom(&self) -> PyResult<bool> {
        Ok(self.kind()?.is_some_and(|k| k.code.is_none()))
    }

    /// `OperatorCode.version`.
    #[getter]
    fn version(&self) -> PyResult<Option<i32>> {
        Ok(self.kind()?.map(|k| k.version))
    }

    /// `Operator.opcode_index`.
    #[getter]
    fn opcode_index(&self) -> PyResult<u32> {
        with_model!(self.core, m => Ok(operator_of(m, self.subgraph, self.index)?.opcode_index()))
    }

    /// The input tensors' indices (-1: an optional input left out).
    #[getter]
    fn inputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        with_model!(self.core, m => ints(py, operator_of(m, self.subgraph, self.index)?.inputs()))
    }

    /// The output tensors' indices.
    #[getter]
    fn outputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        with_model!(self.core, m => ints(py, operator_of(m, self.subgraph, self.index)?.outputs()))
    }

    /// The intermediate tensors' indices.
    #[getter]
    fn intermediates<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        with_model!(self.core, m => ints(py, operator_of(m, self.subgraph, self.index)?.intermediates()))
    }

    /// The custom options' bytes as a `uint8` array over the file (no copy), or `None`.
    fn custom_options(&self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        let data = with_model!(self.core, m => {
            let op = operator_of(m, self.subgraph, self.index)?;
            Ok(m.custom_options(&op).map_err(|e| crate::invalid(&e))?.and_then(|b| ArrayData::bytes(&self.core, b)))
        })?;
        data.map(|d| crate::to_numpy(py, d)).transpose()
    }

    fn __repr__(&self) -> PyResult<String> {
        Ok(format!("<flatmodel.Operator {} {}>", self.index, self.name()?.unwrap_or_default()))
    }
}

/// A signature: a named entry point, its inputs and outputs by name.
#[pyclass(module = "flatmodel", frozen)]
pub struct Signature {
    core: Shared,
    index: usize,
}

#[pymethods]
impl Signature {
    /// `SignatureDef.signature_key`.
    #[getter]
    fn key(&self) -> PyResult<Option<String>> {
        with_model!(self.core, m => Ok(m.signature_list().and_then(|s| s.get(self.index)).ok_or_else(gone)?.key().map(str::to_string)))
    }

    /// The subgraph it runs.
    #[getter]
    fn subgraph_index(&self) -> PyResult<u32> {
        with_model!(self.core, m => Ok(m.signature_list().and_then(|s| s.get(self.index)).ok_or_else(gone)?.subgraph_index()))
    }

    /// The inputs: name → tensor index in the subgraph.
    #[getter]
    fn inputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        with_model!(self.core, m => {
            let s = m.signature_list().and_then(|s| s.get(self.index)).ok_or_else(gone)?;
            let d = PyDict::new(py);
            for t in s.inputs().into_iter().flatten() {
                d.set_item(t.name().unwrap_or(""), t.tensor_index())?;
            }
            Ok(d)
        })
    }

    /// The outputs: name → tensor index in the subgraph.
    #[getter]
    fn outputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        with_model!(self.core, m => {
            let s = m.signature_list().and_then(|s| s.get(self.index)).ok_or_else(gone)?;
            let d = PyDict::new(py);
            for t in s.outputs().into_iter().flatten() {
                d.set_item(t.name().unwrap_or(""), t.tensor_index())?;
            }
            Ok(d)
        })
    }

    fn __repr__(&self) -> PyResult<String> {
        Ok(format!("<flatmodel.Signature {:?}>", self.key()?.unwrap_or_default()))
    }
}

/// A metadata entry: a name and a buffer.
#[pyclass(module = "flatmodel", frozen)]
pub struct Metadata {
    core: Shared,
    index: usize,
}

#[pymethods]
impl Metadata {
    /// `Metadata.name`.
    #[getter]
    fn name(&self) -> PyResult<Option<String>> {
        with_model!(self.core, m => Ok(m.metadata_list().and_then(|s| s.get(self.index)).ok_or_else(gone)?.name().map(str::to_string)))
    }

    /// `Metadata.buffer`.
    #[getter]
    fn buffer(&self) -> PyResult<u32> {
        with_model!(self.core, m => Ok(m.metadata_list().and_then(|s| s.get(self.index)).ok_or_else(gone)?.buffer()))
    }

    /// The buffer's bytes as a `uint8` array over the file (no copy).
    fn data(&self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        let data = with_model!(self.core, m => {
            let e = m.metadata_list().and_then(|s| s.get(self.index)).ok_or_else(gone)?;
            Ok(m.buffer_data(e.buffer()).map_err(|e| crate::invalid(&e))?)
        })?;
        ArrayData::bytes(&self.core, data).map(|d| crate::to_numpy(py, d)).transpose()
    }

    fn __repr__(&self) -> PyResult<String> {
        Ok(format!("<flatmodel.Metadata {:?}>", self.name()?.unwrap_or_default()))
    }
}
