//! Real models as planus's owned trees (code generated from the project's TFLite schema in
//! `benches/peers/`), for tests that edit exactly the values they name and write the model back.
#![allow(dead_code)]

#[rustfmt::skip]
#[path = "../../benches/peers/planus_generated.rs"]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery, unsafe_op_in_unsafe_fn)]
mod planus_generated;

use planus::ReadAsRoot;
pub use planus_generated::tflite as t;

/// The testdata model `name` as planus's owned tree.
pub fn model(name: &str) -> t::Model {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/tflite").join(format!("{name}.tflite"));
    let bytes = std::fs::read(&path).unwrap();
    t::Model::try_from(t::ModelRef::read_as_root(&bytes).unwrap()).unwrap()
}

/// The bytes of `model`, with TFLite's identifier at bytes 4..8. (planus 1.3 writes an
/// identifier before the root offset, so it is put in here: 8 bytes after the root offset, which
/// moves the root by 8 and keeps every alignment and relative offset.)
pub fn bytes(model: &t::Model) -> Vec<u8> {
    let plain = planus::Builder::new().finish(model, None).to_vec();
    let root = u32::from_le_bytes(plain[..4].try_into().unwrap()) + 8;
    let mut out = root.to_le_bytes().to_vec();
    out.extend_from_slice(b"TFL3\0\0\0\0");
    out.extend_from_slice(&plain[4..]);
    out
}
