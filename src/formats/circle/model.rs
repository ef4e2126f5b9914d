//! Parsing entry points and Circle's operator-code rule.

use super::IDENTIFIER;
use super::{BuiltinOperator, DataFormat, Model, OperatorCode, SubGraph, TensorType};

crate::container::entry_points!(Model, "a Circle file", "the model rules of [`crate::graph`]");
crate::graph::model_container!();

/// Slot 0's value in Circle 0.4 and later that sends the reader to the int32 `builtin_code`.
const GREATER_OP_CODES: i8 = 127;

/// The last tensor type code Circle shares with TFLite's numbering.
const LAST_TFLITE_TYPE: i8 = 18;

impl SubGraph<'_> {
    /// The data format of the subgraph's inputs and outputs: revision 0's `data_format` (slot
    /// 5), which later revisions deprecate as `deprecated_data_format`.
    pub fn data_format(&self) -> DataFormat {
        DataFormat(self.raw().scalar(super::revision::DATA_FORMAT, 0))
    }
}

impl OperatorCode<'_> {
    /// The builtin operator this operator code means, by Circle's rule (`docs/circle.md` §2.3):
    /// slot 0 (`deprecated_builtin_code`) read as a signed byte, unless it is 127, which defers
    /// to the int32 `builtin_code`. One rule reads every revision: a slot-0 byte 254
    /// (INSTANCE_NORM as early writers stored it) reads as -2, the code later revisions give it.
    /// (TFLite's `max()` rule would lose the negative codes.)
    pub fn builtin_operator(&self) -> BuiltinOperator {
        match self.deprecated_builtin_code() {
            GREATER_OP_CODES => self.builtin_code(),
            code => BuiltinOperator(i32::from(code)),
        }
    }
}

/// The element size of tensor type `t`: TFLite's for the codes Circle shares with it (0 to
/// 18), none for Circle's own negative codes (UINT4 packs two per byte; the GGML and MX types
/// are blocks with their own scales).
pub(crate) fn type_size(t: TensorType) -> Option<u64> {
    match t.0 {
        0..=LAST_TFLITE_TYPE => crate::tflite::element_size(crate::tflite::TensorType(t.0)),
        _ => None,
    }
}

/// Where `CIRCLE_TRAINING` lives, and the identifiers it may carry.
static TRAINING: crate::graph::nested::Nested = crate::graph::nested::Nested {
    name: crate::circle_training::METADATA_NAME,
    qualifier: &"(CIRCLE_TRAINING)",
    identifiers: &[crate::circle_training::IDENTIFIER, crate::circle_training::OLDER_IDENTIFIER],
};

impl<'a> Model<'a> {
    /// The training parameters (the first `CIRCLE_TRAINING` entry's flatbuffer, `CTR0` or the
    /// older `CTR1`), verified: `None` when the model has none. [`Model::training_with`] with the
    /// default limits.
    pub fn training(&self) -> Option<Result<crate::circle_training::ModelTraining<'a>, crate::Error>> {
        self.training_with(&crate::verify::Options::DEFAULT)
    }

    /// [`Model::training`] within `options`' limits. Verified on each call (work linear in its
    /// size, charged to a budget of its own); an error is located through the model, as
    /// `Model.metadata[0](CIRCLE_TRAINING).trainable_ops`, its offset counted from the start
    /// of the file.
    pub fn training_with(
        &self,
        options: &crate::verify::Options,
    ) -> Option<Result<crate::circle_training::ModelTraining<'a>, crate::Error>> {
        crate::graph::nested::nested(self, &TRAINING, options)
    }
}
