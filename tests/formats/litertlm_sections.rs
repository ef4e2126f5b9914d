//! LiteRT-LM sections checked by their type (`docs/litertlm.md` §8.3): every corpus section of
//! a checked type passes; an HF tokenizer section's declared size, zlib stream, Adler-32 and
//! cap, and a protobuf section's varints, lengths, wire types and field numbers, each broken in
//! a copy of a testdata file, fail with their kind at `LiteRTLM.sections[i](Type)` and the file
//! offset of the byte at fault; any bytes in such a section never panic.

use super::litertlm::{field_at, header_json, range_fields, read, refused, with_field};
use crate::support;

use flatmodel::litertlm::{AnySectionDataType, LitertLmFile};
use flatmodel::verify::Options;
use flatmodel::ErrorKind;
use proptest::prelude::*;
use std::io::Write;

/// Holds the sections of each checked type: 0 TFLiteModel, 1 HF_Tokenizer_Zlib, 2
/// LlmMetadataProto (the file's last section).
const HF: &str = "litertlm_hf_all_value_types.litertlm";
/// 0 LlmMetadataProto, 1 SP_Tokenizer (room for 16 KiB before the next), 2 TFLiteModel.
const SP: &str = "litertlm_sp_llm.litertlm";

const MORE: ErrorKind = ErrorKind::Rule("the zlib stream inflates to more than its declared size");
const LESS: ErrorKind = ErrorKind::Rule("the zlib stream inflates to less than its declared size");
const ADLER: ErrorKind = ErrorKind::Rule("the zlib stream's Adler-32 does not match what it inflates to");
const TRAILING: ErrorKind = ErrorKind::Rule("the section must end where its zlib stream ends");
const INVALID: ErrorKind = ErrorKind::Rule("the zlib stream is invalid (its 2-byte header or its deflate data)");
const GROUP: ErrorKind = ErrorKind::Rule("protobuf groups (wire types 3 and 4) are not accepted");
const FIELD_ZERO: ErrorKind = ErrorKind::Rule("a protobuf field number must not be 0");
const LONG_VARINT: ErrorKind = ErrorKind::Rule("a protobuf varint must fit 64 bits in at most 10 bytes");
const NO_WIRE_TYPE: ErrorKind = ErrorKind::Rule("protobuf wire types 6 and 7 do not exist");

/// Section `i`'s `[begin, end)`.
fn range(bytes: &[u8], i: usize) -> (usize, usize) {
    let s = LitertLmFile::parse_structure(bytes).unwrap().section(i).unwrap();
    (s.begin as usize, s.end as usize)
}

/// `bytes` with section `i` ending at `end` (its begin kept).
fn with_end(bytes: &[u8], i: usize, end: usize) -> Vec<u8> {
    let (_, e) = range_fields(bytes, i);
    with_field(bytes, e, &(end as u64).to_le_bytes())
}

/// `bytes` with section `i` holding `contents`: written at its begin, its end moved. The last
/// section in the file takes any length (the file grows or shrinks); another must fit before
/// the next section.
fn with_contents(bytes: &[u8], i: usize, contents: &[u8]) -> Vec<u8> {
    let file = LitertLmFile::parse_structure(bytes).unwrap();
    let (begin, end) = range(bytes, i);
    let (_, end_field) = range_fields(bytes, i);
    let next = (0..file.section_count()).map(|j| file.section(j).unwrap().begin as usize).filter(|&b| b > begin).min();
    let mut b = bytes.to_vec();
    match next {
        None => {
            b.truncate(begin);
            b.extend_from_slice(contents);
        }
        Some(next) => {
            assert!(begin + contents.len() <= next, "{} bytes do not fit section {i}", contents.len());
            b[begin..end].fill(0);
            b[begin..begin + contents.len()].copy_from_slice(contents);
        }
    }
    with_field(&b, end_field, &((begin + contents.len()) as u64).to_le_bytes())
}

/// `bytes` with section `i` of type `t`.
fn with_type(bytes: &[u8], i: usize, t: AnySectionDataType) -> Vec<u8> {
    let table = 32 + LitertLmFile::parse_structure(bytes).unwrap().section(i).unwrap().object.raw().position();
    with_field(bytes, field_at(bytes, table, 3), &[t.0])
}

