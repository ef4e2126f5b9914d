//! LiteRT-LM's `.litertlm` files: every corpus file verifies, its header and sections are the
//! ones the hand-read `.header.json` gives (TFLite sections byte for byte the `.tflite` files
//! they were built from), each broken header field and section range is an error naming its
//! field, a broken TFLite section is located through the container, and no truncation panics.

use crate::support;

use flatmodel::litertlm::{AnySectionDataType, LitertLmFile};
use flatmodel::verify::Options;
use flatmodel::ErrorKind;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn files() -> Vec<PathBuf> {
    let mut dirs = vec![support::testdata().join("litertlm")];
    if let Some(corpus) = support::corpus() {
        dirs.push(corpus.join("litertlm"));
    }
    let found: Vec<_> = dirs.iter().flat_map(|d| support::files_with_suffix(d, ".litertlm")).collect();
    assert!(found.len() >= 3, "{found:?}");
    found
}

pub(crate) fn read(name: &str) -> Vec<u8> {
    std::fs::read(support::testdata().join("litertlm").join(name)).unwrap()
}

pub(crate) fn header_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path.with_extension("header.json")).unwrap()).unwrap()
}

#[test]
fn every_file_verifies_with_the_header_and_sections_read_by_hand() {
    let mut tflite_sections = 0;
    for path in files() {
        let name = path.display();
        let bytes = std::fs::read(&path).unwrap();
        let file = LitertLmFile::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let r = header_json(&path);
        let h = &r["header"];
        let header = file.header();
        assert_eq!(
            [header.major, header.minor, header.patch].map(u64::from),
            [&h["major"], &h["minor"], &h["patch"]].map(|v| v.as_u64().unwrap()),
            "{name}"
        );
        assert_eq!(header.header_end, h["header_end_u64_at_24"].as_u64().unwrap(), "{name}");
        let reserved: String = header.reserved.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(reserved, h["bytes_20_24"].as_str().unwrap(), "{name}");
        let metadata = std::fs::read(path.with_extension("metadata.bin")).unwrap();
        assert_eq!(&bytes[32..header.header_end as usize], &metadata[..], "{name}: the metadata region");

        let sections = r["sections"].as_array().unwrap();
        assert_eq!(file.section_count(), sections.len(), "{name}");
        for s in sections {
            let i = s["index"].as_u64().unwrap() as usize;
            let section = file.section(i).unwrap();
            let (begin, end) = (s["begin_offset"].as_u64().unwrap(), s["end_offset"].as_u64().unwrap());
            assert_eq!((section.index, section.begin, section.end), (i, begin, end), "{name}: section {i}");
            assert_eq!(section.bytes, &bytes[begin as usize..end as usize], "{name}: section {i}");
            assert_eq!(section.data_type.name(), s["data_type"].as_str(), "{name}: section {i}");
            let items = section.object.items().map_or(0, |v| v.len());
            assert_eq!(items, s["items"].as_object().unwrap().len(), "{name}: section {i}");
            if let Some(source) = s["equals_file"].as_str().filter(|f| f.ends_with(".tflite")) {
                let original = std::fs::read(support::testdata().join("tflite").join(source)).unwrap();
                assert_eq!(section.bytes, &original[..], "{name}: section {i} is {source}");
                let model = file.tflite_model(i, &Options::DEFAULT).unwrap();
                assert_eq!(
                    model.raw().position(),
                    flatmodel::tflite::Model::parse(&original).unwrap().raw().position()
                );
                tflite_sections += 1;
            }
        }
        assert!(file.section(sections.len()).is_err(), "{name}: past the last section");
        assert_eq!(flatmodel::detect(&bytes), Some(flatmodel::Format::LitertLm));
        assert_eq!(flatmodel::File::parse(&bytes).unwrap().format(), flatmodel::Format::LitertLm);
    }
    assert!(tflite_sections >= 5, "{tflite_sections} TFLite sections compared");
}

pub(crate) fn with_field(bytes: &[u8], at: usize, value: &[u8]) -> Vec<u8> {
    let mut b = bytes.to_vec();
    b[at..at + value.len()].copy_from_slice(value);
    b
}

/// The file offset of field `slot` of the table at file offset `table`.
pub(crate) fn field_at(buf: &[u8], table: usize, slot: usize) -> usize {
    let soffset = i32::from_le_bytes(buf[table..table + 4].try_into().unwrap());
    let vtable = (table as i64 - soffset as i64) as usize;
    let voffset = u16::from_le_bytes(buf[vtable + 4 + 2 * slot..vtable + 6 + 2 * slot].try_into().unwrap()) as usize;
    assert_ne!(voffset, 0, "field {slot} is not stored");
    table + voffset
}

/// The file offsets of section `i`'s `begin_offset` and `end_offset`.
pub(crate) fn range_fields(bytes: &[u8], i: usize) -> (usize, usize) {
    let file = LitertLmFile::parse_structure(bytes).unwrap();
    let table = 32 + file.section(i).unwrap().object.raw().position();
    (field_at(bytes, table, 1), field_at(bytes, table, 2))
}

