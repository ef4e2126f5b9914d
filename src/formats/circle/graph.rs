//! Circle's views as the shared model graph (`crate::graph`), and the rules Circle adds. The
//! trait impls come from `graph_views!`; this file holds what is Circle's own.

use super::{BuiltinOperator, BuiltinOptions, Model, Operator, OperatorCode, SubGraph, Tensor};
use crate::graph::{ElementType, FormatRules, OperatorKind};
use crate::verify::Name;
use crate::wire::Vector;

static BUILTIN_OPTIONS: &str = "builtin_options";

crate::graph::graph_views!(crate::Format::Circle);

/// What `code` means by Circle's rule ([`OperatorCode::builtin_operator_code`]).
fn operator_kind<'a>(code: OperatorCode<'a>) -> OperatorKind<'a> {
    let (op, version) = (code.builtin_operator_code(), code.version());
    if op == i32::from(BuiltinOperator::CUSTOM.0) {
        return OperatorKind::Custom { name: code.custom_code().unwrap_or(""), version };
    }
    OperatorKind::Builtin { code: op, name: super::model::operator_name(op), version }
}

fn element_type(t: &Tensor<'_>) -> ElementType {
    let t = t.type_();
    let (name, size) = super::model::type_name_and_size(t);
    ElementType { code: t.0, name, size }
}

/// Revision 0 has no `shape_signature`; -1 in `shape` marks an unknown dimension.
fn shape_signature<'a>(t: &Tensor<'a>) -> Option<Vector<'a, i32>> {
    t.shape()
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
