//! A program and its data checked together (`docs/executorch.md` §3.11): the keys a program
//! reads from named data (external program tensors, XNNPACK and Vulkan named constants), each
//! with who reads it and how many bytes, and whether the program's own named data or `.ptd`
//! files hold them.

use super::{EValue, ExecutionPlan, ExtraTensorInfo, KernelTypes, PteFile, Tensor, TensorDataLocation};
use super::{Program, VULKAN_BACKEND, XNNPACK_BACKEND};
use crate::container::{path_error, Budget, Segment};
use crate::error::{Error, ErrorKind};
use crate::ptd::PtdFile;
use crate::verify::{Name, Options};
use crate::wire::to_u64;
use crate::{vkgraph, xnnpack};

/// The root of the paths in errors (fields are named by the schema's constants).
static PROGRAM: &str = "Program";
static XNN_GRAPH: &str = "XNNGraph";
static VK_GRAPH: &str = "VkGraph";

/// Who reads a key of named data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataReader<'a> {
    /// The program itself: tensor `Program.execution_plan[plan].values[value]`, whose
    /// `extra_tensor_info.location` is `EXTERNAL` and whose key is its `fully_qualified_name`.
    /// ExecuTorch reads it through the data's tensor layout, so only a `.ptd` datum with a
    /// `tensor_layout` holds it.
    Program {
        /// The execution plan.
        plan: usize,
        /// The value's index in the plan's `values`.
        value: usize,
    },
    /// A named constant of a delegate: entry `constant` of its graph's constant list
    /// (`XNNGraph.constant_data` or `VkGraph.constants`).
    Delegate {
        /// The execution plan.
        plan: usize,
        /// The delegate's index in the plan's `delegates`.
        index: usize,
        /// The backend id ([`super::XNNPACK_BACKEND`] or [`super::VULKAN_BACKEND`]).
        backend: &'a str,
        /// The constant's index in the graph's constant list.
        constant: usize,
    },
}

impl DataReader<'_> {
    /// Whether the reader needs the datum's tensor layout (a program tensor does).
    pub fn needs_layout(&self) -> bool {
        matches!(self, DataReader::Program { .. })
    }
}

/// A key a program reads from named data, with who reads it and how many bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataKey<'a> {
    /// The key, borrowed from the program's bytes.
    pub key: &'a str,
    /// Who reads it.
    pub reader: DataReader<'a>,
    /// The bytes the reader needs under the key: a program tensor's elements times its scalar
    /// type's size (0 for a type without a size); an XNNPACK constant's elements times its
    /// datatype's bits, rounded up to whole bytes, or the scales a quantization parameter
    /// reads there, and at least the constant's `size`; a Vulkan constant's `length`. A count
    /// past `u64` is `u64::MAX`.
    pub bytes: u64,
    /// The file offset where the key's errors are located: the tensor's `ExtraTensorInfo`, or
    /// the root table of the delegate's graph (where the blob's own errors are).
    pub at: u64,
}

/// Where a key's data was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataSource {
    /// The program's own `Program.named_data`.
    Program,
    /// The `.ptd` file at this index of the list given.
    Ptd(usize),
}

/// Why a key does not resolve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataProblem {
    /// No named data holds the key.
    Missing,
    /// The data under the key is shorter than its reader needs.
    Short,
    /// A program tensor's key is held by a datum without a `tensor_layout` (ExecuTorch reads
    /// the layout before the bytes).
    NoLayout,
}

/// The first key of a program that its data does not resolve: which key, who reads it, the
/// bytes needed and found. Converts to an [`Error`] located where the key is named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnresolvedKey<'a> {
    /// The key, its reader and the bytes it needs.
    pub need: DataKey<'a>,
    /// What is wrong.
    pub problem: DataProblem,
    /// The bytes found under the key (`None` when it is missing).
    pub found: Option<u64>,
}

/// Why [`PteFile::check_data`] failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataError<'a> {
    /// A key the data does not resolve.
    Unresolved(UnresolvedKey<'a>),
    /// The walk could not list the keys: a delegate blob invalid, or the work budget spent.
    Invalid(Error),
}

