//! The flatbuffers a TFLite model nests in its metadata entries, verified as part of the model
//! and located through it: tflite-support's `TFLITE_METADATA` ([`crate::tflite_metadata`]) and
//! the converter's `CONVERSION_METADATA` ([`crate::conversion_metadata`]).

use super::Model;
use crate::container::verified_root;
use crate::conversion_metadata::ConversionMetadata;
use crate::error::Error;
use crate::graph::ModelView;
use crate::tflite_metadata::ModelMetadata;
use crate::verify::{Options, VerifyTable};
use crate::wire::FromTable;

static MODEL: &str = "Model";
static METADATA: &str = "metadata";

/// A kind of flatbuffer nested in a metadata entry.
struct Nested {
    /// The entry's name; the first entry of that name holds it, as readers look it up.
    name: &'static str,
    /// The entry's name as a path segment qualifying `metadata[i]`.
    qualifier: &'static &'static str,
    /// The flatbuffer's file identifier, if it has one.
    identifier: Option<[u8; 4]>,
}

static SUPPORT: Nested = Nested {
    name: crate::tflite_metadata::METADATA_NAME,
    qualifier: &"(TFLITE_METADATA)",
    identifier: Some(crate::tflite_metadata::IDENTIFIER),
};

static CONVERSION: Nested =
    Nested { name: crate::conversion_metadata::METADATA_NAME, qualifier: &"(CONVERSION_METADATA)", identifier: None };

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
        self.nested(&SUPPORT, options)
    }

    /// The converter's record (the first `CONVERSION_METADATA` entry's flatbuffer), verified:
    /// `None` when the model has none. Verified on each call, as [`Model::support_metadata_with`].
    pub fn conversion_metadata(&self) -> Option<Result<ConversionMetadata<'a>, Error>> {
        self.nested(&CONVERSION, &Options::DEFAULT)
    }

    /// The verified root of the flatbuffer `which` names, or its located error.
    fn nested<T: VerifyTable + FromTable<'a>>(&self, which: &Nested, options: &Options) -> Option<Result<T, Error>> {
        let entries = self.metadata()?;
        let index = entries.iter().position(|m| m.name() == Some(which.name))?;
        let entry = entries.get(index)?;
        let bytes = match self.buffer_data(entry.buffer()) {
            Ok(bytes) => bytes,
            Err(e) => return Some(Err(e)),
        };
        let file = self.raw().buffer();
        let base = (bytes.as_ptr() as usize).wrapping_sub(file.as_ptr() as usize) as u64;
        let located = |mut error: Error| {
            let location = error.location_mut();
            location.push_outer(which.qualifier, None);
            location.push_outer(&METADATA, u32::try_from(index).ok());
            location.set_root(&MODEL);
            error
        };
        Some(verified_root(bytes, which.identifier, options, base).map(|(root, _)| root).map_err(located))
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
    match model.nested::<ConversionMetadata<'_>>(&CONVERSION, options) {
        Some(Err(error)) => Err(error),
        _ => Ok(()),
    }
}
