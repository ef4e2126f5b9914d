//! A Vulkan delegate's graph (VkGraph): its values, operators, inputs, outputs and constants,
//! alone (a `VH00` blob or a bare VkGraph) or inside a `.pte`.

use super::counts::{operator_list, print_histogram, OperatorCount};
use super::values::ValueRow;
use crate::budget::{Budget, OverBudget};
use crate::convert::to_u64;
use crate::summary::facts::Named;
use crate::summary::io::{print_indented, Entry, Port, Runs};
use crate::summary::weights::{grouped, Weights};
use flatmodel::vkgraph::{Blob, Constant, GraphTypes, VkGraph};
use flatmodel::wire::Vector;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;

/// A `VH00` Vulkan delegate blob or a bare VkGraph, with its graph's summary alongside.
#[derive(Debug, Serialize)]
pub struct BlobSummary {
    /// `Vulkan delegate blob (VH00)` or `VkGraph (VK00)`.
    pub format: &'static str,
    /// The file's length.
    pub file_bytes: usize,
    /// The `VH00` header; `None` for a bare VkGraph.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header: Option<BlobHeaderFields>,
    /// Its constants that can be read (a bare VkGraph's lie in the raw bytes it lacks).
    pub weights: Weights,
    /// Its graph.
    #[serde(flatten)]
    pub graph: VulkanGraphSummary,
}

/// A blob's `VH00` header.
#[derive(Debug, Serialize)]
pub struct BlobHeaderFields {
    /// The header's length.
    pub header_size: u16,
    /// Where the VkGraph flatbuffer starts.
    pub flatbuffer_offset: u32,
    /// The flatbuffer's length.
    pub flatbuffer_size: u32,
    /// Where the raw constant bytes start.
    pub bytes_offset: u32,
    /// The raw constant bytes' length.
    pub bytes_size: u64,
}

/// A Vulkan graph: values by type, operators by name, inputs, outputs, and where each
/// constant's data lives.
#[derive(Debug, Serialize)]
pub struct VulkanGraphSummary {
    /// `VkGraph.version`.
    pub version: Option<String>,
    /// Its inputs and outputs as ports: one entry, the `vulkan` graph.
    pub io: Vec<Entry>,
    /// How many values of each type (`VkTensor`, `Int`, ...).
    pub values: BTreeMap<String, u64>,
    /// How many calls of each operator, most frequent first.
    pub operators: Vec<OperatorCount>,
    /// Its input values.
    pub inputs: Vec<GraphValue>,
    /// Its output values.
    pub outputs: Vec<GraphValue>,
    /// Its constants.
    pub constants: Vec<ConstantSummary>,
    /// The constants' bytes, as far as they are known.
    pub constant_bytes: u64,
    /// Every value, with `--tensors`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tensor_list: Option<Vec<ValueRow>>,
}

/// A value a Vulkan graph takes or gives.
#[derive(Debug, Serialize)]
pub struct GraphValue {
    /// Its index.
    pub value: u32,
    /// Its type and dimensions, when it is a tensor.
    #[serde(flatten)]
    pub tensor: Option<GraphTensor>,
}

/// A Vulkan tensor's type and dimensions.
#[derive(Debug, Serialize)]
pub struct GraphTensor {
    /// Its `VkDataType`.
    pub datatype: Named,
    /// Its dimensions.
    pub dims: Option<Vec<u32>>,
}

/// A Vulkan graph's constant.
#[derive(Debug, Serialize)]
pub struct ConstantSummary {
    /// Its index.
    pub index: usize,
    /// Where its data is.
    #[serde(flatten)]
    pub storage: ConstantStorage,
}

/// Where a constant's data is, under `stored` the words for a person.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum ConstantStorage {
    /// In the blob's `VH00` raw bytes.
    Inline {
        /// Its length.
        bytes: u64,
        /// `inline (VH00 raw bytes)`.
        stored: &'static str,
    },
    /// In the program's named data.
    Named {
        /// The length the graph expects.
        bytes: u64,
        /// `named data`.
        stored: &'static str,
        /// Its key in the named data.
        key: String,
        /// Whether the program has that key.
        found: bool,
    },
    /// In the `VH00` raw bytes a bare VkGraph lacks.
    OutsideBareGraph {
        /// `VkBytes.length`.
        bytes: u64,
        /// `VkBytes.offset`.
        offset: Option<u64>,
        /// `VH00 raw bytes (not part of a bare VkGraph)`.
        stored: &'static str,
    },
    /// Nowhere that reads: why.
    Unreadable {
        /// Why.
        error: String,
    },
}

