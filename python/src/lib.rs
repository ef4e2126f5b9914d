//! The native part of the `flatmodel` Python package (`flatmodel._flatmodel`): `verify`,
//! `open` and the classes they return, over the `flatmodel` library's verified views; and
//! `inspect` and `scan`, the command line's documents (`report.rs`).
//!
//! Every object that reads a file holds the file's [`core::Core`] (its bytes and verified
//! views) through an `Arc`, and reads the views on each access. The crate's one `unsafe` block
//! is in `core.rs`: it ties the views' lifetime to the bytes the core owns.

mod array;
mod bundle;
mod core;
mod cvimodel;
mod graph;
mod items;
mod litertlm;
mod memory;
mod package;
mod ptd;
mod pte;
mod report;
mod schema;
mod source;
mod verdict;
mod vkgraph;
mod xnnpack;

use crate::array::ArrayData;
use crate::core::{Core, Shared};
use crate::source::Source;
use crate::verdict::ModelError;
use flatmodel::nnpackage::FileBytes;
use flatmodel::{Error, ErrorKind, Format};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::sync::Arc;

pyo3::create_exception!(
    flatmodel,
    InvalidModel,
    PyValueError,
    "A file flatmodel.open cannot read: not a model, or an invalid one. `.error` is the ModelError."
);

/// The `InvalidModel` exception for `error`, with `.error` set.
pub(crate) fn invalid_model(py: Python<'_>, error: ModelError) -> PyErr {
    let err = InvalidModel::new_err(error.message.clone());
    match Py::new(py, error) {
        Ok(e) => match err.value(py).setattr("error", e) {
            Ok(()) => err,
            Err(other) => other,
        },
        Err(other) => other,
    }
}

/// The `InvalidModel` exception for the library's error `e`.
pub fn invalid(e: &Error) -> PyErr {
    Python::with_gil(|py| invalid_model(py, ModelError::from_error(e)))
}

/// A NumPy array over `data` (no copy; read-only; its base holds the file's bytes).
pub fn to_numpy(py: Python<'_>, data: ArrayData) -> PyResult<PyObject> {
    let asarray = py.import("numpy")?.getattr("asarray")?;
    Ok(asarray.call1((Py::new(py, data)?,))?.unbind())
}

/// `bytes` (a slice of `core`'s) as a flat `uint8` NumPy array over the file.
pub fn bytes_array(py: Python<'_>, core: &Shared, bytes: &[u8]) -> PyResult<PyObject> {
    match ArrayData::bytes(core, bytes) {
        Some(d) => to_numpy(py, d),
        None => Err(PyValueError::new_err("bytes outside the file")),
    }
}

/// The Python object for a verified file: `Model`, `Program`, `VulkanBlob`, `XnnpackBlob`,
/// `DataFile`, `LitertLm` or `CviModel`.
pub fn wrap(py: Python<'_>, core: Core) -> PyResult<PyObject> {
    let format = core.file().format();
    let core = Arc::new(core);
    Ok(match format {
        Format::Tflite | Format::Circle => Py::new(py, graph::Model { core })?.into_any(),
        Format::Pte => Py::new(py, pte::Program { core })?.into_any(),
        Format::VkGraph => Py::new(py, vkgraph::VulkanBlob::new(core, None))?.into_any(),
        Format::Cvimodel => Py::new(py, cvimodel::CviModel { core })?.into_any(),
        Format::Xnnpack => Py::new(py, xnnpack::XnnpackBlob::new(core, None))?.into_any(),
        Format::Ptd => Py::new(py, ptd::DataFile { core })?.into_any(),
        Format::LitertLm => Py::new(py, litertlm::LitertLm { core })?.into_any(),
        _ => return Err(PyValueError::new_err("a format this module does not wrap")),
    })
}

/// The model bundle in `bytes`, opened: `None` when they are no bundle.
fn open_bundle(py: Python<'_>, bytes: FileBytes) -> PyResult<Option<PyObject>> {
    if !flatmodel::bundle::is_bundle(bytes.as_bytes()) {
        return Ok(None);
    }
    match bundle::Bundle::read(py, &bytes) {
        Ok(b) => Ok(Some(Py::new(py, b)?.into_any())),
        Err(e) => Err(invalid_model(py, e)),
    }
}

