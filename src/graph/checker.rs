//! The state of one walk of the model rules: the work budget, the indices of the path being
//! walked, and the first failure. A rule that breaks names a [`Site`] (a static: the error kind
//! and the path under `Model`) and a byte offset; the [`Error`] is built once, when the walk
//! ends, by [`Checker::finish`]. So a failing rule costs a call with two arguments, and each
//! `?` on the way out tests a flag rather than copying an [`Error`] (which costs code at every
//! step on small targets).

use super::buffers::{Buffers, Stored};
use super::runtime::Refusals;
use super::FormatRules;
use crate::error::{Error, ErrorKind};
use crate::verify::{Options, SchemaLayout, VerifyTable};
use crate::wire::to_u64;

/// A broken rule or a spent budget, whose site the [`Checker`] keeps.
pub(crate) struct Failed;

/// What a rule returns: a value, or [`Failed`] with the site kept in the [`Checker`].
pub(crate) type Checked<T = ()> = Result<T, Failed>;

/// Where a rule reports: its error kind and the path under `Model`, up to four segments
/// outermost first, each a [`path`] code (0 ends the path early). Twelve bytes: the kind, when
/// it is not a [`ErrorKind::Rule`] (whose text is `text`), is kept in the bits of the fourth
/// segment that would name an index.
pub(crate) struct Site {
    text: &'static str,
    path: [u8; 4],
}

impl Site {
    /// The site of errors of `kind` at `path`: a rule, [`ErrorKind::IndexOutOfRange`],
    /// [`ErrorKind::OutOfBounds`] or [`ErrorKind::ApparentSizeLimit`], whose fourth segment
    /// takes no index (checked when the constant is evaluated).
    pub(crate) const fn new(kind: ErrorKind, path: [u8; 4]) -> Site {
        let [a, b, c, d] = path;
        assert!(d < path::OUTER, "the fourth segment of a site takes no index");
        let (text, code) = match kind {
            ErrorKind::Rule(text) => (text, 0),
            ErrorKind::IndexOutOfRange => ("", 1),
            ErrorKind::OutOfBounds => ("", 2),
            ErrorKind::ApparentSizeLimit => ("", 3),
            _ => panic!("a kind sites do not keep"),
        };
        Site { text, path: [a, b, c, d | code << 6] }
    }

    /// The error kind.
    fn kind(&self) -> ErrorKind {
        match self.path.get(3).map_or(0, |d| d >> 6) {
            0 => ErrorKind::Rule(self.text),
            1 => ErrorKind::IndexOutOfRange,
            2 => ErrorKind::OutOfBounds,
            _ => ErrorKind::ApparentSizeLimit,
        }
    }
}

/// Path codes: a field of the format's schema, in their low six bits, and which of the walk's
/// indices (none, [`Checker::outer`], [`Checker::inner`] or [`Checker::element`]) the segment
/// takes, in their high two. Codes 1 to [`path::FORMAT`] - 1 are the fields every format has
/// (the first entries of [`FormatRules::PATHS`], made by [`path_fields!`]), the ones from
/// [`path::FORMAT`] the format's own (the entries after them).
pub(crate) mod path {
    /// The segment takes [`super::Checker::outer`] as its index.
    pub(crate) const OUTER: u8 = 1 << 6;
    /// The segment takes [`super::Checker::inner`].
    pub(crate) const INNER: u8 = 2 << 6;
    /// The segment takes [`super::Checker::element`].
    pub(crate) const ELEMENT: u8 = 3 << 6;

