//! Which builtin operators each runtime profile resolves: LiteRT's builtin resolver (with the
//! versions it registers) and TensorFlow Lite Micro's full operator resolver. Facts read from
//! the runtimes' sources (named on each table); kept as lists of names so a change is a
//! readable diff, and folded at compile time into a table indexed by operator code.

use super::BuiltinOperator as Op;

/// One past the largest builtin code a table can hold.
const CODES: usize = 256;

/// A set of operators by code: one bit each.
pub(super) struct OperatorSet([u64; CODES / 64]);

impl OperatorSet {
    /// The set of `ops`.
    #[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects, clippy::cast_sign_loss, clippy::as_conversions)] // compile time: a panic (a negative code indexes past the end) is a build error
    const fn of(ops: &[Op]) -> OperatorSet {
        let mut bits = [0u64; CODES / 64];
        let mut i = 0;
        while i < ops.len() {
            let code = ops[i].0 as usize;
            bits[code / 64] |= 1 << (code % 64);
            i += 1;
        }
        OperatorSet(bits)
    }

    /// Whether `op` is in the set.
    pub(super) fn contains(&self, op: Op) -> bool {
        let Ok(code) = usize::try_from(op.0) else { return false };
        self.0.get(code / 64).is_some_and(|w| w & (1 << (code % 64)) != 0)
    }
}

/// The versions of each operator a resolver registers, by code: `[first, last]`, `[0, 0]` for
/// none.
pub(super) struct VersionTable([[u8; 2]; CODES]);

impl VersionTable {
    /// The table of `ops`: each operator with its first and last version.
    #[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects, clippy::cast_sign_loss, clippy::as_conversions)] // compile time: a panic (a negative code indexes past the end) is a build error
    const fn of(ops: &[(Op, u8, u8)]) -> VersionTable {
        let mut table = [[0u8; 2]; CODES];
        let mut i = 0;
        while i < ops.len() {
            let (op, first, last) = ops[i];
            table[op.0 as usize] = [first, last];
            i += 1;
        }
        VersionTable(table)
    }

    /// Whether version `version` of `op` is registered.
    pub(super) fn resolves(&self, op: Op, version: i32) -> bool {
        let Some(&[first, last]) = usize::try_from(op.0).ok().and_then(|c| self.0.get(c)) else { return false };
        first != 0 && (i32::from(first)..=i32::from(last)).contains(&version)
    }
}

