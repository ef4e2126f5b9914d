//! tflite-support's model metadata (`M001`, `schema.fbs`): the flatbuffer a TFLite model keeps
//! in its `TFLITE_METADATA` metadata entry, naming the model, its author and license, and each
//! input and output tensor's meaning (content, normalization, value range, associated files).
//!
//! [`crate::tflite::Model::parse`] verifies it as part of the model, its errors located through
//! the outer model (`Model.metadata[2](TFLITE_METADATA).subgraph_metadata[0]…`);
//! [`crate::tflite::Model::support_metadata`] hands out the verified root. [`ModelMetadata::parse`]
//! reads a metadata flatbuffer on its own (a `.tflitemeta` file).

mod generated;

use crate::container::{verified_root, Container};
use crate::error::Error;
use crate::verify::Options;
pub use generated::*;

/// The file identifier at bytes 4..8.
pub const IDENTIFIER: [u8; 4] = *b"M001";

/// The name of the metadata entry of a TFLite model that holds it.
pub const METADATA_NAME: &str = "TFLITE_METADATA";

crate::container::entry_points!(ModelMetadata, "tflite-support model metadata (`M001`)", "none beyond the structure");

impl<'a> Container<'a> for ModelMetadata<'a> {
    fn structure(bytes: &'a [u8], options: &Options) -> Result<(Self, crate::verify::Stats), Error> {
        verified_root(bytes, Some(IDENTIFIER), options, 0)
    }

    fn rules(&self, _options: &Options) -> Result<(), Error> {
        Ok(())
    }
}
