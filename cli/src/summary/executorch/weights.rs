//! What an ExecuTorch program holds: its constant tensors (weights), each constant buffer
//! counted once however many values name it, by element type and by the kernel that first
//! reads it; the constants of its Vulkan delegates under the Vulkan operator that first reads
//! them (and of a Vulkan blob alone, likewise).
//!
//! A tensor is constant when it names a constant buffer (`data_buffer_idx > 0`) and has no
//! `allocation_info`, or when its data is external (`extra_tensor_info.location = EXTERNAL`).
//! Its bytes are its elements times its scalar type's size, as the runtime sizes it. Data in
//! the legacy `constant_buffer` is inside the flatbuffer; constant segments, external data and
//! delegate data stored in segments or named data are outside it.

use super::dtypes::vk_dtype;
use crate::budget::{Budget, OverBudget};
use crate::convert::to_u64;
use crate::summary::facts::elements;
use crate::summary::weights::{Weights, UNREAD};
use flatmodel::pte::{
    DataLocation, Delegate, ExecutionPlan, InstructionArguments, KernelTypes, PteFile, TensorDataLocation,
};
use flatmodel::vkgraph::{Blob, Constant, GraphTypes};
use std::collections::{BTreeMap, HashMap, HashSet};

/// What makes two constant tensors the same data.
#[derive(PartialEq, Eq, Hash)]
enum Data {
    /// A constant buffer (`data_buffer_idx`).
    Buffer(u32),
    /// External data, by its fully qualified name.
    External(String),
}

/// The weights of `file`: its plans' constant tensors and its Vulkan delegates' constants.
pub fn of(file: &PteFile<'_>, budget: &mut Budget) -> Result<Weights, OverBudget> {
    let program = file.program();
    let legacy_inline = program.constant_buffer().is_some_and(|b| !b.is_empty());
    let mut w = Weights::default();
    let mut counted: HashSet<Data> = HashSet::new();
    let mut unread = 0u64;
    for plan in program.execution_plan().unwrap_or_default() {
        // Value index -> bytes of the constants no kernel has read yet.
        let mut pending: HashMap<i64, u64> = HashMap::new();
        for (id, value) in plan.values().into_iter().flatten().enumerate() {
            budget.charge(1)?;
            let KernelTypes::Tensor(t) = value.val() else { continue };
            let external = t.extra_tensor_info().filter(|e| e.location() == TensorDataLocation::EXTERNAL);
            let data = match (external, t.data_buffer_idx(), t.allocation_info()) {
                (Some(e), _, _) => Data::External(budget.text(e.fully_qualified_name().unwrap_or(""))?),
                (None, index, None) if index > 0 => Data::Buffer(index),
                _ => continue,
            };
            let outside = matches!(data, Data::External(_)) || !legacy_inline;
            if !counted.insert(data) {
                continue;
            }
            let sizes = t.sizes();
            budget.charge(sizes.map_or(0, |s| s.len()))?;
            let elements = elements(sizes.into_iter().flatten());
            let bytes = t.scalar_type().element_size().map_or(0, |size| size.saturating_mul(elements));
            add(&mut w, outside, elements, crate::summary::facts::scalar_dtype(t.scalar_type()), bytes);
            pending.insert(i64::try_from(id).unwrap_or(i64::MAX), bytes);
        }
        for (caller, args) in calls(&plan, budget)? {
            for arg in args {
                if let Some(bytes) = pending.remove(&arg) {
                    let e = w.by_operator.entry(caller_name(&plan, caller, budget)?).or_default();
                    *e = e.saturating_add(bytes);
                }
            }
        }
        unread = pending.values().fold(unread, |sum, &b| sum.saturating_add(b));
    }
    for d in file.delegates() {
        budget.charge(1)?;
        if let Some(Ok(blob)) = file.vulkan_blob(&d) {
            delegate_constants(&mut w, file, &d, &blob, budget)?;
        }
    }
    if unread > 0 {
        let e = w.by_operator.entry(UNREAD.into()).or_default();
        *e = e.saturating_add(unread);
    }
    Ok(w)
}

/// Counts one constant: `bytes` of `elements` elements of `dtype`, inside or `outside` the
/// flatbuffer.
fn add(w: &mut Weights, outside: bool, elements: u64, dtype: String, bytes: u64) {
    match outside {
        true => w.outside = w.outside.saturating_add(bytes),
        false => w.inside = w.inside.saturating_add(bytes),
    }
    w.parameters = w.parameters.saturating_add(elements);
    let e = w.by_dtype.entry(dtype).or_default();
    *e = e.saturating_add(bytes);
}

/// What an instruction calls.
#[derive(Clone, Copy)]
enum Caller {
    /// A kernel, by its index in the plan's operators.
    Kernel(i32),
    /// A delegate, by its index in the plan's delegates.
    Delegate(i32),
}

/// The name `caller` goes by (`aten::add.out`, `VulkanBackend (delegate)`), charged to `budget`.
fn caller_name(plan: &ExecutionPlan<'_>, caller: Caller, budget: &mut Budget) -> Result<String, OverBudget> {
    let name = match caller {
        Caller::Kernel(index) => {
            let op = usize::try_from(index).ok().and_then(|i| plan.operators()?.get(i));
            op.map_or_else(
                || format!("operator {index}"),
                |o| match o.overload().filter(|s| !s.is_empty()) {
                    Some(overload) => format!("{}.{overload}", o.name().unwrap_or("")),
                    None => o.name().unwrap_or("").to_string(),
                },
            )
        }
        Caller::Delegate(index) => {
            let d = usize::try_from(index).ok().and_then(|i| plan.delegates()?.get(i));
            format!("{} (delegate)", d.and_then(|d| d.id()).unwrap_or("-"))
        }
    };
    budget.charge(name.len())?;
    Ok(name)
}

