//! XNNPACK delegate blobs (`XH00`, or a bare `XN01` XNNGraph) from Python: the graph's values
//! (constant tensors readable as arrays), nodes, inputs and outputs; a file of its own or a
//! delegate of a `.pte`.

use crate::array::{self, ArrayData};
use crate::core::Shared;
use crate::items::{Items, Kind};
use flatmodel::pte::PteFile;
use flatmodel::xnnpack::{
    Blob, Constant, NodeIds, XNNDatatype, XNNGraph, XNNQuantParams, XNNTensorValue, XNode, XValueUnion,
};
use flatmodel::File;
use pyo3::exceptions::{PyIndexError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// The blob `at` names in `core`: the file itself (`None`), or the XNNPACK blob of the
/// program's delegate `n`, with the program whose named data named constants live in.
fn blob_of(core: &Shared, at: Option<usize>) -> PyResult<(Blob<'_>, Option<PteFile<'_>>)> {
    match (core.file(), at) {
        (File::Xnnpack(b), None) => Ok((b, None)),
        (File::Pte(p), Some(n)) => {
            let d = p.delegate(n).ok_or_else(|| PyIndexError::new_err("no such delegate"))?;
            match p.xnnpack_blob(&d) {
                Some(Ok(b)) => Ok((b, Some(p))),
                Some(Err(e)) => Err(crate::invalid(&e)),
                None => Err(PyRuntimeError::new_err("not an XNNPACK delegate")),
            }
        }
        _ => Err(PyRuntimeError::new_err("not an XNNPACK blob")),
    }
}

fn graph(core: &Shared, at: Option<usize>) -> PyResult<XNNGraph<'_>> {
    Ok(blob_of(core, at)?.0.graph())
}

/// Constant `index`'s bytes: inline, or the program's named data; `None` for a named constant
/// of a blob read without its program (its bytes are in the program's named data or a `.ptd`
/// file), and for an inline one of a bare XNNGraph (it has no constant region).
fn constant_bytes<'a>(blob: &Blob<'a>, program: Option<PteFile<'a>>, index: usize) -> PyResult<Option<&'a [u8]>> {
    match where_constant(blob, index)? {
        None => Ok(None),
        Some(Constant::Inline(data)) => Ok(Some(data)),
        Some(Constant::Named { key, size }) => {
            let Some(found) = program.and_then(|p| p.named_data(key)) else { return Ok(None) };
            let n = usize::try_from(size).unwrap_or(usize::MAX);
            Ok(found.get(..n))
        }
    }
}

/// Where constant `index` lives; `None` for an inline one of a bare XNNGraph, whose bytes are
/// not in the file; `IndexError` past `constant_data`.
fn where_constant<'a>(blob: &Blob<'a>, index: usize) -> PyResult<Option<Constant<'a>>> {
    if index >= blob.graph().constant_data().map_or(0, |c| c.len()) {
        return Err(PyIndexError::new_err("no such constant"));
    }
    match blob.constant(index) {
        Ok(Constant::Named { key, size }) => Ok(Some(Constant::Named { key, size })),
        Ok(inline) => Ok(blob.header().map(|_| inline)),
        Err(_) if blob.header().is_none() => Ok(None),
        Err(e) => Err(crate::invalid(&e)),
    }
}

/// An XNNPACK type by name, without its `xnn_datatype_` prefix (`fp32`, `qcint8`), or
/// `type(N)` for one this schema does not name.
fn xnn_dtype(t: XNNDatatype) -> String {
    t.name().map_or_else(|| format!("type({})", t.0), |n| n.trim_start_matches("xnn_datatype_").to_string())
}

/// The NumPy type of an XNNPACK type's elements as stored; `None` for packed 4-bit types,
/// `bf16` and types NumPy has no name for.
fn numpy_dtype(t: XNNDatatype) -> Option<&'static str> {
    use XNNDatatype as D;
    Some(match t {
        D::xnn_datatype_fp32 => "float32",
        D::xnn_datatype_fp16 => "float16",
        D::xnn_datatype_qint8 | D::xnn_datatype_qcint8 | D::xnn_datatype_qdint8 => "int8",
        D::xnn_datatype_quint8 => "uint8",
        D::xnn_datatype_qint32 | D::xnn_datatype_qcint32 | D::xnn_datatype_int32 => "int32",
        _ => return None,
    })
}