/// `data` compressed as a zlib stream.
fn zlib(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// An HF tokenizer section: `declared`, then `stream`.
fn hf_section(declared: u64, stream: &[u8]) -> Vec<u8> {
    let mut s = declared.to_le_bytes().to_vec();
    s.extend_from_slice(stream);
    s
}

#[test]
fn every_corpus_section_of_a_checked_type_passes() {
    let mut dirs = vec![support::testdata().join("litertlm")];
    dirs.extend(support::corpus().map(|c| c.join("litertlm")));
    let mut checked = std::collections::BTreeMap::<&str, usize>::new();
    for path in dirs.iter().flat_map(|d| support::files_with_suffix(d, ".litertlm")) {
        let bytes = std::fs::read(&path).unwrap();
        let file = LitertLmFile::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let r = header_json(&path);
        for s in r["sections"].as_array().unwrap() {
            let section = file.section(s["index"].as_u64().unwrap() as usize).unwrap();
            if let Some(hf) = s.get("hf_zlib") {
                // The declared size read by hand, and what Python's zlib inflated it to.
                let declared = u64::from_le_bytes(section.bytes[..8].try_into().unwrap());
                assert_eq!(declared, hf["uncompressed_size_prefix_u64"].as_u64().unwrap());
                assert_eq!(declared, hf["decompressed_len"].as_u64().unwrap());
            }
            *checked.entry(section.data_type.name().unwrap()).or_default() += 1;
        }
    }
    for t in ["HF_Tokenizer_Zlib", "SP_Tokenizer", "LlmMetadataProto", "ExecutorMetadataProto"] {
        assert!(checked.get(t).is_some_and(|&n| n >= 1), "no {t} section in {checked:?}");
    }
}

#[test]
fn an_hf_tokenizer_inflates_to_exactly_its_declared_size() {
    let good = read(HF);
    let (begin, end) = range(&good, 1);
    let declared = u64::from_le_bytes(good[begin..begin + 8].try_into().unwrap());
    assert_eq!(declared, 7009);
    let size = "LiteRTLM.sections[1](HF_Tokenizer_Zlib).uncompressed_size";
    let stream = "LiteRTLM.sections[1](HF_Tokenizer_Zlib).zlib";
    // A declared size one too small, one too large, far too large: located at the size.
    for (claim, kind) in [(declared - 1, MORE), (declared + 1, LESS), (0, MORE), (1 << 29, LESS)] {
        let e = refused(&with_field(&good, begin, &claim.to_le_bytes()), kind, size);
        assert_eq!(e.offset(), begin as u64, "{e}");
    }
    // The stream cut short (inside its Adler-32, and inside its deflate data): at the cut.
    for cut in [2, 100] {
        let e = refused(&with_end(&good, 1, end - cut), ErrorKind::Truncated, stream);
        assert_eq!(e.offset(), (end - cut) as u64, "{e}");
    }
    // A section of 8 bytes or fewer: no stream, or not even a size.
    refused(&with_end(&good, 1, begin + 8), ErrorKind::Truncated, stream);
    let e = refused(&with_end(&good, 1, begin + 7), ErrorKind::Truncated, size);
    assert_eq!(e.offset(), begin as u64 + 7, "{e}");
    // The Adler-32 (the stream's last 4 bytes) flipped: at its first byte.
    let mut adler = good.clone();
    adler[end - 1] ^= 1;
    let e = refused(&adler, ADLER, stream);
    assert_eq!(e.offset(), (end - 4) as u64, "{e}");
    // A zlib header that is not one (a preset dictionary asked for; its check bits broken).
    let mut header = good.clone();
    header[begin + 9] ^= 0x20;
    let e = refused(&header, INVALID, stream);
    assert!((begin as u64 + 8..end as u64).contains(&e.offset()), "{e}");
    // A byte after the stream (the padding that follows, taken into the section).
    let e = refused(&with_end(&good, 1, end + 1), TRAILING, stream);
    assert_eq!(e.offset(), end as u64, "{e}");
    // Another stream of the same data, written by flate2, is as good.
    let (b, e) = (begin + 8, end);
    let data = {
        let mut d = flate2::read::ZlibDecoder::new(&good[b..e]);
        let mut out = Vec::new();
        std::io::Read::read_to_end(&mut d, &mut out).unwrap();
        out
    };
    assert_eq!(data.len() as u64, declared);
    assert!(LitertLmFile::parse(&with_contents(&good, 1, &hf_section(declared, &zlib(&data)))).is_ok());
    // Deflate data that is not deflate: block type 3 does not exist.
    let mut broken = zlib(&data);
    broken[2] |= 0b110;
    let e = refused(&with_contents(&good, 1, &hf_section(declared, &broken)), INVALID, stream);
    assert!(e.offset() >= begin as u64 + 10, "{e}");
}

#[test]
fn an_hf_tokenizer_is_capped_before_it_is_inflated() {
    let good = read(HF);
    let (begin, _) = range(&good, 1);
    let size = "LiteRTLM.sections[1](HF_Tokenizer_Zlib).uncompressed_size";
    // The declared size against the options' cap: one past it, and far past the default.
    let capped = Options { max_inflated_size: 7008, ..Options::DEFAULT };
    let e = LitertLmFile::parse_with(&good, &capped).unwrap_err();
    assert_eq!(
        (e.kind(), e.location().to_string(), e.offset()),
        (ErrorKind::InflatedSizeLimit, size.into(), begin as u64)
    );
    let exact = Options { max_inflated_size: 7009, ..Options::DEFAULT };
    assert!(LitertLmFile::parse_with(&good, &exact).is_ok());
    refused(&with_field(&good, begin, &u64::MAX.to_le_bytes()), ErrorKind::InflatedSizeLimit, size);
    refused(&with_field(&good, begin, &((1u64 << 30) + 1).to_le_bytes()), ErrorKind::InflatedSizeLimit, size);
}

#[test]
fn a_zlib_bomb_stops_past_its_declared_size() {
    // 64 MiB of zeros, compressed a chunk at a time (the test never holds them), declared as
    // 1 MiB in the file's last section, made an HF tokenizer.
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    let chunk = vec![0u8; 1 << 20];
    for _ in 0..64 {
        e.write_all(&chunk).unwrap();
    }
    let bomb = e.finish().unwrap();
    assert!(bomb.len() < 128 << 10, "{}", bomb.len());
    let good = with_type(&read(HF), 2, AnySectionDataType::HF_Tokenizer_Zlib);
    let file = with_contents(&good, 2, &hf_section(1 << 20, &bomb));
    refused(&file, MORE, "LiteRTLM.sections[2](HF_Tokenizer_Zlib).uncompressed_size");
    // Declared as all it inflates to, it is bounded by the work budget (one unit per 16
    // bytes inflated, 16 units per byte of the file), and by a cap of 1 MiB before a byte is
    // inflated.
    let whole = with_contents(&good, 2, &hf_section(64 << 20, &bomb));
    assert_eq!(LitertLmFile::parse(&whole).unwrap_err().kind(), ErrorKind::ApparentSizeLimit);
    let capped = Options { max_inflated_size: 1 << 20, ..Options::DEFAULT };
    let e = LitertLmFile::parse_with(&whole, &capped).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InflatedSizeLimit, "{e}");
    // 1 MiB of zeros fits the budget of this 22 KB file; with no budget past the slack (4,096
    // units, 64 KiB inflated) it does not.
    let small = with_contents(&good, 2, &hf_section(1 << 20, &zlib(&chunk)));
    assert!(LitertLmFile::parse(&small).is_ok());
    let no_budget = Options { apparent_size_per_byte: 0, ..Options::DEFAULT };
    assert_eq!(LitertLmFile::parse_with(&small, &no_budget).unwrap_err().kind(), ErrorKind::ApparentSizeLimit);
}

