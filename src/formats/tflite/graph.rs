//! TFLite's views as the shared model graph (`crate::graph`): what lets `inspect`, tensor data,
//! custom options and the model rules serve TFLite and Circle with one piece of code. The
//! trait impls come from `graph_views!`; this file holds what is TFLite's own.

use super::{BuiltinOperator, DimensionMetadata, Metadata, Model, Operator, OperatorCode, SignatureDef};
use super::{SparsityParameters, SubGraph, Tensor, TensorMap, TensorType};
use crate::graph::{ElementType, OperatorKind};

crate::graph::graph_views!(crate::Format::Tflite);

/// What `code` means by TFLite's rule ([`OperatorCode::builtin_operator`]).
fn operator_kind<'a>(code: OperatorCode<'a>) -> OperatorKind<'a> {
    let (op, version) = (code.builtin_operator(), code.version());
    match op {
        BuiltinOperator::CUSTOM => OperatorKind::Custom { name: code.custom_code().unwrap_or(""), version },
        _ => OperatorKind::Builtin { code: op.0, name: op.name(), version },
    }
}

fn element_type(t: &Tensor<'_>) -> ElementType {
    let t = t.type_();
    ElementType { code: t.0, name: t.name(), size: element_size(t) }
}

/// Bytes per element of `t`, or `None` for strings, resources, variants and packed sub-byte
/// types (whose size is not a whole number of bytes per element).
pub fn element_size(t: TensorType) -> Option<u64> {
    Some(match t {
        TensorType::BOOL | TensorType::UINT8 | TensorType::INT8 => 1,
        TensorType::FLOAT8_E4M3FN | TensorType::FLOAT8_E5M2 => 1,
        TensorType::FLOAT16 | TensorType::INT16 | TensorType::UINT16 | TensorType::BFLOAT16 => 2,
        TensorType::FLOAT32 | TensorType::INT32 | TensorType::UINT32 => 4,
        TensorType::INT64 | TensorType::UINT64 | TensorType::FLOAT64 | TensorType::COMPLEX64 => 8,
        TensorType::COMPLEX128 => 16,
        _ => return None,
    })
}
