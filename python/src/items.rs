//! Lazy sequences: a length and a way to make the `i`th wrapper, which reads the view when
//! asked. Iterating makes each wrapper in turn; nothing is read ahead.

use crate::core::Shared;
use pyo3::exceptions::{PyIndexError, PyTypeError};
use pyo3::prelude::*;

/// What a sequence holds.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// The tensors of a TFLite or Circle subgraph.
    Tensors(usize),
    /// The operators of a TFLite or Circle subgraph.
    Operators(usize),
    /// The values of a `.pte` execution plan.
    PlanValues(usize),
    /// The values of a Vulkan blob's graph (in program delegate `d`, or a file's own blob).
    VkValues(Option<usize>),
    /// The operators of a Vulkan blob's graph.
    VkOperators(Option<usize>),
    /// The values of an XNNPACK blob's graph (in program delegate `d`, or a file's own blob).
    XnnValues(Option<usize>),
    /// The nodes of an XNNPACK blob's graph.
    XnnNodes(Option<usize>),
}

/// A read-only sequence of a model's items, read from the file on access.
#[pyclass(module = "flatmodel", frozen, sequence)]
pub struct Items {
    core: Shared,
    kind: Kind,
    len: usize,
}

impl Items {
    pub fn new(core: Shared, kind: Kind, len: usize) -> Items {
        Items { core, kind, len }
    }

    fn item(&self, py: Python<'_>, i: usize) -> PyResult<PyObject> {
        let core = self.core.clone();
        Ok(match self.kind {
            Kind::Tensors(sg) => Py::new(py, crate::graph::Tensor::new(core, sg, i))?.into_any(),
            Kind::Operators(sg) => Py::new(py, crate::graph::Operator::new(core, sg, i))?.into_any(),
            Kind::PlanValues(plan) => Py::new(py, crate::pte::Value::new(core, plan, i))?.into_any(),
            Kind::VkValues(at) => Py::new(py, crate::vkgraph::VkValue::new(core, at, i))?.into_any(),
            Kind::VkOperators(at) => Py::new(py, crate::vkgraph::VkOperator::new(core, at, i))?.into_any(),
            Kind::XnnValues(at) => Py::new(py, crate::xnnpack::XnnValue::new(core, at, i))?.into_any(),
            Kind::XnnNodes(at) => Py::new(py, crate::xnnpack::XnnNode::new(core, at, i))?.into_any(),
        })
    }
}

#[pymethods]
impl Items {
    fn __len__(&self) -> usize {
        self.len
    }

    fn __getitem__(&self, py: Python<'_>, index: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        let Ok(i) = index.extract::<isize>() else {
            return Err(PyTypeError::new_err("indices must be integers"));
        };
        let at = if i < 0 { self.len.checked_sub(i.unsigned_abs()) } else { usize::try_from(i).ok() };
        match at {
            Some(at) if at < self.len => self.item(py, at),
            _ => Err(PyIndexError::new_err("index out of range")),
        }
    }

    fn __iter__(slf: Py<Self>) -> ItemsIter {
        ItemsIter { items: slf, next: 0 }
    }

    fn __repr__(&self) -> String {
        format!("<flatmodel.Items of {} {:?}>", self.len, self.kind)
    }
}

/// An iterator over an [`Items`].
#[pyclass(module = "flatmodel")]
pub struct ItemsIter {
    items: Py<Items>,
    next: usize,
}

#[pymethods]
impl ItemsIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        let items = self.items.get();
        if self.next >= items.len {
            return Ok(None);
        }
        let i = self.next;
        self.next += 1;
        items.item(py, i).map(Some)
    }
}
