//! What a model takes and gives: each signature's inputs and outputs, or the primary
//! subgraph's when it has no signature, in the layout every format's `io` shares.

use crate::budget::{Budget, OverBudget};
use crate::summary::facts::{Quant, TensorFacts};
use flatmodel::graph::{ModelView, SignatureView, SubGraphView, TensorMapView};
use flatmodel::wire::{TableVector, Vector};
use serde::Serialize;
use std::io::Write;

/// One tensor a caller feeds or reads.
#[derive(Debug, Serialize)]
pub struct Port {
    /// The signature's name for it, else the tensor's name; `None` where the format names none.
    pub name: Option<String>,
    /// Its index as stored (a value index in ExecuTorch).
    pub tensor: i64,
    /// What the index names.
    #[serde(flatten)]
    pub found: Found,
}

/// What a port's index names.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Found {
    /// A tensor (or, in ExecuTorch, a value of another type, with no shape).
    Tensor(PortTensor),
    /// Nothing: why (`no such tensor`).
    Missing {
        /// Why.
        error: &'static str,
    },
}

/// A port's tensor: type, shape and quantization.
#[derive(Debug, Serialize)]
pub struct PortTensor {
    /// The tensor's own name, where it has one and the format names ports apart from tensors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tensor_name: Option<String>,
    /// NumPy's name where NumPy has the type, else the format's name in lower case.
    pub dtype: String,
    /// The type code as stored, where the dtype is a reading of it (nnpackage ports).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub type_code: Option<i32>,
    /// Dimensions, -1 for a dynamic one; `None` for a value that is no tensor.
    pub shape: Option<Vec<i64>>,
    /// Its quantization.
    pub quantization: Option<Quant>,
}

impl Port {
    /// The port of tensor `t`, named `name` by a signature (else by the tensor), its names'
    /// copies charged to `budget`.
    pub fn of_tensor(t: &TensorFacts, name: Option<&str>, budget: &mut Budget) -> Result<Port, OverBudget> {
        let scales = match &t.quant {
            Some(Quant::PerAxis { scales, zero_points, .. }) => scales.len().saturating_add(zero_points.len()),
            _ => 0,
        };
        budget.charge(t.dims().len().saturating_add(scales))?;
        Ok(Port {
            name: budget.text_of(name.or(t.name.as_deref()))?,
            tensor: i64::try_from(t.index).unwrap_or(i64::MAX),
            found: Found::Tensor(PortTensor {
                tensor_name: budget.text_of(t.name.as_deref())?,
                dtype: crate::summary::facts::dtype(t.element),
                shape: Some(t.dims().iter().map(|&d| i64::from(d)).collect()),
                quantization: t.quant.clone(),
                type_code: None,
            }),
        })
    }

    /// A port whose index names nothing, for `error`'s reason.
    pub fn missing(name: Option<String>, tensor: i64, error: &'static str) -> Port {
        Port { name, tensor, found: Found::Missing { error } }
    }

    /// A port of `dtype` and `shape`, without quantization or a separate tensor name.
    pub fn plain(name: Option<String>, tensor: i64, dtype: String, shape: Option<Vec<i64>>) -> Port {
        let t = PortTensor { tensor_name: None, dtype, type_code: None, shape, quantization: None };
        Port { name, tensor, found: Found::Tensor(t) }
    }

    /// Its cells as printed: name, dtype, shape (-1 dynamic), quantization.
    fn cells(&self) -> [String; 4] {
        let name = self.name.clone().unwrap_or_else(|| format!("#{}", self.tensor));
        match &self.found {
            Found::Missing { .. } => [name, "-".into(), "-".into(), format!("(tensor {} does not exist)", self.tensor)],
            Found::Tensor(t) => {
                let dims: Vec<String> = t.shape.iter().flatten().map(i64::to_string).collect();
                let quant = t.quantization.as_ref().map_or_else(|| "-".into(), Quant::text);
                [name, t.dtype.clone(), format!("[{}]", dims.join(",")), quant]
            }
        }
    }
}

/// What an entry runs.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Runs {
    /// A TFLite or Circle signature (its key; `None` for the primary subgraph) and its subgraph.
    Signature {
        /// The signature key.
        signature: Option<String>,
        /// The subgraph it runs.
        subgraph: u32,
    },
    /// A subgraph of an nnpackage's model.
    Subgraph {
        /// Its index.
        subgraph: usize,
    },
    /// An ExecuTorch execution plan, by name.
    Plan {
        /// Its name.
        plan: Option<String>,
    },
    /// A delegate's graph (`vulkan`).
    Graph {
        /// Which.
        graph: &'static str,
    },
    /// A cvimodel program, by index.
    Program {
        /// Its index.
        program: usize,
    },
}

/// One way to run the model and what it takes and gives.
#[derive(Debug, Serialize)]
pub struct Entry {
    /// What it runs.
    #[serde(flatten)]
    pub runs: Runs,
    /// Its inputs.
    pub inputs: Vec<Port>,
    /// Its outputs.
    pub outputs: Vec<Port>,
}