/// Section `i` of `bytes` moved to `[begin, end)`.
fn with_range(bytes: &[u8], i: usize, begin: u64, end: u64) -> Vec<u8> {
    let (b, e) = range_fields(bytes, i);
    with_field(&with_field(bytes, b, &begin.to_le_bytes()), e, &end.to_le_bytes())
}

#[track_caller]
pub(crate) fn refused(bytes: &[u8], kind: ErrorKind, path: &str) -> flatmodel::Error {
    let e = LitertLmFile::parse(bytes).err().unwrap_or_else(|| panic!("accepted, expected {kind:?} at {path}"));
    assert_eq!((e.kind(), e.location().to_string()), (kind, path.to_string()), "{e}");
    let any = flatmodel::File::parse(bytes).err();
    assert_eq!(any, Some(e), "File::parse gives the format's own verdict");
    e
}

#[test]
fn broken_headers_name_the_field() {
    let good = read("litertlm_sp_llm.litertlm");
    let len = good.len() as u64;
    refused(&with_field(&good, 24, &(len + 1).to_le_bytes()), ErrorKind::OutOfBounds, "LITERTLM.header_end");
    refused(&with_field(&good, 24, &u64::MAX.to_le_bytes()), ErrorKind::OutOfBounds, "LITERTLM.header_end");
    let short = ErrorKind::Rule("the metadata must end after the 32-byte header");
    refused(&with_field(&good, 24, &32u64.to_le_bytes()), short, "LITERTLM.header_end");
    refused(&with_field(&good, 24, &0u64.to_le_bytes()), short, "LITERTLM.header_end");
    refused(&good[..31], ErrorKind::Truncated, "LITERTLM.header_end");
    let e = LitertLmFile::parse(&with_field(&good, 0, b"LITERTLN")).unwrap_err();
    assert_eq!((e.kind(), e.location().to_string()), (ErrorKind::WrongIdentifier, "LITERTLM.magic".to_string()));
    // A header end inside the metadata leaves the flatbuffer cut short: the verifier's error,
    // at a file offset.
    let e = LitertLmFile::parse(&with_field(&good, 24, &100u64.to_le_bytes())).unwrap_err();
    assert!(e.offset() >= 32, "{e}");
    // The 4 bytes at 20..24 pad the header end to 8 bytes: read, not checked.
    let padded = with_field(&good, 20, &[1, 2, 3, 4]);
    assert_eq!(LitertLmFile::parse(&padded).unwrap().header().reserved, [1, 2, 3, 4]);
}

#[test]
fn broken_section_ranges_name_the_section_and_field() {
    let good = read("litertlm_many_sections.litertlm");
    let r = header_json(&support::testdata().join("litertlm/litertlm_many_sections.litertlm"));
    let range = |i: usize| {
        let s = &r["sections"][i];
        (s["begin_offset"].as_u64().unwrap(), s["end_offset"].as_u64().unwrap())
    };
    let len = good.len() as u64;
    let last = r["sections"].as_array().unwrap().len() - 1;
    let (b7, _) = range(last);
    let path = |i: usize, field: &str| format!("LiteRTLM.sections[{i}].{field}");

    // A section end past the file, by one byte, by far and past 4 GiB.
    for end in [len + 1, u64::MAX, 1 << 33] {
        refused(&with_range(&good, last, b7, end), ErrorKind::OutOfBounds, &path(last, "end_offset"));
    }
    // The file cut short of its last section.
    refused(&good[..good.len() - 1], ErrorKind::OutOfBounds, &path(last, "end_offset"));
    // A section ending before it begins.
    let reversed = ErrorKind::Rule("a section must not end before it begins");
    refused(&with_range(&good, 3, range(3).1, range(3).0), reversed, &path(3, "end_offset"));
    // Sections inside the header, inside the metadata.
    let header_end = r["header"]["header_end_u64_at_24"].as_u64().unwrap();
    let inside = ErrorKind::Rule("a section must not reach into the header or the metadata");
    refused(&with_range(&good, 0, 0, 16), inside, &path(0, "begin_offset"));
    refused(&with_range(&good, 2, header_end - 1, range(2).1), inside, &path(2, "begin_offset"));
    // Two sections overlapping: in file order, and out of it (the last moved into the first).
    let overlap = ErrorKind::Rule("sections must not overlap");
    let e = refused(&with_range(&good, 1, range(0).1 - 1, range(1).1), overlap, &path(1, "begin_offset"));
    assert!(e.offset() > 32 && e.offset() < header_end, "{e}: at the section's entry");
    refused(&with_range(&good, last, range(0).0 + 1, range(0).0 + 2), overlap, &path(last, "begin_offset"));
    refused(&with_range(&good, last, range(4).0, range(6).1), overlap, &path(last, "begin_offset"));
    // Out of order but apart (the last moved into the gap after the first), or empty where
    // another lies: accepted.
    let gap = with_range(&good, last, range(0).1, range(1).0);
    assert!(LitertLmFile::parse(&gap).is_ok());
    let empty = with_range(&good, last, range(2).0 + 4, range(2).0 + 4);
    assert!(LitertLmFile::parse(&empty).is_ok());
    // A section right after the metadata is fine (section 0, a protobuf, moved there with its
    // bytes, as its contents are checked too).
    let (b0, e0) = range(0);
    let mut early = with_range(&good, 0, header_end, header_end + (e0 - b0));
    early[header_end as usize..(header_end + e0 - b0) as usize].copy_from_slice(&good[b0 as usize..e0 as usize]);
    assert!(LitertLmFile::parse(&early).is_ok());
    // Structure alone accepts every one of these; the ranges are rules.
    assert!(LitertLmFile::parse_structure(&with_range(&good, last, b7, u64::MAX)).is_ok());
}