    macro_rules! codes {
        ($($id:ident = $n:literal),* $(,)?) => {$(pub(crate) const $id: u8 = $n;)*};
    }
    // In the order of `path_fields!`.
    codes! {
        VERSION = 1, SUBGRAPHS = 2, BUFFERS = 3, OPERATORS = 4, INPUTS = 5, OUTPUTS = 6,
        INTERMEDIATES = 7, TENSORS = 8, BUFFER = 9, OPCODE_INDEX = 10, OPERATOR_CODES = 11,
        CUSTOM_CODE = 12, QUANTIZATION = 13, SCALE = 14, ZERO_POINT = 15, QUANTIZED_DIMENSION = 16,
        OFFSET = 17, IS_VARIABLE = 18, LARGE_CUSTOM_OPTIONS = 19, BUILTIN_OPTIONS = 20,
        OPERATOR_INPUTS = 21, OPERATOR_OUTPUTS = 22, SPARSITY = 23, SIGNATURE_DEFS = 24,
        SUBGRAPH_INDEX = 25, TENSOR_INDEX = 26, METADATA = 27, BUILTIN_OPTIONS_2 = 28, DIM_METADATA = 29,
        TRAVERSAL_ORDER = 30, DETAILS = 31, SIGNATURE_INPUTS = 32, SIGNATURE_OUTPUTS = 33,
        METADATA_BUFFER = 34, TENSOR_TYPE = 35, BUILTIN_CODE = 36, SHAPE = 37, CUSTOM_OPTIONS = 38,
    }
    /// The first code of a format's own fields (neither TFLite nor Circle has any now; read only
    /// by the test of the codes' names, which `numeric-paths` leaves out).
    #[cfg_attr(any(not(test), feature = "numeric-paths"), allow(dead_code))]
    pub(crate) const FORMAT: u8 = 39;
}

/// The fields of a format's path codes (for [`FormatRules::PATHS`]): those every format has,
/// in the order of [`path`]'s codes, from the generated tables of module `$m`, then the
/// format's own (`Table.field`, from [`path::FORMAT`] on).
macro_rules! path_fields {
    ($($m:ident)::+; $($table:ident . $field:ident),* $(,)?) => {{
        use $crate::graph::checker::field;
        use $($m)::+ as m;
        &[
            field::<m::Model<'static>>(m::Model::VERSION_NAME),
            field::<m::Model<'static>>(m::Model::SUBGRAPHS_NAME),
            field::<m::Model<'static>>(m::Model::BUFFERS_NAME),
            field::<m::SubGraph<'static>>(m::SubGraph::OPERATORS_NAME),
            field::<m::SubGraph<'static>>(m::SubGraph::INPUTS_NAME),
            field::<m::SubGraph<'static>>(m::SubGraph::OUTPUTS_NAME),
            field::<m::Operator<'static>>(m::Operator::INTERMEDIATES_NAME),
            field::<m::SubGraph<'static>>(m::SubGraph::TENSORS_NAME),
            field::<m::Tensor<'static>>(m::Tensor::BUFFER_NAME),
            field::<m::Operator<'static>>(m::Operator::OPCODE_INDEX_NAME),
            field::<m::Model<'static>>(m::Model::OPERATOR_CODES_NAME),
            field::<m::OperatorCode<'static>>(m::OperatorCode::CUSTOM_CODE_NAME),
            field::<m::Tensor<'static>>(m::Tensor::QUANTIZATION_NAME),
            field::<m::QuantizationParameters<'static>>(m::QuantizationParameters::SCALE_NAME),
            field::<m::QuantizationParameters<'static>>(m::QuantizationParameters::ZERO_POINT_NAME),
            field::<m::QuantizationParameters<'static>>(m::QuantizationParameters::QUANTIZED_DIMENSION_NAME),
            field::<m::Buffer<'static>>(m::Buffer::OFFSET_NAME),
            field::<m::Tensor<'static>>(m::Tensor::IS_VARIABLE_NAME),
            field::<m::Operator<'static>>(m::Operator::LARGE_CUSTOM_OPTIONS_OFFSET_NAME),
            field::<m::Operator<'static>>(m::Operator::BUILTIN_OPTIONS_NAME),
            field::<m::Operator<'static>>(m::Operator::INPUTS_NAME),
            field::<m::Operator<'static>>(m::Operator::OUTPUTS_NAME),
            field::<m::Tensor<'static>>(m::Tensor::SPARSITY_NAME),
            field::<m::Model<'static>>(m::Model::SIGNATURE_DEFS_NAME),
            field::<m::SignatureDef<'static>>(m::SignatureDef::SUBGRAPH_INDEX_NAME),
            field::<m::TensorMap<'static>>(m::TensorMap::TENSOR_INDEX_NAME),
            field::<m::Model<'static>>(m::Model::METADATA_NAME),
            field::<m::Operator<'static>>(m::Operator::BUILTIN_OPTIONS_2_NAME),
            field::<m::SparsityParameters<'static>>(m::SparsityParameters::DIM_METADATA_NAME),
            field::<m::SparsityParameters<'static>>(m::SparsityParameters::TRAVERSAL_ORDER_NAME),
            field::<m::QuantizationParameters<'static>>(m::QuantizationParameters::DETAILS_NAME),
            field::<m::SignatureDef<'static>>(m::SignatureDef::INPUTS_NAME),
            field::<m::SignatureDef<'static>>(m::SignatureDef::OUTPUTS_NAME),
            field::<m::Metadata<'static>>(m::Metadata::BUFFER_NAME),
            field::<m::Tensor<'static>>(m::Tensor::TYPE_NAME),
            field::<m::OperatorCode<'static>>(m::OperatorCode::BUILTIN_CODE_NAME),
            field::<m::Tensor<'static>>(m::Tensor::SHAPE_NAME),
            field::<m::Operator<'static>>(m::Operator::CUSTOM_OPTIONS_NAME),
            $(field::<m::$table<'static>>(stringify!($field))),*
        ]
    }};
}
pub(crate) use path_fields;

/// Field `name` of table `T`, as a path code's entry: the table's number and the field's place
/// among its fields in the schema layout (a build error when `T` has no such field).
#[allow(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    clippy::as_conversions
)] // compile time: a panic is a build error, and each cast is asserted to fit
pub(crate) const fn field<T: VerifyTable>(name: &str) -> [u8; 2] {
    let (names, name) = (T::FIELD_NAMES, name.as_bytes());
    let mut i = 0;
    while i < names.len() {
        let candidate = names[i].as_bytes();
        let mut same = candidate.len() == name.len();
        let mut j = 0;
        while same && j < name.len() {
            same = candidate[j] == name[j];
            j += 1;
        }
        if same {
            assert!(T::ID <= u8::MAX as u16 && i <= u8::MAX as usize, "a path field past 255");
            return [T::ID as u8, i as u8];
        }
        i += 1;
    }
    panic!("no such field");
}

