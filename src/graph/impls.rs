//! The code each TFLite-family format would otherwise repeat: how its model parses, its warnings
//! and the graph traits over its generated views, whose tables have the same fields in both schemas.
//! A format invokes the two macros with what differs: its identifier, its operator-code rule,
//! how it names element types and which shape runtimes read. The parsing entry points
//! themselves come from the container kit's `entry_points!`, as for every format.

/// How a format module holding `Model` and `IDENTIFIER` parses (the verified root, then the
/// graph's model rules), for [`crate::container::entry_points!`], and `Model::for_each_warning`
/// and `for_each_warning_with`.
macro_rules! model_container {
    () => {
        impl<'a> $crate::container::Container<'a> for Model<'a> {
            fn structure(
                bytes: &'a [u8],
                options: &$crate::verify::Options,
            ) -> Result<(Self, $crate::verify::Stats), $crate::Error> {
                $crate::container::verified_root(bytes, Some(IDENTIFIER), options, 0)
            }

            fn rules(&self, options: &$crate::verify::Options) -> Result<(), $crate::Error> {
                $crate::graph::check(*self, options)
            }

            fn structure_into(
                bytes: &'a [u8],
                options: &$crate::verify::Options,
                error: &mut $crate::Error,
            ) -> $crate::container::Checked<(Self, $crate::verify::Stats)> {
                $crate::container::verified_root_in(bytes, Some(IDENTIFIER), options, 0, error)
            }

            fn rules_into(
                &self,
                options: &$crate::verify::Options,
                error: &mut $crate::Error,
            ) -> $crate::container::Checked {
                $crate::graph::check_into(*self, options, error)
            }
        }

        impl<'a> Model<'a> {
            /// Calls `f` for each advisory finding: things a runtime tolerates but a careful
            /// writer would not produce. [`Model::for_each_warning_with`] with the default
            /// limits.
            pub fn for_each_warning(&self, f: impl FnMut($crate::graph::Warning)) -> Result<(), $crate::Error> {
                self.for_each_warning_with(&$crate::verify::Options::DEFAULT, f)
            }

            /// Calls `f` for each advisory finding, charging the walk to the apparent-size budget
            /// of `options` (per subgraph visit: its tensors, its inputs, each operator with its
            /// inputs and outputs; the metadata names compared), as the model rules charge it.
            ///
            /// On a model [`Model::parse_with`] accepted with the same `options` this never runs
            /// out: the rules charge every one of these quantities too. After
            /// [`Model::parse_structure`] alone, shared subtrees can make the walk far longer
            /// than the file; it then stops with [`ErrorKind::ApparentSizeLimit`](crate::ErrorKind)
            /// (the findings reported until then were reported, the rest are not).
            pub fn for_each_warning_with(
                &self,
                options: &$crate::verify::Options,
                f: impl FnMut($crate::graph::Warning),
            ) -> Result<(), $crate::Error> {
                $crate::graph::warnings(*self, options, f)
            }
        }
    };
}

