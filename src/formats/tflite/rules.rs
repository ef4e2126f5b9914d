//! The model rules only TFLite has, on top of the shared ones in `crate::graph`: block-wise
//! and multi-axis quantization details, external buffers, and the nested flatbuffers and
//! runtime profiles it hooks in.

use super::{BlockwiseQuantization, MultiAxisQuantization};
use super::{BuiltinOperator, Model, Operator, QuantizationDetails, QuantizationParameters, Tensor};
use crate::graph::checker::path_fields;
use crate::graph::{Checked, Checker, FormatRules, Runtime, Site};

/// The fields of the path codes: the shared ones (TFLite has none of its own).
static PATHS: &[[u8; 2]] = path_fields!(crate::tflite;);

impl<'a> FormatRules<'a> for Model<'a> {
    const VERSION: u32 = 3;

    const PATHS: &'static [[u8; 2]] = PATHS;

    fn buffer_tables(&self) -> Option<crate::wire::TableVector<'a, crate::wire::Table<'a>>> {
        self.raw().table_vector(Model::BUFFERS_SLOT)
    }

    fn custom_without_code(&self, index: usize) -> bool {
        let code = self.operator_codes().and_then(|c| c.get(index));
        code.is_some_and(|c| {
            c.builtin_operator() == BuiltinOperator::CUSTOM && c.custom_code().unwrap_or("").is_empty()
        })
    }

    fn element_size(tensor: &Tensor<'a>) -> (i8, Option<u64>) {
        let t = tensor.type_();
        (t.0, super::element_size(t))
    }

    /// Block-wise and multi-axis details name other tensors of the subgraph (-1: none).
    fn tensor_rules(&self, c: &mut Checker<'a, Self>, tensor: &Tensor<'a>, count: usize, _data: &[u8]) -> Checked {
        let Some(q) = Tensor::quantization(tensor) else { return Ok(()) };
        let (table, tag, slot) = (q.raw(), q.details_type(), QuantizationParameters::DETAILS_SLOT);
        let named = match table.union_member::<QuantizationDetails, BlockwiseQuantization>(slot, tag) {
            Some(b) => Some((b.scales(), b.zero_points())),
            None => table
                .union_member::<QuantizationDetails, MultiAxisQuantization>(slot, tag)
                .map(|m| (m.scales(), m.zero_points())),
        };
        crate::graph::details_tensors(c, tensor.raw().position(), named, count)
    }

    /// Data in an external buffer is not in the file.
    fn data_rules(&self, _c: &mut Checker<'a, Self>, tensor: &Tensor<'a>, _data: &[u8]) -> Checked<bool> {
        Ok(tensor.external_buffer() != 0)
    }

    fn called_subgraphs(op: &Operator<'a>, f: &mut dyn FnMut(i64, &'static Site)) {
        let tags = [op.builtin_options_type(), op.builtin_options_2_type()];
        crate::graph::calls::for_each_called_subgraph(op.raw(), tags, f);
    }

    /// With the `nested-metadata` feature, `TFLITE_METADATA` and `CONVERSION_METADATA`.
    #[cfg(feature = "nested-metadata")]
    fn nested_rules(&self, options: &crate::verify::Options) -> Result<(), crate::Error> {
        super::metadata::nested_rules(self, options)
    }

    fn runtime_rules(
        &self,
        c: &mut Checker<'a, Self>,
        runtime: Runtime,
        each: &mut crate::graph::Refusals<'_>,
    ) -> Checked {
        super::runtime::rules(*self, c, runtime, each)
    }
}
