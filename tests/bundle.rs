//! Model bundles (`flatmodel::bundle`): zip archives of models that are not nnpackages, such as
//! MediaPipe's `.task`. Archives are written here by the nnpackage tests' zip writer; expected
//! sizes, offsets and errors come from the input files and the formats' own parsers, not from
//! the bundle reader.
#![cfg(feature = "nnpackage")]

mod nnpackage_support;
mod support;

use flatmodel::bundle::{is_bundle, Bundle, Storage};
use flatmodel::nnpackage::{Limits, PackageErrorKind as Kind};
use flatmodel::{tflite, File, Format};
use nnpackage_support::*;

fn read(archive: &[u8]) -> Bundle<'_> {
    Bundle::read(archive, &Limits::DEFAULT).unwrap_or_else(|e| panic!("bundle refused: {e}"))
}

/// Where a stored entry's data starts, as the zip writer lays entries out: each local header
/// (30 bytes and the name) then the data, one after the other.
fn stored_offsets(entries: &[(&str, &[u8])]) -> Vec<u64> {
    let mut at = 0u64;
    entries
        .iter()
        .map(|(name, data)| {
            let start = at + 30 + name.len() as u64;
            at = start + data.len() as u64;
            start
        })
        .collect()
}

#[test]
fn a_stored_bundle_of_two_tflite_models_lists_both_as_views_into_the_archive() {
    let (detector, landmarks) = (model_bytes("sine_float"), model_bytes("tf_convnet_int8_full"));
    let files: [(&str, &[u8]); 2] =
        [("hand_detector.tflite", &detector), ("hand_landmarks_detector.tflite", &landmarks)];
    let archive = zip(&files.map(|(n, d)| ZipEntry::stored(n, d)));
    assert!(is_bundle(&archive));
    let bundle = read(&archive);
    assert_eq!(bundle.members().len(), 2);
    let offsets = stored_offsets(&files);
    for ((member, (name, data)), offset) in bundle.members().iter().zip(files).zip(offsets) {
        assert_eq!(member.name(), name);
        assert_eq!(member.size(), data.len());
        assert_eq!(member.bytes(), data);
        assert_eq!(member.format(), Some(Format::Tflite));
        assert_eq!(member.storage(), Storage::Stored { offset });
        // Zero-copy: the member's bytes are the archive's own.
        let start = member.bytes().as_ptr() as usize - archive.as_ptr() as usize;
        assert_eq!(start as u64, offset);
    }
    for (i, data) in [&detector, &landmarks].into_iter().enumerate() {
        let Some(Ok(File::Tflite(model))) = bundle.member_file(i) else { panic!("member {i} is no TFLite view") };
        let expected = tflite::Model::parse(data).unwrap();
        assert_eq!(model.subgraphs().map(|s| s.len()), expected.subgraphs().map(|s| s.len()));
        assert_eq!(model.buffers().map(|b| b.len()), expected.buffers().map(|b| b.len()));
    }
}

#[test]
fn a_deflated_bundle_inflates_each_member_and_verifies_it() {
    let (a, b) = (model_bytes("tf_convnet_fp16"), model_bytes("sine_float"));
    let archive = zip(&[ZipEntry::deflated("a.tflite", &a), ZipEntry::deflated("b.tflite", &b)]);
    let bundle = read(&archive);
    let compressed = |data: &[u8]| {
        let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut e, data).unwrap();
        e.finish().unwrap().len() as u64
    };
    for (member, data) in bundle.members().iter().zip([&a, &b]) {
        assert_eq!(member.bytes(), data.as_slice());
        assert_eq!(member.storage(), Storage::Deflated { compressed: compressed(data) });
        assert_eq!(member.format(), Some(Format::Tflite));
        assert_eq!(member.archive_offset(0), None);
    }
    assert!(matches!(bundle.member_file(1), Some(Ok(File::Tflite(_)))));
}

