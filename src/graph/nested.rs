//! The flatbuffers a model nests in its metadata entries (tflite-support's `TFLITE_METADATA`,
//! the converter's `CONVERSION_METADATA`, Circle's `CIRCLE_TRAINING`): found by entry name,
//! verified as a root of their own schema, errors located through the outer model
//! (`Model.metadata[2](TFLITE_METADATA).subgraph_metadata[0]`) at offsets from the file's start.

use super::{MetadataView, ModelView};
use crate::container::verified_root;
use crate::error::Error;
use crate::verify::{Options, VerifyTable};
use crate::wire::{position_in, to_u64, FromTable, Identifier};

static MODEL: &str = "Model";

/// A kind of flatbuffer nested in a metadata entry.
pub(crate) struct Nested {
    /// The entry's name; the first entry of that name holds it, as readers look it up.
    pub(crate) name: &'static str,
    /// The entry's name as a path segment qualifying `metadata[i]`: `(NAME)`.
    pub(crate) qualifier: &'static &'static str,
    /// The file identifiers it may carry, the current one first; empty when it has none.
    pub(crate) identifiers: &'static [Identifier],
}

/// The verified root of the flatbuffer `which` names in `model`'s metadata, or its located
/// error; `None` when no entry has that name.
pub(crate) fn nested<'a, M: ModelView<'a>, T: VerifyTable + FromTable<'a>>(
    model: &M,
    which: &Nested,
    options: &Options,
) -> Option<Result<T, Error>> {
    let entries = model.metadata_list()?;
    let index = entries.iter().position(|m| m.name() == Some(which.name))?;
    let entry = entries.get(index)?;
    let bytes = match model.buffer_data(entry.buffer()) {
        Ok(bytes) => bytes,
        Err(e) => return Some(Err(e)),
    };
    // Errors count from the file's start: from the data's own position, or, for an entry whose
    // buffer holds no data (an empty slice from nowhere in the file), from the model's table.
    let base = to_u64(position_in(model.file(), bytes).unwrap_or(model.position()));
    let located = |mut error: Error| {
        let location = error.location_mut();
        location.push_outer(which.qualifier, None);
        // TFLite's field name; Circle's is the same (`checker`'s `path_codes_name_their_fields`).
        location.push_outer(&crate::tflite::Model::METADATA_NAME, u32::try_from(index).ok());
        location.set_root(&MODEL);
        error
    };
    // An older identifier the bytes carry, else the current one (whose absence is the error).
    let identifier = match which.identifiers {
        [] => None,
        [current, older @ ..] => {
            Some(older.iter().copied().find(|&id| crate::wire::has_identifier(bytes, id)).unwrap_or(*current))
        }
    };
    Some(verified_root(bytes, identifier, options, base).map(|(root, _)| root).map_err(located))
}