impl BlobSummary {
    /// The summary of `blob`, charged to `budget`.
    pub fn of(blob: &Blob<'_>, tensors: bool, budget: &mut Budget) -> Result<Self, OverBudget> {
        let header = blob.header().map(|h| BlobHeaderFields {
            header_size: h.header_size,
            flatbuffer_offset: h.flatbuffer_offset,
            flatbuffer_size: h.flatbuffer_size,
            bytes_offset: h.bytes_offset,
            bytes_size: h.bytes_size,
        });
        Ok(BlobSummary {
            format: if header.is_some() { "Vulkan delegate blob (VH00)" } else { "VkGraph (VK00)" },
            file_bytes: blob.bytes().len(),
            header,
            weights: super::weights::of_blob(blob, budget)?,
            graph: VulkanGraphSummary::of(blob, |_| None, tensors, budget)?,
        })
    }

    /// The text lines after the file's name.
    pub fn print_text(&self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "  format:     {}", self.format)?;
        let file = format!("{} bytes", grouped(to_u64(self.file_bytes)));
        self.weights.print(out, "  size:       ", &file)?;
        self.graph.print_text(out, "  ")
    }
}

impl VulkanGraphSummary {
    /// The summary of `blob`'s graph (`named` looks up the program's named data), its lists
    /// charged to `budget`.
    pub fn of<'a>(
        blob: &Blob<'a>,
        named: impl Fn(&str) -> Option<&'a [u8]>,
        tensors: bool,
        budget: &mut Budget,
    ) -> Result<Self, OverBudget> {
        let g = blob.graph();
        let constant_count = g.constants().map_or(0, |c| c.len());
        let ports = (g.input_ids().map(|v| v.len()), g.output_ids().map(|v| v.len()));
        let lists = [ports.0, ports.1, g.values().map(|v| v.len()), g.chain().map(|c| c.len())];
        budget.charge(lists.into_iter().flatten().fold(constant_count, usize::saturating_add))?;
        let mut values: BTreeMap<String, u64> = BTreeMap::new();
        for v in g.values().unwrap_or_default() {
            let u = v.value();
            let type_name = u.type_name().map_or_else(|| format!("GraphTypes({})", u.tag()), str::to_string);
            let count = values.entry(type_name).or_default();
            *count = count.saturating_add(1);
        }
        let mut operators: BTreeMap<String, u64> = BTreeMap::new();
        for call in g.chain().unwrap_or_default() {
            let name = call.name().unwrap_or("");
            match operators.get_mut(name) {
                Some(count) => *count = count.saturating_add(1),
                None => {
                    operators.insert(budget.text(name)?, 1);
                }
            }
        }
        let inputs = graph_values(&g, g.input_ids(), budget)?;
        let outputs = graph_values(&g, g.output_ids(), budget)?;
        let ports = |values: &[GraphValue]| values.iter().map(GraphValue::port).collect();
        let io =
            vec![Entry { runs: Runs::Graph { graph: "vulkan" }, inputs: ports(&inputs), outputs: ports(&outputs) }];
        let constants: Vec<ConstantSummary> = (0..constant_count)
            .map(|index| ConstantSummary::of(blob, index, &named, budget))
            .collect::<Result<_, _>>()?;
        let constant_bytes = constants.iter().filter_map(|c| c.storage.bytes()).fold(0u64, u64::saturating_add);
        Ok(VulkanGraphSummary {
            version: g.version().map(str::to_string),
            io,
            values,
            operators: operator_list(operators),
            inputs,
            outputs,
            constants,
            constant_bytes,
            tensor_list: if tensors { Some(super::values::of_graph(&g, budget)?) } else { None },
        })
    }

    /// The graph's lines, indented by `indent`.
    pub fn print_text(&self, out: &mut dyn Write, indent: &str) -> std::io::Result<()> {
        let values: Vec<String> = self.values.iter().map(|(name, n)| format!("{n} {name}")).collect();
        writeln!(out, "{indent}values:    {}", values.join(", "))?;
        print_indented(out, &self.io, indent, 11)?;
        writeln!(out, "{indent}operators:")?;
        let counts = self.operators.iter().map(|o| (o.name.as_str(), o.count));
        print_histogram(out, counts, &format!("{indent}  "))?;
        writeln!(out, "{indent}constants: {} ({} bytes)", self.constants.len(), self.constant_bytes)?;
        for c in &self.constants {
            c.print_text(out, indent)?;
        }
        match &self.tensor_list {
            Some(rows) => super::values::print(out, rows, &format!("{indent}  ")),
            None => Ok(()),
        }
    }
}