/// An XNNPACK delegate's graph (`XNNGraph`), from a blob file or a program's delegate.
#[pyclass(module = "flatmodel", frozen)]
pub struct XnnpackBlob {
    core: Shared,
    at: Option<usize>,
}

impl XnnpackBlob {
    pub fn new(core: Shared, at: Option<usize>) -> XnnpackBlob {
        XnnpackBlob { core, at }
    }
}

#[pymethods]
impl XnnpackBlob {
    /// `"xnnpack"`.
    #[getter]
    fn format(&self) -> &'static str {
        "xnnpack"
    }

    /// Whether the blob has its `XH00` header (a bare XNNGraph has none).
    #[getter]
    fn has_header(&self) -> PyResult<bool> {
        Ok(blob_of(&self.core, self.at)?.0.header().is_some())
    }

    /// `XNNGraph.version`.
    #[getter]
    fn version(&self) -> PyResult<Option<String>> {
        Ok(graph(&self.core, self.at)?.version().map(str::to_string))
    }

    /// The values (tensors): a lazy sequence of `XnnValue`.
    #[getter]
    fn values(&self) -> PyResult<Items> {
        let n = graph(&self.core, self.at)?.xvalues().map_or(0, |v| v.len());
        Ok(Items::new(self.core.clone(), Kind::XnnValues(self.at), n))
    }

    /// The nodes in order: a lazy sequence of `XnnNode`.
    #[getter]
    fn nodes(&self) -> PyResult<Items> {
        let n = graph(&self.core, self.at)?.xnodes().map_or(0, |v| v.len());
        Ok(Items::new(self.core.clone(), Kind::XnnNodes(self.at), n))
    }

    /// The ids of the graph's external inputs.
    #[getter]
    fn inputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, graph(&self.core, self.at)?.input_ids().unwrap_or_default().iter())
    }

    /// The ids of the graph's external outputs.
    #[getter]
    fn outputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, graph(&self.core, self.at)?.output_ids().unwrap_or_default().iter())
    }

    /// How many entries `XNNGraph.constant_data` lists (entry 0 is the "not constant" one).
    #[getter]
    fn constant_count(&self) -> PyResult<usize> {
        Ok(graph(&self.core, self.at)?.constant_data().map_or(0, |c| c.len()))
    }

    /// The named-data key of constant `index`, or `None` when its bytes are in the blob.
    fn constant_key(&self, index: usize) -> PyResult<Option<String>> {
        let (blob, _) = blob_of(&self.core, self.at)?;
        Ok(match where_constant(&blob, index)? {
            Some(Constant::Named { key, .. }) => Some(key.to_string()),
            _ => None,
        })
    }

    /// Constant `index`'s bytes as a `uint8` array over the file (no copy): from the blob's
    /// constant region, or a program's named data; `None` when the bytes are not in this file
    /// (a named constant of a blob read alone, or of a program whose data is in a `.ptd`; an
    /// inline constant of a bare XNNGraph, which has no constant region).
    fn constant(&self, py: Python<'_>, index: usize) -> PyResult<Option<PyObject>> {
        let (blob, program) = blob_of(&self.core, self.at)?;
        let Some(data) = constant_bytes(&blob, program, index)? else { return Ok(None) };
        crate::bytes_array(py, &self.core, data).map(Some)
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
            "<flatmodel.XnnpackBlob {} value(s), {} node(s)>",
            g.xvalues().map_or(0, |v| v.len()),
            g.xnodes().map_or(0, |v| v.len())
        ))
    }
}

/// One value of an XNNPACK graph: a tensor, quantized or not.
#[pyclass(module = "flatmodel", frozen)]
pub struct XnnValue {
    core: Shared,
    at: Option<usize>,
    /// Its index in the graph's values.
    #[pyo3(get)]
    index: usize,
}