impl From<UnresolvedKey<'_>> for Error {
    /// `NotFound` for a missing key, a rule error otherwise, located at the field that names
    /// the key: `Program.execution_plan[p].values[v].val.extra_tensor_info.fully_qualified_name`,
    /// `XNNGraph.constant_data[i].named_key` or `VkGraph.constants[i].named_key`.
    fn from(u: UnresolvedKey<'_>) -> Error {
        let kind = match u.problem {
            DataProblem::Missing => ErrorKind::NotFound,
            DataProblem::Short => ErrorKind::Rule("named data shorter than its reader needs"),
            DataProblem::NoLayout => ErrorKind::Rule("a program tensor's data needs a tensor_layout"),
        };
        match u.need.reader {
            DataReader::Program { plan, value } => {
                let path: [Segment; 5] = [
                    (&Program::EXECUTION_PLAN_NAME, Some(plan)),
                    (&ExecutionPlan::VALUES_NAME, Some(value)),
                    (&EValue::VAL_NAME, None),
                    (&Tensor::EXTRA_TENSOR_INFO_NAME, None),
                    (&ExtraTensorInfo::FULLY_QUALIFIED_NAME_NAME, None),
                ];
                path_error(kind, u.need.at, &PROGRAM, &path, &[])
            }
            DataReader::Delegate { backend, constant, .. } => {
                let (root, list, field): (Name, Name, Name) = if backend == VULKAN_BACKEND {
                    (&VK_GRAPH, &vkgraph::VkGraph::CONSTANTS_NAME, &vkgraph::VkBytes::NAMED_KEY_NAME)
                } else {
                    (&XNN_GRAPH, &xnnpack::XNNGraph::CONSTANT_DATA_NAME, &xnnpack::ConstantDataOffset::NAMED_KEY_NAME)
                };
                path_error(kind, u.need.at, root, &[(list, Some(constant)), (field, None)], &[])
            }
        }
    }
}

impl From<DataError<'_>> for Error {
    fn from(e: DataError<'_>) -> Error {
        match e {
            DataError::Unresolved(u) => u.into(),
            DataError::Invalid(e) => e,
        }
    }
}

impl core::fmt::Display for DataReader<'_> {
    /// `program (plan P, value V)` or `delegate P.I (BACKEND)`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            DataReader::Program { plan, value } => write!(f, "program (plan {plan}, value {value})"),
            DataReader::Delegate { plan, index, backend, .. } => write!(f, "delegate {plan}.{index} ({backend})"),
        }
    }
}

impl core::fmt::Display for UnresolvedKey<'_> {
    /// `key 'K' (needed by READER, N bytes) is missing`, `... is short: N bytes found`, or
    /// `... has no tensor layout`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let need = &self.need;
        write!(f, "key '{}' (needed by {}, {} bytes) ", need.key, need.reader, need.bytes)?;
        match (self.problem, self.found) {
            (DataProblem::Short, Some(found)) => write!(f, "is short: {found} bytes found"),
            (DataProblem::NoLayout, _) => f.write_str("has no tensor layout"),
            _ => f.write_str("is missing"),
        }
    }
}

impl core::fmt::Display for DataError<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            DataError::Unresolved(u) => u.fmt(f),
            DataError::Invalid(e) => e.fmt(f),
        }
    }
}