/// Each instruction of `plan` that reads values: what it calls, and the value indices it
/// passes.
fn calls(plan: &ExecutionPlan<'_>, budget: &mut Budget) -> Result<Vec<(Caller, Vec<i64>)>, OverBudget> {
    let mut calls = Vec::new();
    for chain in plan.chains().unwrap_or_default() {
        for instruction in chain.instructions().unwrap_or_default() {
            budget.charge(1)?;
            let (name, args) = match instruction.instr_args() {
                InstructionArguments::KernelCall(k) => (Caller::Kernel(k.op_index()), k.args()),
                InstructionArguments::DelegateCall(d) => (Caller::Delegate(d.delegate_index()), d.args()),
                _ => continue,
            };
            budget.charge(args.map_or(0, |a| a.len()))?;
            calls.push((name, args.into_iter().flatten().map(i64::from).collect()));
        }
    }
    Ok(calls)
}

/// The constants of delegate `d`'s Vulkan graph `blob` ([`graph_constants`]): inside the
/// flatbuffer only when they are the blob's own raw bytes and the blob is stored inline in the
/// program; named data is looked up in `file`.
fn delegate_constants(
    w: &mut Weights,
    file: &PteFile<'_>,
    d: &Delegate<'_>,
    blob: &Blob<'_>,
    budget: &mut Budget,
) -> Result<(), OverBudget> {
    let stored_inline = d.view.processed().is_some_and(|p| p.location() == DataLocation::INLINE);
    let backend = d.id.unwrap_or("-");
    graph_constants(w, blob, |key| file.named_data(key), stored_inline, backend, budget)
}

/// The weights of a `VH00` blob or bare VkGraph alone: its constants ([`graph_constants`]),
/// all outside the VkGraph flatbuffer (in the blob's raw bytes, or a program's named data).
pub fn of_blob(blob: &Blob<'_>, budget: &mut Budget) -> Result<Weights, OverBudget> {
    let mut w = Weights::default();
    graph_constants(&mut w, blob, |_| None, false, "VulkanBackend", budget)?;
    Ok(w)
}

/// Counts the constants of Vulkan graph `blob` into `w`, each once, with the element type and
/// dimensions of the first tensor value that names it, under the operator that first reads it
/// (`aten.linear.default (VulkanBackend)`, `backend` naming the delegate). Raw-bytes constants
/// are inside the flatbuffer when `raw_inside`; a named constant's length is its entry in
/// `named` when found, else the length the graph gives.
fn graph_constants<'a>(
    w: &mut Weights,
    blob: &Blob<'a>,
    named: impl Fn(&str) -> Option<&'a [u8]>,
    raw_inside: bool,
    backend: &str,
    budget: &mut Budget,
) -> Result<(), OverBudget> {
    let g = blob.graph();
    // Value index -> constant index, and constant index -> (dtype, elements) of the first
    // tensor naming it.
    let mut constant_of: HashMap<i64, usize> = HashMap::new();
    let mut typed: BTreeMap<usize, (String, u64)> = BTreeMap::new();
    for (value, v) in g.values().into_iter().flatten().enumerate() {
        budget.charge(1)?;
        let GraphTypes::VkTensor(t) = v.value() else { continue };
        let Ok(index) = usize::try_from(t.constant_id()) else { continue };
        let dims = t.dims();
        budget.charge(dims.map_or(0, |d| d.len()))?;
        let elements = elements(dims.into_iter().flatten());
        let dtype = vk_dtype(t.datatype());
        typed.entry(index).or_insert((dtype, elements));
        constant_of.insert(i64::try_from(value).unwrap_or(i64::MAX), index);
    }
    // Constant index -> bytes, for the constants no operator has read yet.
    let mut pending: BTreeMap<usize, u64> = BTreeMap::new();
    for (index, (dtype, elements)) in typed {
        let (bytes, outside) = match blob.constant(index) {
            Ok(Constant::Inline(data)) => (to_u64(data.len()), !raw_inside),
            Ok(Constant::Named { key, length }) => (named(key).map_or(length, |n| to_u64(n.len())), true),
            Err(_) => continue,
        };
        add(w, outside, elements, dtype, bytes);
        pending.insert(index, bytes);
    }
    for call in g.chain().unwrap_or_default() {
        let args = call.args();
        budget.charge(args.map_or(0, |a| a.len()).saturating_add(1))?;
        for arg in args.unwrap_or_default() {
            let read = constant_of.get(&i64::from(arg)).and_then(|c| pending.remove(c));
            if let Some(bytes) = read {
                let name = format!("{} ({backend})", call.name().unwrap_or("-"));
                budget.charge(name.len())?;
                let e = w.by_operator.entry(name).or_default();
                *e = e.saturating_add(bytes);
            }
        }
    }
    let unread = pending.values().fold(0u64, |sum, &b| sum.saturating_add(b));
    if unread > 0 {
        let e = w.by_operator.entry(UNREAD.into()).or_default();
        *e = e.saturating_add(unread);
    }
    Ok(())
}
