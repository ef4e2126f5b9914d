//! The format-neutral question the package asks of each model: its subgraphs, and each
//! subgraph's input and output tensors (name, element type, shape).

use crate::container::Budget;
use crate::error::{Error, ErrorKind, Location};
pub use crate::graph::ElementType;
use crate::graph::{ModelView, SubGraphView, TensorView};
use crate::verify::Options;
use crate::wire::to_u64;
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
/// [`ErrorKind::UnknownFormat`] error. The copies (each subgraph's name, each input's and
/// output's name and shape) are charged to the default work budget of `bytes`, one unit per
/// subgraph or tensor and per byte or dimension copied, so memory stays linear in the file
/// even when many entries share one long name ([`ErrorKind::ApparentSizeLimit`] past it).
pub fn model_io(bytes: &[u8]) -> Result<ModelIo, Error> {
    let budget = Budget::new(&Options::DEFAULT, bytes.len(), &MODEL);
    match crate::detect(bytes) {
        Some(Format::Tflite) => graph_io(tflite::Model::parse(bytes)?, budget),
        Some(Format::Circle) => graph_io(circle::Model::parse(bytes)?, budget),
        _ => Err(Error::new(ErrorKind::UnknownFormat, 0, Location::at(&MODEL))),
    }
}

/// Each subgraph's inputs and outputs, through the model graph TFLite and Circle share, copying
/// at most `budget` units (a subgraph or tensor, a byte of its name, a dimension of its shape).
fn graph_io<'a, M: ModelView<'a>>(model: M, mut budget: Budget) -> Result<ModelIo, Error> {
    let mut subgraphs = Vec::new();
    for sg in model.subgraph_list().unwrap_or_default() {
        let at = to_u64(sg.position());
        let name = sg.name();
        spend(&mut budget, name.map_or(0, str::len), at)?;
        let mut tensor = |index: i32| -> Result<TensorIo, Error> {
            let t = sg.tensor(index).ok_or(Error::new(ErrorKind::IndexOutOfRange, at, Location::at(&MODEL)))?;
            let (name, shape) = (t.name(), t.shape_signature());
            spend(&mut budget, name.map_or(0, str::len).saturating_add(shape.map_or(0, |s| s.len())), at)?;
            Ok(TensorIo {
                tensor: index,
                name: name.map(String::from),
                element_type: t.element_type(),
                shape: shape.map(|s| s.iter().collect()),
            })
        };
        let mut list = |v: Option<crate::wire::Vector<'_, i32>>| -> Result<Vec<TensorIo>, Error> {
            v.into_iter().flatten().map(&mut tensor).collect()
        };
        let inputs = list(sg.inputs())?;
        let outputs = list(sg.outputs())?;
        subgraphs.push(SubgraphIo { name: name.map(String::from), inputs, outputs });
    }
    Ok(ModelIo { format: M::FORMAT, subgraphs })
}

/// Charges one unit plus `units` to `budget`; an apparent-size error (at byte `at`) past it.
fn spend(budget: &mut Budget, units: usize, at: u64) -> Result<(), Error> {
    budget.charge(u64::try_from(units).unwrap_or(u64::MAX).saturating_add(1), at)
}
