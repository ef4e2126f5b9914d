//! A `.pte` program: its header, execution plans, delegates (with their Vulkan graphs),
//! segments and weights, and what it needs of a runtime.

use super::counts::print_histogram;
use super::values::ValueRow;
use super::vulkan::VulkanGraphSummary;
use super::xnnpack::XnnpackGraphSummary;
use crate::budget::{Budget, OverBudget};
use crate::convert::to_u64;
use crate::summary::io::{print_indented, Entry, Port, Runs};
use crate::summary::needs::Need;
use crate::summary::weights::{grouped, Weights};
use flatmodel::pte::{DataLocation, Delegate, ExecutionPlan, KernelTypes, PteFile};
use flatmodel::wire::Vector;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;

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
    /// Its backends, the external data it needs and where its weights live.
    pub data: super::data::ProgramData,
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
    /// Every value, with `--tensors`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tensor_list: Option<Vec<ValueRow>>,
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
    /// Its graph, for an XNNPACK delegate whose blob reads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub xnnpack: Option<XnnpackGraphSummary>,
}

impl ProgramSummary {
    /// The summary of `file`, charged to `budget`.
    pub fn of(file: &PteFile<'_>, tensors: bool, budget: &mut Budget) -> Result<Self, OverBudget> {
        let program = file.program();
        let mut execution_plans = Vec::new();
        let mut io = Vec::new();
        for p in program.execution_plan().unwrap_or_default() {
            let (plan, entry) = PlanSummary::of(&p, tensors, budget)?;
            execution_plans.push(plan);
            io.push(entry);
        }
        let mut delegates = Vec::new();
        for (index, d) in file.delegates().enumerate() {
            budget.charge(1)?;
            delegates.push(DelegateSummary::of(file, index, &d, tensors, budget)?);
        }
        let weights = super::weights::of(file, budget)?;
        let segments = program.segments().map_or(0, |s| s.len());
        let segment_bytes: u64 = (0..segments).filter_map(|i| file.segment(i).ok()).map(|(_, b)| to_u64(b.len())).sum();
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
            data: super::data::ProgramData::of(file, budget)?,
        })
    }

    /// The text lines after the file's name.
    pub fn print_text(&self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "  format:     {}", self.format)?;
        writeln!(out, "  version:    {}", self.version)?;
        crate::summary::needs::print(out, "  needs:      ", &self.needs)?;
        print_indented(out, &self.io, "  ", 12)?;
        self.weights.print(out, "  size:       ", &format!("{} bytes", grouped(to_u64(self.file_bytes))))?;
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
        self.data.print_text(out)
    }
}

impl PlanSummary {
    /// The summary of plan `p` and its `io` entry, charged to `budget`.
    pub fn of(p: &ExecutionPlan<'_>, tensors: bool, budget: &mut Budget) -> Result<(Self, Entry), OverBudget> {
        let (inputs, outputs) = (p.inputs(), p.outputs());
        let lists = [inputs.map_or(0, |v| v.len()), outputs.map_or(0, |v| v.len())];
        budget.charge(1usize.saturating_add(lists[0]).saturating_add(lists[1]))?;
        let mut operators = Vec::new();
        for o in p.operators().unwrap_or_default() {
            budget.charge(1)?;
            let (name, overload) = (o.name().unwrap_or(""), o.overload().filter(|s| !s.is_empty()));
            budget.charge(name.len().saturating_add(overload.map_or(0, str::len)))?;
            operators.push(match overload {
                Some(overload) => format!("{name}.{overload}"),
                None => name.to_string(),
            });
        }
        let ports = |ids: Option<Vector<'_, i32>>| -> Vec<Port> {
            ids.into_iter().flatten().map(|id| evalue_port(p, id)).collect()
        };
        let name = budget.text_of(p.name())?;
        // The io entry's copy.
        budget.charge(name.as_ref().map_or(0, String::len))?;
        let entry = Entry { runs: Runs::Plan { plan: name.clone() }, inputs: ports(inputs), outputs: ports(outputs) };
        let plan = PlanSummary {
            name,
            values: p.values().map_or(0, |v| v.len()),
            inputs: inputs.map(|v| v.iter().collect()),
            outputs: outputs.map(|v| v.iter().collect()),
            operators,
            delegates: p.delegates().map_or(0, |d| d.len()),
            tensor_list: if tensors { Some(super::values::of_plan(p, budget)?) } else { None },
        };
        Ok((plan, entry))
    }

    /// The plan's line and its kernels' counts.
    pub fn print_text(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let ids = |ids: &Option<Vec<i32>>| {
            ids.as_ref().map_or_else(
                || "-".to_string(),
                |ids| format!("[{}]", ids.iter().map(i32::to_string).collect::<Vec<_>>().join(",")),
            )
        };
        writeln!(
            out,
            "  plan {}: {} values, inputs {}, outputs {}, {} delegate calls",
            self.name.as_deref().unwrap_or("-"),
            self.values,
            ids(&self.inputs),
            ids(&self.outputs),
            self.delegates
        )?;
        let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
        for op in &self.operators {
            let count = counts.entry(op).or_default();
            *count = count.saturating_add(1);
        }
        print_histogram(out, counts.into_iter(), "    ")?;
        match &self.tensor_list {
            Some(rows) => super::values::print(out, rows, "    "),
            None => Ok(()),
        }
    }
}

impl DelegateSummary {
    /// The summary of `file`'s delegate `d`, the `index`th, its graph charged to `budget`.
    pub fn of(
        file: &PteFile<'_>,
        index: usize,
        d: &Delegate<'_>,
        tensors: bool,
        budget: &mut Budget,
    ) -> Result<Self, OverBudget> {
        let stored = d.view.processed().map(|p| match p.location() {
            DataLocation::INLINE => format!("inline {}", p.index()),
            DataLocation::SEGMENT => format!("segment {}", p.index()),
            other => format!("DataLocation({})", other.0),
        });
        let vulkan = match file.vulkan_blob(d) {
            Some(Ok(blob)) => Some(VulkanGraphSummary::of(&blob, |key| file.named_data(key), tensors, budget)?),
            _ => None,
        };
        let xnnpack = match file.xnnpack_blob(d) {
            Some(Ok(blob)) => {
                let named = |key: &str| file.named_data(key).is_some();
                Some(XnnpackGraphSummary::of(&blob, Some(named), tensors, budget)?)
            }
            _ => None,
        };
        Ok(DelegateSummary {
            index,
            plan: d.plan,
            backend_id: budget.text_of(d.id)?,
            stored,
            bytes: file.delegate_blob(d).map_or(0, |(_, b)| b.len()),
            vulkan,
            xnnpack,
        })
    }

    /// The delegate's line and its graph.
    pub fn print_text(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let stored = self.stored.as_deref().unwrap_or("-");
        let backend = self.backend_id.as_deref().unwrap_or("-");
        writeln!(out, "  delegate {}: {backend} ({stored}, {} bytes)", self.index, self.bytes)?;
        if let Some(graph) = &self.vulkan {
            graph.print_text(out, "    ")?;
        }
        match &self.xnnpack {
            Some(graph) => graph.print_text(out, "    ", graph.tensor_list.is_some()),
            None => Ok(()),
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