/// The builtin kernels of TensorFlow Lite Micro's `PythonOpsResolver`
/// (`python/tflite_micro/python_ops_resolver.cc` at tflite-micro 90b983c2, 2026-08-20; the
/// resolver of the `tflite-micro` Python package): every builtin TFLite Micro has. Operator
/// versions are not checked.
pub(super) static TFLM_KERNELS: OperatorSet = OperatorSet::of(&[
    Op::ABS,
    Op::ADD,
    Op::ADD_N,
    Op::ARG_MAX,
    Op::ARG_MIN,
    Op::ASSIGN_VARIABLE,
    Op::AVERAGE_POOL_2D,
    Op::BATCH_MATMUL,
    Op::BATCH_TO_SPACE_ND,
    Op::BROADCAST_ARGS,
    Op::BROADCAST_TO,
    Op::CALL_ONCE,
    Op::CAST,
    Op::CEIL,
    Op::CONCATENATION,
    Op::CONV_2D,
    Op::COS,
    Op::CUMSUM,
    Op::DEPTH_TO_SPACE,
    Op::DEPTHWISE_CONV_2D,
    Op::DEQUANTIZE,
    Op::DIV,
    Op::DYNAMIC_UPDATE_SLICE,
    Op::ELU,
    Op::EMBEDDING_LOOKUP,
    Op::EQUAL,
    Op::EXP,
    Op::EXPAND_DIMS,
    Op::FILL,
    Op::FLOOR,
    Op::FLOOR_DIV,
    Op::FLOOR_MOD,
    Op::FULLY_CONNECTED,
    Op::GATHER,
    Op::GATHER_ND,
    Op::GREATER,
    Op::GREATER_EQUAL,
    Op::HARD_SWISH,
    Op::IF,
    Op::L2_NORMALIZATION,
    Op::L2_POOL_2D,
    Op::LEAKY_RELU,
    Op::LESS,
    Op::LESS_EQUAL,
    Op::LOG,
    Op::LOG_SOFTMAX,
    Op::LOGICAL_AND,
    Op::LOGICAL_NOT,
    Op::LOGICAL_OR,
    Op::LOGISTIC,
    Op::MAX_POOL_2D,
    Op::MAXIMUM,
    Op::MEAN,
    Op::MINIMUM,
    Op::MIRROR_PAD,
    Op::MUL,
    Op::NEG,
    Op::NOT_EQUAL,
    Op::PACK,
    Op::PAD,
    Op::PADV2,
    Op::PRELU,
    Op::QUANTIZE,
    Op::READ_VARIABLE,
    Op::REDUCE_ALL,
    Op::REDUCE_MAX,
    Op::REDUCE_MIN,
    Op::RELU,
    Op::RELU6,
    Op::RESHAPE,
    Op::RESIZE_BILINEAR,
    Op::RESIZE_NEAREST_NEIGHBOR,
    Op::REVERSE_V2,
    Op::ROUND,
    Op::RSQRT,
    Op::SELECT_V2,
    Op::SHAPE,
    Op::SIN,
    Op::SLICE,
    Op::SOFTMAX,
    Op::SPACE_TO_BATCH_ND,
    Op::SPACE_TO_DEPTH,
    Op::SPLIT,
    Op::SPLIT_V,
    Op::SQRT,
    Op::SQUARE,
    Op::SQUARED_DIFFERENCE,
    Op::SQUEEZE,
    Op::STRIDED_SLICE,
    Op::SUB,
    Op::SUM,
    Op::SVDF,
    Op::TANH,
    Op::TRANSPOSE,
    Op::TRANSPOSE_CONV,
    Op::UNIDIRECTIONAL_SEQUENCE_LSTM,
    Op::UNPACK,
    Op::VAR_HANDLE,
    Op::WHILE,
    Op::ZEROS_LIKE,
]);

