//! A `.litertlm` file: its header, the verified `LiteRTLMMetaData` flatbuffer, and its sections
//! resolved to bytes, each checked by its type as far as this crate reads it (`docs/litertlm.md` §8.3).

use super::contents::check_contents;
use super::header::HEADER_LENGTH;
use super::{AnySectionDataType, Header, LiteRTLMMetaData, SectionObject, LITERTLM, SECTIONS};
use crate::container::{locate, verified_root, with_error_slot, Checked, Container, Fault, Walk};
use crate::error::{Error, ErrorKind};
use crate::tflite;
use crate::verify::{Fail, Options, Stats, VerifyTable};
use crate::wire::{to_u64, TableVector};

/// Qualifies `sections[i]` when the error lies in a TFLite section: the section's own root
/// follows (`LiteRTLM.sections[2](TFLiteModel): Model.subgraphs[0]`).
static IN_TFLITE_MODEL: &str = "(TFLiteModel): Model";
/// The same for an error of a TFLite section whose path does not start at `Model`.
static IN_TFLITE: &str = "(TFLiteModel)";

/// A verified `.litertlm` file (LiteRT-LM's on-device language model container).
#[derive(Clone, Copy)]
pub struct LitertLmFile<'a> {
    bytes: &'a [u8],
    header: Header,
    metadata: LiteRTLMMetaData<'a>,
}

impl core::fmt::Debug for LitertLmFile<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("LitertLmFile")
            .field("len", &self.bytes.len())
            .field("header", &self.header)
            .finish_non_exhaustive()
    }
}

/// One section of a `.litertlm` file, inside the file.
#[derive(Clone, Copy, Debug)]
pub struct Section<'a> {
    /// Its index in `section_metadata.objects`.
    pub index: usize,
    /// Its type; a number the schema does not name reads as that number.
    pub data_type: AnySectionDataType,
    /// Its first byte's file offset (`begin_offset`).
    pub begin: u64,
    /// The file offset one past its last byte (`end_offset`).
    pub end: u64,
    /// Its bytes, `[begin, end)` of the file.
    pub bytes: &'a [u8],
    /// Its entry in the metadata, with its items.
    pub object: SectionObject<'a>,
}

crate::container::entry_points!(
    LitertLmFile,
    "a LiteRT-LM file (`.litertlm`: the `LITERTLM` header, a `LiteRTLMMetaData` flatbuffer, sections)",
    "every section inside the file, after the metadata, not ending before it begins and \
     overlapping no other; each TFLiteModel section verified as a TFLite model, each tokenizer \
     and metadata proto section checked by its type (`docs/litertlm.md` §8.3)"
);

impl<'a> Container<'a> for LitertLmFile<'a> {
    /// The header, then the metadata flatbuffer in `[32, header_end)` (no identifier).
    fn structure(bytes: &'a [u8], options: &Options) -> Result<(Self, Stats), Error> {
        let header = match Header::read(bytes) {
            Ok(header) => header,
            Err((kind, at, field)) => return Err(Error::header(kind, at, field)),
        };
        let metadata = bytes.get(header.metadata_range()).unwrap_or_default();
        let (metadata, stats) = verified_root(metadata, None, options, HEADER_LENGTH)?;
        Ok((LitertLmFile { bytes, header, metadata }, stats))
    }

    fn rules(&self, options: &Options) -> Result<(), Error> {
        with_error_slot(&LITERTLM, |error| {
            let mut walk = Walk::new(options, self.bytes.len(), (&LITERTLM, HEADER_LENGTH), error);
            self.check_ranges(&mut walk)?;
            self.check_types(&mut walk, options)
        })
    }
}

impl<'a> LitertLmFile<'a> {
    /// The whole file.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The header.
    pub fn header(&self) -> Header {
        self.header
    }

