//! A program's data (`docs/executorch.md` §3.11): the backends its delegates name, the keys it
//! needs from external data (`.ptd` files), grouped by who reads them, and where each of its
//! weights lives: in the program (its constant buffer or segments), in its named data, in a
//! delegate blob's constant region, or under an external key.

use crate::budget::{Budget, OverBudget};
use flatmodel::pte::{DataKey, DataReader, KernelTypes, PteFile, TensorDataLocation};
use flatmodel::verify::Options;
use flatmodel::{vkgraph, xnnpack};
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};
use std::io::Write;

/// The keys one reader (the program, or one delegate) needs from external data.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct KeyGroup {
    /// `program`, or `delegate P.I (BACKEND)`.
    pub reader: String,
    /// The delegate's plan; `None` for the program's own tensors (every plan's).
    pub plan: Option<usize>,
    /// The delegate's index in its plan; `None` for the program.
    pub delegate: Option<usize>,
    /// The delegate's backend id; `None` for the program.
    pub backend: Option<String>,
    /// The keys, in the order the reader names them, each once.
    pub keys: Vec<String>,
    /// The bytes the keys need, summed.
    pub bytes: u64,
}

/// The keys `file` needs from external data, grouped by reader: the program's tensors first,
/// then each delegate's (each key once per group). Work charged to the library's default
/// budget; an error of a delegate blob is its `Display`.
pub fn external_groups(file: &PteFile<'_>) -> Result<Vec<KeyGroup>, flatmodel::Error> {
    let mut keys = Vec::new();
    file.external_keys(&Options::DEFAULT, |k| keys.push(k))?;
    Ok(group(&keys))
}