/// The builtin operators and versions of LiteRT's `BuiltinOpResolver`
/// (`tflite/core/kernels/register.cc` at LiteRT f67457790c9c, 2026-08-21; the `ai-edge-litert`
/// 2.3.0 interpreter resolves exactly these, tried version by version): a version outside the
/// range is refused, as is an operator not listed.
pub(super) static LITERT_BUILTINS: VersionTable = VersionTable::of(&[
    (Op::ADD, 1, 6),
    (Op::AVERAGE_POOL_2D, 1, 3),
    (Op::CONCATENATION, 1, 7),
    (Op::CONV_2D, 1, 8),
    (Op::DEPTHWISE_CONV_2D, 1, 7),
    (Op::DEPTH_TO_SPACE, 1, 2),
    (Op::DEQUANTIZE, 1, 9),
    (Op::EMBEDDING_LOOKUP, 1, 5),
    (Op::FLOOR, 1, 1),
    (Op::FULLY_CONNECTED, 1, 14),
    (Op::HASHTABLE_LOOKUP, 1, 1),
    (Op::L2_NORMALIZATION, 1, 2),
    (Op::L2_POOL_2D, 1, 1),
    (Op::LOCAL_RESPONSE_NORMALIZATION, 1, 1),
    (Op::LOGISTIC, 1, 3),
    (Op::LSH_PROJECTION, 1, 1),
    (Op::LSTM, 1, 4),
    (Op::MAX_POOL_2D, 1, 3),
    (Op::MUL, 1, 8),
    (Op::RELU, 1, 3),
    (Op::RELU_N1_TO_1, 1, 1),
    (Op::RELU6, 1, 3),
    (Op::RESHAPE, 1, 1),
    (Op::RESIZE_BILINEAR, 1, 4),
    (Op::RNN, 1, 3),
    (Op::SOFTMAX, 1, 4),
    (Op::SPACE_TO_DEPTH, 1, 2),
    (Op::SVDF, 1, 4),
    (Op::TANH, 1, 3),
    (Op::SKIP_GRAM, 1, 1),
    (Op::EMBEDDING_LOOKUP_SPARSE, 1, 1),
    (Op::PAD, 1, 6),
    (Op::UNIDIRECTIONAL_SEQUENCE_RNN, 1, 3),
    (Op::GATHER, 1, 8),
    (Op::BATCH_TO_SPACE_ND, 1, 4),
    (Op::SPACE_TO_BATCH_ND, 1, 4),
    (Op::TRANSPOSE, 1, 9),
    (Op::MEAN, 1, 3),
    (Op::SUB, 1, 5),
    (Op::DIV, 1, 2),
    (Op::SQUEEZE, 1, 2),
    (Op::UNIDIRECTIONAL_SEQUENCE_LSTM, 1, 4),
    (Op::STRIDED_SLICE, 1, 8),
    (Op::BIDIRECTIONAL_SEQUENCE_RNN, 1, 3),
    (Op::EXP, 1, 2),
    (Op::TOPK_V2, 1, 3),
    (Op::SPLIT, 1, 5),
    (Op::LOG_SOFTMAX, 1, 2),
    (Op::BIDIRECTIONAL_SEQUENCE_LSTM, 1, 3),
    (Op::CAST, 1, 9),
    (Op::PRELU, 1, 1),
    (Op::MAXIMUM, 1, 4),
    (Op::ARG_MAX, 1, 3),
    (Op::MINIMUM, 1, 4),
    (Op::LESS, 1, 3),
    (Op::NEG, 1, 1),
    (Op::PADV2, 1, 6),
    (Op::GREATER, 1, 2),
    (Op::GREATER_EQUAL, 1, 3),
    (Op::LESS_EQUAL, 1, 2),
    (Op::SELECT, 1, 4),
    (Op::SLICE, 1, 8),
    (Op::SIN, 1, 2),
    (Op::TRANSPOSE_CONV, 1, 5),
    (Op::SPARSE_TO_DENSE, 1, 3),
    (Op::TILE, 1, 3),
    (Op::EXPAND_DIMS, 1, 1),
    (Op::EQUAL, 1, 5),
    (Op::NOT_EQUAL, 1, 4),
    (Op::LOG, 1, 2),
    (Op::SUM, 1, 2),
    (Op::SQRT, 1, 2),
    (Op::RSQRT, 1, 3),
    (Op::SHAPE, 1, 1),
    (Op::POW, 1, 1),
    (Op::ARG_MIN, 1, 3),
    (Op::FAKE_QUANT, 1, 2),
    (Op::REDUCE_PROD, 1, 2),
    (Op::REDUCE_MAX, 1, 3),
    (Op::PACK, 1, 5),
    (Op::LOGICAL_OR, 1, 1),
    (Op::ONE_HOT, 1, 1),
    (Op::LOGICAL_AND, 1, 1),
    (Op::LOGICAL_NOT, 1, 1),
    (Op::UNPACK, 1, 6),
    (Op::REDUCE_MIN, 1, 3),
    (Op::FLOOR_DIV, 1, 3),
    (Op::REDUCE_ANY, 1, 1),
    (Op::SQUARE, 1, 1),
    (Op::ZEROS_LIKE, 1, 1),
    (Op::FILL, 1, 5),
    (Op::FLOOR_MOD, 1, 2),
    (Op::RANGE, 1, 2),
    (Op::RESIZE_NEAREST_NEIGHBOR, 1, 4),
    (Op::LEAKY_RELU, 1, 2),
    (Op::SQUARED_DIFFERENCE, 1, 2),
    (Op::MIRROR_PAD, 1, 3),
    (Op::ABS, 1, 5),
    (Op::SPLIT_V, 1, 3),
    (Op::UNIQUE, 1, 1),
    (Op::CEIL, 1, 1),
    (Op::REVERSE_V2, 1, 4),
    (Op::ADD_N, 1, 1),
    (Op::GATHER_ND, 1, 6),
    (Op::COS, 1, 2),
    (Op::WHERE, 1, 2),
    (Op::RANK, 1, 1),
    (Op::ELU, 1, 1),
    (Op::REVERSE_SEQUENCE, 1, 1),
    (Op::MATRIX_DIAG, 1, 1),
    (Op::QUANTIZE, 1, 6),
    (Op::MATRIX_SET_DIAG, 1, 1),
    (Op::ROUND, 1, 1),
    (Op::HARD_SWISH, 1, 1),
    (Op::IF, 1, 1),
    (Op::WHILE, 1, 1),
    (Op::NON_MAX_SUPPRESSION_V4, 1, 1),
    (Op::NON_MAX_SUPPRESSION_V5, 1, 1),
    (Op::SCATTER_ND, 1, 1),
    (Op::SELECT_V2, 1, 2),
    (Op::DENSIFY, 1, 1),
    (Op::SEGMENT_SUM, 1, 1),
    (Op::BATCH_MATMUL, 1, 4),
    (Op::CUMSUM, 1, 1),
    (Op::CALL_ONCE, 1, 1),
    (Op::BROADCAST_TO, 2, 4),
    (Op::RFFT2D, 1, 1),
    (Op::CONV_3D, 1, 1),
    (Op::IMAG, 1, 1),
    (Op::REAL, 1, 1),
    (Op::COMPLEX_ABS, 1, 1),
    (Op::HASHTABLE, 1, 1),
    (Op::HASHTABLE_FIND, 1, 1),
    (Op::HASHTABLE_IMPORT, 1, 1),
    (Op::HASHTABLE_SIZE, 1, 1),
    (Op::REDUCE_ALL, 1, 1),
    (Op::CONV_3D_TRANSPOSE, 1, 1),
    (Op::VAR_HANDLE, 1, 1),
    (Op::READ_VARIABLE, 1, 1),
    (Op::ASSIGN_VARIABLE, 1, 1),
    (Op::BROADCAST_ARGS, 1, 1),
    (Op::RANDOM_STANDARD_NORMAL, 1, 1),
    (Op::BUCKETIZE, 1, 1),
    (Op::RANDOM_UNIFORM, 1, 1),
    (Op::MULTINOMIAL, 1, 1),
    (Op::GELU, 1, 3),
    (Op::DYNAMIC_UPDATE_SLICE, 1, 6),
    (Op::RELU_0_TO_1, 1, 1),
    (Op::UNSORTED_SEGMENT_PROD, 1, 1),
    (Op::UNSORTED_SEGMENT_MAX, 1, 1),
    (Op::UNSORTED_SEGMENT_SUM, 1, 1),
    (Op::ATAN2, 1, 1),
    (Op::UNSORTED_SEGMENT_MIN, 1, 1),
    (Op::SIGN, 1, 2),
    (Op::BITCAST, 1, 1),
    (Op::BITWISE_XOR, 1, 1),
    (Op::RIGHT_SHIFT, 1, 1),
    (Op::STABLEHLO_ADD, 1, 1),
    (Op::STABLEHLO_MULTIPLY, 1, 1),
    (Op::STABLEHLO_MAXIMUM, 1, 1),
    (Op::STABLEHLO_AND, 1, 1),
    (Op::STABLEHLO_MINIMUM, 1, 1),
    (Op::STABLEHLO_SCATTER, 1, 1),
    (Op::STABLEHLO_PAD, 1, 1),
    (Op::STABLEHLO_REDUCE_WINDOW, 1, 1),
    (Op::STABLEHLO_GATHER, 1, 1),
    (Op::DILATE, 1, 1),
    (Op::STABLEHLO_RNG_BIT_GENERATOR, 1, 1),
    (Op::REDUCE_WINDOW, 1, 1),
    (Op::STABLEHLO_COMPOSITE, 1, 1),
    (Op::STABLEHLO_SHIFT_LEFT, 1, 1),
    (Op::STABLEHLO_CASE, 1, 1),
]);
