//! The XNNGraph's rules (`docs/executorch.md` §3.8): every constant resolves, every value's
//! `id_out` is its index and its shape and constant index hold, every node reads and writes
//! values, each read after a graph input, a constant or an earlier node defines it, and
//! quantization parameters agree with the tensor they quantize.

use super::blob::Blob;
use super::quant::check_quant;
use super::{NodeIds, XNNGraph, XNNQuantizedTensorValue, XNNTensorValue, XNode, XValue, XValueUnion};
use crate::container::{check_ids, in_range, Checked, Walk};
use crate::error::ErrorKind;
use crate::verify::Name;
use crate::wire::TableVector;

/// `XNN_VALUE_FLAG_EXTERNAL_INPUT`: a value the caller supplies.
const EXTERNAL_INPUT: u32 = 1;

impl<'a> XValue<'a> {
    /// The tensor this value describes (a quantized value's `tensor_value`); `None` for a
    /// member this schema does not name, or a quantized value without one.
    pub fn tensor(&self) -> Option<XNNTensorValue<'a>> {
        match self.xvalue_union() {
            XValueUnion::XNNTensorValue(t) => Some(t),
            XValueUnion::XNNQuantizedTensorValue(q) => q.tensor_value(),
            _ => None,
        }
    }

    /// The quantized value, when this is one.
    pub fn quantized(&self) -> Option<XNNQuantizedTensorValue<'a>> {
        match self.xvalue_union() {
            XValueUnion::XNNQuantizedTensorValue(q) => Some(q),
            _ => None,
        }
    }
}

impl<'a> Blob<'a> {
    /// The graph's rules, charged against the apparent-size budget.
    #[inline(never)]
    pub(super) fn check(&self, walk: &mut Walk<'_>) -> Checked {
        let g = self.graph();
        let constants = g.constant_data().map_or(0, |c| c.len());
        walk.charge(constants)?;
        for i in 0..constants {
            self.resolves(i, walk.error())?;
        }
        let values = g.xvalues();
        let n = values.map_or(0, |v| v.len());
        check_ids(walk, g.input_ids(), n, &XNNGraph::INPUT_IDS_NAME)?;
        check_ids(walk, g.output_ids(), n, &XNNGraph::OUTPUT_IDS_NAME)?;
        for v in 0..n {
            let Some(value) = values.and_then(|l| l.get(v)) else { continue };
            walk.charge(1)?;
            walk.enter(0, (&XNNGraph::XVALUES_NAME, Some(v)));
            self.check_value(walk, &value, v, constants)?;
        }
        let nodes = g.xnodes();
        for k in 0..nodes.map_or(0, |l| l.len()) {
            let Some(node) = nodes.and_then(|l| l.get(k)) else { continue };
            walk.charge(1)?;
            walk.enter(0, (&XNNGraph::XNODES_NAME, Some(k)));
            walk.enter(1, (&XNode::XNODE_UNION_NAME, None));
            // A member this schema does not name reads as its number; its fields are unknown.
            let Some(ids) = NodeIds::of(&node.xnode_union()) else { continue };
            self.check_node(walk, &ids, nodes, k, values)?;
        }
        Ok(())
    }

