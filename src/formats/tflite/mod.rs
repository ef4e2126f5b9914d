//! TFLite (`TFL3`, schema v2.15 plus the newer LiteRT revision's values and fields).
//!
//! [`Model::parse`] verifies the bytes and the model-level rules TFLite readers enforce, then
//! hands out the root view. Every table of `schema.fbs` has a view type here (generated into
//! `generated.rs`); `model.rs` adds what a runtime needs on top: which operator an
//! `OperatorCode` means, metadata by name, signatures by key; `graph.rs` shows the views as the
//! model graph TFLite shares with Circle ([`ModelView`]: tensor data, custom options, rules).

mod generated;
mod graph;
mod metadata;
mod model;
mod quant;
mod rules;
mod runtime;
mod runtime_ops;

pub use crate::graph::{ModelView, OperatorView, SubGraphView, TensorView, Warning};
pub use generated::*;
pub use graph::element_size;
pub use quant::{f16_to_f32, QuantNumber, QuantValues, Quantization};

/// The file identifier at bytes 4..8.
pub const IDENTIFIER: [u8; 4] = *b"TFL3";