#[test]
fn members_are_recognised_by_content_and_unknown_ones_are_listed_unverified() {
    // An LLM `.task`'s layout: models without extensions, a tokenizer and metadata no format claims.
    let model = model_bytes("sine_float");
    let tokenizer = b"\x0a\x0b\x0a\x05<unk>\x15\x00\x00\x00\x00 not a model".to_vec();
    let archive = zip(&[
        ZipEntry::stored("TF_LITE_PREFILL_DECODE", &model),
        ZipEntry::deflated("TOKENIZER_MODEL", &tokenizer),
        ZipEntry::stored("METADATA", b"\x12\x03abc"),
        ZipEntry::stored("labels.tflite", b"this is no model, whatever its name says"),
    ]);
    let bundle = read(&archive);
    let seen: Vec<(&str, Option<Format>, usize)> =
        bundle.members().iter().map(|m| (m.name(), m.format(), m.size())).collect();
    assert_eq!(
        seen,
        [
            ("TF_LITE_PREFILL_DECODE", Some(Format::Tflite), model.len()),
            ("TOKENIZER_MODEL", None, tokenizer.len()),
            ("METADATA", None, 5),
            ("labels.tflite", None, 40),
        ]
    );
    assert!(bundle.member_file(1).is_none());
    assert!(bundle.member_file(4).is_none());
}

#[test]
fn buffer_offsets_count_from_the_member_not_the_archive() {
    // Its weights lie after the flatbuffer (Buffer.offset), so a reader that counted from the
    // archive would find other bytes.
    let offsets_model = model_bytes("tf_convnet_buffer_offset");
    let archive = zip(&[ZipEntry::stored("first.bin", &[7; 333]), ZipEntry::stored("model", &offsets_model)]);
    let bundle = read(&archive);
    let Some(Ok(File::Tflite(model))) = bundle.member_file(1) else { panic!("no TFLite view of the member") };
    let own = tflite::Model::parse(&offsets_model).unwrap();
    use flatmodel::graph::ModelView;
    let outside = own.buffer_bytes().1;
    assert!(outside > 0, "the model keeps no buffer outside its flatbuffer");
    assert_eq!(model.buffer_bytes(), own.buffer_bytes());
    let buffers = own.buffers().unwrap().len() as u32;
    let mut with_offset = 0;
    for i in 0..buffers {
        let expected = own.buffer_data(i).unwrap();
        with_offset += usize::from(own.buffers().unwrap().get(i as usize).unwrap().offset() > 1);
        assert_eq!(model.buffer_data(i).unwrap(), expected, "buffer {i}");
    }
    assert!(with_offset > 0, "the model keeps no buffer outside its flatbuffer");
}

#[test]
fn a_corrupt_member_fails_the_bundle_naming_it_and_the_bytes() {
    let good = model_bytes("sine_float");
    let mut bad = model_bytes("tf_convnet_int8_full");
    bad.truncate(bad.len() / 2);
    let expected = tflite::Model::parse(&bad).unwrap_err();
    let files: [(&str, &[u8]); 2] = [("palm.tflite", &good), ("hand_detector.tflite", &bad)];
    let archive = zip(&files.map(|(n, d)| ZipEntry::stored(n, d)));
    assert!(is_bundle(&archive));
    let e = Bundle::read(&archive, &Limits::DEFAULT).unwrap_err();
    assert_eq!(e.kind(), Kind::Model);
    assert_eq!(e.at(), "hand_detector.tflite");
    assert_eq!(e.model(), Some(&expected));
    let in_archive = stored_offsets(&files)[1] + expected.offset();
    assert!(e.reason().starts_with("TFLite: "), "{e}");
    assert!(e.reason().contains(&expected.to_string()), "{e}");
    assert!(e.reason().ends_with(&format!(", archive byte {in_archive}")), "{e}");
    assert!(e.to_string().starts_with("hand_detector.tflite: TFLite: "), "{e}");

    // Deflated, the member's own offset is all there is.
    let archive = zip(&[ZipEntry::deflated("hand_detector.tflite", &bad)]);
    let e = Bundle::read(&archive, &Limits::DEFAULT).unwrap_err();
    assert_eq!(e.model(), Some(&expected));
    assert!(e.reason().ends_with(", in the member as inflated"), "{e}");
}

#[test]
fn a_member_failing_its_crc_fails_the_bundle() {
    let model = model_bytes("sine_float");
    let mut entry = ZipEntry::stored("m.tflite", &model);
    entry.crc = Some(crc32(&model) ^ 1);
    let e = Bundle::read(&zip(&[entry]), &Limits::DEFAULT).unwrap_err();
    assert_eq!(e.kind(), Kind::Zip);
    assert!(e.to_string().contains("\"m.tflite\": CRC-32 mismatch"), "{e}");
}