    /// One value's rules, the walk at `xvalues[v]`.
    fn check_value(&self, walk: &mut Walk<'_>, value: &XValue<'a>, v: usize, constants: usize) -> Checked {
        walk.enter(1, (&XValue::XVALUE_UNION_NAME, None));
        let quantized = value.quantized();
        let tensor = match (value.xvalue_union(), quantized) {
            (XValueUnion::XNNTensorValue(t), _) => t,
            (_, Some(q)) => match q.tensor_value() {
                Some(t) => {
                    walk.enter(2, (&XNNQuantizedTensorValue::TENSOR_VALUE_NAME, None));
                    t
                }
                None => {
                    return Err(
                        walk.fail(ErrorKind::MissingRequired, &[(&XNNQuantizedTensorValue::TENSOR_VALUE_NAME, None)])
                    )
                }
            },
            // A member this schema does not name reads as its number.
            _ => return Ok(()),
        };
        let fault = |kind: ErrorKind, field: Name| (kind, field);
        let dims = tensor.dims().map_or(0, |d| d.len());
        let problem = if usize::try_from(tensor.id_out()) != Ok(v) {
            Some(fault(ErrorKind::Rule("id_out must be the value's index"), &XNNTensorValue::ID_OUT_NAME))
        } else if usize::try_from(tensor.num_dims()) != Ok(dims) {
            Some(fault(ErrorKind::Rule("num_dims differs from the length of dims"), &XNNTensorValue::NUM_DIMS_NAME))
        } else if tensor.constant_buffer_idx() != 0 && !in_range(tensor.constant_buffer_idx(), constants) {
            Some(fault(ErrorKind::IndexOutOfRange, &XNNTensorValue::CONSTANT_BUFFER_IDX_NAME))
        } else {
            None
        };
        if let Some((kind, field)) = problem {
            return Err(walk.fail(kind, &[(field, None)]));
        }
        match quantized {
            Some(q) => {
                walk.enter(2, (&XNNQuantizedTensorValue::QUANT_PARAMS_NAME, None));
                check_quant(walk, self, &q.quant_params(), &tensor)
            }
            None => Ok(()),
        }
    }

    /// One node's rules, the walk at `xnodes[k].xnode_union`: its ids name values; each input
    /// is an external input, a constant or an earlier node's output; no output is a constant.
    fn check_node(
        &self,
        walk: &mut Walk<'_>,
        ids: &NodeIds,
        nodes: Option<TableVector<'a, XNode<'a>>>,
        k: usize,
        values: Option<TableVector<'a, XValue<'a>>>,
    ) -> Checked {
        let n = values.map_or(0, |v| v.len());
        let tensor = |id: u32| values.and_then(|l| l.get(usize::try_from(id).ok()?)).and_then(|v| v.tensor());
        for (i, &id) in ids.inputs().iter().enumerate() {
            if ids.is_absent(i) {
                continue;
            }
            if !in_range(id, n) {
                return Err(walk.fail(ErrorKind::IndexOutOfRange, &[(ids.field(i), None)]));
            }
            let given = tensor(id).is_none_or(|t| t.constant_buffer_idx() != 0 || t.flags() & EXTERNAL_INPUT != 0);
            if given || self.graph().input_ids().is_some_and(|l| l.iter().any(|x| x == id)) {
                continue;
            }
            if !self.defined_before(walk, nodes, k, id)? {
                let rule = ErrorKind::Rule("a node reads a value no input, constant or earlier node defines");
                return Err(walk.fail(rule, &[(ids.field(i), None)]));
            }
        }
        for (o, &id) in ids.outputs().iter().enumerate() {
            let field = ids.field(ids.inputs().len().saturating_add(o));
            if !in_range(id, n) {
                return Err(walk.fail(ErrorKind::IndexOutOfRange, &[(field, None)]));
            }
            if tensor(id).is_some_and(|t| t.constant_buffer_idx() != 0) {
                return Err(walk.fail(ErrorKind::Rule("a node writes a constant value"), &[(field, None)]));
            }
        }
        Ok(())
    }

    /// Whether a node before `k` writes value `id` (or may: a member this schema does not
    /// name), nearest first (in a chain of nodes the writer is usually the node just before);
    /// each node looked at costs a unit of work.
    fn defined_before(
        &self,
        walk: &mut Walk<'_>,
        nodes: Option<TableVector<'a, XNode<'a>>>,
        k: usize,
        id: u32,
    ) -> Checked<bool> {
        for j in (0..k).rev() {
            walk.charge(1)?;
            let Some(node) = nodes.and_then(|l| l.get(j)) else { continue };
            // A member this schema does not name may write it: its fields are unknown.
            if NodeIds::of(&node.xnode_union()).is_none_or(|w| w.outputs().contains(&id)) {
                return Ok(true);
            }
        }
        Ok(false)
    }
}
