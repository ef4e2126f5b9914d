//! Circle's views as the shared model graph (`crate::graph`), and the rules Circle adds. The
//! trait impls come from `graph_views!`; this file holds what is Circle's own.

use super::{BuiltinOperator, BuiltinOptions, CallOptions, Model, Operator, OperatorCode, SubGraph, Tensor};
use crate::graph::{affine_refusal, Checked, Checker, ElementType, FormatRules, OperatorKind, Site, TensorView};
use crate::graph::{CALLED_SUBGRAPH, VARIABLE_DATA};
use crate::wire::Vector;

/// `Operator.builtin_options`' value slot (a test checks it against the schema).
const OPTIONS: u16 = 4;

crate::graph::graph_views!(crate::Format::Circle);

/// What `code` means by Circle's rule ([`OperatorCode::builtin_operator`]).
fn operator_kind<'a>(code: OperatorCode<'a>) -> OperatorKind<'a> {
    let (op, version) = (code.builtin_operator(), code.version());
    match op {
        BuiltinOperator::CUSTOM => OperatorKind::Custom { name: code.custom_code().unwrap_or(""), version },
        _ => OperatorKind::Builtin { code: op.0, name: op.name(), version },
    }
}

/// Whether `code` is a CUSTOM operator, by Circle's rule.
fn is_custom(code: &OperatorCode<'_>) -> bool {
    code.builtin_operator() == BuiltinOperator::CUSTOM
}

fn element_type(t: &Tensor<'_>) -> ElementType {
    let t = t.type_();
    ElementType { code: t.0, name: t.name(), size: super::model::type_size(t) }
}

/// `shape_signature` when present and non-empty, as runtimes read it.
fn shape_signature<'a>(t: &Tensor<'a>) -> Option<Vector<'a, i32>> {
    t.signature()
}

impl<'a> FormatRules<'a> for Model<'a> {
    /// Every Circle revision stores version 0 (FORMATS.md 2).
    const VERSION: u32 = 0;

    const PATHS: &'static [[u8; 2]] = crate::graph::checker::path_fields!(crate::circle;);

    fn custom_without_code(&self, index: usize) -> bool {
        let code = self.operator_codes().and_then(|c| c.get(index));
        code.is_some_and(|c| is_custom(&c) && c.custom_code().unwrap_or("").is_empty())
    }

    fn element_size(tensor: &Tensor<'a>) -> (i8, Option<u64>) {
        let t = tensor.type_();
        (t.0, super::model::type_size(t))
    }

    /// Circle's readers (ONE's loaders, like LiteRT's from which they descend) refuse
    /// inconsistent scales, zero points and quantized dimensions, and variable tensors with
    /// constant data: FORMATS.md 1.5 holds as rules.
    fn tensor_rules(&self, c: &mut Checker<'a, Self>, tensor: &Tensor<'a>, _count: usize, data: &[u8]) -> Checked {
        let at = tensor.raw().position();
        if tensor.is_variable() && !data.is_empty() {
            return Err(c.fail(&VARIABLE_DATA, at));
        }
        let Some(q) = TensorView::quantization(tensor) else { return Ok(()) };
        match affine_refusal(&q, Tensor::shape(tensor)) {
            Some(site) => Err(c.fail(site, at)),
            None => Ok(()),
        }
    }

    /// Revision 0's only control-flow operator is CALL. Reads only that member of the options
    /// union, without building the union's value.
    fn called_subgraphs(op: &Operator<'a>, f: &mut dyn FnMut(i64, &'static Site)) {
        let tag = op.builtin_options_type();
        if let Some(o) = op.raw().union_member::<BuiltinOptions, CallOptions>(OPTIONS, tag) {
            f(i64::from(o.subgraph()), &CALLED_SUBGRAPH);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Operator, OPTIONS};
    use crate::schema::TableType;

    #[test]
    fn the_options_slot_is_the_schemas() {
        let slot = Operator::desc().fields.iter().find(|f| f.name == "builtin_options").map(|f| f.slot);
        assert_eq!(slot, Some(OPTIONS));
    }
}