pub(crate) static MODEL: &str = "Model";

/// The site of a spent budget: `Model` itself (at byte 0).
static SPENT: Site = Site::new(ErrorKind::ApparentSizeLimit, [0; 4]);

/// The rule walk over one model: where to report and how much work is left.
pub(crate) struct Checker<'a, M> {
    pub(crate) model: M,
    /// `Model.buffers`, read once.
    buffers: Buffers<'a>,
    /// Work units left.
    left: u64,
    /// The index of the outermost indexed segment being walked (a subgraph, a buffer, a
    /// metadata entry, a signature).
    pub(crate) outer: usize,
    /// The index within it (a tensor, an operator, a signature's tensor map).
    pub(crate) inner: usize,
    /// The element of a list that broke a rule.
    pub(crate) element: usize,
    /// The first failure: where, and at which byte.
    failed: Option<(&'static Site, usize)>,
    _file: core::marker::PhantomData<&'a [u8]>,
}

impl<'a, M: FormatRules<'a>> Checker<'a, M> {
    /// A walk over `model` with the work budget `options` give its file.
    pub(crate) fn new(model: M, options: &Options) -> Self {
        Checker {
            model,
            buffers: Buffers::new(model.buffer_tables()),
            left: options.apparent_size_budget(model.file().len()),
            outer: 0,
            inner: 0,
            element: 0,
            failed: None,
            _file: core::marker::PhantomData,
        }
    }

    /// How many buffers the model has.
    pub(crate) fn buffers(&self) -> usize {
        self.buffers.len()
    }

    /// `Model.buffers`, as the walk reads them.
    pub(crate) fn buffer_list(&self) -> Buffers<'a> {
        self.buffers
    }

    /// Where the bytes of buffer `index` are; `None` past the end.
    pub(crate) fn stored(&self, index: usize) -> Option<Stored<'a>> {
        self.buffers.stored(index)
    }

    /// Keeps `site` and `at` (a byte offset) as the walk's failure.
    #[cold]
    #[inline(never)]
    pub(crate) fn fail(&mut self, site: &'static Site, at: usize) -> Failed {
        self.failed = Some((site, at));
        Failed
    }

    /// Counts `units` of work against the budget; when fewer are left, fails with
    /// [`ErrorKind::ApparentSizeLimit`] (leaving the budget as it was).
    pub(crate) fn charge(&mut self, units: usize) -> Checked {
        match self.left.checked_sub(to_u64(units)) {
            Some(left) => {
                self.left = left;
                Ok(())
            }
            None => Err(self.fail(&SPENT, 0)),
        }
    }

    /// `outcome` with a failure's error.
    pub(crate) fn finish(&self, outcome: Checked) -> Result<(), Error> {
        outcome.map_err(|Failed| self.kept_error())
    }

    /// [`Checker::finish`], writing a failure's error into `error` in place.
    pub(crate) fn finish_into(&self, outcome: Checked, error: &mut Error) -> crate::container::Checked {
        outcome.map_err(|Failed| {
            self.write_error(error);
            crate::verify::Fail
        })
    }

    /// A runtime's refusal at `site` and byte `at`: the walk's failure when `each` is `None`
    /// (the first refusal is the verdict), else reported to `each` as an error, the walk going
    /// on.
    pub(crate) fn refuse(&mut self, site: &'static Site, at: usize, each: &mut Refusals<'_>) -> Checked {
        self.refuse_about(site, at, None, each)
    }

    /// [`Checker::refuse`] of something about the operator named `operator`.
    pub(crate) fn refuse_about(
        &mut self,
        site: &'static Site,
        at: usize,
        operator: Option<&'static str>,
        each: &mut Refusals<'_>,
    ) -> Checked {
        let failed = self.fail(site, at);
        match each {
            None => Err(failed),
            Some(each) => {
                each(self.kept_error(), operator);
                self.failed = None;
                Ok(())
            }
        }
    }

    /// The error of the failure kept.
    fn kept_error(&self) -> Error {
        let mut error = Error::header(ErrorKind::Truncated, 0, &MODEL);
        self.write_error(&mut error);
        error
    }

    /// Makes `error` the error of the failure kept. It fills a caller's `Error` in place
    /// rather than returning one: a returned `Error` built out of line is copied into the
    /// caller's, which costs a `memcpy` in small firmware.
    #[cold]
    #[inline(never)]
    fn write_error(&self, error: &mut Error) {
        // Every `Failed` is made by `fail`, which keeps its site.
        static UNKNOWN: Site = Site::new(ErrorKind::Rule("model rule failed"), [0; 4]);
        let (site, at) = self.failed.unwrap_or((&UNKNOWN, 0));
        error.reset(site.kind(), to_u64(at), &MODEL);
        let location = error.location_mut();
        let schema = M::schema();
        // Innermost first, as the location takes them; the fourth code's index bits hold the
        // kind.
        for (k, &code) in site.path.iter().enumerate().rev() {
            let code = if k == 3 { code & 63 } else { code };
            let Some(field) = field_number(schema, M::PATHS, code & 63) else { continue };
            let index = match code & !63 {
                path::OUTER => Some(self.outer),
                path::INNER => Some(self.inner),
                path::ELEMENT => Some(self.element),
                _ => None,
            };
            // Indices past `u32` are left out (as `path_error` leaves them).
            location.push_field(schema.names, field, index.and_then(|i| u32::try_from(i).ok()));
        }
    }
}

