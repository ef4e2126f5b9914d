//! The model graph TFLite and Circle share: subgraphs of tensors and operators over a list of
//! buffers and operator codes.
//!
//! Both schemas descend from TFLite's, so their tables mean the same things but are distinct
//! generated types. The traits here name what they share; each format implements them over its
//! views ([`crate::tflite`], [`crate::circle`]), and everything written against the traits (the
//! provided methods below, the model rules, the command line's `inspect`) serves both formats
//! with one piece of code. Like the views, the traits read verified bytes and never allocate.
//!
//! Each provided method reads a fixed number of fields, or ([`ModelView::buffer_bytes`]) one
//! vector; none descends through shared offsets. What does (the rules, the warnings) is charged
//! to the work budget of [`crate::verify::Options`].

pub(crate) mod buffers;
pub(crate) mod calls;
pub(crate) mod checker;
mod impls;
pub(crate) mod nested;
mod rules;
mod runtime;
pub(crate) mod scratch;
pub(crate) mod sparsity;
mod tables;
mod view;
mod warning_text;

pub(crate) use checker::{Checked, Checker, Site};
pub(crate) use impls::{graph_views, model_container};
pub use rules::Warning;
pub(crate) use rules::VARIABLE_DATA;
pub(crate) use rules::{affine_refusal, check, check_into, details_tensors, runtime_check, warnings, FormatRules};
pub(crate) use runtime::Refusals;
pub use runtime::Runtime;
pub use sparsity::{IndexIter, IndexValues};
pub use view::{Blockwise, BufferRef, ElementType, OperatorKind, QuantView};

use crate::container::path_error;
use crate::error::{Error, ErrorKind};
// Field names in errors, from TFLite's schema: Circle's fields of these names are the same
// (`checker`'s `path_codes_name_their_fields` reads both schemas).
use crate::tflite::{Model as TfliteModel, Operator as TfliteOperator, SubGraph as TfliteSubGraph};
use crate::wire::{to_u64, FromTable, TableVector, Vector};

static MODEL: &str = "Model";

/// A verified model of a TFLite-family format.
pub trait ModelView<'a>: Copy + 'a {
    /// The format's subgraph view.
    type SubGraph: SubGraphView<'a, Tensor = Self::Tensor, Operator = Self::Operator> + FromTable<'a>;
    /// The format's tensor view.
    type Tensor: TensorView<'a> + FromTable<'a>;
    /// The format's operator view.
    type Operator: OperatorView<'a> + FromTable<'a>;
    /// The format's signature view.
    type Signature: SignatureView<'a> + FromTable<'a>;
    /// The format's metadata-entry view.
    type Metadata: MetadataView<'a> + FromTable<'a>;

    /// The format.
    const FORMAT: crate::Format;

    /// The whole file the model was parsed from (external buffers are measured from its start).
    fn file(&self) -> &'a [u8];
    /// Where the root table starts, for error offsets.
    fn position(&self) -> usize;
    /// `Model.version`: the schema version the writer claims.
    fn schema_version(&self) -> u32;
    /// `Model.description`.
    fn description(&self) -> Option<&'a str>;
    /// `Model.subgraphs`.
    fn subgraph_list(&self) -> Option<TableVector<'a, Self::SubGraph>>;
    /// How many entries `Model.buffers` has, or `None` when the field is absent.
    fn buffer_count(&self) -> Option<usize>;
    /// Buffer `index`, as stored.
    fn buffer_ref(&self, index: usize) -> Option<BufferRef<'a>>;
    /// How many entries `Model.operator_codes` has.
    fn operator_code_count(&self) -> usize;
    /// What operator code `index` means, by the format's rule.
    fn operator_kind_at(&self, index: usize) -> Option<OperatorKind<'a>>;
    /// Where operator code `index` starts, for error offsets (the root's position if absent).
    fn operator_code_position(&self, index: usize) -> usize;
    /// `Model.signature_defs`: the exported entry points.
    fn signature_list(&self) -> Option<TableVector<'a, Self::Signature>>;
    /// `Model.metadata`: named buffers.
    fn metadata_list(&self) -> Option<TableVector<'a, Self::Metadata>>;

