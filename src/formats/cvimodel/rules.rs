//! The model's own rules, beyond the structure (see [`super::CviModel::check`]), and the
//! section lookups they share with the public API. Errors are written in place into one slot
//! (`container::locate`): on a Cortex-M4 every move of an `Error` is a `memcpy`.

use super::lists::{element, tables};
use super::lz4::check_lz4_block;
use super::names::{NameRoom, SectionNames};
use super::section::SectionRef;
use super::{Model, Program, Routine, RoutineType, Section, SectionType, TpuRoutine, Weight};
use crate::container::{locate, Budget, Segment};
use crate::error::{Error, ErrorKind};
use crate::verify::{Fail, Name, Options};
use crate::wire::{Table, TableVector};
use core::result::Result;

/// LZ4's largest expansion: each byte of a block yields at most 255 bytes (plus a short tail).
pub(super) const LZ4_MAX_RATIO: u64 = 255;

/// The root of error paths (their fields are named by the schema's constants, `Model::SECTIONS_NAME`).
pub(super) static MODEL: &str = "Model";

/// The index of the first section of a name, its failures (a spent budget) written into the
/// error slot it is given.
pub(super) type FindSection<'f> = dyn FnMut(&str, &mut Error) -> Result<Option<usize>, Fail> + 'f;

/// `n` as a `u64` (saturating where `usize` is wider).
pub(super) fn to_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// What the rules and the section lookups read of a file: the whole file, where its body and
/// its section area start, and the body's root.
#[derive(Clone, Copy)]
pub(super) struct Parts<'a> {
    pub(super) file: &'a [u8],
    pub(super) body_start: usize,
    pub(super) binary_start: usize,
    pub(super) model: Model<'a>,
}

impl<'a> Parts<'a> {
    /// The file offset of a table of the body.
    pub(super) fn file_offset(&self, table: Table<'_>) -> u64 {
        to_u64(self.body_start).saturating_add(to_u64(table.position()))
    }