/// `keys` grouped by reader, each key once per group.
pub fn group(keys: &[DataKey<'_>]) -> Vec<KeyGroup> {
    let mut groups: Vec<KeyGroup> = Vec::new();
    let mut seen: HashSet<(Option<(usize, usize)>, &str)> = HashSet::new();
    for k in keys {
        let (plan, delegate, backend) = match k.reader {
            DataReader::Program { .. } => (None, None, None),
            DataReader::Delegate { plan, index, backend, .. } => (Some(plan), Some(index), Some(backend)),
        };
        let owner = plan.zip(delegate);
        if !seen.insert((owner, k.key)) {
            continue;
        }
        let at = match groups.iter().position(|g| g.plan.zip(g.delegate) == owner) {
            Some(at) => at,
            None => {
                let reader = match (plan, delegate, backend) {
                    (Some(p), Some(d), Some(b)) => format!("delegate {p}.{d} ({b})"),
                    _ => "program".to_string(),
                };
                let backend = backend.map(str::to_string);
                groups.push(KeyGroup { reader, plan, delegate, backend, keys: Vec::new(), bytes: 0 });
                groups.len() - 1
            }
        };
        if let Some(g) = groups.get_mut(at) {
            g.keys.push(k.key.to_string());
            g.bytes = g.bytes.saturating_add(k.bytes);
        }
    }
    // The program's own group first, as `verify` lists it.
    groups.sort_by_key(|g| g.plan.is_some());
    groups
}

/// One backend and how many delegates name it.
#[derive(Debug, Serialize)]
pub struct Backend {
    /// The backend id (`BackendDelegate.id`; `-` when absent).
    pub id: String,
    /// How many delegates, over every plan, name it.
    pub delegates: usize,
}

/// Where some of a program's weights live: how many and how many bytes.
#[derive(Debug, Serialize)]
pub struct Place {
    /// `program` (its constant buffer or segments), `program named data`, `delegate constant
    /// region` or `external`.
    pub location: &'static str,
    /// How many constants (program tensors each counted once per buffer or key, delegate
    /// constants once per entry).
    pub constants: usize,
    /// Their bytes (as their readers size them).
    pub bytes: u64,
}

/// What `inspect` says of a program's data.
#[derive(Debug, Serialize)]
pub struct ProgramData {
    /// The backends the delegates name, by id.
    pub backends: Vec<Backend>,
    /// The keys the program needs from external data, by reader.
    pub external: Vec<KeyGroup>,
    /// Where its weights live; places that hold none are left out.
    pub weights: Vec<Place>,
}

const PROGRAM: &str = "program";
const NAMED: &str = "program named data";
const REGION: &str = "delegate constant region";
const EXTERNAL: &str = "external";

impl ProgramData {
    /// The data section of `file`, charged to `budget`. A delegate blob that does not verify
    /// (possible only when the program was not fully verified) adds nothing.
    pub fn of(file: &PteFile<'_>, budget: &mut Budget) -> Result<Self, OverBudget> {
        let mut backends: BTreeMap<String, usize> = BTreeMap::new();
        let mut places: BTreeMap<&'static str, (usize, u64)> = BTreeMap::new();
        let mut add = |place: &'static str, bytes: u64| {
            let e = places.entry(place).or_default();
            *e = (e.0.saturating_add(1), e.1.saturating_add(bytes));
        };
        program_weights(file, budget, &mut add)?;
        for d in file.delegates() {
            budget.charge(1)?;
            let id = budget.text(d.id.unwrap_or("-"))?;
            *backends.entry(id).or_default() += 1;
            if let Some(Ok(blob)) = file.xnnpack_blob(&d) {
                budget.charge(blob.bytes().len())?;
                for c in 0..blob.graph().constant_data().map_or(0, |c| c.len()) {
                    budget.charge(1)?;
                    match blob.constant(c) {
                        Ok(xnnpack::Constant::Inline(bytes)) if c != 0 => {
                            add(REGION, crate::convert::to_u64(bytes.len()))
                        }
                        Ok(xnnpack::Constant::Named { key, size }) => {
                            add(if file.named_data(key).is_some() { NAMED } else { EXTERNAL }, size)
                        }
                        _ => {}
                    }
                }
            } else if let Some(Ok(blob)) = file.vulkan_blob(&d) {
                budget.charge(blob.bytes().len())?;
                for c in 0..blob.graph().constants().map_or(0, |c| c.len()) {
                    budget.charge(1)?;
                    match blob.constant(c) {
                        Ok(vkgraph::Constant::Inline(bytes)) => add(REGION, crate::convert::to_u64(bytes.len())),
                        Ok(vkgraph::Constant::Named { key, length }) => {
                            add(if file.named_data(key).is_some() { NAMED } else { EXTERNAL }, length)
                        }
                        Err(_) => {}
                    }
                }
            }
        }
        budget.charge(file.bytes().len())?;
        let external = external_groups(file).unwrap_or_default();
        let weights = [PROGRAM, NAMED, REGION, EXTERNAL]
            .into_iter()
            .filter_map(|location| places.get(location).map(|&(constants, bytes)| Place { location, constants, bytes }))
            .collect();
        let backends = backends.into_iter().map(|(id, delegates)| Backend { id, delegates }).collect();
        Ok(ProgramData { backends, external, weights })
    }

    /// The section's text lines: `backends:`, `weights at:` and one `external:` line per
    /// reader.
    pub fn print_text(&self, out: &mut dyn Write) -> std::io::Result<()> {
        if !self.backends.is_empty() {
            let list: Vec<String> =
                self.backends.iter().map(|b| format!("{} ({} delegate(s))", b.id, b.delegates)).collect();
            writeln!(out, "  backends:   {}", list.join(", "))?;
        }
        if !self.weights.is_empty() {
            let list: Vec<String> =
                self.weights.iter().map(|p| format!("{}: {} ({} bytes)", p.location, p.constants, p.bytes)).collect();
            writeln!(out, "  weights at: {}", list.join(", "))?;
        }
        for g in &self.external {
            writeln!(
                out,
                "  external:   {} needs {} key(s), {} bytes: {}",
                g.reader,
                g.keys.len(),
                g.bytes,
                g.keys.join(", ")
            )?;
        }
        Ok(())
    }
}

/// The program's constant tensors, each buffer or key once: `program` for a constant buffer,
/// `external` for external data.
fn program_weights(
    file: &PteFile<'_>,
    budget: &mut Budget,
    add: &mut impl FnMut(&'static str, u64),
) -> Result<(), OverBudget> {
    let mut buffers: HashSet<u32> = HashSet::new();
    let mut keys: HashSet<String> = HashSet::new();
    for plan in file.program().execution_plan().unwrap_or_default() {
        for value in plan.values().unwrap_or_default() {
            budget.charge(1)?;
            let KernelTypes::Tensor(t) = value.val() else { continue };
            let sizes = t.sizes();
            budget.charge(sizes.map_or(0, |s| s.len()))?;
            let elements = crate::summary::facts::elements(sizes.into_iter().flatten());
            let bytes = t.scalar_type().element_size().map_or(0, |size| size.saturating_mul(elements));
            let external = t.extra_tensor_info().filter(|e| e.location() == TensorDataLocation::EXTERNAL);
            let place = match (external, t.data_buffer_idx(), t.allocation_info()) {
                (Some(e), _, _) => {
                    keys.insert(budget.text(e.fully_qualified_name().unwrap_or(""))?).then_some(EXTERNAL)
                }
                (None, index, None) if index > 0 => buffers.insert(index).then_some(PROGRAM),
                _ => None,
            };
            if let Some(place) = place {
                add(place, bytes);
            }
        }
    }
    Ok(())
}