/// `message` with `tail` appended.
fn plus(message: &[u8], tail: &[u8]) -> Vec<u8> {
    [message, tail].concat()
}

#[test]
fn a_broken_metadata_proto_is_located_at_the_byte_at_fault() {
    let good = read(HF);
    let (begin, end) = range(&good, 2);
    let llm = good[begin..end].to_vec();
    let path = "LiteRTLM.sections[2](LlmMetadataProto)";
    let at = |e: flatmodel::Error| e.offset() - begin as u64;
    let n = llm.len() as u64;
    // A varint cut short (field 5's value), a tag cut short, a 64-bit overflow.
    assert_eq!(at(refused(&with_contents(&good, 2, &plus(&llm, &[0x28, 0x96])), ErrorKind::Truncated, path)), n + 1);
    assert_eq!(at(refused(&with_contents(&good, 2, &plus(&llm, &[0x80])), ErrorKind::Truncated, path)), n);
    let overflow = plus(&llm, &[0x28, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02]);
    assert_eq!(at(refused(&with_contents(&good, 2, &overflow), LONG_VARINT, path)), n + 1);
    // A length past the section's end, by one byte and by far: at the length.
    assert_eq!(
        at(refused(&with_contents(&good, 2, &plus(&llm, &[0x0a, 3, 1, 2])), ErrorKind::OutOfBounds, path)),
        n + 1
    );
    let far = plus(&llm, &[0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]);
    refused(&with_contents(&good, 2, &far), ErrorKind::OutOfBounds, path);
    // A fixed value cut short.
    refused(&with_contents(&good, 2, &plus(&llm, &[0x09, 1, 2, 3])), ErrorKind::Truncated, path);
    // A group (start and end tags), field number 0, wire type 6: at the tag.
    assert_eq!(at(refused(&with_contents(&good, 2, &plus(&llm, &[0x0b, 0x0c])), GROUP, path)), n);
    assert_eq!(at(refused(&with_contents(&good, 2, &plus(&llm, &[0x00, 0x01])), FIELD_ZERO, path)), n);
    assert_eq!(at(refused(&with_contents(&good, 2, &plus(&llm, &[0x0e])), NO_WIRE_TYPE, path)), n);
    // The section's own first byte broken: a group start tag.
    let e = refused(&with_field(&good, begin, &[0x0b]), GROUP, path);
    assert_eq!(e.offset(), begin as u64);
    // Well-formed fields the schema may not know, and an empty section, pass: the check is the
    // wire format's, not the schema's.
    let unknown = plus(&llm, &[0xf8, 0xff, 0xff, 0xff, 0x0f, 1, 0x1d, 1, 2, 3, 4]);
    assert!(LitertLmFile::parse(&with_contents(&good, 2, &unknown)).is_ok());
    assert!(LitertLmFile::parse(&with_contents(&good, 2, &[])).is_ok());
    // Every metadata proto type is walked the same way, each named in the path.
    let names = [
        (AnySectionDataType::EmbeddingMetadataProto, "EmbeddingMetadataProto"),
        (AnySectionDataType::ExecutorMetadataProto, "ExecutorMetadataProto"),
        (AnySectionDataType::TtsMetadataProto, "TtsMetadataProto"),
        (AnySectionDataType::AsrMetadataProto, "AsrMetadataProto"),
    ];
    for (t, name) in names {
        let typed = with_type(&good, 2, t);
        assert!(LitertLmFile::parse(&typed).is_ok(), "{name}");
        refused(&with_contents(&typed, 2, &plus(&llm, &[0x0b])), GROUP, &format!("LiteRTLM.sections[2]({name})"));
    }
    // Types without a contents check accept the same bytes.
    for t in [AnySectionDataType::GenericBinaryData, AnySectionDataType::TFLiteWeights, AnySectionDataType(200)] {
        assert!(LitertLmFile::parse(&with_contents(&with_type(&good, 2, t), 2, &plus(&llm, &[0x0b]))).is_ok());
    }
}

