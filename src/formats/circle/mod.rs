//! Circle (`CIR0`): Samsung ONE's model format, TFLite's schema plus circle-only values
//! (`schema.fbs` is revision 0 plus the later revisions' values and fields FORMATS.md 2 lists).
//!
//! [`Model::parse`] verifies the bytes and the model rules, then hands out the root view. Every
//! table of `schema.fbs` has a view type here (generated into `generated.rs`); `model.rs` adds
//! Circle's operator-code rule, and `graph.rs` shows the views as the model graph Circle shares
//! with TFLite ([`ModelView`]: tensor data, custom options, the rules, `inspect`).

mod generated;
mod graph;
mod model;

pub use crate::graph::{ModelView, OperatorView, SubGraphView, TensorView, Warning};
pub use generated::*;

/// The file identifier at bytes 4..8, the same for every Circle revision.
pub const IDENTIFIER: [u8; 4] = *b"CIR0";
