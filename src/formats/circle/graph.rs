//! Circle's views as the shared model graph (`crate::graph`), and the rules Circle adds.

use super::{BuiltinOperator, BuiltinOptions, Model, Operator, SubGraph, Tensor};
use crate::graph::{BufferRef, ElementType, FormatRules, ModelView, OperatorKind, OperatorView, QuantView};
use crate::graph::{SubGraphView, TensorView};
use crate::verify::Name;
use crate::wire::{TableVector, Vector};

static BUILTIN_OPTIONS: &str = "builtin_options";

impl<'a> ModelView<'a> for Model<'a> {
    type SubGraph = SubGraph<'a>;
    type Tensor = Tensor<'a>;
    type Operator = Operator<'a>;
    const FORMAT: crate::Format = crate::Format::Circle;

    fn file(&self) -> &'a [u8] {
        self.raw().buffer()
    }
    fn position(&self) -> usize {
        self.raw().position()
    }
    fn schema_version(&self) -> u32 {
        self.version()
    }
    fn description(&self) -> Option<&'a str> {
        Model::description(self)
    }
    fn subgraph_list(&self) -> Option<TableVector<'a, SubGraph<'a>>> {
        self.subgraphs()
    }
    fn buffer_count(&self) -> Option<usize> {
        self.buffers().map(|b| b.len())
    }
    fn buffer_ref(&self, index: usize) -> Option<BufferRef<'a>> {
        let b = self.buffers()?.get(index)?;
        Some(BufferRef { data: b.data().map(|d| d.as_slice()), offset: b.offset(), size: b.size() })
    }
    fn operator_code_count(&self) -> usize {
        self.operator_codes().map_or(0, |c| c.len())
    }
    fn operator_kind_at(&self, index: usize) -> Option<OperatorKind<'a>> {
        let code = self.operator_codes()?.get(index)?;
        let (op, version) = (code.builtin_operator_code(), code.version());
        Some(match op {
            op if op == i32::from(BuiltinOperator::CUSTOM.0) => {
                OperatorKind::Custom { name: code.custom_code().unwrap_or(""), version }
            }
            _ => OperatorKind::Builtin { code: op, name: super::model::operator_name(op), version },
        })
    }
    fn operator_code_position(&self, index: usize) -> usize {
        self.operator_codes().and_then(|c| c.get(index)).map_or(self.raw().position(), |c| c.raw().position())
    }
}

impl<'a> SubGraphView<'a> for SubGraph<'a> {
    type Tensor = Tensor<'a>;
    type Operator = Operator<'a>;

    fn position(&self) -> usize {
        self.raw().position()
    }
    fn name(&self) -> Option<&'a str> {
        SubGraph::name(self)
    }
    fn tensors(&self) -> Option<TableVector<'a, Tensor<'a>>> {
        SubGraph::tensors(self)
    }
    fn inputs(&self) -> Option<Vector<'a, i32>> {
        SubGraph::inputs(self)
    }
    fn outputs(&self) -> Option<Vector<'a, i32>> {
        SubGraph::outputs(self)
    }
    fn operators(&self) -> Option<TableVector<'a, Operator<'a>>> {
        SubGraph::operators(self)
    }
}

impl<'a> TensorView<'a> for Tensor<'a> {
    fn position(&self) -> usize {
        self.raw().position()
    }
    fn name(&self) -> Option<&'a str> {
        Tensor::name(self)
    }
    fn shape(&self) -> Option<Vector<'a, i32>> {
        Tensor::shape(self)
    }
    fn element_type(&self) -> ElementType {
        let t = self.type_();
        let (name, size) = super::model::type_name_and_size(t);
        ElementType { code: t.0, name, size }
    }
    fn buffer(&self) -> u32 {
        Tensor::buffer(self)
    }
    fn is_variable(&self) -> bool {
        Tensor::is_variable(self)
    }
    fn quantization(&self) -> Option<QuantView<'a>> {
        let q = Tensor::quantization(self)?;
        Some(QuantView {
            min: q.min(),
            max: q.max(),
            scale: q.scale(),
            zero_point: q.zero_point(),
            quantized_dimension: q.quantized_dimension(),
        })
    }
}

impl<'a> OperatorView<'a> for Operator<'a> {
    fn position(&self) -> usize {
        self.raw().position()
    }
    fn opcode_index(&self) -> u32 {
        Operator::opcode_index(self)
    }
    fn inputs(&self) -> Option<Vector<'a, i32>> {
        Operator::inputs(self)
    }
    fn outputs(&self) -> Option<Vector<'a, i32>> {
        Operator::outputs(self)
    }
    fn intermediates(&self) -> Option<Vector<'a, i32>> {
        Operator::intermediates(self)
    }
    fn custom_options(&self) -> Option<Vector<'a, u8>> {
        Operator::custom_options(self)
    }
    fn large_custom_options(&self) -> (u64, u64) {
        (self.large_custom_options_offset(), self.large_custom_options_size())
    }
}

impl<'a> FormatRules<'a> for Model<'a> {
    /// Every Circle revision stores version 0 (FORMATS.md 2).
    const VERSION: u32 = 0;

    /// Revision 0's only control-flow operator is CALL.
    fn called_subgraphs(op: &Operator<'a>, mut f: impl FnMut(i64, Name)) {
        if let BuiltinOptions::CallOptions(o) = op.builtin_options() {
            f(i64::from(o.subgraph()), &BUILTIN_OPTIONS);
        }
    }
}