    /// Subgraph `index`.
    fn subgraph(&self, index: usize) -> Option<Self::SubGraph> {
        self.subgraph_list()?.get(index)
    }

    /// What `op` runs: its operator code read by the format's rule.
    fn operator_kind(&self, op: &Self::Operator) -> Option<OperatorKind<'a>> {
        self.operator_kind_at(usize::try_from(op.opcode_index()).ok()?)
    }

    /// The bytes of buffer `index`: `Buffer.data` if present, else `Buffer.offset/size`
    /// measured from the start of the file (offsets 0 and 1 are writers' placeholders and mean
    /// no data). An empty slice when the buffer holds no data.
    fn buffer_data(&self, index: u32) -> Result<&'a [u8], Error> {
        let buffer = usize::try_from(index).ok().and_then(|i| self.buffer_ref(i));
        let buffer = buffer.ok_or_else(|| buffer_error(ErrorKind::IndexOutOfRange, to_u64(self.position()), index))?;
        if let Some(data) = buffer.data {
            return Ok(data);
        }
        if buffer.offset <= 1 {
            return Ok(&[]);
        }
        external_range(self.file(), buffer.offset, buffer.size)
            .ok_or_else(|| buffer_error(ErrorKind::OutOfBounds, buffer.offset, index))
    }

    /// The bytes of the first metadata entry named `name` (names can repeat in real files).
    ///
    /// A scan of `Model.metadata` comparing names: linear in the file (the vector's length is
    /// bounded by its bytes) times the length of `name`.
    fn metadata_bytes(&self, name: &str) -> Option<&'a [u8]> {
        let entry = self.metadata_list()?.iter().find(|m| m.name() == Some(name))?;
        self.buffer_data(entry.buffer()).ok()
    }

    /// The data of `tensor` (a tensor of one of this model's subgraphs); empty when it has none.
    fn tensor_data(&self, tensor: &Self::Tensor) -> Result<&'a [u8], Error> {
        match tensor.buffer() {
            0 => Ok(&[]),
            index => self.buffer_data(index),
        }
    }

    /// The custom options of `op`: `custom_options` inline, or the bytes that
    /// `large_custom_options_offset/size` place in the file (offsets 0 and 1 are writers'
    /// placeholders and mean none). `None` when it has neither.
    ///
    /// On a model the rules accepted this never fails. After `parse_structure` only, a range
    /// past the end of the file is an [`ErrorKind::OutOfBounds`] at the operator's position,
    /// located at `Model.subgraphs.operators.large_custom_options_offset` (the operator alone
    /// does not know its indices; its byte offset names it).
    fn custom_options(&self, op: &Self::Operator) -> Result<Option<&'a [u8]>, Error> {
        if let Some(inline) = op.custom_options() {
            return Ok(Some(inline.as_slice()));
        }
        match large_custom_options_range(self.file(), op) {
            None => Ok(None),
            Some(Some(bytes)) => Ok(Some(bytes)),
            Some(None) => {
                let path = [
                    (&TfliteModel::SUBGRAPHS_NAME, None),
                    (&TfliteSubGraph::OPERATORS_NAME, None),
                    (&TfliteOperator::LARGE_CUSTOM_OPTIONS_OFFSET_NAME, None),
                ];
                Err(path_error(ErrorKind::OutOfBounds, to_u64(op.position()), &MODEL, &path, &[]))
            }
        }
    }

    /// Bytes of the buffers that live inside the flatbuffer (`Buffer.data`) and outside it
    /// (`Buffer.offset/size`). One pass over `Model.buffers`: linear in the file.
    fn buffer_bytes(&self) -> (u64, u64) {
        let (mut inside, mut outside) = (0u64, 0u64);
        for buffer in (0..self.buffer_count().unwrap_or(0)).filter_map(|i| self.buffer_ref(i)) {
            match buffer.data {
                Some(d) => inside = inside.saturating_add(to_u64(d.len())),
                None if buffer.offset > 1 => outside = outside.saturating_add(buffer.size),
                None => {}
            }
        }
        (inside, outside)
    }
}

