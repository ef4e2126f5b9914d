//! The summary of an ExecuTorch file: a `.pte` program (its plans, delegates, segments and each
//! Vulkan delegate's graph), a `VH00` Vulkan delegate blob or a bare VkGraph.

use crate::budget::{Budget, OverBudget};
use crate::summary::io::{print_indented, Entry, Port, Runs};
use crate::summary::needs::Need;
use crate::summary::weights::{grouped, Weights};
use flatmodel::pte::{DataLocation, Delegate, ExecutionPlan, KernelTypes, PteFile};
use flatmodel::vkgraph::{Blob, Constant, GraphTypes, VkGraph};
use flatmodel::wire::Vector;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;

/// What `inspect` says of an ExecuTorch file.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum ExecutorchSummary {
    /// A `.pte` program.
    Program(ProgramSummary),
    /// A `VH00` Vulkan delegate blob or a bare VkGraph.
    Blob(BlobSummary),
}

/// A `.pte` program: its header, plans, delegates (with their Vulkan graphs) and segments.
#[derive(Debug, Serialize)]
pub struct ProgramSummary {
    /// `ExecuTorch program (.pte)`.
    pub format: &'static str,
    /// What it needs of a runtime: its header, its delegates' backends, its plans' kernels.
    pub needs: Vec<Need>,
    /// The file's length.
    pub file_bytes: usize,
    /// `Program.version`.
    pub version: u32,
    /// The `eh00` header; `None` for a program without one.
    pub extended_header: Option<ExtendedHeaderFields>,
    /// Each plan's inputs and outputs.
    pub io: Vec<Entry>,
    /// The constant tensors, its Vulkan delegates' included.
    pub weights: Weights,
    /// The execution plans.
    pub execution_plans: Vec<PlanSummary>,
    /// The backend delegates, plan by plan.
    pub delegates: Vec<DelegateSummary>,
    /// How many segments the program lists.
    pub segments: usize,
    /// The bytes of the segments that can be read.
    pub segment_bytes: u64,
    /// How many named data entries the program lists.
    pub named_data: usize,
}

/// A `.pte`'s extended (`eh00`) header.
#[derive(Debug, Serialize)]
pub struct ExtendedHeaderFields {
    /// The header's length.
    pub length: u32,
    /// The flatbuffer's bytes, this header included.
    pub program_size: u64,
    /// The file offset segments are measured from.
    pub segment_base_offset: u64,
    /// The segments' total size, when the header is long enough to hold it.
    pub segment_data_size: Option<u64>,
}

/// An execution plan.
#[derive(Debug, Serialize)]
pub struct PlanSummary {
    /// Its name.
    pub name: Option<String>,
    /// How many values it holds.
    pub values: usize,
    /// Its inputs' value indices.
    pub inputs: Option<Vec<i32>>,
    /// Its outputs' value indices.
    pub outputs: Option<Vec<i32>>,
    /// The kernels it calls, `name.overload`, in its order.
    pub operators: Vec<String>,
    /// How many delegate calls it makes.
    pub delegates: usize,
}

/// A backend delegate of a `.pte`.
#[derive(Debug, Serialize)]
pub struct DelegateSummary {
    /// Its place among the program's delegates.
    pub index: usize,
    /// The plan it belongs to.
    pub plan: usize,
    /// The backend it names (`VulkanBackend`).
    pub backend_id: Option<String>,
    /// Where its data is: `inline N`, `segment N` or `DataLocation(N)`.
    pub stored: Option<String>,
    /// Its data's length; 0 when it cannot be read.
    pub bytes: usize,
    /// Its graph, for a Vulkan delegate whose blob reads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vulkan: Option<VulkanGraphSummary>,
}

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
}

/// An operator and how often the graph calls it.
#[derive(Debug, Serialize)]
pub struct OperatorCount {
    /// Its name.
    pub name: String,
    /// How many calls.
    pub count: u64,
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
    pub datatype: DataTypeName,
    /// Its dimensions.
    pub dims: Option<Vec<u32>>,
}