impl XnnValue {
    pub fn new(core: Shared, at: Option<usize>, index: usize) -> XnnValue {
        XnnValue { core, at, index }
    }

    fn value<'a>(&self, core: &'a Shared) -> PyResult<XValueUnion<'a>> {
        let v = graph(core, self.at)?.xvalues().and_then(|v| v.get(self.index));
        Ok(v.ok_or_else(|| PyIndexError::new_err("no such value"))?.xvalue_union())
    }

    /// The tensor the value describes (a quantized value's base tensor); `None` for a value
    /// type this schema does not name.
    fn tensor<'a>(&self, core: &'a Shared) -> PyResult<Option<XNNTensorValue<'a>>> {
        Ok(match self.value(core)? {
            XValueUnion::XNNTensorValue(t) => Some(t),
            XValueUnion::XNNQuantizedTensorValue(q) => q.tensor_value(),
            _ => None,
        })
    }
}

#[pymethods]
impl XnnValue {
    /// What it holds: `"XNNTensorValue"`, `"XNNQuantizedTensorValue"`, or `type(N)`.
    #[getter]
    fn kind(&self) -> PyResult<String> {
        let v = self.value(&self.core)?;
        Ok(v.type_name().map_or_else(|| format!("type({})", v.tag()), str::to_string))
    }

    /// The element type, XNNPACK's name without its prefix (`fp32`, `qcint8`, `qbint4`).
    #[getter]
    fn dtype(&self) -> PyResult<Option<String>> {
        Ok(self.tensor(&self.core)?.map(|t| xnn_dtype(t.datatype())))
    }

    /// The dimensions.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        match self.tensor(&self.core)? {
            Some(t) => Ok(Some(PyTuple::new(py, t.dims().unwrap_or_default().iter())?)),
            None => Ok(None),
        }
    }

    /// `XNNTensorValue.id_out`, the id nodes use for it.
    #[getter]
    fn id(&self) -> PyResult<Option<u32>> {
        Ok(self.tensor(&self.core)?.map(|t| t.id_out()))
    }

    /// Its entry in the graph's `constant_data`, or `None` when it is not a constant.
    #[getter]
    fn constant_index(&self) -> PyResult<Option<u32>> {
        Ok(self.tensor(&self.core)?.map(|t| t.constant_buffer_idx()).filter(|&i| i != 0))
    }

    /// `XNNTensorValue.external_id` (`u32::MAX`: not an external input or output).
    #[getter]
    fn external_id(&self) -> PyResult<Option<u32>> {
        Ok(self.tensor(&self.core)?.map(|t| t.external_id()))
    }

    /// `XNNTensorValue.flags`.
    #[getter]
    fn flags(&self) -> PyResult<Option<u32>> {
        Ok(self.tensor(&self.core)?.map(|t| t.flags()))
    }

    /// A quantized value's parameters as a dict (`scheme`: `per_tensor`, `per_channel`,
    /// `per_channel_group` or `per_token_dynamic`, with that scheme's fields), else `None`.
    fn quantization<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let XValueUnion::XNNQuantizedTensorValue(q) = self.value(&self.core)? else { return Ok(None) };
        let d = PyDict::new(py);
        match q.quant_params() {
            XNNQuantParams::PerTensorQuant(p) => {
                d.set_item("scheme", "per_tensor")?;
                d.set_item("scale", p.scale())?;
                d.set_item("zero_point", p.zero_point())?;
            }
            XNNQuantParams::PerChannelQuant(p) => {
                d.set_item("scheme", "per_channel")?;
                d.set_item("channel_dim", p.channel_dim())?;
                d.set_item("scale", p.scale().map(|s| s.iter().collect::<Vec<f32>>()))?;
                d.set_item("scale_buffer_idx", p.scale_buffer_idx())?;
                d.set_item("num_scales", p.num_scales())?;
            }
            XNNQuantParams::PerChannelGroupQuant(p) => {
                d.set_item("scheme", "per_channel_group")?;
                d.set_item("channel_dim", p.channel_dim())?;
                d.set_item("group_size", p.group_size())?;
                d.set_item("scale", p.scale().map(|s| s.iter().collect::<Vec<f32>>()))?;
                d.set_item("scale_buffer_idx", p.scale_buffer_idx())?;
                d.set_item("num_scales", p.num_scales())?;
            }
            XNNQuantParams::PerTokenDynamicQuant(p) => {
                d.set_item("scheme", "per_token_dynamic")?;
                d.set_item("num_nonbatch_dims", p.num_nonbatch_dims())?;
            }
            other => d.set_item("scheme", format!("type({})", other.tag()))?,
        }
        Ok(Some(d))
    }

    /// A constant's data as a read-only NumPy array over the file (no copy), in its stored
    /// type (`int8` for `qcint8`); flat `uint8` bytes for packed 4-bit and `bf16` data; `None`
    /// for a value that is not a constant, and for one whose bytes are not in this file.
    fn numpy(&self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        let Some(t) = self.tensor(&self.core)? else { return Ok(None) };
        let Ok(index) = usize::try_from(t.constant_buffer_idx()) else { return Ok(None) };
        if index == 0 {
            return Ok(None);
        }
        let (blob, program) = blob_of(&self.core, self.at)?;
        let Some(data) = constant_bytes(&blob, program, index)? else { return Ok(None) };
        let shape: Vec<usize> =
            t.dims().into_iter().flatten().map(|d| usize::try_from(d).unwrap_or(usize::MAX)).collect();
        let array = match numpy_dtype(t.datatype()).and_then(array::typestr) {
            Some((ts, size)) => ArrayData::of(&self.core, data, ts, size, Some(shape)),
            None => ArrayData::bytes(&self.core, data),
        };
        array.map(|a| crate::to_numpy(py, a)).transpose()
    }

    fn __repr__(&self) -> PyResult<String> {
        Ok(format!("<flatmodel.XnnValue {} {}>", self.index, self.dtype()?.unwrap_or_default()))
    }
}

