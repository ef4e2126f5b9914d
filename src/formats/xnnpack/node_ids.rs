//! The value ids each node of an XNNGraph reads and writes (`docs/executorch.md` §3.8), read
//! from the node's own table by its union member.

use super::{
    _XNNCat, _XNNNode1x1, _XNNNode2x1, _XNNNodeConv, _XNNPooling2D, XNNArgMaxPooling2d, XNNFullyConnected,
    XNNLeakyReLU, XNNScaledDotProductAttention, XNNStaticConstantPad, XNNStaticReshape, XNNStaticResizeBilinear2D,
    XNNStaticSlice, XNNStaticTranspose, XNodeUnion, INVALID_VALUE_ID, XNNELU,
};
use crate::verify::Name;

/// The name of an id not set.
static NONE: &str = "";

/// The value ids one node reads (its inputs) and writes (its outputs), in the schema's field
/// order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeIds {
    ids: [u32; 7],
    names: [Name; 7],
    inputs: u8,
    len: u8,
    /// Bit `i`: input `i` may be [`INVALID_VALUE_ID`] (a bias or a mask the node goes without).
    optional: u8,
}

impl Default for NodeIds {
    fn default() -> Self {
        NodeIds { ids: [0; 7], names: [&NONE; 7], inputs: 0, len: 0, optional: 0 }
    }
}

impl NodeIds {
    /// The ids of the node `node` holds; `None` for `NONE` and for a member this schema does not
    /// name, whose fields are unknown.
    pub fn of(node: &XNodeUnion<'_>) -> Option<NodeIds> {
        use XNodeUnion as U;
        /// `NodeIds::new` over the fields named, each with its schema name.
        macro_rules! ids {
            ($n:ident: $t:ident; $($i:ident $in:ident),*; $($o:ident $on:ident),*) => {
                NodeIds::new(&[$(($n.$i(), &$t::$in)),*], &[$(($n.$o(), &$t::$on)),*])
            };
        }
        let ids = match node {
            U::XNNAdd(n)
            | U::XNNDiv(n)
            | U::XNNMinimum(n)
            | U::XNNMaximum(n)
            | U::XNNMultiply(n)
            | U::XNNSubtract(n)
            | U::XNNPReLU(n)
            | U::XNNBatchMatrixMultiply(n) => {
                ids!(n: _XNNNode2x1; input1_id INPUT1_ID_NAME, input2_id INPUT2_ID_NAME; output_id OUTPUT_ID_NAME)
            }
            U::XNNSoftmax(n)
            | U::XNNSigmoid(n)
            | U::XNNClamp(n)
            | U::XNNFloor(n)
            | U::XNNConvert(n)
            | U::XNNGlobalAvgPooling2d(n)
            | U::XNNSquareRoot(n)
            | U::XNNCeiling(n)
            | U::XNNHardswish(n)
            | U::XNNNegate(n)
            | U::XNNSquare(n)
            | U::XNNAbs(n)
            | U::XNNReciprocalSquareRoot(n)
            | U::XNNLog(n)
            | U::XNNGelu(n)
            | U::XNNTanh(n)
            | U::XNNExp(n)
            | U::XNNSin(n)
            | U::XNNCopy(n)
            | U::XNNCos(n) => ids!(n: _XNNNode1x1; input_id INPUT_ID_NAME; output_id OUTPUT_ID_NAME),
            U::XNNFullyConnected(n) => ids!(n: XNNFullyConnected;
                input1_id INPUT1_ID_NAME, filter_id FILTER_ID_NAME, bias_id BIAS_ID_NAME; output_id OUTPUT_ID_NAME)
            .optional(2),
            U::XNNConv2d(n) | U::XNNDepthwiseConv2d(n) | U::XNNConvTranspose2d(n) => ids!(n: _XNNNodeConv;
                input1_id INPUT1_ID_NAME, filter_id FILTER_ID_NAME, bias_id BIAS_ID_NAME; output_id OUTPUT_ID_NAME)
            .optional(2),
            U::XNNAvgPooling2d(n) | U::XNNMaxPooling2d(n) => {
                ids!(n: _XNNPooling2D; input_id INPUT_ID_NAME; output_id OUTPUT_ID_NAME)
            }
            U::XNNStaticTranspose(n) => ids!(n: XNNStaticTranspose; input_id INPUT_ID_NAME; output_id OUTPUT_ID_NAME),
            U::XNNStaticResizeBilinear2D(n) => {
                ids!(n: XNNStaticResizeBilinear2D; input_id INPUT_ID_NAME; output_id OUTPUT_ID_NAME)
            }
            U::XNNStaticConstantPad(n) => {
                ids!(n: XNNStaticConstantPad; input_id INPUT_ID_NAME; output_id OUTPUT_ID_NAME)
            }
            U::XNNStaticReshape(n) => ids!(n: XNNStaticReshape; input_id INPUT_ID_NAME; output_id OUTPUT_ID_NAME),
            U::XNNStaticSlice(n) => ids!(n: XNNStaticSlice; input_id INPUT_ID_NAME; output_id OUTPUT_ID_NAME),
            U::XNNELU(n) => ids!(n: XNNELU; input_id INPUT_ID_NAME; output_id OUTPUT_ID_NAME),
            U::XNNLeakyReLU(n) => ids!(n: XNNLeakyReLU; input_id INPUT_ID_NAME; output_id OUTPUT_ID_NAME),
            U::XNNArgMaxPooling2d(n) => ids!(n: XNNArgMaxPooling2d;
                input_id INPUT_ID_NAME; output_value_id OUTPUT_VALUE_ID_NAME, output_index_id OUTPUT_INDEX_ID_NAME),
            U::XNNConcatenate2(n) => {
                ids!(n: _XNNCat; input1_id INPUT1_ID_NAME, input2_id INPUT2_ID_NAME; output_id OUTPUT_ID_NAME)
            }
            U::XNNConcatenate3(n) => ids!(n: _XNNCat;
                input1_id INPUT1_ID_NAME, input2_id INPUT2_ID_NAME, input3_id INPUT3_ID_NAME; output_id OUTPUT_ID_NAME),
            U::XNNConcatenate4(n) => ids!(n: _XNNCat;
                input1_id INPUT1_ID_NAME, input2_id INPUT2_ID_NAME, input3_id INPUT3_ID_NAME,
                input4_id INPUT4_ID_NAME; output_id OUTPUT_ID_NAME),
            U::XNNConcatenate5(n) => ids!(n: _XNNCat;
                input1_id INPUT1_ID_NAME, input2_id INPUT2_ID_NAME, input3_id INPUT3_ID_NAME,
                input4_id INPUT4_ID_NAME, input5_id INPUT5_ID_NAME; output_id OUTPUT_ID_NAME),
            U::XNNScaledDotProductAttention(n) => ids!(n: XNNScaledDotProductAttention;
                query_id QUERY_ID_NAME, key_id KEY_ID_NAME, value_id VALUE_ID_NAME, scale_id SCALE_ID_NAME,
                mask_id MASK_ID_NAME; output_id OUTPUT_ID_NAME)
            .optional(3)
            .optional(4),
            U::NONE | U::Unknown(_) => return None,
        };
        Some(ids)
    }

