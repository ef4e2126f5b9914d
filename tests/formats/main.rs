//! The library's readers on real and crafted files: each format's views and dump against the
//! independent tools' reference outputs (flatc, LiteRT, ONE), detection of any file, alignment,
//! metadata, LZ4, LiteRT-LM sections by type, vectors as iterables, the XNNPACK delegate.
//!
//! One test binary of the library's, by concern; each module was a test file of its own.

#[path = "../support/mod.rs"]
mod support;

mod alignment;
mod any_file;
mod circle;
mod crafted;
mod dump_matches_flatc;
mod litert_agreement;
mod litertlm;
mod litertlm_sections;
mod lz4_agreement;
mod metadata;
mod program_data;
mod ptd;
mod vectors;
mod vkgraph;
mod xnnpack;
