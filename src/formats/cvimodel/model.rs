//! The container: header, verified body, sections resolved to bytes, the model's own rules.

use super::header::Header;
use super::lists::tables;
use super::names::{NameRoom, SectionNames};
use super::offsets::{MemoryRegion, TensorAddress};
#[cfg(feature = "lz4")]
use super::rules::lz4_bound;
use super::rules::{to_u64, Parts, MODEL};
use super::section::SectionRef;
use super::{DType, Model, Routine, Section, SectionType, Tensor, Weight};
use crate::container::{path_error, verified_root, with_error_slot, Budget, Container};
use crate::error::{Error, ErrorKind, Result};
use crate::verify::{Name, Options, Stats};
use crate::wire::Table;

impl DType {
    /// The element size in bytes, for the types this schema names.
    pub fn size(self) -> Option<u64> {
        match self {
            DType::FP32 | DType::INT32 | DType::UINT32 => Some(4),
            DType::BF16 | DType::INT16 | DType::UINT16 => Some(2),
            DType::INT8 | DType::UINT8 => Some(1),
            _ => None,
        }
    }
}

/// Something a runtime tolerates but a careful writer would not produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Warning {
    /// The header's MD5 is not the MD5 of everything after the header.
    Md5Mismatch {
        /// The header's value.
        stored: [u8; 16],
        /// The MD5 computed over the file.
        computed: [u8; 16],
    },
    /// `Weight.offset` does not carry the bit-40 tag writers set.
    UntaggedWeightOffset {
        /// The weight's index in `Model.weight_map`.
        weight: usize,
    },
    /// The header's version is not `Model.version`'s major and minor.
    VersionMismatch,
    /// The header's chip is not `Model.target`.
    ChipMismatch,
    /// A TPU routine's `cmdbuf_section` or `dmabuf_section` names a section of another type.
    RoutineSectionType {
        /// The program's index.
        program: usize,
        /// The routine's index in the program.
        routine: usize,
    },
    /// An encrypted section: its payload is for a trusted loader and is not interpreted.
    EncryptedSection {
        /// The section's index.
        section: usize,
    },
}

/// What `model_tool --info` reports as "CviModel Need ION Memory Size", in parts (bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryUsage {
    /// Every section's stored size.
    pub sections: u64,
    /// Every program's `neuron_size` (files before version 1.1).
    pub neuron: u64,
    /// Every program's `private_gmem`.
    pub private: u64,
    /// The largest `shared_gmem` of any program.
    pub shared: u64,
    /// Input and output tensors (region 3 and up): N*C*H*W times the element size.
    pub io: u64,
}

impl MemoryUsage {
    /// The sum of the parts (saturating).
    pub fn total(&self) -> u64 {
        self.sections
            .saturating_add(self.neuron)
            .saturating_add(self.private)
            .saturating_add(self.shared)
            .saturating_add(self.io)
    }
}

/// A cvimodel file: its header, the verified flatbuffer body and the section area after it.
#[derive(Clone, Copy)]
pub struct CviModel<'a> {
    file: &'a [u8],
    header: Header,
    body_start: usize,
    binary_start: usize,
    model: Model<'a>,
    /// [`Options::max_inflated_size`] of the parse: what `decompress_section` may allocate.
    max_inflated: u64,
}

/// The file's length and header, not its bytes.
impl core::fmt::Debug for CviModel<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CviModel").field("len", &self.file.len()).field("header", &self.header).finish_non_exhaustive()
    }
}

crate::container::entry_points!(
    CviModel,
    "a cvimodel",
    "sections, weights and routines, as [`CviModel::check`] checks them"
);

impl<'a> Container<'a> for CviModel<'a> {
    /// The header, then the flatbuffer body (which has no file identifier: the container says
    /// which schema it holds).
    fn structure(file: &'a [u8], options: &Options) -> Result<(Self, Stats)> {
        let read = Header::read(file).and_then(|header| Ok((header, header.body(file.len())?)));
        let (header, range) = read.map_err(|(kind, offset, field)| Error::header(kind, offset, field))?;
        let (body_start, binary_start) = (range.start, range.end);
        let body = file.get(range).unwrap_or_default();
        let (model, stats) = verified_root(body, None, options, to_u64(body_start))?;
        let max_inflated = options.max_inflated_size;
        Ok((CviModel { file, header, body_start, binary_start, model, max_inflated }, stats))
    }

    fn rules(&self, options: &Options) -> Result<()> {
        self.check(options)
    }
}

impl<'a> CviModel<'a> {
    /// The whole file.
    pub fn file(&self) -> &'a [u8] {
        self.file
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The [`Options::max_inflated_size`] the file was parsed with: the most one section may
    /// be inflated to.
    pub fn max_inflated_size(&self) -> u64 {
        self.max_inflated
    }