/// Opens a model file, an nnpackage, a model bundle, or bytes, verified in full; raises
/// `InvalidModel`.
#[pyfunction]
fn open(py: Python<'_>, source: Source) -> PyResult<PyObject> {
    if let Source::Path(p) = &source {
        if p.is_dir() && !p.join("metadata").join("MANIFEST").exists() {
            let message = "not a model file or nnpackage directory (no metadata/MANIFEST)".to_string();
            return Err(invalid_model(
                py,
                ModelError { kind: "NotAModel".into(), rule: None, offset: None, path: None, message },
            ));
        }
        if flatmodel::nnpackage::container_of(p) == Some(flatmodel::nnpackage::Container::Zip) {
            // Read once, as the library's package loader reads (one consistent snapshot).
            let file = std::fs::File::open(p).and_then(flatmodel::nnpackage::read_file)?;
            if let Some(bundle) = open_bundle(py, FileBytes::new(file))? {
                return Ok(bundle);
            }
        }
        if flatmodel::nnpackage::container_of(p).is_some() {
            let package = match verdict::open_package(p)? {
                Ok(package) => package,
                Err(e) => return Err(invalid_model(py, e)),
            };
            return Ok(Py::new(py, package::Package { package: Arc::new(package) })?.into_any());
        }
    }
    let bytes = source.bytes(py)?;
    let held = bytes.get(py);
    if flatmodel::bundle::is_bundle(held) {
        // A bundle's members outlive this call: its bytes are copied once into shared memory.
        if let Some(bundle) = open_bundle(py, FileBytes::from_vec(held.to_vec()))? {
            return Ok(bundle);
        }
    }
    let head = held.get(..8).unwrap_or(held).to_vec();
    match Core::open(py, bytes) {
        Ok(core) => wrap(py, core),
        Err(e) if e.kind() == ErrorKind::UnknownFormat => {
            let message = verdict::unknown_format(&head);
            Err(invalid_model(py, ModelError::of(&e, message)))
        }
        Err(e) => Err(invalid_model(py, ModelError::from_error(&e))),
    }
}

#[pymodule]
fn _flatmodel(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(verdict::verify, m)?)?;
    m.add_function(wrap_pyfunction!(open, m)?)?;
    m.add_function(wrap_pyfunction!(report::inspect, m)?)?;
    m.add_function(wrap_pyfunction!(report::scan, m)?)?;
    m.add("InvalidModel", m.py().get_type::<InvalidModel>())?;
    m.add_class::<verdict::ModelError>()?;
    m.add_class::<verdict::Verdict>()?;
    m.add_class::<array::ArrayData>()?;
    m.add_class::<items::Items>()?;
    m.add_class::<graph::Model>()?;
    m.add_class::<graph::Subgraph>()?;
    m.add_class::<graph::Tensor>()?;
    m.add_class::<graph::Operator>()?;
    m.add_class::<graph::Signature>()?;
    m.add_class::<graph::Metadata>()?;
    m.add_class::<pte::Program>()?;
    m.add_class::<pte::Plan>()?;
    m.add_class::<pte::Value>()?;
    m.add_class::<pte::Delegate>()?;
    m.add_class::<vkgraph::VulkanBlob>()?;
    m.add_class::<vkgraph::VkValue>()?;
    m.add_class::<vkgraph::VkOperator>()?;
    m.add_class::<xnnpack::XnnpackBlob>()?;
    m.add_class::<xnnpack::XnnValue>()?;
    m.add_class::<xnnpack::XnnNode>()?;
    m.add_class::<ptd::DataFile>()?;
    m.add_class::<litertlm::LitertLm>()?;
    m.add_class::<cvimodel::CviModel>()?;
    m.add_class::<cvimodel::Section>()?;
    m.add_class::<cvimodel::Weight>()?;
    m.add_class::<package::Package>()?;
    m.add_class::<bundle::Bundle>()?;
    Ok(())
}
