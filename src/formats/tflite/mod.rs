//! TFLite (`TFL3`, schema v2.15 plus the newer LiteRT revision's values and fields).
//!
//! [`Model::parse`] verifies the bytes and the model-level rules TFLite readers enforce, then
//! hands out the root view. Every table of `schema.fbs` has a view type here (generated into
//! `generated.rs`); `model.rs` adds what a runtime needs on top: which operator an
//! `OperatorCode` means, where a tensor's data lives, metadata by name, signatures by key.

mod generated;
mod model;
mod quant;
mod rules;
mod scratch;

pub use generated::*;
pub use model::{element_size, Parsed};
pub use quant::{f16_to_f32, QuantNumber, QuantValues, Quantization};
pub use rules::Warning;

/// The file identifier at bytes 4..8.
pub const IDENTIFIER: [u8; 4] = *b"TFL3";
