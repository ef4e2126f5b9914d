//! The format-neutral question the package asks of each model: its subgraphs, and each
//! subgraph's input and output tensors (name, element type, shape).

use crate::error::{Error, ErrorKind, Location};
pub use crate::graph::ElementType;
use crate::graph::{ModelView, SubGraphView, TensorView};
use crate::{circle, tflite, Format};
use std::string::String;
use std::vec::Vec;

static MODEL: &str = "Model";

/// One input or output tensor of a subgraph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorIo {
    /// The tensor's index in its subgraph's tensors.
    pub tensor: i32,
    /// The tensor's name.
    pub name: Option<String>,
    /// The element type.
    pub element_type: ElementType,
    /// The shape as runtimes read it, -1 for a dimension unknown until run time (TFLite's
    /// `shape_signature` when present); `None` when the model gives none.
    pub shape: Option<Vec<i32>>,
}

/// The inputs and outputs of one subgraph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubgraphIo {
    /// The subgraph's name.
    pub name: Option<String>,
    /// The input tensors, in order.
    pub inputs: Vec<TensorIo>,
    /// The output tensors, in order.
    pub outputs: Vec<TensorIo>,
}

/// What a package needs to know of a model: its format and each subgraph's inputs and outputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelIo {
    /// The format its bytes show.
    pub format: Format,
    /// The subgraphs, in order (the first is the main one).
    pub subgraphs: Vec<SubgraphIo>,
}

/// Verifies `bytes` fully as the model format they show (structure and model rules), then
/// reads each subgraph's inputs and outputs. A format this crate cannot read is an
/// [`ErrorKind::UnknownFormat`] error.
pub fn model_io(bytes: &[u8]) -> Result<ModelIo, Error> {
    match crate::detect(bytes) {
        Some(Format::Tflite) => graph_io(tflite::Model::parse(bytes)?),
        Some(Format::Circle) => graph_io(circle::Model::parse(bytes)?),
        _ => Err(Error::new(ErrorKind::UnknownFormat, 0, Location::at(&MODEL))),
    }
}

/// Each subgraph's inputs and outputs, through the model graph TFLite and Circle share.
fn graph_io<'a, M: ModelView<'a>>(model: M) -> Result<ModelIo, Error> {
    let mut subgraphs = Vec::new();
    for sg in model.subgraph_list().into_iter().flat_map(|s| s.iter()) {
        let tensor = |index: i32| -> Result<TensorIo, Error> {
            let t = sg.tensor(index).ok_or(Error::new(
                ErrorKind::IndexOutOfRange,
                sg.position() as u64,
                Location::at(&MODEL),
            ))?;
            Ok(TensorIo {
                tensor: index,
                name: t.name().map(String::from),
                element_type: t.element_type(),
                shape: t.shape_signature().map(|s| s.iter().collect()),
            })
        };
        let list = |v: Option<crate::wire::Vector<'_, i32>>| -> Result<Vec<TensorIo>, Error> {
            v.into_iter().flat_map(|v| v.iter()).map(tensor).collect()
        };
        subgraphs.push(SubgraphIo {
            name: sg.name().map(String::from),
            inputs: list(sg.inputs())?,
            outputs: list(sg.outputs())?,
        });
    }
    Ok(ModelIo { format: M::FORMAT, subgraphs })
}
