//! Circle's training parameters (`schema.fbs`, ONE's `circle_traininfo.fbs`): the flatbuffer a
//! Circle model keeps in its `CIRCLE_TRAINING` metadata entry for on-device training: the
//! optimizer and its options, the loss function, epochs, batch size and the trainable
//! operators. Its identifier is `CTR0`; older writers used `CTR1`, which reads the same.
//!
//! With the `nested-metadata` feature [`crate::circle::Model::parse`] verifies it as part of the
//! model, its errors located through the outer model (`Model.metadata[0](CIRCLE_TRAINING)…`);
//! [`crate::circle::Model::training`] hands out the verified root. [`ModelTraining::parse`]
//! reads one on its own (a `.circletr` file).

mod generated;

use crate::container::{verified_root, Container};
use crate::error::Error;
use crate::verify::Options;
pub use generated::*;

/// The file identifier at bytes 4..8.
pub const IDENTIFIER: [u8; 4] = *b"CTR0";

/// The identifier older writers used for the same layout.
pub const OLDER_IDENTIFIER: [u8; 4] = *b"CTR1";

/// The name of the metadata entry of a Circle model that holds it.
pub const METADATA_NAME: &str = "CIRCLE_TRAINING";

crate::container::entry_points!(
    ModelTraining,
    "Circle training parameters (`CTR0` or `CTR1`)",
    "none beyond the structure"
);

impl<'a> Container<'a> for ModelTraining<'a> {
    fn structure(bytes: &'a [u8], options: &Options) -> Result<(Self, crate::verify::Stats), Error> {
        let older = crate::wire::has_identifier(bytes, OLDER_IDENTIFIER);
        verified_root(bytes, Some(if older { OLDER_IDENTIFIER } else { IDENTIFIER }), options, 0)
    }

    fn rules(&self, _options: &Options) -> Result<(), Error> {
        Ok(())
    }
}