/// A subgraph: tensors, the operators that run over them, and its inputs and outputs.
pub trait SubGraphView<'a>: Copy + 'a {
    /// The format's tensor view.
    type Tensor: TensorView<'a> + FromTable<'a>;
    /// The format's operator view.
    type Operator: OperatorView<'a> + FromTable<'a>;

    /// Where the table starts, for error offsets.
    fn position(&self) -> usize;
    /// `SubGraph.name`.
    fn name(&self) -> Option<&'a str>;
    /// `SubGraph.tensors`.
    fn tensors(&self) -> Option<TableVector<'a, Self::Tensor>>;
    /// `SubGraph.inputs`: tensor indices.
    fn inputs(&self) -> Option<Vector<'a, i32>>;
    /// `SubGraph.outputs`: tensor indices.
    fn outputs(&self) -> Option<Vector<'a, i32>>;
    /// `SubGraph.operators`, in execution order.
    fn operators(&self) -> Option<TableVector<'a, Self::Operator>>;

    /// Tensor `index` (as the `i32` indices of inputs, outputs and operators give it).
    fn tensor(&self, index: i32) -> Option<Self::Tensor> {
        self.tensors()?.get(usize::try_from(index).ok()?)
    }
}

/// A tensor: its type, shape, data buffer and quantization.
pub trait TensorView<'a>: Copy + 'a {
    /// The format's sparsity view.
    type Sparsity: SparsityView<'a>;

    /// Where the table starts, for error offsets.
    fn position(&self) -> usize;
    /// `Tensor.name`.
    fn name(&self) -> Option<&'a str>;
    /// `Tensor.shape`.
    fn shape(&self) -> Option<Vector<'a, i32>>;
    /// The shape with -1 for dimensions unknown until run time, as runtimes read it:
    /// `shape_signature` when present and non-empty, otherwise `shape` (revision-0 Circle files
    /// have no `shape_signature` and write -1 in `shape`).
    fn shape_signature(&self) -> Option<Vector<'a, i32>>;
    /// `Tensor.type`, with the format's name for it.
    fn element_type(&self) -> ElementType;
    /// `Tensor.buffer`: an index into `Model.buffers` (0: no data).
    fn buffer(&self) -> u32;
    /// `Tensor.is_variable`.
    fn is_variable(&self) -> bool;
    /// `Tensor.quantization`'s per-tensor, per-axis and block-wise parameters.
    fn quantization(&self) -> Option<QuantView<'a>>;
    /// `Tensor.sparsity`: how a sparse tensor's data is laid out.
    fn sparsity(&self) -> Option<Self::Sparsity>;
}

/// A signature (`SignatureDef`): an entry point of the model, a subgraph with named inputs and
/// outputs.
pub trait SignatureView<'a>: Copy + 'a {
    /// The format's tensor-map view.
    type TensorMap: TensorMapView<'a> + FromTable<'a>;

    /// Where the table starts, for error offsets.
    fn position(&self) -> usize;
    /// `SignatureDef.signature_key`.
    fn key(&self) -> Option<&'a str>;
    /// `SignatureDef.subgraph_index`: the subgraph it runs.
    fn subgraph_index(&self) -> u32;
    /// `SignatureDef.inputs`: names of tensors of that subgraph.
    fn inputs(&self) -> Option<TableVector<'a, Self::TensorMap>>;
    /// `SignatureDef.outputs`.
    fn outputs(&self) -> Option<TableVector<'a, Self::TensorMap>>;
}

/// A signature's name for one tensor (`TensorMap`).
pub trait TensorMapView<'a>: Copy + 'a {
    /// Where the table starts, for error offsets.
    fn position(&self) -> usize;
    /// `TensorMap.name`.
    fn name(&self) -> Option<&'a str>;
    /// `TensorMap.tensor_index`: a tensor of the signature's subgraph.
    fn tensor_index(&self) -> u32;
}

/// A metadata entry (`Metadata`): a named buffer.
pub trait MetadataView<'a>: Copy + 'a {
    /// Where the table starts, for error offsets.
    fn position(&self) -> usize;
    /// `Metadata.name`.
    fn name(&self) -> Option<&'a str>;
    /// `Metadata.buffer`: an index into `Model.buffers`.
    fn buffer(&self) -> u32;
}

