//! Metadata entries by name, and the contract of `metadata_bytes_with_identifier`: it looks at
//! the identifier and root offset only, so the bytes it returns are not a verified flatbuffer.

mod support;

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
    let model = Model::parse(&bytes).expect("metadata contents are opaque to the model rules");
    let returned = model.metadata_bytes_with_identifier("TFLITE_METADATA", *b"M001").unwrap();
    assert_eq!(returned.get(4..8), Some(&b"M001"[..]));
    assert!(returned[8..].iter().all(|&b| b == 0xff), "the garbage is handed out as is");
    // A root offset past the bytes is the one thing, besides the identifier, that is checked.
    bytes[range.start..range.start + 4].copy_from_slice(&(range.len() as u32).to_le_bytes());
    let model = Model::parse(&bytes).unwrap();
    assert_eq!(model.metadata_bytes_with_identifier("TFLITE_METADATA", *b"M001"), None);
}