    /// The section area: everything after the body.
    fn binary(&self) -> &'a [u8] {
        self.file.get(self.binary_start..).unwrap_or_default()
    }

    /// [`super::CviModel::section_at`] of `sections` (`Model.sections`), with its error written into
    /// `error`.
    pub(super) fn section_in(
        &self,
        sections: Option<TableVector<'a, Table<'a>>>,
        index: usize,
        error: &mut Error,
    ) -> Result<SectionRef<'a>, Fail> {
        let Some(section) = element::<Section<'a>>(&sections, index) else {
            let at = to_u64(self.body_start);
            return Err(locate(error, ErrorKind::IndexOutOfRange, at, &MODEL, &[(&Model::SECTIONS_NAME, Some(index))]));
        };
        // `offset` then `size`, each as far as it can be checked alone.
        let rest = usize::try_from(section.offset()).ok().and_then(|start| Some((start, self.binary().get(start..)?)));
        let payload = rest.and_then(|(_, rest)| rest.get(..usize::try_from(section.size()).ok()?));
        let file_offset = rest.and_then(|(start, _)| self.binary_start.checked_add(start));
        let (Some(payload), Some(file_offset)) = (payload, file_offset) else {
            let field: Name =
                if rest.is_some() && payload.is_none() { &Section::SIZE_NAME } else { &Section::OFFSET_NAME };
            let path = [(&Model::SECTIONS_NAME, Some(index)), (field, None)];
            return Err(locate(error, ErrorKind::OutOfBounds, self.file_offset(section.raw()), &MODEL, &path));
        };
        Ok(SectionRef { index, section, payload, file_offset })
    }

    /// The index of the section [`super::CviModel::routine_section`] finds, with `find` giving the
    /// index of the first section of a name, errors written into `error` and located at
    /// `programs[p].routines[r]` when `at` is `Some((p, r))`.
    pub(super) fn resolve_routine(
        &self,
        routine: &Routine<'_>,
        at: Option<(usize, usize)>,
        error: &mut Error,
        find: &mut FindSection<'_>,
    ) -> Result<Option<usize>, Fail> {
        let missing = ErrorKind::MissingRequired;
        let (kind, first, second): (ErrorKind, Name, Option<Name>) = match routine.type_() {
            RoutineType::TPU => match routine.tpu_routine() {
                None => (missing, &Routine::TPU_ROUTINE_NAME, None),
                Some(tpu) => {
                    let (name, field) = match tpu.cmdbuf_section() {
                        Some(n) => (Some(n), &TpuRoutine::CMDBUF_SECTION_NAME),
                        None => (tpu.dmabuf_section(), &TpuRoutine::DMABUF_SECTION_NAME),
                    };
                    match name {
                        None => (missing, &Routine::TPU_ROUTINE_NAME, Some(&TpuRoutine::CMDBUF_SECTION_NAME)),
                        Some(name) => match find(name, error)? {
                            Some(found) => return Ok(Some(found)),
                            None => {
                                let rule = ErrorKind::Rule("a TPU routine names a section the file does not have");
                                (rule, &Routine::TPU_ROUTINE_NAME, Some(field))
                            }
                        },
                    }
                }
            },
            RoutineType::CPU if routine.cpu_routine().is_none() => (missing, &Routine::CPU_ROUTINE_NAME, None),
            _ => return Ok(None),
        };
        // `Model.programs[p].routines[r].<first>[.<second>]`, or `Model.routines.<first>...`
        // without indices.
        let path: [Segment; 4] = [
            (&Model::PROGRAMS_NAME, at.map(|(p, _)| p)),
            (&Program::ROUTINES_NAME, at.map(|(_, r)| r)),
            (first, None),
            (second.unwrap_or(first), None),
        ];
        let path = path.get(usize::from(at.is_none())..if second.is_some() { 4 } else { 3 }).unwrap_or_default();
        Err(locate(error, kind, self.file_offset(routine.raw()), &MODEL, path))
    }

    /// Checks that the LZ4 block of `r` decompresses to exactly its `decompressed_size` bytes
    /// (by walking its sequences: nothing is inflated) and returns that size. Errors are located
    /// at the fault's byte in the block.
    pub(super) fn check_lz4_block(&self, r: &SectionRef<'a>, error: &mut Error) -> Result<usize, Fail> {
        let (kind, offset, field): (ErrorKind, u64, Name) = match usize::try_from(r.section.decompressed_size()) {
            Err(_) => (ErrorKind::OutOfBounds, self.file_offset(r.section.raw()), &Section::DECOMPRESSED_SIZE_NAME),
            Ok(size) => match check_lz4_block(r.payload, size) {
                Ok(()) => return Ok(size),
                Err((fault, pos)) => {
                    let field: Name =
                        if fault.is_size() { &Section::DECOMPRESSED_SIZE_NAME } else { &Section::COMPRESS_NAME };
                    (ErrorKind::Rule(fault.text()), to_u64(r.file_offset).saturating_add(to_u64(pos)), field)
                }
            },
        };
        Err(locate(error, kind, offset, &MODEL, &[(&Model::SECTIONS_NAME, Some(r.index)), (field, None)]))
    }

    /// [`super::CviModel::check`], with its error written into `error`.
    // Out of line, like `check_lz4`: small firmware measured smaller so (fewer register spills
    // in the caller).
    #[inline(never)]
    pub(super) fn check(&self, options: &Options, error: &mut Error) -> Result<(), Fail> {
        let root = self.model.raw();
        let sections = tables(&root, Model::SECTIONS_SLOT);
        let mut work = Budget::new(options, self.file.len(), &MODEL);
        let mut inflated = 0u64;
        // The data size of the first WEIGHT section (`weight_section`), found on the way.
        let mut weight_limit = None;
        for i in 0..sections.map_or(0, |s| s.len()) {
            work.charge_into(1, 0, error)?;
            let r = self.section_in(sections, i, error)?;
            let lz4 = r.section.is_lz4();
            if lz4 {
                self.check_lz4(&r, options, &mut inflated, &mut work, error)?;
            }
            if weight_limit.is_none() && r.section.type_() == SectionType::WEIGHT {
                // `data_size`: the payload is `size` bytes.
                let size = if lz4 { u64::from(r.section.decompressed_size()) } else { to_u64(r.payload.len()) };
                weight_limit = Some(size);
            }
        }
        let weights = tables(&root, Model::WEIGHT_MAP_SLOT);
        if let Some(count) = weights.map(|w| w.len()).filter(|&n| n > 0) {
            let Some(limit) = weight_limit else {
                let rule = ErrorKind::Rule("weights but no WEIGHT section");
                return Err(locate(error, rule, self.file_offset(root), &MODEL, &[(&Model::WEIGHT_MAP_NAME, None)]));
            };
            for i in 0..count {
                let Some(w) = element::<Weight<'a>>(&weights, i) else { continue };
                work.charge_into(1, 0, error)?;
                let end = w.address().offset.checked_add(u64::from(w.size()));
                if end.is_none_or(|end| end > limit) {
                    let path = [(&Model::WEIGHT_MAP_NAME, Some(i)), (&Weight::OFFSET_NAME, None)];
                    return Err(locate(error, ErrorKind::OutOfBounds, self.file_offset(w.raw()), &MODEL, &path));
                }
            }
        }
        let mut room = NameRoom::new();
        let mut names = SectionNames::new(sections, &mut room, &mut work, error)?;
        let programs = tables(&root, Model::PROGRAMS_SLOT);
        for p in 0..programs.map_or(0, |v| v.len()) {
            let Some(program) = element::<Program<'a>>(&programs, p) else { continue };
            work.charge_into(1, 0, error)?;
            let routines = tables(&program.raw(), Program::ROUTINES_SLOT);
            for r in 0..routines.map_or(0, |v| v.len()) {
                let Some(routine) = element::<Routine<'a>>(&routines, r) else { continue };
                work.charge_into(1, 0, error)?;
                self.resolve_routine(&routine, Some((p, r)), error, &mut |name, error| {
                    names.find(name, &mut work, error)
                })?;
            }
        }
        Ok(())
    }

    /// An LZ4 section's rules (see [`super::CviModel::check`]); `inflated` sums the claims so far.
    // Out of line: see `check`.
    #[inline(never)]
    fn check_lz4(
        &self,
        r: &SectionRef<'a>,
        options: &Options,
        inflated: &mut u64,
        work: &mut Budget,
        error: &mut Error,
    ) -> Result<(), Fail> {
        let claimed = r.section.decompressed_size();
        *inflated = inflated.saturating_add(u64::from(claimed));
        let kind = match lz4_bound(r.payload.len(), claimed) {
            Err(kind) => kind,
            Ok(()) if *inflated > options.max_inflated_size => ErrorKind::InflatedSizeLimit,
            Ok(()) if r.section.encrypt() => return Ok(()), // for a trusted loader: not interpreted
            Ok(()) => {
                // The walk reads each stored byte at most once; sections may overlap, so it is
                // charged.
                work.charge_into(to_u64(r.payload.len()), 0, error)?;
                return self.check_lz4_block(r, error).map(|_| ());
            }
        };
        let path = [(&Model::SECTIONS_NAME, Some(r.index)), (&Section::DECOMPRESSED_SIZE_NAME, None)];
        Err(locate(error, kind, self.file_offset(r.section.raw()), &MODEL, &path))
    }
}

/// `decompressed_size` must be one LZ4 can produce from the `size` stored bytes (a cheap first check,
/// also made for encrypted sections, whose blocks are not read).
pub(super) fn lz4_bound(size: usize, decompressed: u32) -> Result<(), ErrorKind> {
    let max = to_u64(size).saturating_mul(LZ4_MAX_RATIO).saturating_add(16);
    if u64::from(decompressed) > max {
        return Err(ErrorKind::Rule("decompressed_size is more than LZ4 can expand the section to"));
    }
    Ok(())
}