/// The values `ids` name in graph `g`; each tensor's dimensions are charged to `budget`.
fn graph_values(
    g: &VkGraph<'_>,
    ids: Option<Vector<'_, u32>>,
    budget: &mut Budget,
) -> Result<Vec<GraphValue>, OverBudget> {
    let mut listed = Vec::new();
    for value in ids.unwrap_or_default() {
        let found = usize::try_from(value).ok().and_then(|i| g.values()?.get(i)).map(|v| v.value());
        let tensor = match found {
            Some(GraphTypes::VkTensor(t)) => {
                let dims = t.dims();
                budget.charge(dims.map_or(0, |d| d.len()))?;
                let datatype = Named::new(t.datatype().name(), t.datatype().0);
                Some(GraphTensor { datatype, dims: dims.map(|d| d.iter().collect()) })
            }
            _ => None,
        };
        listed.push(GraphValue { value, tensor });
    }
    Ok(listed)
}

impl GraphValue {
    /// The value as a port: a tensor's dtype and shape, else `-`.
    fn port(&self) -> Port {
        let tensor = i64::from(self.value);
        match &self.tensor {
            Some(t) => {
                let dtype = match &t.datatype {
                    Named::Name(name) => name.to_ascii_lowercase(),
                    Named::Number(code) => format!("type({code})"),
                };
                let shape = t.dims.as_ref().map(|d| d.iter().map(|&n| i64::from(n)).collect());
                Port::plain(None, tensor, dtype, shape)
            }
            None => Port::plain(None, tensor, "-".into(), None),
        }
    }
}

impl ConstantSummary {
    /// Constant `index` of `blob` (`named` looks up the program's named data).
    pub fn of<'a>(
        blob: &Blob<'a>,
        index: usize,
        named: impl Fn(&str) -> Option<&'a [u8]>,
        budget: &mut Budget,
    ) -> Result<Self, OverBudget> {
        let storage = match blob.constant(index) {
            Ok(Constant::Inline(data)) => {
                ConstantStorage::Inline { bytes: to_u64(data.len()), stored: "inline (VH00 raw bytes)" }
            }
            Ok(Constant::Named { key, length }) => {
                let found = named(key).is_some();
                ConstantStorage::Named { bytes: length, stored: "named data", key: budget.text(key)?, found }
            }
            Err(_) if blob.header().is_none() => {
                // A bare VkGraph: inline constants live in the VH00 raw-bytes region it lacks.
                let entry = blob.graph().constants().and_then(|c| c.get(index));
                ConstantStorage::OutsideBareGraph {
                    bytes: entry.map_or(0, |e| e.length()),
                    offset: entry.map(|e| e.offset()),
                    stored: "VH00 raw bytes (not part of a bare VkGraph)",
                }
            }
            Err(e) => ConstantStorage::Unreadable { error: e.to_string() },
        };
        Ok(ConstantSummary { index, storage })
    }

    /// The constant's line, under a graph indented by `indent`.
    pub fn print_text(&self, out: &mut dyn Write, indent: &str) -> std::io::Result<()> {
        let bytes = self.storage.bytes().map_or_else(|| "null".to_string(), |n| n.to_string());
        let (stored, key) = match &self.storage {
            ConstantStorage::Inline { stored, .. } | ConstantStorage::OutsideBareGraph { stored, .. } => (*stored, ""),
            ConstantStorage::Named { stored, key, .. } => (*stored, key.as_str()),
            ConstantStorage::Unreadable { .. } => ("?", ""),
        };
        let key = if key.is_empty() { String::new() } else { format!(" {key}") };
        writeln!(out, "{indent}  [{}] {bytes} bytes, {stored}{key}", self.index)
    }
}

impl ConstantStorage {
    /// The constant's length, where it is known.
    fn bytes(&self) -> Option<u64> {
        match self {
            Self::Inline { bytes, .. } | Self::Named { bytes, .. } | Self::OutsideBareGraph { bytes, .. } => {
                Some(*bytes)
            }
            Self::Unreadable { .. } => None,
        }
    }
}
