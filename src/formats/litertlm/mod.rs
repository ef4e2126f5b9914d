//! LiteRT-LM's `.litertlm` files, the container Google ships its on-device language models in
//! (`docs/litertlm.md` §8): a 32-byte header (`LITERTLM`, the version, where the metadata ends),
//! the `LiteRTLMMetaData` flatbuffer (`schema.fbs`, no identifier), then sections of TFLite
//! models, tokenizers and protos.
//!
//! [`LitertLmFile::parse`] verifies the header, the metadata, every section's range (inside the
//! file, after the metadata, overlapping no other), each TFLiteModel section as a TFLite model,
//! each protobuf section as protobuf messages, and each HF tokenizer's zlib stream (inflated
//! with the `zlib` feature); [`LitertLmFile::section`] hands out a section's bytes.

mod contents;
mod file;
mod generated;
mod header;
mod proto;
#[cfg(feature = "zlib")]
mod zlib;

pub use file::{LitertLmFile, Section};
pub use generated::*;
pub use header::{Header, HEADER_LENGTH, MAGIC};

/// The root of rule errors' paths: `LiteRTLM.sections[2].end_offset`.
static LITERTLM: &str = "LiteRTLM";
/// `sections[i]`: the metadata's `section_metadata.objects[i]`.
static SECTIONS: &str = "sections";

/// Whether `bytes` start with the `LITERTLM` magic.
pub fn is_litertlm(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}
