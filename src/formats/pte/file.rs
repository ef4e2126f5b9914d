//! A `.pte` file: the verified program, its segments, delegates and named data.

use super::{BackendDelegate, DataLocation, ExecutionPlan, ExtendedHeader, Program};
use super::{BackendDelegateDataReference, Chain, DataSegment, Instruction, NamedData};
use super::{DelegateCall, InstructionArguments as Arguments, KernelCall};
use super::{IDENTIFIER, VULKAN_BACKEND, XNNPACK_BACKEND};
use crate::container::{
    check_ids, in_range, locate, verified_root, with_error_slot, Checked, Container, Fault, Segment, Walk,
};
use crate::error::{Error, ErrorKind};
use crate::verify::{Fail, Options, Stats};
use crate::vkgraph::Blob;
use crate::wire::to_u64;
use crate::xnnpack;
#[cfg(feature = "nested-xnnpack")]
use crate::xnnpack::Constant as XnnpackConstant;

/// The root of the paths in rule errors (fields are named by the schema's constants).
static PROGRAM: &str = "Program";

/// One delegate of one execution plan, with where its blob is stored.
#[derive(Clone, Copy, Debug)]
pub struct Delegate<'a> {
    /// The execution plan it belongs to.
    pub plan: usize,
    /// Its index in the plan's `delegates`.
    pub index: usize,
    /// The backend id (`VulkanBackend` for the Vulkan delegate, `XnnpackBackend` for
    /// XNNPACK's).
    pub id: Option<&'a str>,
    /// The view of the `BackendDelegate` table.
    pub view: BackendDelegate<'a>,
}

impl Delegate<'_> {
    /// Whether this is ExecuTorch's Vulkan delegate.
    pub fn is_vulkan(&self) -> bool {
        self.id == Some(VULKAN_BACKEND)
    }

    /// Whether this is ExecuTorch's XNNPACK delegate.
    pub fn is_xnnpack(&self) -> bool {
        self.id == Some(XNNPACK_BACKEND)
    }
}

/// A verified `.pte` program.
#[derive(Clone, Copy)]
pub struct PteFile<'a> {
    bytes: &'a [u8],
    header: Option<ExtendedHeader>,
    program: Program<'a>,
}

impl core::fmt::Debug for PteFile<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PteFile").field("len", &self.bytes.len()).field("header", &self.header).finish_non_exhaustive()
    }
}

crate::container::entry_points!(
    PteFile,
    "an ExecuTorch program",
    "every segment range, every delegate's and named datum's segment index, every Vulkan delegate \
     blob with its named constants found in the named data and, with the `nested-xnnpack` feature, \
     every XNNPACK delegate blob with its named constants found in the named data long enough, or \
     absent (external data)"
);

impl<'a> Container<'a> for PteFile<'a> {
    /// The extended header, then the program flatbuffer (up to `program_size` when there is a
    /// header).
    fn structure(bytes: &'a [u8], options: &Options) -> Result<(Self, Stats), Error> {
        let header = match ExtendedHeader::read(bytes) {
            Ok(header) => header,
            Err((kind, at, field)) => return Err(Error::header(kind, at, field)),
        };
        let end = header.and_then(|h| usize::try_from(h.program_size).ok()).unwrap_or(bytes.len());
        let flatbuffer = bytes.get(..end).unwrap_or(bytes);
        let (program, stats) = verified_root(flatbuffer, Some(IDENTIFIER), options, 0)?;
        Ok((PteFile { bytes, header, program }, stats))
    }

    fn rules(&self, options: &Options) -> Result<(), Error> {
        with_error_slot(&PROGRAM, |error| {
            self.check(&mut Walk::new(options, self.bytes.len(), (&PROGRAM, self.root_offset()), error))
        })
    }
}

impl<'a> PteFile<'a> {
    /// The whole file.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The extended header; `None` for a program without segments.
    pub fn header(&self) -> Option<ExtendedHeader> {
        self.header
    }

