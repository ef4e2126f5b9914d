//! Parsing entry points and Circle's operator-code rule.

use super::{BuiltinOperator, Model, OperatorCode, TensorType, IDENTIFIER};

crate::container::entry_points!(Model, "a Circle file", "the model rules of [`crate::graph`]");
crate::graph::model_container!();

/// Slot 0's value in Circle 0.4 and later that sends the reader to `extended_builtin_code`.
const GREATER_OP_CODES: i8 = 127;

/// First builtin code past revision 0's enum; from there Circle follows TFLite's numbering.
const FIRST_TFLITE_ONLY_OP: i32 = 103;

/// First tensor type code past revision 0's enum; from there Circle follows TFLite's numbering.
const FIRST_TFLITE_ONLY_TYPE: i8 = 10;

impl OperatorCode<'_> {
    /// The builtin code this operator code means, by Circle's rule (FORMATS.md 2): slot 0 read
    /// as a signed byte, unless it is 127, which defers to the int32 `extended_builtin_code`.
    /// One rule reads every revision: revision 0's ubyte 254 (INSTANCE_NORM) reads as -2, the
    /// code later revisions give it. (TFLite's `max()` rule would lose the negative codes.)
    pub fn builtin_operator_code(&self) -> i32 {
        match self.builtin_code().0 {
            GREATER_OP_CODES => self.extended_builtin_code(),
            code => i32::from(code),
        }
    }
}

/// The name of builtin code `code`: Circle's own name, or for codes later revisions took over
/// from TFLite's numbering (103 and up), TFLite's.
pub(crate) fn operator_name(code: i32) -> Option<&'static str> {
    if code >= FIRST_TFLITE_ONLY_OP {
        return crate::tflite::BuiltinOperator(code).name();
    }
    i8::try_from(code).ok().and_then(|c| BuiltinOperator(c).name())
}

/// The name and element size of tensor type `t`: Circle's own, or for codes later revisions
/// took over from TFLite's numbering (10 and up), TFLite's.
pub(crate) fn type_name_and_size(t: TensorType) -> (Option<&'static str>, Option<u64>) {
    if t.0 < 0 {
        return (t.name(), None); // UINT4 packs two per byte; GGML types are blocks
    }
    let tflite = crate::tflite::TensorType(t.0);
    let name = if t.0 >= FIRST_TFLITE_ONLY_TYPE { tflite.name() } else { t.name() };
    (name, type_size(t))
}

/// The element size of tensor type `t`: TFLite's for the codes Circle shares with it, none for
/// Circle's own (negative) types.
pub(crate) fn type_size(t: TensorType) -> Option<u64> {
    if t.0 < 0 {
        return None; // UINT4 packs two per byte; GGML types are blocks
    }
    crate::tflite::element_size(crate::tflite::TensorType(t.0)).filter(|_| t.0 <= 17)
}