    /// The metadata flatbuffer's root view.
    pub fn metadata(&self) -> LiteRTLMMetaData<'a> {
        self.metadata
    }

    /// The section table, `section_metadata.objects` (absent: no sections).
    fn objects(&self) -> Option<TableVector<'a, SectionObject<'a>>> {
        self.metadata.section_metadata().and_then(|s| s.objects())
    }

    /// How many sections the metadata lists.
    pub fn section_count(&self) -> usize {
        self.objects().map_or(0, |o| o.len())
    }

    /// Section `index` and its bytes: an [`ErrorKind::IndexOutOfRange`] error past the last
    /// one; out of bounds (for a file checked only for its structure) when its range does not
    /// lie after the metadata and inside the file.
    pub fn section(&self, index: usize) -> Result<Section<'a>, Error> {
        with_error_slot(&LITERTLM, |error| self.section_in(error, index))
    }

    /// [`LitertLmFile::section`], failing in `error`.
    fn section_in(&self, error: &mut Error, index: usize) -> Result<Section<'a>, Fail> {
        let Some(object) = self.objects().and_then(|o| o.get(index)) else {
            return Err(locate(
                error,
                ErrorKind::IndexOutOfRange,
                HEADER_LENGTH,
                &LITERTLM,
                &[(&SECTIONS, Some(index))],
            ));
        };
        match self.range(&object) {
            Ok(bytes) => Ok(Section {
                index,
                data_type: object.data_type(),
                begin: object.begin_offset(),
                end: object.end_offset(),
                bytes,
                object,
            }),
            Err(fault) => Err(self.section_fault(error, index, &object, fault)),
        }
    }

    /// The TFLite model in section `index`, verified (its `Buffer.offset` data relative to the
    /// section); an error located through the container, at a file offset, when it is broken,
    /// and a rule error when the section is of another type.
    pub fn tflite_model(&self, index: usize, options: &Options) -> Result<tflite::Model<'a>, Error> {
        with_error_slot(&LITERTLM, |error| {
            let section = self.section_in(error, index)?;
            if section.data_type != AnySectionDataType::TFLiteModel {
                let rule = ErrorKind::Rule("the section is not a TFLiteModel");
                return Err(self.section_fault(
                    error,
                    index,
                    &section.object,
                    (rule, Some(&SectionObject::DATA_TYPE_NAME)),
                ));
            }
            model_in(error, &section, options)
        })
    }

    /// The bytes of a section's range: `begin <= end`, inside the file and after the metadata.
    fn range(&self, object: &SectionObject<'a>) -> Result<&'a [u8], Fault> {
        let (begin, end) = (object.begin_offset(), object.end_offset());
        if begin > end {
            return Err((
                ErrorKind::Rule("a section must not end before it begins"),
                Some(&SectionObject::END_OFFSET_NAME),
            ));
        }
        if end > to_u64(self.bytes.len()) {
            return Err((ErrorKind::OutOfBounds, Some(&SectionObject::END_OFFSET_NAME)));
        }
        if begin < self.header.header_end {
            let rule = ErrorKind::Rule("a section must not reach into the header or the metadata");
            return Err((rule, Some(&SectionObject::BEGIN_OFFSET_NAME)));
        }
        // Both ends are at most the file's length, which is a `usize`.
        let range = usize::try_from(begin).ok().zip(usize::try_from(end).ok());
        range
            .and_then(|(begin, end)| self.bytes.get(begin..end))
            .ok_or((ErrorKind::OutOfBounds, Some(&SectionObject::END_OFFSET_NAME)))
    }

    /// Fails with an error at `LiteRTLM.sections[index]`, or at its field the fault names, at
    /// the section entry's file offset.
    #[cold]
    fn section_fault(&self, error: &mut Error, index: usize, object: &SectionObject<'a>, (kind, field): Fault) -> Fail {
        let at = HEADER_LENGTH.saturating_add(to_u64(object.raw().position()));
        let path = [(&SECTIONS, Some(index)), (field.unwrap_or(&SECTIONS), None)];
        locate(error, kind, at, &LITERTLM, path.get(..if field.is_some() { 2 } else { 1 }).unwrap_or_default())
    }

    /// Every section's range (inside the file, after the metadata, not reversed), and no two
    /// sections sharing a byte. Sections in file order are checked against the end of the one
    /// before, one unit of work each; from the first out of order, each is compared with every
    /// earlier section, one unit per comparison, so a hostile table is bounded by the budget.
    /// Nothing is allocated.
    fn check_ranges(&self, walk: &mut Walk<'_>) -> Checked {
        let Some(objects) = self.objects() else { return Ok(()) };
        walk.charge(objects.len())?;
        let mut last_end = Some(self.header.header_end);
        for (i, object) in objects.into_iter().enumerate() {
            if let Err(fault) = self.range(&object) {
                return Err(self.section_fault(walk.error(), i, &object, fault));
            }
            let (begin, end) = (object.begin_offset(), object.end_offset());
            if begin == end {
                continue;
            }
            match last_end {
                Some(last) if begin >= last => last_end = Some(end),
                _ => {
                    last_end = None;
                    walk.charge(i)?;
                    let overlaps = objects
                        .into_iter()
                        .take(i)
                        .any(|o| o.begin_offset() < o.end_offset() && begin < o.end_offset() && o.begin_offset() < end);
                    if overlaps {
                        let fault =
                            (ErrorKind::Rule("sections must not overlap"), Some(&SectionObject::BEGIN_OFFSET_NAME));
                        return Err(self.section_fault(walk.error(), i, &object, fault));
                    }
                }
            }
        }
        Ok(())
    }

    /// Each section by its type: a TFLiteModel section verified as a TFLite model, the others'
    /// contents by [`check_contents`] (`docs/litertlm.md` §8.3).
    fn check_types(&self, walk: &mut Walk<'_>, options: &Options) -> Checked {
        for i in 0..self.section_count() {
            let section = self.section_in(walk.error(), i)?;
            if section.data_type == AnySectionDataType::TFLiteModel {
                model_in(walk.error(), &section, options)?;
            } else {
                check_contents(walk, &section, options)?;
            }
        }
        Ok(())
    }
}

/// The TFLite model of `section`, verified, or its error located through the container.
fn model_in<'a>(error: &mut Error, section: &Section<'a>, options: &Options) -> Result<tflite::Model<'a>, Fail> {
    match tflite::Model::parse_into(section.bytes, options, error) {
        Some(parsed) => Ok(parsed.value),
        None => Err(through_section(error, section.index, section.begin)),
    }
}

/// Locates `error`, found in the TFLite model of section `index` (which starts at file offset
/// `begin`), through the container: its offset moved to the file, its path prefixed with
/// `LiteRTLM.sections[index](TFLiteModel): `. The section's segments are outer ones, so a
/// path deeper than [`crate::MAX_PATH`] keeps the model's and drops them (the offset still
/// names the section).
#[cold]
fn through_section(error: &mut Error, index: usize, begin: u64) -> Fail {
    error.shift(begin);
    let location = error.location_mut();
    let qualifier =
        if location.root() == *<tflite::Model<'_> as VerifyTable>::NAME { &IN_TFLITE_MODEL } else { &IN_TFLITE };
    location.push_outer(qualifier, None);
    location.push_outer(&SECTIONS, u32::try_from(index).ok());
    location.set_root(&LITERTLM);
    Fail
}
