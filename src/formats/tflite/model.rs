//! Parsing entry points and the helpers a runtime needs on top of the generated views.

use super::{BuiltinOperator, Model, Operator, OperatorCode, SignatureDef, Tensor, IDENTIFIER};
use crate::graph::ModelView;

crate::container::entry_points!(Model, "a TFLite file", "the model rules of [`crate::graph`]");
crate::graph::model_container!();

impl<'a> Model<'a> {
    /// The bytes of the first metadata entry named `name` (names can repeat in real files).
    ///
    /// A scan of `Model.metadata` comparing names: linear in the file (the vector's length is
    /// bounded by its bytes) times the length of `name`.
    pub fn metadata_bytes(&self, name: &str) -> Option<&'a [u8]> {
        ModelView::metadata_bytes(self, name)
    }

    /// The bytes of the first metadata entry named `name` when they start like a flatbuffer
    /// with file identifier `identifier` (`TFLITE_METADATA` holds a tflite-support `M001`
    /// buffer): bytes 4..8 are `identifier` and the root offset points inside them.
    ///
    /// **The bytes are not verified.** Only the identifier and the root offset are looked at;
    /// what lies behind them may be anything, so they must be verified before being read as a
    /// flatbuffer. The cost is that of [`Model::metadata_bytes`].
    pub fn metadata_bytes_with_identifier(&self, name: &str, identifier: [u8; 4]) -> Option<&'a [u8]> {
        let bytes = self.metadata_bytes(name)?;
        let root = crate::wire::root_position(bytes)?;
        (crate::wire::has_identifier(bytes, identifier) && root < bytes.len()).then_some(bytes)
    }

    /// The `min_runtime_version` metadata: ASCII, cut at the first NUL.
    pub fn min_runtime_version(&self) -> Option<&'a str> {
        let bytes = self.metadata_bytes("min_runtime_version")?;
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        core::str::from_utf8(bytes.get(..end)?).ok()
    }

    /// The signature whose `signature_key` is `key`: a scan of `Model.signature_defs`, linear
    /// in the file times the length of `key`.
    pub fn signature(&self, key: &str) -> Option<SignatureDef<'a>> {
        self.signature_defs()?.iter().find(|s| s.signature_key() == Some(key))
    }

    /// The operator code of `op`.
    pub fn operator_code(&self, op: &Operator<'a>) -> Option<OperatorCode<'a>> {
        self.operator_codes()?.get(usize::try_from(op.opcode_index()).ok()?)
    }
}

impl<'a> Tensor<'a> {
    /// The shape with -1 for dimensions unknown until run time, as runtimes read it:
    /// `shape_signature` when present and non-empty, otherwise `shape`.
    pub fn signature(&self) -> Option<crate::wire::Vector<'a, i32>> {
        crate::graph::TensorView::shape_signature(self)
    }
}

impl OperatorCode<'_> {
    /// The operator this code means: TFLite's rule, the larger of `builtin_code` and
    /// `deprecated_builtin_code` (which reads files that set either or both).
    pub fn builtin_operator(&self) -> BuiltinOperator {
        let deprecated = i32::from(self.deprecated_builtin_code());
        BuiltinOperator(self.builtin_code().0.max(deprecated))
    }
}