/// A `VkDataType`: its name, else its code.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum DataTypeName {
    /// A type the schema names (`FLOAT32`).
    Named(&'static str),
    /// A code the schema does not name.
    Code(i8),
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

impl ExecutorchSummary {
    /// The summary of a verified `.pte`; every plan, delegate and list element is charged to
    /// `budget`, as plans and delegates can be shared.
    pub fn of_program(file: &PteFile<'_>, budget: &mut Budget) -> Result<Self, OverBudget> {
        ProgramSummary::of(file, budget).map(Self::Program)
    }

    /// The summary of a verified `VH00` blob or bare VkGraph, its lists charged to `budget`.
    pub fn of_blob(blob: &Blob<'_>, budget: &mut Budget) -> Result<Self, OverBudget> {
        BlobSummary::of(blob, budget).map(Self::Blob)
    }

    /// Prints the summary for `inspect` without `--json`, under the file's `name`.
    pub fn print_text(&self, out: &mut dyn Write, name: &str) -> std::io::Result<()> {
        writeln!(out, "{name}")?;
        match self {
            Self::Program(program) => program.print_text(out),
            Self::Blob(blob) => blob.print_text(out),
        }
    }
}

impl ProgramSummary {
    /// The summary of `file`, charged to `budget`.
    fn of(file: &PteFile<'_>, budget: &mut Budget) -> Result<Self, OverBudget> {
        let program = file.program();
        let mut execution_plans = Vec::new();
        let mut io = Vec::new();
        for p in program.execution_plan().into_iter().flat_map(|p| p.iter()) {
            let (plan, entry) = PlanSummary::of(&p, budget)?;
            execution_plans.push(plan);
            io.push(entry);
        }
        let mut delegates = Vec::new();
        for (index, d) in file.delegates().enumerate() {
            budget.charge(1)?;
            delegates.push(DelegateSummary::of(file, index, &d, budget)?);
        }
        let weights = crate::summary::pte_weights::of(file, budget)?;
        let segments = program.segments().map_or(0, |s| s.len());
        let segment_bytes: u64 = (0..segments).filter_map(|i| file.segment(i).ok()).map(|(_, b)| b.len() as u64).sum();
        Ok(ProgramSummary {
            format: "ExecuTorch program (.pte)",
            needs: program_needs(file, &execution_plans, &delegates),
            file_bytes: file.bytes().len(),
            version: program.version(),
            extended_header: file.header().map(|h| ExtendedHeaderFields {
                length: h.length,
                program_size: h.program_size,
                segment_base_offset: h.segment_base_offset,
                segment_data_size: h.segment_data_size,
            }),
            io,
            weights,
            execution_plans,
            delegates,
            segments,
            segment_bytes,
            named_data: program.named_data().map_or(0, |n| n.len()),
        })
    }

    /// The text lines after the file's name.
    fn print_text(&self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "  format:     {}", self.format)?;
        writeln!(out, "  version:    {}", self.version)?;
        crate::summary::needs::print(out, "  needs:      ", &self.needs)?;
        print_indented(out, &self.io, "  ", 12)?;
        self.weights.print(out, "  size:       ", &format!("{} bytes", grouped(self.file_bytes as u64)))?;
        for plan in &self.execution_plans {
            plan.print_text(out)?;
        }
        writeln!(
            out,
            "  segments:   {} ({} bytes), named data: {}",
            self.segments, self.segment_bytes, self.named_data
        )?;
        for delegate in &self.delegates {
            delegate.print_text(out)?;
        }
        Ok(())
    }
}

impl PlanSummary {
    /// The summary of plan `p` and its `io` entry, charged to `budget`.
    fn of(p: &ExecutionPlan<'_>, budget: &mut Budget) -> Result<(Self, Entry), OverBudget> {
        let (inputs, outputs) = (p.inputs(), p.outputs());
        let lists = [inputs.map_or(0, |v| v.len()), outputs.map_or(0, |v| v.len())];
        budget.charge(1usize.saturating_add(lists[0]).saturating_add(lists[1]))?;
        let mut operators = Vec::new();
        for o in p.operators().into_iter().flat_map(|o| o.iter()) {
            budget.charge(1)?;
            let name = o.name().unwrap_or("");
            operators.push(match o.overload().filter(|s| !s.is_empty()) {
                Some(overload) => format!("{name}.{overload}"),
                None => name.to_string(),
            });
        }
        let ports = |ids: Option<Vector<'_, i32>>| -> Vec<Port> {
            ids.into_iter().flat_map(|v| v.iter()).map(|id| evalue_port(p, id)).collect()
        };
        let name = p.name().map(str::to_string);
        let entry = Entry { runs: Runs::Plan { plan: name.clone() }, inputs: ports(inputs), outputs: ports(outputs) };
        let plan = PlanSummary {
            name,
            values: p.values().map_or(0, |v| v.len()),
            inputs: inputs.map(|v| v.iter().collect()),
            outputs: outputs.map(|v| v.iter().collect()),
            operators,
            delegates: p.delegates().map_or(0, |d| d.len()),
        };
        Ok((plan, entry))
    }

    /// The plan's line and its kernels' counts.
    fn print_text(&self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(
            out,
            "  plan {}: {} values, inputs {}, outputs {}, {} delegate calls",
            json_text(&self.name)?,
            self.values,
            json_text(&self.inputs)?,
            json_text(&self.outputs)?,
            self.delegates
        )?;
        let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
        for op in &self.operators {
            let count = counts.entry(op).or_default();
            *count = count.saturating_add(1);
        }
        print_histogram(out, counts.into_iter(), "    ")
    }
}

