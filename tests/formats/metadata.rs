//! Metadata entries by name; the contract of `metadata_bytes_with_identifier` (it looks at the
//! identifier and root offset only, so the bytes it returns are not a verified flatbuffer); and
//! tflite-support's `TFLITE_METADATA` flatbuffer, verified as part of the model: its views, its
//! errors located through the model, its dump.

use crate::support;

use flatmodel::tflite::Model;

const MODEL: &str = "mp_face_detection_short_range";

fn model_bytes() -> Vec<u8> {
    std::fs::read(support::testdata().join("tflite").join(format!("{MODEL}.tflite"))).unwrap()
}

/// Where the `TFLITE_METADATA` bytes lie in `bytes`.
fn metadata_range(bytes: &[u8]) -> std::ops::Range<usize> {
    let model = Model::parse(bytes).unwrap();
    let found = model.metadata_bytes("TFLITE_METADATA").unwrap();
    let start = found.as_ptr() as usize - bytes.as_ptr() as usize;
    start..start + found.len()
}

#[test]
fn the_metadata_flatbuffer_is_the_extracted_reference() {
    let bytes = model_bytes();
    let model = Model::parse(&bytes).unwrap();
    let reference =
        std::fs::read(support::testdata().join("tflite").join(format!("{MODEL}.TFLITE_METADATA.M001.bin"))).unwrap();
    assert_eq!(model.metadata_bytes_with_identifier("TFLITE_METADATA", *b"M001"), Some(&reference[..]));
    // Another identifier, or an entry that does not exist: nothing.
    assert_eq!(model.metadata_bytes_with_identifier("TFLITE_METADATA", *b"TFL3"), None);
    assert_eq!(model.metadata_bytes_with_identifier("no such entry", *b"M001"), None);
}

#[test]
fn garbage_behind_the_identifier_comes_back_unverified() {
    let mut bytes = model_bytes();
    let range = metadata_range(&bytes);
    // Keep the root offset (bytes 0..4) and the identifier (4..8); everything after is garbage
    // (the root table's soffset becomes -1, so its "vtable" would start inside the table).
    for b in &mut bytes[range.start + 8..range.end] {
        *b = 0xff;
    }
    let structure = Model::parse_structure(&bytes).unwrap();
    let error = structure.support_metadata().unwrap().expect_err("the nested flatbuffer is verified when read");
    assert!(error.location().to_string().starts_with("Model.metadata[0](TFLITE_METADATA)"), "{error}");
    assert!(range.contains(&(error.offset() as usize)), "{error} lies in the nested bytes {range:?}");
    // With the `nested-metadata` feature, `parse` verifies it with the model.
    assert_eq!(Model::parse(&bytes).err(), cfg!(feature = "nested-metadata").then_some(error));
    let model = Model::parse_structure(&bytes).expect("the structure alone does not look inside");
    let returned = model.metadata_bytes_with_identifier("TFLITE_METADATA", *b"M001").unwrap();
    assert_eq!(returned.get(4..8), Some(&b"M001"[..]));
    assert!(returned[8..].iter().all(|&b| b == 0xff), "the garbage is handed out as is");
    // A root offset past the bytes is the one thing, besides the identifier, that is checked.
    bytes[range.start..range.start + 4].copy_from_slice(&(range.len() as u32).to_le_bytes());
    let model = Model::parse_structure(&bytes).unwrap();
    assert_eq!(model.metadata_bytes_with_identifier("TFLITE_METADATA", *b"M001"), None);
}

#[test]
fn the_views_read_what_flatc_reads() {
    let bytes = model_bytes();
    let model = Model::parse(&bytes).unwrap();
    let meta = model.support_metadata().expect("the model has TFLITE_METADATA").unwrap();
    let reference = support::read_json(
        &support::testdata().join("tflite").join(format!("{MODEL}.TFLITE_METADATA.M001.flatc.json")),
    );
    assert_eq!(meta.name(), reference["name"].as_str());
    assert_eq!(meta.version(), reference["version"].as_str());
    let subgraphs = meta.subgraph_metadata().unwrap();
    let theirs = reference["subgraph_metadata"].as_array().unwrap();
    assert_eq!(subgraphs.len(), theirs.len());
    let inputs = subgraphs.get(0).unwrap().input_tensor_metadata().unwrap();
    let their_inputs = theirs[0]["input_tensor_metadata"].as_array().unwrap();
    assert_eq!(inputs.len(), their_inputs.len());
    assert_eq!(inputs.get(0).unwrap().name(), their_inputs[0]["name"].as_str());
}

#[test]
fn a_broken_string_deep_inside_is_located_through_the_model() {
    let mut bytes = model_bytes();
    let model = Model::parse(&bytes).unwrap();
    let meta = model.support_metadata().unwrap().unwrap();
    let name = meta.subgraph_metadata().unwrap().get(0).unwrap().output_tensor_metadata().unwrap();
    let name = name.get(0).unwrap().name().unwrap();
    let at = name.as_ptr() as usize - bytes.as_ptr() as usize;
    bytes[at] = 0xff; // not UTF-8
    let error = Model::parse_structure(&bytes).unwrap().support_metadata().unwrap().unwrap_err();
    assert_eq!(Model::parse(&bytes).err(), cfg!(feature = "nested-metadata").then_some(error));
    assert_eq!(error.kind(), flatmodel::ErrorKind::InvalidUtf8, "{error}");
    assert_eq!(
        error.location().to_string(),
        "Model.metadata[0](TFLITE_METADATA).subgraph_metadata[0].output_tensor_metadata[0].name"
    );
    assert!(error.offset() as usize <= at && at < error.offset() as usize + 8, "{error}: the string is at {at}");
}

#[test]
fn too_deep_a_nested_flatbuffer_is_a_located_error() {
    let bytes = model_bytes();
    let shallow = flatmodel::verify::Options { max_depth: 3, ..flatmodel::verify::Options::DEFAULT };
    let model = Model::parse(&bytes).unwrap();
    let error = model.support_metadata_with(&shallow).unwrap().unwrap_err();
    assert_eq!(error.kind(), flatmodel::ErrorKind::DepthLimit, "{error}");
    assert!(error.location().to_string().starts_with("Model.metadata[0](TFLITE_METADATA)."), "{error}");
}

/// A metadata entry naming a buffer with no data (the capi fuzz target's finding,
/// `testdata/regressions/capi-empty-nested-metadata-buffer.bin`): its nested flatbuffer is too
/// short, at a byte inside the file, the same wherever the bytes sit in memory. (The offset was
/// the distance from the file to the empty slice an absent vector reads as.)
#[test]
fn an_empty_nested_metadata_buffer_is_located_inside_the_file_wherever_the_bytes_are() {
    let bytes = std::fs::read(support::testdata().join("regressions/capi-empty-nested-metadata-buffer.bin")).unwrap();
    let error = Model::parse(&bytes).unwrap_err();
    assert_eq!(error.kind(), flatmodel::ErrorKind::Truncated);
    assert_eq!(error.location().to_string(), "Model.metadata[1](CONVERSION_METADATA)");
    assert!(error.offset() < bytes.len() as u64, "offset {} past the file", error.offset());
    let mut elsewhere = vec![0u8; bytes.len() + 3];
    elsewhere[3..].copy_from_slice(&bytes);
    assert_eq!(Model::parse(&elsewhere[3..]).unwrap_err(), error, "the error depends on the address");
}
