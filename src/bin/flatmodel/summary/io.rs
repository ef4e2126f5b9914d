//! What a model takes and gives: each signature's inputs and outputs, or the primary
//! subgraph's when it has no signature.

use crate::budget::{Budget, OverBudget};
use crate::summary::facts::{Quant, TensorFacts};
use flatmodel::graph::{ModelView, SignatureView, SubGraphView, TensorMapView};
use flatmodel::wire::{TableVector, Vector};
use serde_json::{json, Value};
use std::io::Write;

/// One tensor a caller feeds or reads.
pub struct Port {
    /// The signature's name for it, else the tensor's name.
    pub name: Option<String>,
    /// The tensor, when the index names one.
    pub tensor: Option<TensorFacts>,
    /// The index as stored.
    pub index: i64,
}

/// One way to run the model: a signature, or the primary subgraph.
pub struct Entry {
    /// The signature key, `None` for the primary subgraph.
    pub signature: Option<String>,
    /// The subgraph it runs.
    pub subgraph: u32,
    /// Its inputs.
    pub inputs: Vec<Port>,
    /// Its outputs.
    pub outputs: Vec<Port>,
}

/// Each signature of `model`, or subgraph 0 when there is none.
pub fn entries<'a, M: ModelView<'a>>(model: M, budget: &mut Budget) -> Result<Vec<Entry>, OverBudget> {
    let mut entries = Vec::new();
    for sig in model.signature_list().into_iter().flat_map(|s| s.iter()) {
        budget.charge(1)?;
        let subgraph = sig.subgraph_index();
        let sg = model.subgraph(usize::try_from(subgraph).unwrap_or(usize::MAX));
        let inputs = mapped(model, sg, sig.inputs(), budget)?;
        let outputs = mapped(model, sg, sig.outputs(), budget)?;
        entries.push(Entry { signature: Some(sig.key().unwrap_or("").to_string()), subgraph, inputs, outputs });
    }
    if entries.is_empty() {
        if let Some(sg) = model.subgraph(0) {
            let mut ports = |list: Option<Vector<'a, i32>>| -> Result<Vec<Port>, OverBudget> {
                let mut ports = Vec::new();
                for index in list.into_iter().flat_map(|v| v.iter()) {
                    ports.push(port(model, Some(sg), i64::from(index), None, budget)?);
                }
                Ok(ports)
            };
            let (inputs, outputs) = (ports(sg.inputs())?, ports(sg.outputs())?);
            entries.push(Entry { signature: None, subgraph: 0, inputs, outputs });
        }
    }
    Ok(entries)
}

/// The ports a signature's tensor maps name.
fn mapped<'a, M: ModelView<'a>>(
    model: M,
    sg: Option<M::SubGraph>,
    maps: Option<TableVector<'a, <M::Signature as SignatureView<'a>>::TensorMap>>,
    budget: &mut Budget,
) -> Result<Vec<Port>, OverBudget> {
    let mut ports = Vec::new();
    for m in maps.into_iter().flat_map(|v| v.iter()) {
        ports.push(port(model, sg, i64::from(m.tensor_index()), m.name(), budget)?);
    }
    Ok(ports)
}

/// The port for tensor `index` of `sg`, named `name` by a signature.
fn port<'a, M: ModelView<'a>>(
    model: M,
    sg: Option<M::SubGraph>,
    index: i64,
    name: Option<&str>,
    budget: &mut Budget,
) -> Result<Port, OverBudget> {
    budget.charge(1)?;
    let tensor = match (sg, i32::try_from(index)) {
        (Some(sg), Ok(i)) => sg.tensor(i),
        _ => None,
    };
    let tensor = match tensor {
        Some(t) => Some(TensorFacts::of(model, usize::try_from(index).unwrap_or(0), &t, budget)?),
        None => None,
    };
    let name = name.map(str::to_string).or_else(|| tensor.as_ref().and_then(|t| t.name.clone()));
    Ok(Port { name, tensor, index })
}

impl Port {
    fn to_json(&self) -> Value {
        match &self.tensor {
            Some(t) => t.io_json(self.name.as_deref()),
            None => json!({"name": self.name, "tensor": self.index, "error": "no such tensor"}),
        }
    }
}

impl Entry {
    /// `{"signature", "subgraph", "inputs", "outputs"}`.
    pub fn to_json(&self) -> Value {
        json!({
            "signature": self.signature,
            "subgraph": self.subgraph,
            "inputs": self.inputs.iter().map(Port::to_json).collect::<Vec<_>>(),
            "outputs": self.outputs.iter().map(Port::to_json).collect::<Vec<_>>(),
        })
    }
}

/// A port's cells: name, dtype, shape (-1 dynamic), quantization.
fn cells(port: &Value) -> [String; 4] {
    let name = port["name"].as_str().map_or_else(|| format!("#{}", port["tensor"]), str::to_string);
    if port.get("error").is_some() {
        return [name, "-".into(), "-".into(), format!("(tensor {} does not exist)", port["tensor"])];
    }
    let dims: Vec<String> = port["shape"].as_array().into_iter().flatten().map(Value::to_string).collect();
    let quant = Quant::from_json(&port["quantization"]).map_or_else(|| "-".into(), |q| q.text());
    [name, port["dtype"].as_str().unwrap_or("-").into(), format!("[{}]", dims.join(",")), quant]
}

/// Prints each entry of a summary's `io`: its inputs and outputs, one aligned row per tensor.
pub fn print(out: &mut dyn Write, io: &Value) -> std::io::Result<()> {
    print_indented(out, io, "  ", 21)
}

/// [`print`] with the `runs:` lines indented by `indent`, their label padded to `width`.
pub fn print_indented(out: &mut dyn Write, io: &Value, indent: &str, width: usize) -> std::io::Result<()> {
    for e in io.as_array().into_iter().flatten() {
        let title = match (e["signature"].as_str(), e["plan"].as_str(), e["graph"].as_str()) {
            (Some(key), _, _) => format!("signature {key} (subgraph {})", e["subgraph"]),
            (_, Some(plan), _) => format!("execution plan {plan}"),
            (_, _, Some(graph)) => format!("the {graph} graph"),
            _ => format!("subgraph {}", e["subgraph"]),
        };
        writeln!(out, "{indent}{:<width$}{title}", "runs:")?;
        let ports = |k: &str| e[k].as_array().cloned().unwrap_or_default();
        let rows: Vec<(&str, [String; 4])> = ports("inputs")
            .iter()
            .map(|p| ("in ", cells(p)))
            .chain(ports("outputs").iter().map(|p| ("out", cells(p))))
            .collect();
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