/// The graph traits (`ModelView` and the rest) over a format module's `Model`, `SubGraph`,
/// `Tensor`, `Operator`, `SignatureDef`, `TensorMap`, `Metadata`, `SparsityParameters` and
/// `DimensionMetadata` views, given the format and two functions of the module:
/// `operator_kind(OperatorCode) -> OperatorKind` and `element_type(&Tensor) -> ElementType`.
macro_rules! graph_views {
    ($format:expr) => {
        impl<'a> $crate::graph::ModelView<'a> for Model<'a> {
            type SubGraph = SubGraph<'a>;
            type Tensor = Tensor<'a>;
            type Operator = Operator<'a>;
            type Signature = SignatureDef<'a>;
            type Metadata = Metadata<'a>;
            const FORMAT: $crate::Format = $format;

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
            fn subgraph_list(&self) -> Option<$crate::wire::TableVector<'a, SubGraph<'a>>> {
                self.subgraphs()
            }
            fn buffer_count(&self) -> Option<usize> {
                self.buffers().map(|b| b.len())
            }
            fn buffer_ref(&self, index: usize) -> Option<$crate::graph::BufferRef<'a>> {
                let b = self.buffers()?.get(index)?;
                Some($crate::graph::BufferRef {
                    data: b.data().map(|d| d.as_slice()),
                    offset: b.offset(),
                    size: b.size(),
                })
            }
            fn operator_code_count(&self) -> usize {
                self.operator_codes().map_or(0, |c| c.len())
            }
            fn operator_kind_at(&self, index: usize) -> Option<$crate::graph::OperatorKind<'a>> {
                self.operator_codes()?.get(index).map(operator_kind)
            }
            fn operator_code_position(&self, index: usize) -> usize {
                let code = self.operator_codes().and_then(|c| c.get(index));
                code.map_or(self.raw().position(), |c| c.raw().position())
            }
            fn signature_list(&self) -> Option<$crate::wire::TableVector<'a, SignatureDef<'a>>> {
                self.signature_defs()
            }
            fn metadata_list(&self) -> Option<$crate::wire::TableVector<'a, Metadata<'a>>> {
                self.metadata()
            }
        }

        impl<'a> $crate::graph::SignatureView<'a> for SignatureDef<'a> {
            type TensorMap = TensorMap<'a>;

            fn position(&self) -> usize {
                self.raw().position()
            }
            fn key(&self) -> Option<&'a str> {
                self.signature_key()
            }
            fn subgraph_index(&self) -> u32 {
                SignatureDef::subgraph_index(self)
            }
            fn inputs(&self) -> Option<$crate::wire::TableVector<'a, TensorMap<'a>>> {
                SignatureDef::inputs(self)
            }
            fn outputs(&self) -> Option<$crate::wire::TableVector<'a, TensorMap<'a>>> {
                SignatureDef::outputs(self)
            }
        }

        impl<'a> $crate::graph::TensorMapView<'a> for TensorMap<'a> {
            fn position(&self) -> usize {
                self.raw().position()
            }
            fn name(&self) -> Option<&'a str> {
                TensorMap::name(self)
            }
            fn tensor_index(&self) -> u32 {
                TensorMap::tensor_index(self)
            }
        }

        impl<'a> $crate::graph::MetadataView<'a> for Metadata<'a> {
            fn position(&self) -> usize {
                self.raw().position()
            }
            fn name(&self) -> Option<&'a str> {
                Metadata::name(self)
            }
            fn buffer(&self) -> u32 {
                Metadata::buffer(self)
            }
        }

        impl<'a> $crate::graph::SparsityView<'a> for SparsityParameters<'a> {
            type Dimension = DimensionMetadata<'a>;

            fn traversal_order(&self) -> Option<$crate::wire::Vector<'a, i32>> {
                SparsityParameters::traversal_order(self)
            }
            fn block_map(&self) -> Option<$crate::wire::Vector<'a, i32>> {
                SparsityParameters::block_map(self)
            }
            fn dim_metadata(&self) -> Option<$crate::wire::TableVector<'a, DimensionMetadata<'a>>> {
                SparsityParameters::dim_metadata(self)
            }
        }

        impl<'a> $crate::graph::DimensionView<'a> for DimensionMetadata<'a> {
            fn format(&self) -> i8 {
                DimensionMetadata::format(self).0
            }
            fn dense_size(&self) -> i32 {
                DimensionMetadata::dense_size(self)
            }
            fn array_segments(&self) -> Option<$crate::graph::IndexValues<'a>> {
                $crate::graph::sparsity::index_values(self.raw(), $crate::graph::sparsity::ARRAY_SEGMENTS)
            }
            fn array_indices(&self) -> Option<$crate::graph::IndexValues<'a>> {
                $crate::graph::sparsity::index_values(self.raw(), $crate::graph::sparsity::ARRAY_INDICES)
            }
        }

        impl<'a> $crate::graph::SubGraphView<'a> for SubGraph<'a> {
            type Tensor = Tensor<'a>;
            type Operator = Operator<'a>;

            fn position(&self) -> usize {
                self.raw().position()
            }
            fn name(&self) -> Option<&'a str> {
                SubGraph::name(self)
            }
            fn tensors(&self) -> Option<$crate::wire::TableVector<'a, Tensor<'a>>> {
                SubGraph::tensors(self)
            }
            fn inputs(&self) -> Option<$crate::wire::Vector<'a, i32>> {
                SubGraph::inputs(self)
            }
            fn outputs(&self) -> Option<$crate::wire::Vector<'a, i32>> {
                SubGraph::outputs(self)
            }
            fn operators(&self) -> Option<$crate::wire::TableVector<'a, Operator<'a>>> {
                SubGraph::operators(self)
            }
        }

        impl<'a> $crate::graph::TensorView<'a> for Tensor<'a> {
            type Sparsity = SparsityParameters<'a>;

            fn position(&self) -> usize {
                self.raw().position()
            }
            fn name(&self) -> Option<&'a str> {
                Tensor::name(self)
            }
            fn shape(&self) -> Option<$crate::wire::Vector<'a, i32>> {
                Tensor::shape(self)
            }
            fn shape_signature(&self) -> Option<$crate::wire::Vector<'a, i32>> {
                Tensor::shape_signature(self).filter(|s| !s.is_empty()).or_else(|| Tensor::shape(self))
            }
            fn element_type(&self) -> $crate::graph::ElementType {
                element_type(self)
            }
            fn buffer(&self) -> u32 {
                Tensor::buffer(self)
            }
            fn is_variable(&self) -> bool {
                Tensor::is_variable(self)
            }
            fn quantization(&self) -> Option<$crate::graph::QuantView<'a>> {
                let q = Tensor::quantization(self)?;
                Some($crate::graph::QuantView {
                    min: q.min(),
                    max: q.max(),
                    scale: q.scale(),
                    zero_point: q.zero_point(),
                    quantized_dimension: q.quantized_dimension(),
                    // The one member read, by its tag (cheaper in flash than decoding the union).
                    blockwise: q
                        .raw()
                        .union_member::<super::QuantizationDetails, super::BlockwiseQuantization>(
                            super::QuantizationParameters::DETAILS_SLOT,
                            q.details_type(),
                        )
                        .map(|b| $crate::graph::Blockwise {
                            scales: b.scales(),
                            zero_points: b.zero_points(),
                            block_size: b.block_size(),
                        }),
                })
            }
            fn sparsity(&self) -> Option<SparsityParameters<'a>> {
                Tensor::sparsity(self)
            }
        }

        impl<'a> $crate::graph::OperatorView<'a> for Operator<'a> {
            fn position(&self) -> usize {
                self.raw().position()
            }
            fn opcode_index(&self) -> u32 {
                Operator::opcode_index(self)
            }
            fn inputs(&self) -> Option<$crate::wire::Vector<'a, i32>> {
                Operator::inputs(self)
            }
            fn outputs(&self) -> Option<$crate::wire::Vector<'a, i32>> {
                Operator::outputs(self)
            }
            fn intermediates(&self) -> Option<$crate::wire::Vector<'a, i32>> {
                Operator::intermediates(self)
            }
            fn custom_options(&self) -> Option<$crate::wire::Vector<'a, u8>> {
                Operator::custom_options(self)
            }
            fn large_custom_options(&self) -> (u64, u64) {
                (self.large_custom_options_offset(), self.large_custom_options_size())
            }
            fn options_types(&self) -> [u8; 2] {
                [self.builtin_options_type(), self.builtin_options_2_type()]
            }
            fn for_each_called_subgraph(&self, f: &mut dyn FnMut(i64)) {
                let tags = [self.builtin_options_type(), self.builtin_options_2_type()];
                $crate::graph::calls::for_each_called_subgraph(self.raw(), tags, &mut |index, _| f(index));
            }
        }
    };
}

pub(crate) use {graph_views, model_container};