#[test]
fn a_broken_sentencepiece_model_is_located_at_its_field() {
    let good = read(SP);
    let (begin, end) = range(&good, 1);
    let model = good[begin..end].to_vec();
    let top = "LiteRTLM.sections[1](SP_Tokenizer)";
    let n = model.len() as u64;
    refused(&with_contents(&good, 1, &plus(&model, &[0x08, 0x96])), ErrorKind::Truncated, top);
    refused(&with_contents(&good, 1, &plus(&model, &[0x0a, 9, 0])), ErrorKind::OutOfBounds, top);
    refused(&with_contents(&good, 1, &plus(&model, &[0x0b])), GROUP, top);
    refused(&with_contents(&good, 1, &plus(&model, &[0x00, 0x00])), FIELD_ZERO, top);
    // The model's pieces (field 1) are messages: one more piece, holding a group, is piece 96
    // (the model has 96), located at the group's tag inside it.
    let pieces = count_pieces(&model);
    assert_eq!(pieces, 96);
    let e = refused(
        &with_contents(&good, 1, &plus(&model, &[0x0a, 2, 0x0b, 0x0c])),
        GROUP,
        &format!("{top}.pieces[{pieces}]"),
    );
    assert_eq!(e.offset(), begin as u64 + n + 2);
    // So are trainer_spec (2), normalizer_spec (3), self_test_data (4), denormalizer_spec (5).
    for (field, name) in
        [(2u8, "trainer_spec"), (3, "normalizer_spec"), (4, "self_test_data"), (5, "denormalizer_spec")]
    {
        let broken = plus(&model, &[field << 3 | 2, 3, 0x08, 0x96, 0x96]);
        let e = refused(&with_contents(&good, 1, &broken), ErrorKind::Truncated, &format!("{top}.{name}"));
        assert_eq!(e.offset(), begin as u64 + n + 3, "{e}");
        // The same field as a varint is not a message: the check stays at the wire format.
        assert!(LitertLmFile::parse(&with_contents(&good, 1, &plus(&model, &[field << 3, 1]))).is_ok());
    }
    // A piece with a field of its own broken in place: the first piece's string length made
    // to run past the piece (but not past the section).
    assert_eq!(&model[..2], &[0x0a, model[1]], "the model starts with a piece");
    let mut first = model.clone();
    assert_eq!(first[2], 0x0a, "the piece starts with its string");
    first[3] = model[1];
    refused(&with_contents(&good, 1, &first), ErrorKind::OutOfBounds, &format!("{top}.pieces[0]"));
    // A field past 200 (ModelProto's extensions) is not walked into.
    assert!(LitertLmFile::parse(&with_contents(&good, 1, &plus(&model, &[0xc2, 0x0c, 1, 0x0b]))).is_ok());
}