#[test]
fn unknown_section_types_read_as_numbers() {
    let good = read("litertlm_many_sections.litertlm");
    let file = LitertLmFile::parse(&good).unwrap();
    let last = file.section_count() - 1;
    let table = 32 + file.section(last).unwrap().object.raw().position();
    let at = field_at(&good, table, 3);
    let edited = with_field(&good, at, &[200]);
    let section = LitertLmFile::parse(&edited).unwrap().section(last).unwrap();
    assert_eq!((section.data_type.0, section.data_type.name()), (200, None));
    assert_eq!(format!("{:?}", section.data_type), "AnySectionDataType(200)");
    // A section that becomes a TFLiteModel is verified as one: these bytes are not.
    let tflite = with_field(&good, at, &[AnySectionDataType::TFLiteModel.0]);
    let e = LitertLmFile::parse(&tflite).unwrap_err();
    assert!(e.location().to_string().starts_with(&format!("LiteRTLM.sections[{last}](TFLiteModel)")), "{e}");
}

#[test]
fn a_broken_tflite_section_is_located_through_the_container() {
    let good = read("litertlm_many_sections.litertlm");
    let file = LitertLmFile::parse(&good).unwrap();
    let r = header_json(&support::testdata().join("litertlm/litertlm_many_sections.litertlm"));
    let s = &r["sections"][2];
    assert_eq!(s["data_type"], "TFLiteModel");
    let (begin, end) = (s["begin_offset"].as_u64().unwrap(), s["end_offset"].as_u64().unwrap());
    // The first tensor's name, made invalid UTF-8.
    let model = file.tflite_model(2, &Options::DEFAULT).unwrap();
    let name = model.subgraphs().unwrap().get(0).unwrap().tensors().unwrap().get(0).unwrap().name().unwrap();
    let at = name.as_ptr() as usize - good.as_ptr() as usize;
    assert!((begin as usize..end as usize).contains(&at));
    let broken = with_field(&good, at, &[0xff]);
    let path = "LiteRTLM.sections[2](TFLiteModel): Model.subgraphs[0].tensors[0].name";
    let e = refused(&broken, ErrorKind::InvalidUtf8, path);
    assert!((begin..end).contains(&e.offset()), "{e}: inside the section");
    assert_eq!(e.to_string(), format!("string is not valid UTF-8 at byte {} ({path})", e.offset()));
    // The same error through the section's accessor; the other sections still read.
    let structure = LitertLmFile::parse_structure(&broken).unwrap();
    assert_eq!(structure.tflite_model(2, &Options::DEFAULT).err(), Some(e));
    assert!(structure.tflite_model(3, &Options::DEFAULT).is_ok());
    let not_a_model = structure.tflite_model(0, &Options::DEFAULT).unwrap_err();
    assert_eq!(not_a_model.location().to_string(), "LiteRTLM.sections[0].data_type");
    // The section's root offset sent past the section.
    let root = with_field(&good, begin as usize, &u32::MAX.to_le_bytes());
    let e = LitertLmFile::parse(&root).unwrap_err();
    assert!(e.location().to_string().starts_with("LiteRTLM.sections[2](TFLiteModel)"), "{e}");
    assert!(e.offset() >= begin, "{e}");
}

#[test]
fn truncations_and_header_flips_never_panic() {
    for path in files() {
        let bytes = std::fs::read(&path).unwrap();
        let header_end = LitertLmFile::parse(&bytes).unwrap().header().header_end as usize;
        for end in (0..header_end + 64).chain((header_end + 64..bytes.len()).step_by(61)) {
            assert!(LitertLmFile::parse(&bytes[..end]).is_err(), "{}: prefix {end} accepted", path.display());
        }
        for at in 0..header_end {
            let mut b = bytes.clone();
            b[at] ^= 0xff;
            let _ = LitertLmFile::parse(&b);
        }
    }
}