impl DelegateSummary {
    /// The summary of `file`'s delegate `d`, the `index`th, its graph charged to `budget`.
    fn of(file: &PteFile<'_>, index: usize, d: &Delegate<'_>, budget: &mut Budget) -> Result<Self, OverBudget> {
        let stored = d.view.processed().map(|p| match p.location() {
            DataLocation::INLINE => format!("inline {}", p.index()),
            DataLocation::SEGMENT => format!("segment {}", p.index()),
            other => format!("DataLocation({})", other.0),
        });
        let vulkan = match file.vulkan_blob(d) {
            Some(Ok(blob)) => Some(VulkanGraphSummary::of(&blob, |key| file.named_data(key), budget)?),
            _ => None,
        };
        Ok(DelegateSummary {
            index,
            plan: d.plan,
            backend_id: d.id.map(str::to_string),
            stored,
            bytes: file.delegate_blob(d).map_or(0, |(_, b)| b.len()),
            vulkan,
        })
    }

    /// The delegate's line and its graph.
    fn print_text(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let stored = self.stored.as_deref().unwrap_or("-");
        let backend = json_text(&self.backend_id)?;
        writeln!(out, "  delegate {}: {backend} ({stored}, {} bytes)", self.index, self.bytes)?;
        match &self.vulkan {
            Some(graph) => graph.print_text(out, "    "),
            None => Ok(()),
        }
    }
}

impl BlobSummary {
    /// The summary of `blob`, charged to `budget`.
    fn of(blob: &Blob<'_>, budget: &mut Budget) -> Result<Self, OverBudget> {
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
            graph: VulkanGraphSummary::of(blob, |_| None, budget)?,
        })
    }

    /// The text lines after the file's name.
    fn print_text(&self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "  format:     {}", self.format)?;
        self.graph.print_text(out, "  ")
    }
}

impl VulkanGraphSummary {
    /// The summary of `blob`'s graph (`named` looks up the program's named data), its lists
    /// charged to `budget`.
    fn of<'a>(
        blob: &Blob<'a>,
        named: impl Fn(&str) -> Option<&'a [u8]>,
        budget: &mut Budget,
    ) -> Result<Self, OverBudget> {
        let g = blob.graph();
        let constant_count = g.constants().map_or(0, |c| c.len());
        let ports = (g.input_ids().map(|v| v.len()), g.output_ids().map(|v| v.len()));
        let lists = [ports.0, ports.1, g.values().map(|v| v.len()), g.chain().map(|c| c.len())];
        budget.charge(lists.into_iter().flatten().fold(constant_count, usize::saturating_add))?;
        let mut values: BTreeMap<String, u64> = BTreeMap::new();
        for v in g.values().into_iter().flat_map(|v| v.iter()) {
            let u = v.value();
            let type_name = u.type_name().map_or_else(|| format!("GraphTypes({})", u.tag()), str::to_string);
            let count = values.entry(type_name).or_default();
            *count = count.saturating_add(1);
        }
        let mut operators: BTreeMap<String, u64> = BTreeMap::new();
        for call in g.chain().into_iter().flat_map(|c| c.iter()) {
            let count = operators.entry(call.name().unwrap_or("").to_string()).or_default();
            *count = count.saturating_add(1);
        }
        let inputs = graph_values(&g, g.input_ids(), budget)?;
        let outputs = graph_values(&g, g.output_ids(), budget)?;
        let ports = |values: &[GraphValue]| values.iter().map(GraphValue::port).collect();
        let io =
            vec![Entry { runs: Runs::Graph { graph: "vulkan" }, inputs: ports(&inputs), outputs: ports(&outputs) }];
        let constants: Vec<ConstantSummary> =
            (0..constant_count).map(|index| ConstantSummary::of(blob, index, &named)).collect();
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
        })
    }

    /// The graph's lines, indented by `indent`.
    fn print_text(&self, out: &mut dyn Write, indent: &str) -> std::io::Result<()> {
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
        Ok(())
    }
}