#[test]
fn the_nnpackage_zip_limits_apply() {
    let model = model_bytes("sine_float");
    let three: Vec<ZipEntry> = (0..3).map(|i| ZipEntry::stored(&format!("m{i}.tflite"), &model)).collect();
    let archive = zip(&three);
    let few = Limits { max_zip_entries: 2, ..Limits::DEFAULT };
    let e = Bundle::read(&archive, &few).unwrap_err();
    assert_eq!(e.kind(), Kind::TooLarge);
    assert!(e.to_string().contains("3 entries, more than the limit of 2"), "{e}");

    // Two members fit the byte budget, the third does not: stored members count too.
    let len = model.len() as u64;
    let small = Limits { max_zip_bytes: 2 * len + len / 2, ..Limits::DEFAULT };
    let e = Bundle::read(&archive, &small).unwrap_err();
    assert_eq!(e.kind(), Kind::TooLarge);
    let left = small.max_zip_bytes - 2 * len;
    assert!(e.to_string().contains(&format!("\"m2.tflite\": declares {len} bytes, more than the {left}")), "{e}");

    // A deflated member that inflates past its declared size.
    let mut liar = ZipEntry::deflated("m.tflite", &model);
    liar.size = Some(100);
    let e = Bundle::read(&zip(&[liar]), &Limits::DEFAULT).unwrap_err();
    assert_eq!(e.kind(), Kind::TooLarge);
    assert!(e.to_string().contains("inflates to more than its declared 100 bytes"), "{e}");

    // Paths must stay inside the archive.
    let e = Bundle::read(&zip(&[ZipEntry::stored("../m.tflite", &model)]), &Limits::DEFAULT).unwrap_err();
    assert_eq!(e.kind(), Kind::PathEscapes);
}

#[test]
fn an_nnpackage_zip_stays_an_nnpackage() {
    for folder in ["", "pkg/"] {
        let archive = two_sines_zip(folder);
        assert!(!is_bundle(&archive), "folder {folder:?}");
        let e = Bundle::read(&archive, &Limits::DEFAULT).unwrap_err();
        assert_eq!(e.kind(), Kind::NotABundle);
        let package = flatmodel::nnpackage::Package::from_zip_bytes(
            flatmodel::nnpackage::FileBytes::from_vec(archive),
            &Limits::DEFAULT,
        )
        .unwrap();
        assert_eq!(package.models().len(), 2);
    }
}

#[test]
fn a_tflite_model_with_an_appended_zip_stays_a_tflite_model() {
    let model = model_bytes("sine_float");
    let with_labels = zip_after(&model, &[ZipEntry::stored("labels.txt", b"a\nb\n")]);
    assert!(!is_bundle(&with_labels));
    assert_eq!(flatmodel::detect(&with_labels), Some(Format::Tflite));
    assert!(matches!(File::parse(&with_labels), Ok(File::Tflite(_))));
}

#[test]
fn what_is_no_bundle() {
    assert!(!is_bundle(b""));
    assert!(!is_bundle(b"PK\x03\x04 but no central directory"));
    assert!(!is_bundle(&model_bytes("sine_float")));
    // An empty archive is a bundle of nothing.
    let empty = zip(&[]);
    assert!(is_bundle(&empty));
    assert!(read(&empty).members().is_empty());
}

/// A zip whose local header's version and flags spell a model's identifier (`FT01`, as the
/// bundle fuzz target found) is claimed by that format, alike from its bytes and from its path:
/// neither a bundle nor an nnpackage's zip.
#[test]
fn a_zip_whose_header_spells_an_identifier_is_that_format_from_bytes_and_path() {
    let mut archive = zip(&[ZipEntry::stored("sine_float.tflite", &model_bytes("sine_float"))]);
    assert!(is_bundle(&archive), "the archive as written");
    archive[4..8].copy_from_slice(b"FT01");
    assert_eq!(flatmodel::detect(&archive), Some(Format::Ptd));
    assert!(!is_bundle(&archive));
    let path = std::env::temp_dir().join(format!("flatmodel-ft01-zip-{}.zip", std::process::id()));
    std::fs::write(&path, &archive).unwrap();
    let container = flatmodel::nnpackage::container_of(&path);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(container, None, "from its path too, no zip container");
}
