//! The flatbuffers a TFLite model nests in its metadata entries, verified as part of the model
//! and located through it: tflite-support's `TFLITE_METADATA` ([`crate::tflite_metadata`]) and
//! the converter's `CONVERSION_METADATA` ([`crate::conversion_metadata`]).

use super::Model;
use crate::conversion_metadata::ConversionMetadata;
use crate::error::Error;
use crate::graph::nested::{nested, Nested};
use crate::tflite_metadata::ModelMetadata;
use crate::verify::Options;

static SUPPORT: Nested = Nested {
    name: crate::tflite_metadata::METADATA_NAME,
    qualifier: &"(TFLITE_METADATA)",
    identifiers: &[crate::tflite_metadata::IDENTIFIER],
};

static CONVERSION: Nested =
    Nested { name: crate::conversion_metadata::METADATA_NAME, qualifier: &"(CONVERSION_METADATA)", identifiers: &[] };

impl<'a> Model<'a> {
    /// tflite-support's metadata (the first `TFLITE_METADATA` entry's flatbuffer), verified:
    /// `None` when the model has none. [`Model::support_metadata_with`] with the default limits.
    pub fn support_metadata(&self) -> Option<Result<ModelMetadata<'a>, Error>> {
        self.support_metadata_with(&Options::DEFAULT)
    }

    /// [`Model::support_metadata`] within `options`' limits. The nested flatbuffer is verified
    /// on each call (work linear in its size, charged to a budget of its own); an error is
    /// located through the model, as `Model.metadata[2](TFLITE_METADATA).subgraph_metadata[0]`,
    /// its offset counted from the start of the file.
    pub fn support_metadata_with(&self, options: &Options) -> Option<Result<ModelMetadata<'a>, Error>> {
        nested(self, &SUPPORT, options)
    }

    /// The converter's record (the first `CONVERSION_METADATA` entry's flatbuffer), verified:
    /// `None` when the model has none. Verified on each call, as [`Model::support_metadata_with`].
    pub fn conversion_metadata(&self) -> Option<Result<ConversionMetadata<'a>, Error>> {
        nested(self, &CONVERSION, &Options::DEFAULT)
    }
}

/// The nested flatbuffers of `model` verify within `options`' limits: tflite-support's
/// metadata, then the converter's record (the model rules' last part, with the
/// `nested-metadata` feature).
#[cfg(feature = "nested-metadata")]
pub(super) fn nested_rules(model: &Model<'_>, options: &Options) -> Result<(), Error> {
    if let Some(Err(error)) = model.support_metadata_with(options) {
        return Err(error);
    }
    match nested::<_, ConversionMetadata<'_>>(model, &CONVERSION, options) {
        Some(Err(error)) => Err(error),
        _ => Ok(()),
    }
}