    /// The root table of the body.
    pub fn model(&self) -> Model<'a> {
        self.model
    }

    /// The flatbuffer body's bytes (views' positions are relative to its start).
    pub fn body(&self) -> &'a [u8] {
        self.file.get(self.body_start..self.binary_start).unwrap_or_default()
    }

    /// Where the body starts in the file (the header's size).
    pub fn body_offset(&self) -> usize {
        self.body_start
    }

    /// The section area: everything after the body.
    pub fn binary(&self) -> &'a [u8] {
        self.file.get(self.binary_start..).unwrap_or_default()
    }

    /// Where the section area starts in the file (section offsets count from here).
    pub fn binary_offset(&self) -> usize {
        self.binary_start
    }

    /// What the header's MD5 covers: everything after the header.
    pub fn md5_input(&self) -> &'a [u8] {
        self.file.get(self.body_start..).unwrap_or_default()
    }

    /// What the rules and the section lookups read of the file, as a value of its own (so that
    /// small firmware need not keep the header in memory while checking).
    fn parts(&self) -> Parts<'a> {
        Parts { file: self.file, body_start: self.body_start, binary_start: self.binary_start, model: self.model }
    }

    /// The file offset of a table of the body.
    fn file_offset(&self, table: Table<'_>) -> u64 {
        self.parts().file_offset(table)
    }

    /// The section at `index` of `Model.sections` with its stored payload, or an error when the
    /// payload lies outside the section area.
    pub fn section_at(&self, index: usize) -> Result<SectionRef<'a>> {
        let sections = tables(&self.model.raw(), Model::SECTIONS_SLOT);
        with_error_slot(&MODEL, |error| self.parts().section_in(sections, index, error))
    }

    /// Every section, in order, each resolved to its payload (or why it cannot be).
    pub fn sections(&self) -> impl Iterator<Item = Result<SectionRef<'a>>> + '_ {
        let n = self.model.sections().map_or(0, |s| s.len());
        (0..n).map(|i| self.section_at(i))
    }

    /// The index and table of the first section named `name` (how the runtime looks them up;
    /// linear in the number of sections).
    pub fn find_section(&self, name: &str) -> Option<(usize, Section<'a>)> {
        self.model.sections()?.iter().enumerate().find(|(_, s)| s.name() == name)
    }

    /// The first section named `name`, resolved.
    pub fn section(&self, name: &str) -> Option<Result<SectionRef<'a>>> {
        self.find_section(name).map(|(i, _)| self.section_at(i))
    }

    /// The first WEIGHT section, where `Weight.offset` points.
    pub fn weight_section(&self) -> Option<(usize, Section<'a>)> {
        // By index, as the rules walk the sections (one element reader in small firmware).
        let sections = self.model.sections()?;
        (0..sections.len()).find_map(|i| sections.get(i).filter(|s| s.type_() == SectionType::WEIGHT).map(|s| (i, s)))
    }

    /// The first weight named `name` in `Model.weight_map`.
    pub fn weight(&self, name: &str) -> Option<Weight<'a>> {
        self.model.weight_map()?.iter().find(|w| w.name() == Some(name))
    }

    /// The bytes of `weight`: `size` bytes at its offset inside the WEIGHT section (found as
    /// [`CviModel::weight_section`] finds it, scanning the sections before it). An error
    /// when there is no WEIGHT section, it is compressed or encrypted (decompress it with
    /// `decompress_section` and slice that), or the range falls outside it.
    pub fn weight_data(&self, weight: &Weight<'_>) -> Result<&'a [u8]> {
        let at = |kind, field: Name| {
            path_error(
                kind,
                self.file_offset(weight.raw()),
                &MODEL,
                &[(&Model::WEIGHT_MAP_NAME, None), (field, None)],
                &[],
            )
        };
        let (index, section) = self.weight_section().ok_or_else(|| at(ErrorKind::NotFound, &Weight::OFFSET_NAME))?;
        if section.is_lz4() {
            return Err(at(
                ErrorKind::Rule("the WEIGHT section is compressed: decompress it first"),
                &Section::COMPRESS_NAME,
            ));
        }
        if section.encrypt() {
            return Err(at(ErrorKind::Rule("the WEIGHT section is encrypted"), &Section::ENCRYPT_NAME));
        }
        let payload = self.section_at(index)?.payload;
        let start =
            usize::try_from(weight.address().offset).map_err(|_| at(ErrorKind::OutOfBounds, &Weight::OFFSET_NAME))?;
        let size = usize::try_from(weight.size()).map_err(|_| at(ErrorKind::OutOfBounds, &Weight::SIZE_NAME))?;
        payload.get(start..).and_then(|r| r.get(..size)).ok_or_else(|| at(ErrorKind::OutOfBounds, &Weight::SIZE_NAME))
    }

    /// The section a TPU routine runs (its `cmdbuf_section`, else its `dmabuf_section`), with
    /// its index; `Ok(None)` for a routine of another type. An error when a TPU routine has
    /// neither name or names a section the file does not have. Each call scans the sections
    /// ([`CviModel::check`] resolves every routine through one index of the names instead).
    pub fn routine_section(&self, routine: &Routine<'_>) -> Result<Option<(usize, Section<'a>)>> {
        with_error_slot(&MODEL, |error| {
            let found = self
                .parts()
                .resolve_routine(routine, None, error, &mut |name, _| Ok(self.find_section(name).map(|(i, _)| i)))?;
            Ok(found.and_then(|i| Some((i, self.model.sections()?.get(i)?))))
        })
    }

    /// The data of section `index` of `Model.sections`: its payload decompressed when it is an
    /// LZ4 block, else the payload borrowed as stored. This is the one place the crate
    /// materialises an inflated section: the block is first checked as [`CviModel::check`]
    /// checks it (it must yield exactly `decompressed_size` bytes), and nothing is allocated
    /// for a `decompressed_size` over the [`Options::max_inflated_size`] the file was parsed
    /// with. Encrypted LZ4 sections are refused.
    #[cfg(feature = "lz4")]
    pub fn decompress_section(&self, index: usize) -> Result<alloc::borrow::Cow<'a, [u8]>> {
        use alloc::borrow::Cow;
        let r = self.section_at(index)?;
        if !r.section.is_lz4() {
            return Ok(Cow::Borrowed(r.payload));
        }
        let err = |kind, field: Name| {
            path_error(
                kind,
                self.file_offset(r.section.raw()),
                &MODEL,
                &[(&Model::SECTIONS_NAME, Some(index)), (field, None)],
                &[],
            )
        };
        if r.section.encrypt() {
            return Err(err(ErrorKind::Rule("the section is encrypted"), &Section::ENCRYPT_NAME));
        }
        let expected = r.section.decompressed_size();
        lz4_bound(r.payload.len(), expected).map_err(|kind| err(kind, &Section::DECOMPRESSED_SIZE_NAME))?;
        if u64::from(expected) > self.max_inflated_size() {
            return Err(err(ErrorKind::InflatedSizeLimit, &Section::DECOMPRESSED_SIZE_NAME));
        }
        let len = with_error_slot(&MODEL, |error| self.parts().check_lz4_block(&r, error))?;
        let mut out = alloc::vec![0u8; len];
        match lz4_flex::block::decompress_into(r.payload, &mut out) {
            Ok(n) if n == len => Ok(Cow::Owned(out)),
            // The block was checked: lz4_flex disagreeing would be a bug of one or the other.
            _ => Err(err(ErrorKind::Rule("the section's LZ4 data is malformed"), &Section::COMPRESS_NAME)),
        }
    }

    /// The MD5 of everything after the header, and whether it equals the header's.
    #[cfg(feature = "md5")]
    pub fn md5_check(&self) -> Md5Check {
        let computed = md5::compute(self.md5_input()).0;
        Md5Check { stored: self.header.md5, computed }
    }

    /// What `model_tool --info` adds up as the ION memory the model needs:
    /// [`CviModel::memory_usage_with`] with the default limits.
    pub fn memory_usage(&self) -> MemoryUsage {
        self.memory_usage_with(&Options::DEFAULT)
    }

    /// What `model_tool --info` adds up as the ION memory the model needs, the programs'
    /// tensors (which programs may share) charged to the apparent-size budget of `options`, one
    /// unit each: a spent budget ends the count of input and output tensors early, and `io` then
    /// counts those seen. The rules read no tensors, so unlike the warnings this walk can run
    /// out on a file [`CviModel::parse_with`] accepted with the same `options`.
    pub fn memory_usage_with(&self, options: &Options) -> MemoryUsage {
        let mut m = MemoryUsage::default();
        for s in self.model.sections().unwrap_or_default() {
            m.sections = m.sections.saturating_add(u64::from(s.size()));
        }
        let mut budget = Budget::new(options, self.file.len(), &MODEL);
        for p in self.model.programs().unwrap_or_default() {
            m.neuron = m.neuron.saturating_add(u64::from(p.neuron_size()));
            m.private = m.private.saturating_add(u64::from(p.private_gmem()));
            m.shared = m.shared.max(u64::from(p.shared_gmem()));
            for t in p.tensor_map().unwrap_or_default() {
                if budget.charge(1, 0).is_err() {
                    return m;
                }
                if let Some(TensorAddress { region: MemoryRegion::Io(_), .. }) = t.address() {
                    m.io = m.io.saturating_add(io_tensor_bytes(&t));
                }
            }
        }
        m
    }

    /// The model's own rules, beyond the structure: every section inside the section area;
    /// every LZ4 section claiming a size LZ4 can produce, the claims together within
    /// [`Options::max_inflated_size`], and each unencrypted block decompressing to exactly its
    /// claim (checked by walking the block's sequences: nothing is inflated or allocated);
    /// weights inside the WEIGHT section; TPU routines naming existing sections. All of it is
    /// charged to the apparent-size budget: linear in the file, with n·log n name comparisons
    /// for the routines' sections.
    pub fn check(&self, options: &Options) -> Result<()> {
        with_error_slot(&MODEL, |error| self.parts().check(options, error))
    }

    /// Calls `f` for each advisory finding (with the `md5` feature, an MD5 mismatch among them):
    /// [`CviModel::for_each_warning_with`] with the default limits.
    pub fn for_each_warning(&self, f: impl FnMut(Warning)) -> Result<()> {
        self.for_each_warning_with(&Options::DEFAULT, f)
    }

    /// Calls `f` for each advisory finding (with the `md5` feature, an MD5 mismatch among them).
    /// Resolving the routines' sections is charged to the apparent-size budget of `options`, and
    /// a spent budget ends the list with [`ErrorKind::ApparentSizeLimit`]; [`CviModel::check`]
    /// charges at least as much, so the warnings of a file [`CviModel::parse_with`] accepted with
    /// the same `options` never run out.
    pub fn for_each_warning_with(&self, options: &Options, mut f: impl FnMut(Warning)) -> Result<()> {
        #[cfg(feature = "md5")]
        {
            let check = self.md5_check();
            if !check.matches() {
                f(Warning::Md5Mismatch { stored: check.stored, computed: check.computed });
            }
        }
        if let Some(v) = self.model.version() {
            if (v.major_(), v.minor_()) != (self.header.major, self.header.minor) {
                f(Warning::VersionMismatch);
            }
        }
        if let (Some(chip), Some(target)) = (self.header.chip_name(), self.model.target()) {
            if chip != target {
                f(Warning::ChipMismatch);
            }
        }
        for (i, s) in self.model.sections().into_iter().flatten().enumerate() {
            if s.encrypt() {
                f(Warning::EncryptedSection { section: i });
            }
        }
        for (i, w) in self.model.weight_map().into_iter().flatten().enumerate() {
            if !w.address().tagged {
                f(Warning::UntaggedWeightOffset { weight: i });
            }
        }
        // Routines resolve through one index of the section names, within the work budget.
        let mut work = Budget::new(options, self.file.len(), &MODEL);
        let parts = self.parts();
        with_error_slot(&MODEL, |error| {
            let mut room = NameRoom::new();
            let sections = tables(&self.model.raw(), Model::SECTIONS_SLOT);
            let mut names = SectionNames::new(sections, &mut room, &mut work, error)?;
            for (p, program) in self.model.programs().into_iter().flatten().enumerate() {
                for (r, routine) in program.routines().into_iter().flatten().enumerate() {
                    work.charge_into(1, 0, error)?;
                    let Some(tpu) = routine.tpu_routine() else { continue };
                    let mut find = |name: &str, error: &mut Error| names.find(name, &mut work, error);
                    let resolved = parts.resolve_routine(&routine, None, error, &mut find);
                    let Some(section) = resolved.ok().flatten().and_then(|i| self.model.sections()?.get(i)) else {
                        continue;
                    };
                    let cmdbuf = tpu.cmdbuf_section().is_some();
                    let expected = if cmdbuf { SectionType::CMDBUF } else { SectionType::DMABUF };
                    if section.type_() != expected {
                        f(Warning::RoutineSectionType { program: p, routine: r });
                    }
                }
            }
            Ok(())
        })
    }
}

/// N*C*H*W times the element size, as `model_tool` counts an input or output tensor.
fn io_tensor_bytes(t: &Tensor<'_>) -> u64 {
    let Some(dims) = t.shape().and_then(|s| s.dim()) else { return 0 };
    let mut n = t.dtype().size().unwrap_or(0);
    for d in dims.iter().take(4) {
        n = n.saturating_mul(u64::try_from(d).unwrap_or(0));
    }
    n
}

/// The header's MD5 next to the one computed over the file.
#[cfg(feature = "md5")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Md5Check {
    /// The header's value.
    pub stored: [u8; 16],
    /// The MD5 of everything after the header.
    pub computed: [u8; 16],
}

#[cfg(feature = "md5")]
impl Md5Check {
    /// Whether the two agree.
    pub fn matches(&self) -> bool {
        self.stored == self.computed
    }
}
