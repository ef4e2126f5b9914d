//! Circle's views as the shared model graph (`crate::graph`), and the rules Circle adds. The
//! trait impls come from `graph_views!`; this file holds what is Circle's own.

use super::{BuiltinOperator, DimensionMetadata, Metadata, Model, Operator, OperatorCode};
use super::{SignatureDef, SparsityParameters, SubGraph, Tensor, TensorMap};
use crate::graph::VARIABLE_DATA;
use crate::graph::{affine_refusal, Checked, Checker, ElementType, FormatRules, OperatorKind, Site, TensorView};

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

impl<'a> FormatRules<'a> for Model<'a> {
    /// Every Circle revision stores version 0 (`docs/circle.md` §2.1).
    const VERSION: u32 = 0;

    const PATHS: &'static [[u8; 2]] = crate::graph::checker::path_fields!(crate::circle;);

    fn buffer_tables(&self) -> Option<crate::wire::TableVector<'a, crate::wire::Table<'a>>> {
        self.raw().table_vector(Model::BUFFERS_SLOT)
    }

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
    /// constant data: the checks of `docs/tflite.md` §1.5 hold as rules (`docs/circle.md` §2.5).
    /// Block-wise details name other tensors of the subgraph (-1: none).
    fn tensor_rules(&self, c: &mut Checker<'a, Self>, tensor: &Tensor<'a>, count: usize, data: &[u8]) -> Checked {
        let at = tensor.raw().position();
        if tensor.is_variable() && !data.is_empty() {
            return Err(c.fail(&VARIABLE_DATA, at));
        }
        let Some(q) = TensorView::quantization(tensor) else { return Ok(()) };
        if let Some(site) = affine_refusal(&q, Tensor::shape(tensor)) {
            return Err(c.fail(site, at));
        }
        crate::graph::details_tensors(c, at, q.blockwise.map(|b| (b.scales, b.zero_points)), count)
    }

    /// With the `nested-metadata` feature, `CIRCLE_TRAINING`.
    #[cfg(feature = "nested-metadata")]
    fn nested_rules(&self, options: &crate::verify::Options) -> Result<(), crate::Error> {
        match self.training_with(options) {
            Some(Err(error)) => Err(error),
            _ => Ok(()),
        }
    }

    /// The control-flow options, with TFLite's tags and slots (0.10 has all of TFLite's).
    fn called_subgraphs(op: &Operator<'a>, f: &mut dyn FnMut(i64, &'static Site)) {
        let tags = [op.builtin_options_type(), op.builtin_options_2_type()];
        crate::graph::calls::for_each_called_subgraph(op.raw(), tags, f);
    }
}