/// The number in `schema`'s layout of the field path code `code` (without its index bits)
/// names by `paths`, `None` for 0.
fn field_number(schema: &SchemaLayout<'_>, paths: &[[u8; 2]], code: u8) -> Option<u16> {
    let [table, at] = *paths.get(usize::from(code).checked_sub(1)?)?;
    let span = schema.tables.get(usize::from(table))?;
    Some(span.first.saturating_add(u16::from(at)))
}

#[cfg(test)]
mod tests {
    use super::path::*;
    use super::{field_number, FormatRules};
    use crate::verify::VerifyTable;

    /// The name of the field `M`'s path code `code` names.
    #[cfg(not(feature = "numeric-paths"))]
    fn name_of<'a, M: FormatRules<'a>>(code: u8) -> Option<&'static str> {
        let schema = M::schema();
        schema.names.get(usize::from(field_number(schema, M::PATHS, code)?))
    }

    #[test]
    #[cfg(not(feature = "numeric-paths"))]
    fn path_codes_name_their_fields() {
        let codes = [
            (VERSION, "version"),
            (SUBGRAPHS, "subgraphs"),
            (BUFFERS, "buffers"),
            (OPERATORS, "operators"),
            (INPUTS, "inputs"),
            (OUTPUTS, "outputs"),
            (INTERMEDIATES, "intermediates"),
            (TENSORS, "tensors"),
            (BUFFER, "buffer"),
            (OPCODE_INDEX, "opcode_index"),
            (OPERATOR_CODES, "operator_codes"),
            (CUSTOM_CODE, "custom_code"),
            (QUANTIZATION, "quantization"),
            (SCALE, "scale"),
            (ZERO_POINT, "zero_point"),
            (QUANTIZED_DIMENSION, "quantized_dimension"),
            (OFFSET, "offset"),
            (IS_VARIABLE, "is_variable"),
            (LARGE_CUSTOM_OPTIONS, "large_custom_options_offset"),
            (BUILTIN_OPTIONS, "builtin_options"),
            (OPERATOR_INPUTS, "inputs"),
            (OPERATOR_OUTPUTS, "outputs"),
            (SPARSITY, "sparsity"),
            (SIGNATURE_DEFS, "signature_defs"),
            (SUBGRAPH_INDEX, "subgraph_index"),
            (TENSOR_INDEX, "tensor_index"),
            (METADATA, "metadata"),
            (BUILTIN_OPTIONS_2, "builtin_options_2"),
            (DIM_METADATA, "dim_metadata"),
            (TRAVERSAL_ORDER, "traversal_order"),
            (DETAILS, "details"),
            (SIGNATURE_INPUTS, "inputs"),
            (SIGNATURE_OUTPUTS, "outputs"),
            (METADATA_BUFFER, "buffer"),
            (TENSOR_TYPE, "type"),
            (BUILTIN_CODE, "builtin_code"),
            (SHAPE, "shape"),
            (CUSTOM_OPTIONS, "custom_options"),
        ];
        for (code, name) in codes {
            assert_eq!(name_of::<crate::tflite::Model<'_>>(code), Some(name), "TFLite code {code}");
            assert_eq!(name_of::<crate::circle::Model<'_>>(code), Some(name), "Circle code {code}");
        }
        assert_eq!(usize::from(FORMAT), codes.len() + 1);
        assert_eq!(name_of::<crate::circle::Model<'_>>(FORMAT), None, "Circle has no codes of its own");
        assert_eq!(name_of::<crate::tflite::Model<'_>>(FORMAT), None, "TFLite has no codes of its own");
    }

    #[test]
    fn codes_of_like_named_fields_number_distinct_fields() {
        let number = |code| field_number(crate::tflite::Model::schema(), crate::tflite::Model::PATHS, code);
        assert_ne!(number(INPUTS), number(OPERATOR_INPUTS));
        assert_ne!(number(OUTPUTS), number(OPERATOR_OUTPUTS));
        assert_eq!(number(0), None);
    }
}