/// One node of an XNNPACK graph.
#[pyclass(module = "flatmodel", frozen)]
pub struct XnnNode {
    core: Shared,
    at: Option<usize>,
    /// Its index in the graph's nodes.
    #[pyo3(get)]
    index: usize,
}

impl XnnNode {
    pub fn new(core: Shared, at: Option<usize>, index: usize) -> XnnNode {
        XnnNode { core, at, index }
    }

    fn node<'a>(&self, core: &'a Shared) -> PyResult<XNode<'a>> {
        let n = graph(core, self.at)?.xnodes().and_then(|n| n.get(self.index));
        n.ok_or_else(|| PyIndexError::new_err("no such node"))
    }
}

#[pymethods]
impl XnnNode {
    /// The node type (`XNNFullyConnected`), or `type(N)` for one from a newer writer.
    #[getter]
    fn kind(&self) -> PyResult<String> {
        let u = self.node(&self.core)?.xnode_union();
        Ok(u.type_name().map_or_else(|| format!("type({})", u.tag()), str::to_string))
    }

    /// The value ids it reads (an absent optional input reads as `4294967295`); empty for a
    /// node type this schema does not name.
    #[getter]
    fn inputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let ids = NodeIds::of(&self.node(&self.core)?.xnode_union());
        PyTuple::new(py, ids.as_ref().map(NodeIds::inputs).unwrap_or_default().iter())
    }

    /// The value ids it writes; empty for a node type this schema does not name.
    #[getter]
    fn outputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let ids = NodeIds::of(&self.node(&self.core)?.xnode_union());
        PyTuple::new(py, ids.as_ref().map(NodeIds::outputs).unwrap_or_default().iter())
    }

    /// `XNode.debug_handle`.
    #[getter]
    fn debug_handle(&self) -> PyResult<u32> {
        Ok(self.node(&self.core)?.debug_handle())
    }

    fn __repr__(&self) -> PyResult<String> {
        Ok(format!("<flatmodel.XnnNode {} {}>", self.index, self.kind()?))
    }
}
