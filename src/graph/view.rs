//! The small values the graph traits hand out: a buffer as stored, an element type, what an
//! operator code means, and a tensor's quantization parameters.

use crate::wire::Vector;

/// A `Buffer` table as stored: inline data, or a range of the file after the flatbuffer.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct BufferRef<'a> {
    /// `Buffer.data`, when present.
    pub data: Option<&'a [u8]>,
    /// `Buffer.offset` from the start of the file (0 or 1: none), used when `data` is absent.
    pub offset: u64,
    /// `Buffer.size`, with `offset`.
    pub size: u64,
}

/// The inline data's length, not its bytes (a model's weights).
impl core::fmt::Debug for BufferRef<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BufferRef")
            .field("data_len", &self.data.map(<[u8]>::len))
            .field("offset", &self.offset)
            .field("size", &self.size)
            .finish()
    }
}

/// A tensor's element type: the code the file stores and the format's name for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElementType {
    /// `Tensor.type` as stored (formats number their types differently; Circle's are negative
    /// for types TFLite lacks).
    pub code: i8,
    /// The format's name for the code, `None` for a code this crate's schema does not name.
    pub name: Option<&'static str>,
    /// Bytes per element, `None` for strings, resources, variants and packed or block types.
    pub size: Option<u64>,
}

impl core::fmt::Display for ElementType {
    /// The name (`FLOAT32`), or `TensorType(<code>)` for a code the schema does not name.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.name {
            Some(name) => f.write_str(name),
            None => write!(f, "TensorType({})", self.code),
        }
    }
}

/// What an operator code means, by its format's rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperatorKind<'a> {
    /// A builtin operator.
    Builtin {
        /// The builtin code (negative for Circle's own operators).
        code: i32,
        /// Its name, `None` for a code this crate's schema does not name.
        name: Option<&'static str>,
        /// `OperatorCode.version`.
        version: i32,
    },
    /// A custom operator (`CUSTOM` with its `custom_code`; empty when the file has none).
    Custom {
        /// `OperatorCode.custom_code`.
        name: &'a str,
        /// `OperatorCode.version`.
        version: i32,
    },
}

impl OperatorKind<'_> {
    /// `OperatorCode.version`.
    pub fn version(&self) -> i32 {
        match *self {
            OperatorKind::Builtin { version, .. } | OperatorKind::Custom { version, .. } => version,
        }
    }
}

impl core::fmt::Display for OperatorKind<'_> {
    /// The builtin's name (`CONV_2D`), `CUSTOM:<name>`, or `BuiltinOperator(<code>)`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            OperatorKind::Builtin { name: Some(name), .. } => f.write_str(name),
            OperatorKind::Builtin { code, name: None, .. } => write!(f, "BuiltinOperator({code})"),
            OperatorKind::Custom { name, .. } => write!(f, "CUSTOM:{name}"),
        }
    }
}

/// A tensor's per-tensor or per-axis quantization parameters, as stored.
#[derive(Clone, Copy, Debug)]
pub struct QuantView<'a> {
    /// `min`, for importing back into training frameworks.
    pub min: Option<Vector<'a, f32>>,
    /// `max`.
    pub max: Option<Vector<'a, f32>>,
    /// `scale`: one per tensor, or one per slice along `quantized_dimension`.
    pub scale: Option<Vector<'a, f32>>,
    /// `zero_point`, as many as `scale`.
    pub zero_point: Option<Vector<'a, i64>>,
    /// The dimension per-axis parameters run along.
    pub quantized_dimension: i32,
    /// Block-wise quantization, when `details` holds one (its scales and zero points are then
    /// other tensors of the subgraph).
    pub blockwise: Option<Blockwise>,
}

/// Block-wise quantization (`QuantizationParameters.details` holding `BlockwiseQuantization`):
/// each scale covers `block_size` elements along the last dimension, and the scales and zero
/// points are other tensors of the subgraph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Blockwise {
    /// The tensor (of the same subgraph) holding the scales.
    pub scales: i32,
    /// The tensor holding the zero points; -1 when they are all 0.
    pub zero_points: i32,
    /// Elements per scale.
    pub block_size: i32,
}