/// The values `ids` name in graph `g`; each tensor's dimensions are charged to `budget`.
fn graph_values(
    g: &VkGraph<'_>,
    ids: Option<Vector<'_, u32>>,
    budget: &mut Budget,
) -> Result<Vec<GraphValue>, OverBudget> {
    let mut listed = Vec::new();
    for value in ids.into_iter().flat_map(|v| v.iter()) {
        let found = usize::try_from(value).ok().and_then(|i| g.values()?.get(i)).map(|v| v.value());
        let tensor = match found {
            Some(GraphTypes::VkTensor(t)) => {
                let dims = t.dims();
                budget.charge(dims.map_or(0, |d| d.len()))?;
                let datatype = t.datatype().name().map_or(DataTypeName::Code(t.datatype().0), DataTypeName::Named);
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
                let dtype = match t.datatype {
                    DataTypeName::Named(name) => name.to_ascii_lowercase(),
                    DataTypeName::Code(code) => format!("type({code})"),
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
    fn of<'a>(blob: &Blob<'a>, index: usize, named: impl Fn(&str) -> Option<&'a [u8]>) -> Self {
        let storage = match blob.constant(index) {
            Ok(Constant::Inline(data)) => {
                ConstantStorage::Inline { bytes: data.len() as u64, stored: "inline (VH00 raw bytes)" }
            }
            Ok(Constant::Named { key, length }) => {
                let found = named(key).is_some();
                ConstantStorage::Named { bytes: length, stored: "named data", key: key.to_string(), found }
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
        ConstantSummary { index, storage }
    }

    /// The constant's line, under a graph indented by `indent`.
    fn print_text(&self, out: &mut dyn Write, indent: &str) -> std::io::Result<()> {
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

/// What a `.pte` needs of a runtime: its header, the backends its delegates name and the
/// kernels its plans call (`needs` in the layout every format shares).
fn program_needs(file: &PteFile<'_>, plans: &[PlanSummary], delegates: &[DelegateSummary]) -> Vec<Need> {
    let header = file.header().map_or_else(
        || "no extended header (program version only)".to_string(),
        |h| format!("extended header eh00 of {} bytes", h.length),
    );
    let version = file.program().version();
    let mut needs = vec![Need { feature: "pte_header", detail: format!("program version {version}, {header}") }];
    let names = |mut list: Vec<&str>| {
        list.sort_unstable();
        list.dedup();
        list.join(", ")
    };
    let backends: Vec<&str> = delegates.iter().filter_map(|d| d.backend_id.as_deref()).collect();
    if !backends.is_empty() {
        needs.push(Need { feature: "delegate_backends", detail: format!("delegate backends: {}", names(backends)) });
    }
    let kernels: Vec<&str> = plans.iter().flat_map(|p| &p.operators).map(String::as_str).collect();
    if !kernels.is_empty() {
        let detail = format!("kernels the runtime must register: {}", names(kernels));
        needs.push(Need { feature: "kernels", detail });
    }
    needs
}

/// Value `id` of plan `p` as a port: a tensor's dtype and sizes, else the value's type.
fn evalue_port(p: &ExecutionPlan<'_>, id: i32) -> Port {
    let tensor = i64::from(id);
    match usize::try_from(id).ok().and_then(|i| p.values()?.get(i)).map(|v| v.val()) {
        Some(KernelTypes::Tensor(t)) => {
            let shape = t.sizes().map(|s| s.iter().map(i64::from).collect());
            Port::plain(None, tensor, crate::summary::facts::scalar_dtype(t.scalar_type()), shape)
        }
        Some(other) => {
            let dtype = other.type_name().map_or_else(|| format!("type({})", other.tag()), str::to_ascii_lowercase);
            Port::plain(None, tensor, dtype, None)
        }
        None => Port::missing(None, tensor, "no such value"),
    }
}

/// Operator counts in the layout every format's `operators` shares: `{name, count}`, most
/// frequent first (a Vulkan graph's operators have no version).
fn operator_list(counts: BTreeMap<String, u64>) -> Vec<OperatorCount> {
    let mut rows: Vec<OperatorCount> = counts.into_iter().map(|(name, count)| OperatorCount { name, count }).collect();
    rows.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.name.cmp(&b.name)));
    rows
}

/// Operator counts, one aligned line each, most frequent first.
fn print_histogram<'s>(
    out: &mut dyn Write,
    counts: impl Iterator<Item = (&'s str, u64)>,
    indent: &str,
) -> std::io::Result<()> {
    let mut rows: Vec<(&str, u64)> = counts.collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    for (name, n) in rows {
        writeln!(out, "{indent}{n:>6}  {name}")?;
    }
    Ok(())
}

/// `value` as compact JSON, as the text shows names and index lists (`"forward"`, `[0,1]`, `null`).
fn json_text(value: &impl Serialize) -> std::io::Result<String> {
    serde_json::to_string(value).map_err(std::io::Error::other)
}
