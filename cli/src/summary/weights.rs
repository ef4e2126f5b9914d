//! What a model holds: its constant tensor data (weights), counted once per buffer however many
//! tensors share it, with the parameter count and the bytes by element type and by the
//! operator that first reads them.

use crate::budget::{Budget, OverBudget};
use crate::convert::to_u64;
use crate::summary::facts::{dtype, operator_name, TensorFacts};
use flatmodel::graph::{ModelView, OperatorView, SubGraphView, TensorView};
use serde::ser::{Serialize, SerializeStruct, Serializer};
use std::collections::{BTreeMap, HashSet};
use std::io::Write;

/// The label of weights no operator reads.
pub const UNREAD: &str = "(read by no operator)";

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
    /// The weights of `model`: the data of every tensor that is not variable, once per buffer;
    /// `facts` are each subgraph's tensors, as the summary listed them.
    pub fn of<'a, M: ModelView<'a>>(
        model: M,
        facts: &[Vec<TensorFacts>],
        budget: &mut Budget,
    ) -> Result<Weights, OverBudget> {
        let mut w = Weights::default();
        let mut counted: HashSet<u32> = HashSet::new();
        // Buffer index -> bytes of the constant tensors not yet attributed to an operator.
        let mut constant: BTreeMap<u32, u64> = BTreeMap::new();
        for (s, sg) in model.subgraph_list().into_iter().flatten().enumerate() {
            for (i, t) in sg.tensors().into_iter().flatten().enumerate() {
                budget.charge(1)?;
                let Ok(data) = model.tensor_data(&t) else { continue };
                if data.is_empty() || t.is_variable() || !counted.insert(t.buffer()) {
                    continue;
                }
                let listed = facts.get(s).and_then(|f| f.get(i));
                let built;
                let facts = match listed {
                    Some(f) => f,
                    None => {
                        built = TensorFacts::of(model, i, &t, budget)?;
                        &built
                    }
                };
                let bytes = to_u64(data.len());
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
        for sg in model.subgraph_list().unwrap_or_default() {
            for op in sg.operators().unwrap_or_default() {
                budget.charge(1)?;
                let name = operator_name(model, &op, budget)?;
                for index in op.inputs().unwrap_or_default() {
                    budget.charge(1)?;
                    let Some(t) = sg.tensor(index) else { continue };
                    if let Some(bytes) = constant.remove(&t.buffer()) {
                        budget.charge(name.len())?;
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

    /// Adds `other`'s weights to these (a package's models together).
    pub fn add(&mut self, other: &Weights) {
        self.inside = self.inside.saturating_add(other.inside);
        self.outside = self.outside.saturating_add(other.outside);
        self.parameters = self.parameters.saturating_add(other.parameters);
        for (mine, theirs) in [(&mut self.by_dtype, &other.by_dtype), (&mut self.by_operator, &other.by_operator)] {
            for (key, bytes) in theirs {
                let e = mine.entry(key.clone()).or_default();
                *e = e.saturating_add(*bytes);
            }
        }
    }

    /// Prints the `size:` lines: `label`, the size of the file (or files, `what`), then the
    /// weights'.
    pub fn print(&self, out: &mut dyn Write, label: &str, what: &str) -> std::io::Result<()> {
        writeln!(
            out,
            "{label}{what}; weights {} bytes ({} inside the flatbuffer, {} outside), {} parameters",
            grouped(self.bytes()),
            grouped(self.inside),
            grouped(self.outside),
            grouped(self.parameters)
        )?;
        let line = |m: &BTreeMap<String, u64>| {
            let parts: Vec<String> = largest_first(m).into_iter().map(|(k, v)| format!("{k} {}", grouped(v))).collect();
            if parts.is_empty() {
                "-".to_string()
            } else {
                parts.join(", ")
            }
        };
        writeln!(out, "    weights by type:     {}", line(&self.by_dtype))?;
        writeln!(out, "    weights by operator: {}", line(&self.by_operator))
    }
}

/// `{"bytes", "inside", "outside", "parameters", "by_dtype", "by_operator"}`, the last two as
/// `[name, bytes]` pairs, largest first.
impl Serialize for Weights {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Weights", 6)?;
        s.serialize_field("bytes", &self.bytes())?;
        s.serialize_field("inside", &self.inside)?;
        s.serialize_field("outside", &self.outside)?;
        s.serialize_field("parameters", &self.parameters)?;
        s.serialize_field("by_dtype", &largest_first(&self.by_dtype))?;
        s.serialize_field("by_operator", &largest_first(&self.by_operator))?;
        s.end()
    }
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