/// Each signature of `model`, or subgraph 0 when there is none; `facts` are the tensors of
/// each subgraph when the caller listed them already (else they are read here).
pub fn entries<'a, M: ModelView<'a>>(
    model: M,
    facts: &[Vec<TensorFacts>],
    budget: &mut Budget,
) -> Result<Vec<Entry>, OverBudget> {
    let mut entries = Vec::new();
    for sig in model.signature_list().unwrap_or_default() {
        budget.charge(1)?;
        let subgraph = sig.subgraph_index();
        let at = usize::try_from(subgraph).unwrap_or(usize::MAX);
        let (sg, listed) = (model.subgraph(at), facts.get(at).map(Vec::as_slice));
        let inputs = mapped(model, sg, listed, sig.inputs(), budget)?;
        let outputs = mapped(model, sg, listed, sig.outputs(), budget)?;
        let runs = Runs::Signature { signature: Some(budget.text(sig.key().unwrap_or(""))?), subgraph };
        entries.push(Entry { runs, inputs, outputs });
    }
    if entries.is_empty() {
        if let Some(sg) = model.subgraph(0) {
            let listed = facts.first().map(Vec::as_slice);
            let mut ports = |list: Option<Vector<'a, i32>>| -> Result<Vec<Port>, OverBudget> {
                let mut ports = Vec::new();
                for index in list.unwrap_or_default() {
                    ports.push(port(model, Some(sg), listed, i64::from(index), None, budget)?);
                }
                Ok(ports)
            };
            let (inputs, outputs) = (ports(sg.inputs())?, ports(sg.outputs())?);
            entries.push(Entry { runs: Runs::Signature { signature: None, subgraph: 0 }, inputs, outputs });
        }
    }
    Ok(entries)
}

/// The ports a signature's tensor maps name.
fn mapped<'a, M: ModelView<'a>>(
    model: M,
    sg: Option<M::SubGraph>,
    listed: Option<&[TensorFacts]>,
    maps: Option<TableVector<'a, <M::Signature as SignatureView<'a>>::TensorMap>>,
    budget: &mut Budget,
) -> Result<Vec<Port>, OverBudget> {
    let mut ports = Vec::new();
    for m in maps.unwrap_or_default() {
        ports.push(port(model, sg, listed, i64::from(m.tensor_index()), m.name(), budget)?);
    }
    Ok(ports)
}

/// The port for tensor `index` of `sg` (whose tensors are `listed`, when they were), named
/// `name` by a signature.
fn port<'a, M: ModelView<'a>>(
    model: M,
    sg: Option<M::SubGraph>,
    listed: Option<&[TensorFacts]>,
    index: i64,
    name: Option<&str>,
    budget: &mut Budget,
) -> Result<Port, OverBudget> {
    budget.charge(1)?;
    let at = usize::try_from(index).ok();
    if let Some(facts) = listed.zip(at).and_then(|(l, at)| l.get(at)) {
        return Port::of_tensor(facts, name, budget);
    }
    let tensor = match (sg, i32::try_from(index)) {
        (Some(sg), Ok(i)) => sg.tensor(i),
        _ => None,
    };
    match (tensor, at) {
        (Some(t), Some(at)) => Port::of_tensor(&TensorFacts::of(model, at, &t, budget)?, name, budget),
        _ => Ok(Port::missing(budget.text_of(name)?, index, "no such tensor")),
    }
}

/// Prints each entry's inputs and outputs, one aligned row per tensor, under a `runs:` line.
pub fn print(out: &mut dyn Write, io: &[Entry]) -> std::io::Result<()> {
    print_indented(out, io, "  ", 21)
}

/// [`print()`] with the `runs:` lines indented by `indent`, their label padded to `width`.
pub fn print_indented(out: &mut dyn Write, io: &[Entry], indent: &str, width: usize) -> std::io::Result<()> {
    for e in io {
        let title = match &e.runs {
            Runs::Signature { signature: Some(key), subgraph } => format!("signature {key} (subgraph {subgraph})"),
            Runs::Signature { signature: None, subgraph } => format!("subgraph {subgraph}"),
            Runs::Subgraph { subgraph } => format!("subgraph {subgraph}"),
            Runs::Plan { plan } => format!("execution plan {}", plan.as_deref().unwrap_or("-")),
            Runs::Graph { graph } => format!("the {graph} graph"),
            Runs::Program { program } => format!("program {program}"),
        };
        writeln!(out, "{indent}{:<width$}{title}", "runs:")?;
        let rows: Vec<(&str, [String; 4])> =
            e.inputs.iter().map(|p| ("in ", p.cells())).chain(e.outputs.iter().map(|p| ("out", p.cells()))).collect();
        let mut widths = [0usize; 4];
        for (_, row) in &rows {
            for (w, c) in widths.iter_mut().zip(row) {
                *w = (*w).max(c.chars().count());
            }
        }
        let [wn, wd, ws, _] = widths;
        for (dir, [name, ty, shape, quant]) in &rows {
            let line = format!("{indent}  {dir}  {name:<wn$}  {ty:<wd$}  {shape:<ws$}  {quant}");
            writeln!(out, "{}", line.trim_end())?;
        }
    }
    Ok(())
}