    /// At most 5 inputs and 2 outputs, which every member above keeps to.
    fn new(inputs: &[(u32, Name)], outputs: &[(u32, Name)]) -> NodeIds {
        let mut ids = NodeIds::default();
        for ((slot, name), &(id, field)) in ids.ids.iter_mut().zip(&mut ids.names).zip(inputs.iter().chain(outputs)) {
            *slot = id;
            *name = field;
        }
        ids.inputs = u8::try_from(inputs.len()).unwrap_or(0);
        ids.len = u8::try_from(inputs.len().saturating_add(outputs.len())).unwrap_or(0);
        ids
    }

    fn optional(mut self, input: u8) -> NodeIds {
        self.optional |= 1 << input;
        self
    }

    /// The ids the node reads, in field order, [`INVALID_VALUE_ID`] for an optional input it
    /// goes without.
    pub fn inputs(&self) -> &[u32] {
        self.ids.get(..usize::from(self.inputs)).unwrap_or_default()
    }

    /// The ids the node writes.
    pub fn outputs(&self) -> &[u32] {
        self.ids.get(usize::from(self.inputs)..usize::from(self.len)).unwrap_or_default()
    }

    /// The schema's name of the field holding id `i` (inputs first, then outputs).
    pub fn field(&self, i: usize) -> Name {
        self.names.get(i).copied().unwrap_or(&NONE)
    }

    /// Whether input `i` is one the node may go without, and does (its id is
    /// [`INVALID_VALUE_ID`]).
    pub fn is_absent(&self, i: usize) -> bool {
        i < 8 && self.optional >> i & 1 != 0 && self.inputs().get(i) == Some(&INVALID_VALUE_ID)
    }
}