/// How many field-1 entries the message `m` holds at its top level (read by hand).
fn count_pieces(m: &[u8]) -> usize {
    let (mut at, mut pieces) = (0, 0);
    let varint = |at: &mut usize| {
        let (mut v, mut shift) = (0u64, 0);
        loop {
            let b = m[*at];
            *at += 1;
            v |= u64::from(b & 0x7f) << shift;
            shift += 7;
            if b < 0x80 {
                return v;
            }
        }
    };
    while at < m.len() {
        let tag = varint(&mut at);
        assert_eq!(tag & 7, 2, "ModelProto's fields are all messages");
        pieces += usize::from(tag >> 3 == 1);
        at += varint(&mut at) as usize;
    }
    pieces
}

#[test]
fn a_protobuf_section_charges_its_fields_to_the_work_budget() {
    let good = read(HF);
    // 6,000 one-byte-valued fields: more than the slack alone allows (4,096 units).
    let many = [0x28, 0x00].repeat(6000);
    let file = with_contents(&good, 2, &many);
    assert!(LitertLmFile::parse(&file).is_ok());
    let no_budget = Options { apparent_size_per_byte: 0, ..Options::DEFAULT };
    assert_eq!(LitertLmFile::parse_with(&file, &no_budget).unwrap_err().kind(), ErrorKind::ApparentSizeLimit);
    assert!(LitertLmFile::parse_with(&with_contents(&good, 2, &many[..2000]), &no_budget).is_ok());
}

const CHECKED: [AnySectionDataType; 7] = [
    AnySectionDataType::SP_Tokenizer,
    AnySectionDataType::LlmMetadataProto,
    AnySectionDataType::HF_Tokenizer_Zlib,
    AnySectionDataType::EmbeddingMetadataProto,
    AnySectionDataType::ExecutorMetadataProto,
    AnySectionDataType::TtsMetadataProto,
    AnySectionDataType::AsrMetadataProto,
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    /// Any bytes in a section of a checked type: no panic, and any error lies in that section.
    #[test]
    fn any_section_bytes_never_panic(t in 0..CHECKED.len(), bytes in proptest::collection::vec(any::<u8>(), 0..300), size in any::<u16>()) {
        let good = with_type(&read(HF), 2, CHECKED[t]);
        let (begin, _) = range(&good, 2);
        // Half the HF cases get a small declared size, so that their stream is read.
        let contents = if CHECKED[t] == AnySectionDataType::HF_Tokenizer_Zlib && size % 2 == 0 {
            hf_section(u64::from(size), &bytes)
        } else {
            bytes
        };
        let file = with_contents(&good, 2, &contents);
        if let Err(e) = LitertLmFile::parse(&file) {
            let path = e.location().to_string();
            let prefix = format!("LiteRTLM.sections[2]({})", CHECKED[t].name().unwrap());
            prop_assert!(path.starts_with(&prefix), "{}", e);
            prop_assert!((begin as u64..=file.len() as u64).contains(&e.offset()), "{}", e);
        }
    }
}
