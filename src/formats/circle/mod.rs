//! Circle (`CIR0`): Samsung ONE's model format, TFLite's schema plus circle-only values.
//!
//! `schema.fbs` is ONE's latest schema, revision 0.10: every earlier revision's fields sit in
//! the same slots (`docs/circle.md` §2.2), so these views read every revision. What revision 0
//! named otherwise reads through [`OperatorCode::builtin_operator`] (slot 0, revision 0's
//! `builtin_code`) and [`SubGraph::data_format`]; [`revision0`] is revision 0's own schema,
//! for the names a dump of a revision-0 file prints ([`Model::revision`]).
//!
//! [`Model::parse`] verifies the bytes and the model rules, then hands out the root view. Every
//! table of `schema.fbs` has a view type here (generated into `generated.rs`); `model.rs` adds
//! Circle's operator-code rule, and `graph.rs` shows the views as the model graph Circle shares
//! with TFLite ([`ModelView`]: tensor data, custom options, the rules, `inspect`).

mod generated;
mod graph;
mod model;
mod revision;
pub mod revision0;
mod run_model;

pub use crate::graph::{ModelView, OperatorView, SubGraphView, TensorView, Warning};
pub use generated::*;
pub use revision::Revision;
pub use run_model::RunModelRef;

/// The file identifier at bytes 4..8, the same for every Circle revision.
pub const IDENTIFIER: [u8; 4] = *b"CIR0";