/// A sparse tensor's layout (`SparsityParameters`).
pub trait SparsityView<'a>: Copy + 'a {
    /// The format's dimension-metadata view.
    type Dimension: DimensionView<'a> + FromTable<'a>;

    /// `SparsityParameters.traversal_order`.
    fn traversal_order(&self) -> Option<Vector<'a, i32>>;
    /// `SparsityParameters.block_map`.
    fn block_map(&self) -> Option<Vector<'a, i32>>;
    /// `SparsityParameters.dim_metadata`: one entry per traversed dimension.
    fn dim_metadata(&self) -> Option<TableVector<'a, Self::Dimension>>;
}

/// One traversed dimension of a sparse tensor (`DimensionMetadata`).
pub trait DimensionView<'a>: Copy + 'a {
    /// `DimensionMetadata.format`: 0 `DENSE`, 1 `SPARSE_CSR` in both formats.
    fn format(&self) -> i8;
    /// `DimensionMetadata.dense_size`.
    fn dense_size(&self) -> i32;
    /// `DimensionMetadata.array_segments`' values, whatever their stored width; `None` when
    /// absent or of a member the schema does not name.
    fn array_segments(&self) -> Option<IndexValues<'a>>;
    /// `DimensionMetadata.array_indices`' values, as [`DimensionView::array_segments`].
    fn array_indices(&self) -> Option<IndexValues<'a>>;
}

/// An operator: which code it runs, over which tensors.
pub trait OperatorView<'a>: Copy + 'a {
    /// Where the table starts, for error offsets.
    fn position(&self) -> usize;
    /// `Operator.opcode_index`: an index into `Model.operator_codes`.
    fn opcode_index(&self) -> u32;
    /// `Operator.inputs`: tensor indices, -1 for an omitted optional input.
    fn inputs(&self) -> Option<Vector<'a, i32>>;
    /// `Operator.outputs`: tensor indices.
    fn outputs(&self) -> Option<Vector<'a, i32>>;
    /// `Operator.intermediates`: tensor indices.
    fn intermediates(&self) -> Option<Vector<'a, i32>>;
    /// `Operator.custom_options`, inline.
    fn custom_options(&self) -> Option<Vector<'a, u8>>;
    /// `Operator.large_custom_options_offset` and `_size`.
    fn large_custom_options(&self) -> (u64, u64);
    /// The union tags of `builtin_options` and `builtin_options_2` (0: none), as stored.
    fn options_types(&self) -> [u8; 2];
    /// Calls `f` with each subgraph index the operator's control-flow options name (`WHILE`'s
    /// condition and body, `IF`'s branches, `CALL_ONCE`, `CALL` and the StableHLO ones), in
    /// the order the options list them. An index is as stored: the model rules check it.
    fn for_each_called_subgraph(&self, f: &mut dyn FnMut(i64));
}

/// The error for buffer `index`, at `Model.buffers[index]`.
fn buffer_error(kind: ErrorKind, offset: u64, index: u32) -> Error {
    path_error(kind, offset, &MODEL, &[(&TfliteModel::BUFFERS_NAME, usize::try_from(index).ok())], &[])
}

/// Where `op`'s large custom options lie when it has no inline ones: `None` when it has none
/// (offsets 0 and 1 are placeholders), `Some(None)` when the range overflows or passes the end
/// of `file`.
pub(crate) fn large_custom_options_range<'a, 'f, O: OperatorView<'a>>(
    file: &'f [u8],
    op: &O,
) -> Option<Option<&'f [u8]>> {
    // The offset first: nearly every operator has none, and then nothing else is read.
    let (offset, size) = op.large_custom_options();
    if offset <= 1 || op.custom_options().is_some() {
        return None;
    }
    Some(external_range(file, offset, size))
}

/// `file[offset .. offset + size]`, or `None` when it overflows or passes the end.
pub(crate) fn external_range(file: &[u8], offset: u64, size: u64) -> Option<&[u8]> {
    let start = usize::try_from(offset).ok()?;
    let end = start.checked_add(usize::try_from(size).ok()?)?;
    file.get(start..end)
}
