//! The conversion record TensorFlow's converter keeps in a TFLite model's `CONVERSION_METADATA`
//! metadata entry (`schema.fbs`, a flatbuffer without a file identifier): the TensorFlow
//! version, the source model's type, and the optimizations applied.
//!
//! [`crate::tflite::Model::parse`] verifies it as part of the model;
//! [`crate::tflite::Model::conversion_metadata`] hands out the verified root.

mod generated;

pub use generated::*;

/// The name of the metadata entry of a TFLite model that holds it.
pub const METADATA_NAME: &str = "CONVERSION_METADATA";