    /// The program's root view.
    pub fn program(&self) -> Program<'a> {
        self.program
    }

    /// The bytes of segment `index` and their file offset.
    pub fn segment(&self, index: usize) -> Result<(usize, &'a [u8]), Error> {
        with_error_slot(&PROGRAM, |error| {
            self.segment_range(index).map_err(|fault| self.segment_fault(error, index, fault))
        })
    }

    /// Fails with an error at `Program.segments[index]`, or at its field the fault names.
    #[cold]
    fn segment_fault(&self, error: &mut Error, index: usize, (kind, field): Fault) -> Fail {
        let path = [(&Program::SEGMENTS_NAME, Some(index)), (field.unwrap_or(&DataSegment::SIZE_NAME), None)];
        self.fail(error, kind, path.get(..if field.is_some() { 2 } else { 1 }).unwrap_or_default())
    }

    /// [`PteFile::segment`], failing with the error's kind and, past `segments[index]`, its
    /// field (one error site rather than one per failure).
    fn segment_range(&self, index: usize) -> Result<(usize, &'a [u8]), Fault> {
        let Some(segment) = self.program.segments().and_then(|s| s.get(index)) else {
            return Err((ErrorKind::IndexOutOfRange, None));
        };
        // A program without the extended header has no segment data: only an empty segment at
        // offset 0 fits, which ExecuTorch lists in a program whose data is a `.ptd` file
        // (`docs/executorch.md` §3.4).
        let (base, data) = self.header.map_or((0, Some(0)), |h| (h.segment_base_offset, h.segment_data_size));
        let (offset, size) = (segment.offset(), segment.size());
        let within = data.is_none_or(|data| offset.checked_add(size).is_some_and(|end| end <= data));
        let start = base.checked_add(offset);
        // Summed in `u64`: within `usize` the sum overflows exactly when it passes the file.
        let range = start.zip(start.and_then(|s| s.checked_add(size))).filter(|_| within);
        let bytes = range.and_then(|(s, e)| {
            let s = usize::try_from(s).ok()?;
            Some((s, self.bytes.get(s..usize::try_from(e).ok()?)?))
        });
        bytes.ok_or((ErrorKind::OutOfBounds, Some(&DataSegment::SIZE_NAME)))
    }

    /// Every delegate of every execution plan, plan by plan.
    ///
    /// Lazy, but its length is the logical (expanded) size: execution plans that share one
    /// delegate list yield it once per plan, which can be far more items than the file has
    /// bytes. Each item costs a constant, plus a step per plan without delegates; bound the
    /// iteration (`take`) when the program only passed [`PteFile::parse_structure`] ([`PteFile::parse`]
    /// charges this walk to its work budget).
    pub fn delegates(&self) -> impl Iterator<Item = Delegate<'a>> + 'a {
        self.program.execution_plan().into_iter().flatten().enumerate().flat_map(|(plan, p)| {
            p.delegates().into_iter().flatten().enumerate().map(move |(index, view)| Delegate {
                plan,
                index,
                id: view.id(),
                view,
            })
        })
    }

    /// The blob of `delegate` exactly as stored (inline or in a segment) and its file offset.
    pub fn delegate_blob(&self, delegate: &Delegate<'a>) -> Result<(usize, &'a [u8]), Error> {
        with_error_slot(&PROGRAM, |error| self.delegate_blob_in(delegate, error))
    }

    /// [`PteFile::delegate_blob`], failing with its error written into `error`.
    fn delegate_blob_in(&self, delegate: &Delegate<'a>, error: &mut Error) -> Checked<(usize, &'a [u8])> {
        let Some(processed) = delegate.view.processed() else {
            return Err(self.delegate_fault(error, delegate, ErrorKind::MissingRequired, false));
        };
        let index = usize::try_from(processed.index()).unwrap_or(usize::MAX);
        match processed.location() {
            DataLocation::INLINE => {
                let data = self.program.backend_delegate_data().and_then(|d| d.get(index)).and_then(|d| d.data());
                let Some(data) = data else {
                    return Err(self.delegate_fault(error, delegate, ErrorKind::IndexOutOfRange, true));
                };
                let bytes = data.as_slice();
                // A present vector's bytes lie in the file (an absent one was refused above), so
                // the difference of addresses is its position; never an empty slice from elsewhere.
                Ok((bytes.as_ptr().addr().wrapping_sub(self.bytes.as_ptr().addr()), bytes))
            }
            DataLocation::SEGMENT => self.segment_range(index).map_err(|fault| self.segment_fault(error, index, fault)),
            _ => Err(self.delegate_fault(error, delegate, ErrorKind::Rule("unknown DataLocation"), false)),
        }
    }

    /// Fails with an error at `Program.execution_plan[p].delegates[d].processed` (`.index` when
    /// `index`).
    #[cold]
    fn delegate_fault(&self, error: &mut Error, delegate: &Delegate<'a>, kind: ErrorKind, index: bool) -> Fail {
        let path = [
            (&Program::EXECUTION_PLAN_NAME, Some(delegate.plan)),
            (&ExecutionPlan::DELEGATES_NAME, Some(delegate.index)),
            (&BackendDelegate::PROCESSED_NAME, None),
            (&BackendDelegateDataReference::INDEX_NAME, None),
        ];
        self.fail(error, kind, path.get(..if index { 4 } else { 3 }).unwrap_or_default())
    }

    /// The `n`th delegate over all execution plans, as [`PteFile::delegates`] lists them: work
    /// linear in `n` plus the number of plans.
    pub fn delegate(&self, n: usize) -> Option<Delegate<'a>> {
        self.delegates().nth(n)
    }

    /// The Vulkan blob of `delegate`, verified; `None` for other backends. The verification's
    /// work is linear in the blob's length.
    pub fn vulkan_blob(&self, delegate: &Delegate<'a>) -> Option<Result<Blob<'a>, Error>> {
        delegate.is_vulkan().then(|| {
            let (at, blob) = self.delegate_blob(delegate)?;
            Blob::parse(blob).map_err(|e| e.shifted(to_u64(at)))
        })
    }

    /// The XNNPACK blob of `delegate`, verified; `None` for other backends. The verification's
    /// work is linear in the blob's length (and quadratic at worst in its nodes; see
    /// `docs/executorch.md` §3.8).
    pub fn xnnpack_blob(&self, delegate: &Delegate<'a>) -> Option<Result<xnnpack::Blob<'a>, Error>> {
        delegate.is_xnnpack().then(|| {
            let (at, blob) = self.delegate_blob(delegate)?;
            xnnpack::Blob::parse(blob).map_err(|e| e.shifted(to_u64(at)))
        })
    }

    /// The bytes of the first named datum with key `key`: a scan of `Program.named_data`,
    /// linear in the file times the length of `key`.
    pub fn named_data(&self, key: &str) -> Option<&'a [u8]> {
        let list = self.program.named_data()?;
        let entry = (0..list.len()).find_map(|i| list.get(i).filter(|d| d.key() == Some(key)))?;
        let (_, bytes) = self.segment_range(usize::try_from(entry.segment_index()).ok()?).ok()?;
        Some(bytes)
    }

    /// The bytes of named datum `index`.
    pub fn named_data_at(&self, index: usize) -> Result<&'a [u8], Error> {
        with_error_slot(&PROGRAM, |error| self.named_data_in(index, error))
    }

    /// [`PteFile::named_data_at`], failing with its error written into `error`.
    fn named_data_in(&self, index: usize, error: &mut Error) -> Checked<&'a [u8]> {
        let here = [(&Program::NAMED_DATA_NAME, Some(index)), (&NamedData::SEGMENT_INDEX_NAME, None)];
        let Some(entry) = self.program.named_data().and_then(|d| d.get(index)) else {
            return Err(self.fail(error, ErrorKind::IndexOutOfRange, &here[..1]));
        };
        let segment = usize::try_from(entry.segment_index()).unwrap_or(usize::MAX);
        match self.segment_range(segment) {
            Ok((_, bytes)) => Ok(bytes),
            Err((ErrorKind::IndexOutOfRange, _)) => Err(self.fail(error, ErrorKind::IndexOutOfRange, &here)),
            Err(fault) => Err(self.segment_fault(error, segment, fault)),
        }
    }

    /// The file's rules: every segment inside the file, every delegate's and named datum's
    /// index valid, every Vulkan blob valid with its named constants present. The walk is
    /// charged against the apparent-size budget (shared vectors can make it longer than the
    /// file).
    fn check(&self, walk: &mut Walk<'_>) -> Checked {
        let program = self.program;
        let segments = program.segments().map_or(0, |s| s.len());
        walk.charge(segments)?;
        for i in 0..segments {
            self.segment_range(i).map_err(|fault| self.segment_fault(walk.error(), i, fault))?;
        }
        let plans = program.execution_plan();
        let plan_count = plans.map_or(0, |p| p.len());
        for p in 0..plan_count {
            if let Some(plan) = plans.and_then(|v| v.get(p)) {
                self.plan_rules(walk, p, &plan)?;
            }
        }
        let named = program.named_data().map_or(0, |n| n.len());
        walk.charge(named)?;
        for i in 0..named {
            self.named_data_in(i, walk.error())?;
        }
        // Plan by plan, as `delegates` lists them.
        for plan in 0..plan_count {
            let delegates = plans.and_then(|v| v.get(plan)).and_then(|p| p.delegates());
            for index in 0..delegates.map_or(0, |d| d.len()) {
                let Some(view) = delegates.and_then(|d| d.get(index)) else { continue };
                walk.charge(1)?;
                self.check_delegate(walk, &Delegate { plan, index, id: view.id(), view }, named)?;
            }
        }
        Ok(())
    }

    /// A delegate's rules: its blob stored where it says and, for a Vulkan delegate, valid
    /// with every named constant present among the `named` named data.
    fn check_delegate(&self, walk: &mut Walk<'_>, delegate: &Delegate<'a>, named: usize) -> Checked {
        let (at, bytes) = self.delegate_blob_in(delegate, walk.error())?;
        #[cfg(feature = "nested-xnnpack")]
        if delegate.is_xnnpack() {
            return self.check_xnnpack(walk, at, bytes, named);
        }
        if !delegate.is_vulkan() {
            return Ok(());
        }
        // Verifying a blob costs about its length; many delegates may share one segment.
        walk.charge(bytes.len())?;
        let outcome = Blob::parse_in(bytes, walk.error()).and_then(|blob| {
            let constants = blob.graph().constants().map_or(0, |c| c.len());
            for c in 0..constants {
                walk.charge(named.saturating_add(1))?;
                blob.constant_data_in(c, |key| self.named_data(key), walk.error())?;
            }
            Ok(())
        });
        outcome.map_err(|Fail| {
            walk.error().shift(to_u64(at));
            Fail
        })
    }

    /// An XNNPACK delegate's rules: its blob valid, and every named constant the named data
    /// holds at least as long as the graph reads. A key the named data lacks is external data
    /// (a `.ptd` file's; `docs/executorch.md` §3.9), which the program cannot check alone.
    #[cfg(feature = "nested-xnnpack")]
    fn check_xnnpack(&self, walk: &mut Walk<'_>, at: usize, bytes: &'a [u8], named: usize) -> Checked {
        walk.charge(bytes.len())?;
        let outcome = xnnpack::Blob::parse_in(bytes, walk.error()).and_then(|blob| {
            let constants = blob.graph().constant_data().map_or(0, |c| c.len());
            for c in 0..constants {
                walk.charge(named.saturating_add(1))?;
                if let Ok(XnnpackConstant::Named { key, .. }) = blob.constant(c) {
                    if self.named_data(key).is_none() {
                        continue;
                    }
                }
                blob.constant_data_in(c, |key| self.named_data(key), walk.error())?;
            }
            Ok(())
        });
        outcome.map_err(|Fail| {
            walk.error().shift(to_u64(at));
            Fail
        })
    }

    /// A plan's indices: its inputs, outputs and instruction arguments name its values, its
    /// kernel calls its operators, its delegate calls its delegates.
    fn plan_rules(&self, walk: &mut Walk<'_>, p: usize, plan: &ExecutionPlan<'a>) -> Checked {
        let values = plan.values().map_or(0, |v| v.len());
        let operators = plan.operators().map_or(0, |o| o.len());
        let delegates = plan.delegates().map_or(0, |d| d.len());
        walk.enter(0, (&Program::EXECUTION_PLAN_NAME, Some(p)));
        for (ids, field) in
            [(plan.inputs(), &ExecutionPlan::INPUTS_NAME), (plan.outputs(), &ExecutionPlan::OUTPUTS_NAME)]
        {
            check_ids(walk, ids, values, field)?;
        }
        let chains = plan.chains();
        for c in 0..chains.map_or(0, |v| v.len()) {
            let Some(chain) = chains.and_then(|v| v.get(c)) else { continue };
            walk.enter(1, (&ExecutionPlan::CHAINS_NAME, Some(c)));
            for (ids, field) in [(chain.inputs(), &Chain::INPUTS_NAME), (chain.outputs(), &Chain::OUTPUTS_NAME)] {
                check_ids(walk, ids, values, field)?;
            }
            let instructions = chain.instructions();
            for n in 0..instructions.map_or(0, |v| v.len()) {
                let Some(instruction) = instructions.and_then(|v| v.get(n)) else { continue };
                walk.charge(1)?;
                walk.enter(2, (&Chain::INSTRUCTIONS_NAME, Some(n)));
                walk.enter(3, (&Instruction::INSTR_ARGS_NAME, None));
                // Only two members hold indices: each is looked up by its tag, not the whole
                // union decoded.
                let (table, tag) = (instruction.raw(), instruction.instr_args_type());
                let slot = Instruction::INSTR_ARGS_SLOT;
                let (target, args) = if let Some(k) = table.union_member::<Arguments, KernelCall>(slot, tag) {
                    (in_range(k.op_index(), operators), k.args())
                } else if let Some(d) = table.union_member::<Arguments, DelegateCall>(slot, tag) {
                    (in_range(d.delegate_index(), delegates), d.args())
                } else {
                    (true, None)
                };
                if !target {
                    return Err(walk.fail(ErrorKind::IndexOutOfRange, &[]));
                }
                // `KernelCall.args` and `DelegateCall.args` are named alike.
                check_ids(walk, args, values, &KernelCall::ARGS_NAME)?;
            }
        }
        Ok(())
    }

    /// The byte offset of the program's root table, where its rule errors are located.
    fn root_offset(&self) -> u64 {
        to_u64(self.program.raw().position())
    }

    /// Fails with an error at `Program.<path>`, at the root table.
    #[cold]
    fn fail(&self, error: &mut Error, kind: ErrorKind, path: &[Segment]) -> Fail {
        locate(error, kind, self.root_offset(), &PROGRAM, path)
    }
}