impl<'a> PteFile<'a> {
    /// Calls `each` with every key the program reads from named data, plan by plan: the
    /// plan's external tensors in value order, then each delegate's named constants (XNNPACK:
    /// in value order, a quantized value's scales after its data; Vulkan: in constant order).
    /// A key read twice is listed twice. Delegate blobs are verified again (their errors at
    /// file offsets); the work, about the program's length plus its delegates' blobs, is
    /// charged to `options`' apparent-size budget.
    pub fn data_keys(&self, options: &Options, mut each: impl FnMut(DataKey<'a>)) -> Result<(), Error> {
        let mut budget = Budget::new(options, self.bytes().len(), &PROGRAM);
        self.walk_keys(&mut budget, &mut |need, _| {
            each(need);
            Ok(())
        })
        .map_err(Error::from)
    }

    /// [`PteFile::data_keys`] without the keys the program's own named data holds with the
    /// bytes they need: the keys that must come from `.ptd` files.
    pub fn external_keys(&self, options: &Options, mut each: impl FnMut(DataKey<'a>)) -> Result<(), Error> {
        let mut budget = Budget::new(options, self.bytes().len(), &PROGRAM);
        self.walk_keys(&mut budget, &mut |need, budget| {
            budget.charge(self.lookup_cost(&[]), need.at).map_err(DataError::Invalid)?;
            if !matches!(self.find_data(&need, &[]), Ok((_, bytes)) if to_u64(bytes.len()) >= need.bytes) {
                each(need);
            }
            Ok(())
        })
        .map_err(Error::from)
    }

    /// Where the data of `need` is: the program's named data first (never for a program
    /// tensor, which needs a tensor layout), then each of `data` in order; the bytes are the
    /// datum's whole segment. [`DataProblem::Missing`] or [`DataProblem::NoLayout`] when none
    /// holds it. A scan of each named data list, linear in their keys' bytes.
    pub fn find_data(&self, need: &DataKey<'a>, data: &[PtdFile<'a>]) -> Result<(DataSource, &'a [u8]), DataProblem> {
        if !need.reader.needs_layout() {
            if let Some(bytes) = self.named_data(need.key) {
                return Ok((DataSource::Program, bytes));
            }
        }
        let mut problem = DataProblem::Missing;
        for (i, file) in data.iter().enumerate() {
            if let Some((entry, bytes)) = file.named_data(need.key) {
                if need.reader.needs_layout() && entry.tensor_layout().is_none() {
                    problem = DataProblem::NoLayout;
                    continue;
                }
                return Ok((DataSource::Ptd(i), bytes));
            }
        }
        Err(problem)
    }

    /// Checks the program against `data`, zero or more verified `.ptd` files: every key of
    /// [`PteFile::data_keys`] resolves ([`PteFile::find_data`]) to at least the bytes its
    /// reader needs. The first that does not is returned as [`DataError::Unresolved`]. The
    /// work, the key walk plus each lookup's scan, is charged to `options`' apparent-size
    /// budget for the program and its data together.
    pub fn check_data(&self, data: &[PtdFile<'a>], options: &Options) -> Result<(), DataError<'a>> {
        let len = data.iter().fold(self.bytes().len(), |n, f| n.saturating_add(f.bytes().len()));
        let mut budget = Budget::new(options, len, &PROGRAM);
        self.walk_keys(&mut budget, &mut |need, budget| {
            budget.charge(self.lookup_cost(data), need.at).map_err(DataError::Invalid)?;
            let (problem, found) = match self.find_data(&need, data) {
                Ok((_, bytes)) if to_u64(bytes.len()) >= need.bytes => return Ok(()),
                Ok((_, bytes)) => (DataProblem::Short, Some(to_u64(bytes.len()))),
                Err(problem) => (problem, None),
            };
            Err(DataError::Unresolved(UnresolvedKey { need, problem, found }))
        })
    }

    /// The work units of one lookup: a step per named datum of the program and of `data`.
    fn lookup_cost(&self, data: &[PtdFile<'a>]) -> u64 {
        let own = self.program().named_data().map_or(0, |n| n.len());
        let theirs = data.iter().map(|f| f.flat_tensor().named_data().map_or(0, |n| n.len()));
        to_u64(theirs.fold(own, usize::saturating_add)).saturating_add(1)
    }

    /// Calls `each` with every key, plan by plan, charging `budget` a unit per value,
    /// delegate and constant and a blob's length per blob.
    fn walk_keys(&self, budget: &mut Budget, each: &mut KeyVisitor<'a, '_>) -> Result<(), DataError<'a>> {
        let plans = self.program().execution_plan();
        for plan in 0..plans.map_or(0, |p| p.len()) {
            let Some(p) = plans.and_then(|v| v.get(plan)) else { continue };
            let values = p.values();
            for value in 0..values.map_or(0, |v| v.len()) {
                let Some(v) = values.and_then(|l| l.get(value)) else { continue };
                charge(budget, 1, 0)?;
                if let Some(need) = external_tensor(&v, plan, value) {
                    each(need, budget)?;
                }
            }
            let delegates = p.delegates();
            for index in 0..delegates.map_or(0, |d| d.len()) {
                let Some(view) = delegates.and_then(|d| d.get(index)) else { continue };
                charge(budget, 1, 0)?;
                let delegate = super::Delegate { plan, index, id: view.id(), view };
                if delegate.is_xnnpack() {
                    self.xnnpack_keys(budget, &delegate, each)?;
                } else if delegate.is_vulkan() {
                    self.vulkan_keys(budget, &delegate, each)?;
                }
            }
        }
        Ok(())
    }

    /// The keys of an XNNPACK delegate: each value's named constant, then its scales'.
    fn xnnpack_keys(
        &self,
        budget: &mut Budget,
        delegate: &super::Delegate<'a>,
        each: &mut KeyVisitor<'a, '_>,
    ) -> Result<(), DataError<'a>> {
        let (at, bytes) = self.delegate_blob(delegate).map_err(DataError::Invalid)?;
        charge(budget, bytes.len(), to_u64(at))?;
        let blob = xnnpack::Blob::parse(bytes).map_err(|e| DataError::Invalid(e.shifted(to_u64(at))))?;
        // The graph's root table, where the blob's own errors are located.
        let base = to_u64(at).saturating_add(blob.header().map_or(0, |h| u64::from(h.flatbuffer_offset)));
        let at = base.saturating_add(to_u64(blob.graph().raw().position()));
        let count = blob.graph().constant_data().map_or(0, |c| c.len());
        let values = blob.graph().xvalues();
        let (plan, index) = (delegate.plan, delegate.index);
        for v in 0..values.map_or(0, |l| l.len()) {
            let Some(value) = values.and_then(|l| l.get(v)) else { continue };
            charge(budget, 1, base)?;
            let Some(tensor) = value.tensor() else { continue };
            let scales = value.quantized().and_then(|q| q.quant_params().scale_constant());
            let data = (tensor.constant_buffer_idx(), tensor_bytes(&tensor));
            for (constant, needed) in core::iter::once(data).chain(scales) {
                let Ok(constant) = usize::try_from(constant) else { continue };
                if constant == 0 || constant >= count {
                    continue;
                }
                let Ok(xnnpack::Constant::Named { key, size }) = blob.constant(constant) else { continue };
                let reader = DataReader::Delegate { plan, index, backend: XNNPACK_BACKEND, constant };
                each(DataKey { key, reader, bytes: needed.max(size), at }, budget)?;
            }
        }
        Ok(())
    }

    /// The keys of a Vulkan delegate: its named constants, in order.
    fn vulkan_keys(
        &self,
        budget: &mut Budget,
        delegate: &super::Delegate<'a>,
        each: &mut KeyVisitor<'a, '_>,
    ) -> Result<(), DataError<'a>> {
        let (at, bytes) = self.delegate_blob(delegate).map_err(DataError::Invalid)?;
        charge(budget, bytes.len(), to_u64(at))?;
        let blob = vkgraph::Blob::parse(bytes).map_err(|e| DataError::Invalid(e.shifted(to_u64(at))))?;
        // The graph's root table, where the blob's own errors are located.
        let base = to_u64(at).saturating_add(blob.header().map_or(0, |h| u64::from(h.flatbuffer_offset)));
        let at = base.saturating_add(to_u64(blob.graph().raw().position()));
        let constants = blob.graph().constants();
        let (plan, index) = (delegate.plan, delegate.index);
        for constant in 0..constants.map_or(0, |c| c.len()) {
            charge(budget, 1, base)?;
            let Ok(vkgraph::Constant::Named { key, length }) = blob.constant(constant) else { continue };
            let reader = DataReader::Delegate { plan, index, backend: VULKAN_BACKEND, constant };
            each(DataKey { key, reader, bytes: length, at }, budget)?;
        }
        Ok(())
    }
}

/// What the key walk calls with each key: it may charge the budget and stop the walk.
type KeyVisitor<'a, 'f> = dyn FnMut(DataKey<'a>, &mut Budget) -> Result<(), DataError<'a>> + 'f;

/// Charges `units` to `budget`, failing at byte `at`.
fn charge<'a>(budget: &mut Budget, units: usize, at: u64) -> Result<(), DataError<'a>> {
    budget.charge(to_u64(units), at).map_err(DataError::Invalid)
}

/// The key of value `value` of plan `plan` when it is a tensor whose data is external.
fn external_tensor<'a>(value: &EValue<'a>, plan: usize, index: usize) -> Option<DataKey<'a>> {
    let KernelTypes::Tensor(tensor) = value.val() else { return None };
    let info = tensor.extra_tensor_info().filter(|i| i.location() == TensorDataLocation::EXTERNAL)?;
    let key = info.fully_qualified_name()?;
    let element = tensor.scalar_type().element_size().unwrap_or(0);
    let mut count = Some(1u64);
    for size in tensor.sizes().unwrap_or_default() {
        count = count.and_then(|c| c.checked_mul(u64::try_from(size).unwrap_or(0)));
    }
    let bytes = count.and_then(|c| c.checked_mul(element)).unwrap_or(u64::MAX);
    let reader = DataReader::Program { plan, value: index };
    Some(DataKey { key, reader, bytes, at: to_u64(info.raw().position()) })
}

/// The bytes an XNNPACK tensor's elements take: the product of its dims times its datatype's
/// bits, rounded up to whole bytes (0 for a datatype without a width).
fn tensor_bytes(tensor: &xnnpack::XNNTensorValue<'_>) -> u64 {
    let Some(bits) = tensor.datatype().element_bits() else { return 0 };
    let mut count = Some(1u64);
    for d in tensor.dims().unwrap_or_default() {
        count = count.and_then(|c| c.checked_mul(u64::from(d)));
    }
    count.and_then(|c| c.checked_mul(bits)).map_or(u64::MAX, |b| b.div_ceil(8))
}
