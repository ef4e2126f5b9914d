//! What a model holds: its constant tensor data (weights), counted once per buffer however many
//! tensors share it, with the parameter count and the bytes by element type and by the
//! operator that first reads them.

use crate::budget::{Budget, OverBudget};
use crate::summary::facts::{dtype, TensorFacts};
use flatmodel::graph::{ModelView, OperatorView, SubGraphView, TensorView};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashSet};
use std::io::Write;

/// The label of weights no operator reads.
const UNREAD: &str = "(read by no operator)";

/// The model's weights.
#[derive(Debug, Default)]
pub struct Weights {
    /// Constant data bytes inside the flatbuffer (`Buffer.data`).
    pub inside: u64,
    /// Constant data bytes after it (`Buffer.offset`/`size`).
    pub outside: u64,
    /// Elements of the constant tensors (each buffer counted once, by the first tensor holding it).
    pub parameters: u64,
    /// Bytes by element type (`int8`, `float32`).
    pub by_dtype: BTreeMap<String, u64>,
    /// Bytes by the operator that first reads them (`CONV_2D`), in subgraph and operator order.
    pub by_operator: BTreeMap<String, u64>,
}

impl Weights {
    /// The weights of `model`: the data of every tensor that is not variable, once per buffer.
    pub fn of<'a, M: ModelView<'a>>(model: M, budget: &mut Budget) -> Result<Weights, OverBudget> {
        let mut w = Weights::default();
        let mut counted: HashSet<u32> = HashSet::new();
        // Buffer index -> bytes of the constant tensors not yet attributed to an operator.
        let mut constant: BTreeMap<u32, u64> = BTreeMap::new();
        for sg in model.subgraph_list().into_iter().flat_map(|s| s.iter()) {
            for (i, t) in sg.tensors().into_iter().flat_map(|v| v.iter()).enumerate() {
                budget.charge(1)?;
                let Ok(data) = model.tensor_data(&t) else { continue };
                if data.is_empty() || t.is_variable() || !counted.insert(t.buffer()) {
                    continue;
                }
                let facts = TensorFacts::of(model, i, &t, budget)?;
                let bytes = data.len() as u64;
                let stored_outside = model
                    .buffer_ref(usize::try_from(t.buffer()).unwrap_or(usize::MAX))
                    .is_some_and(|b| b.data.is_none());
                match stored_outside {
                    true => w.outside = w.outside.saturating_add(bytes),
                    false => w.inside = w.inside.saturating_add(bytes),
                }
                w.parameters = w.parameters.saturating_add(facts.elements());
                let e = w.by_dtype.entry(dtype(facts.element)).or_default();
                *e = e.saturating_add(bytes);
                constant.insert(t.buffer(), bytes);
            }
        }
        for sg in model.subgraph_list().into_iter().flat_map(|s| s.iter()) {
            for op in sg.operators().into_iter().flat_map(|o| o.iter()) {
                budget.charge(1)?;
                let name = model.operator_kind(&op).map_or_else(|| "<missing operator code>".into(), |k| k.to_string());
                for index in op.inputs().into_iter().flat_map(|v| v.iter()) {
                    budget.charge(1)?;
                    let Some(t) = sg.tensor(index) else { continue };
                    if let Some(bytes) = constant.remove(&t.buffer()) {
                        let e = w.by_operator.entry(name.clone()).or_default();
                        *e = e.saturating_add(bytes);
                    }
                }
            }
        }
        let unread = constant.values().fold(0u64, |sum, &b| sum.saturating_add(b));
        if unread > 0 {
            w.by_operator.insert(UNREAD.into(), unread);
        }
        Ok(w)
    }

    /// Constant data bytes in all.
    pub fn bytes(&self) -> u64 {
        self.inside.saturating_add(self.outside)
    }

    /// `{"bytes", "inside", "outside", "parameters", "by_dtype", "by_operator"}`, the last two
    /// as `[name, bytes]` pairs, largest first.
    pub fn to_json(&self) -> Value {
        let pairs =
            |m: &BTreeMap<String, u64>| largest_first(m).into_iter().map(|(k, v)| json!([k, v])).collect::<Vec<_>>();
        json!({
            "bytes": self.bytes(),
            "inside": self.inside,
            "outside": self.outside,
            "parameters": self.parameters,
            "by_dtype": pairs(&self.by_dtype),
            "by_operator": pairs(&self.by_operator),
        })
    }
}

/// Prints a summary's `weights` (with the file size) as the `size:` lines.
pub fn print(out: &mut dyn Write, w: &Value, file_bytes: u64) -> std::io::Result<()> {
    let n = |k: &str| grouped(w[k].as_u64().unwrap_or(0));
    writeln!(
        out,
        "  size:                {} bytes; weights {} bytes ({} inside the flatbuffer, {} outside), {} parameters",
        grouped(file_bytes),
        n("bytes"),
        n("inside"),
        n("outside"),
        n("parameters")
    )?;
    let line = |k: &str| {
        let parts: Vec<String> = w[k]
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| format!("{} {}", p[0].as_str().unwrap_or("-"), grouped(p[1].as_u64().unwrap_or(0))))
            .collect();
        if parts.is_empty() {
            "-".to_string()
        } else {
            parts.join(", ")
        }
    };
    writeln!(out, "    weights by type:     {}", line("by_dtype"))?;
    writeln!(out, "    weights by operator: {}", line("by_operator"))
}

/// The entries of `m`, largest value first, then by name.
fn largest_first(m: &BTreeMap<String, u64>) -> Vec<(&str, u64)> {
    let mut rows: Vec<(&str, u64)> = m.iter().map(|(k, &v)| (k.as_str(), v)).collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    rows
}

/// `1234567` as `1,234,567`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
