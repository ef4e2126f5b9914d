//! Every value of an execution plan or of a Vulkan graph, one row each, for `inspect
//! --tensors`: its type, a tensor's dtype, shape and bytes, and where its data is.

use super::dtypes::vk_dtype;
use crate::budget::{Budget, OverBudget};
use crate::summary::facts::{elements, scalar_dtype};
use flatmodel::pte::{ExecutionPlan, KernelTypes, TensorDataLocation};
use flatmodel::vkgraph::{GraphTypes, VkGraph};
use serde::Serialize;
use std::io::Write;

/// One value.
#[derive(Debug, Serialize)]
pub struct ValueRow {
    /// Its index.
    index: usize,
    /// `tensor`, or the value's type in lower case (`int`, `int_list`, ...).
    #[serde(rename = "type")]
    kind: String,
    /// A tensor's element type, by NumPy's name where it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    dtype: Option<String>,
    /// A tensor's dimensions.
    #[serde(skip_serializing_if = "Option::is_none")]
    shape: Option<Vec<i64>>,
    /// A tensor's bytes: its elements times its element size.
    #[serde(skip_serializing_if = "Option::is_none")]
    data_bytes: Option<u64>,
    /// Where a tensor's data is: `constant buffer 3`, `memory 1 at 64`, `external NAME`,
    /// `constant 2`, `memory object 5`; none for one the caller or the runtime provides.
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<String>,
}

impl ValueRow {
    /// The row of value `index`, no tensor: its union member's name in lower snake case
    /// (`IntList` -> `int_list`), or `type(TAG)` for one the schema does not name.
    fn other(index: usize, name: Option<&str>, tag: u8) -> ValueRow {
        let kind = name.map_or_else(|| format!("type({tag})"), snake_case);
        ValueRow { index, kind, dtype: None, shape: None, data_bytes: None, data: None }
    }
}

/// The rows of `plan`'s values, each charged to `budget` with its dimensions.
pub fn of_plan(plan: &ExecutionPlan<'_>, budget: &mut Budget) -> Result<Vec<ValueRow>, OverBudget> {
    let mut rows = Vec::new();
    for (index, value) in plan.values().into_iter().flatten().enumerate() {
        budget.charge(1)?;
        let val = value.val();
        let KernelTypes::Tensor(t) = val else {
            rows.push(ValueRow::other(index, val.type_name(), val.tag()));
            continue;
        };
        let sizes = t.sizes();
        budget.charge(sizes.map_or(0, |s| s.len()))?;
        let shape: Vec<i64> = sizes.into_iter().flatten().map(i64::from).collect();
        let elements = elements(shape.iter().copied());
        let external = t.extra_tensor_info().filter(|e| e.location() == TensorDataLocation::EXTERNAL);
        let data = match (external, t.allocation_info(), t.data_buffer_idx()) {
            (Some(e), _, _) => Some(format!("external {}", budget.text(e.fully_qualified_name().unwrap_or("-"))?)),
            (None, Some(a), buffer) => {
                let offset = (u64::from(a.memory_offset_high()) << 32) | u64::from(a.memory_offset_low());
                let initial =
                    if buffer > 0 { format!(", initial data in constant buffer {buffer}") } else { String::new() };
                Some(format!("memory {} at {offset}{initial}", a.memory_id()))
            }
            (None, None, 0) => None,
            (None, None, buffer) => Some(format!("constant buffer {buffer}")),
        };
        rows.push(ValueRow {
            index,
            kind: "tensor".into(),
            dtype: Some(scalar_dtype(t.scalar_type())),
            data_bytes: t.scalar_type().element_size().map(|size| size.saturating_mul(elements)),
            shape: Some(shape),
            data,
        });
    }
    Ok(rows)
}

/// The rows of graph `g`'s values, each charged to `budget` with its dimensions.
pub fn of_graph(g: &VkGraph<'_>, budget: &mut Budget) -> Result<Vec<ValueRow>, OverBudget> {
    let mut rows = Vec::new();
    for (index, value) in g.values().into_iter().flatten().enumerate() {
        budget.charge(1)?;
        let v = value.value();
        let GraphTypes::VkTensor(t) = v else {
            rows.push(ValueRow::other(index, v.type_name(), v.tag()));
            continue;
        };
        let dims = t.dims();
        budget.charge(dims.map_or(0, |d| d.len()))?;
        let shape: Vec<i64> = dims.into_iter().flatten().map(i64::from).collect();
        let elements = elements(shape.iter().copied());
        let data = match (t.constant_id(), t.mem_obj_id()) {
            (c, _) if c >= 0 => Some(format!("constant {c}")),
            (_, m) if m >= 0 => Some(format!("memory object {m}")),
            _ => None,
        };
        let datatype = t.datatype();
        rows.push(ValueRow {
            index,
            kind: "tensor".into(),
            dtype: Some(vk_dtype(datatype)),
            data_bytes: datatype.element_size().map(|size| size.saturating_mul(elements)),
            shape: Some(shape),
            data,
        });
    }
    Ok(rows)
}

/// A union member's name in lower snake case (`IntList` -> `int_list`).
fn snake_case(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// One aligned row per value under a header, indented by `indent`; where the data is comes
/// last, as it varies in length.
pub fn print(out: &mut dyn Write, rows: &[ValueRow], indent: &str) -> std::io::Result<()> {
    const HEADER: [&str; 5] = ["INDEX", "TYPE", "SHAPE", "BYTES", "DATA"];
    let cells: Vec<[String; 5]> = rows
        .iter()
        .map(|r| {
            let shape = r.shape.as_ref().map_or_else(
                || "-".into(),
                |s| format!("[{}]", s.iter().map(i64::to_string).collect::<Vec<_>>().join(",")),
            );
            [
                r.index.to_string(),
                r.dtype.clone().unwrap_or_else(|| r.kind.clone()),
                shape,
                r.data_bytes.map_or_else(|| "-".into(), |b| b.to_string()),
                r.data.clone().unwrap_or_else(|| "-".into()),
            ]
        })
        .collect();
    let mut widths = HEADER.map(str::len);
    for row in &cells {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let [wi, wt, ws, wb, _] = widths;
    for [index, ty, shape, bytes, data] in std::iter::once(HEADER.map(String::from)).chain(cells) {
        writeln!(out, "{indent}{index:>wi$}  {ty:<wt$}  {shape:<ws$}  {bytes:>wb$}  {data}")?;
    }
    Ok(())
}
