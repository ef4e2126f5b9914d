//! Parsing entry points and the helpers a runtime needs on top of the generated views.

use super::{Buffer, BuiltinOperator, Model, Operator, OperatorCode, SignatureDef, SubGraph, Tensor, TensorType};
use crate::error::{Error, ErrorKind, Location};
use crate::verify::{Options, Stats, Verifier};

static MODEL: &str = "Model";
static BUFFERS: &str = "buffers";
static CUSTOM_OPTIONS: &str = "large_custom_options_offset";

/// A verified model together with what verification counted.
#[derive(Clone, Copy)]
pub struct Parsed<'a> {
    /// The root view.
    pub model: Model<'a>,
    /// What the structural verification visited.
    pub stats: Stats,
}

impl<'a> Model<'a> {
    /// Verifies `bytes` as a TFLite file (structure and model rules) and returns its root.
    ///
    /// The bytes are the whole file: data that `Buffer.offset` places after the flatbuffer is
    /// read from them.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, Error> {
        Self::parse_with(bytes, &Options::DEFAULT).map(|p| p.model)
    }

    /// [`Model::parse`] with explicit verifier limits, also returning the verifier's counts.
    pub fn parse_with(bytes: &'a [u8], options: &Options) -> Result<Parsed<'a>, Error> {
        let parsed = Self::parse_structure_with(bytes, options)?;
        super::rules::check(parsed.model, options)?;
        Ok(parsed)
    }

    /// Verifies only the FlatBuffers structure (every offset, length, string and union the
    /// views can read), not the model rules: for tools that show broken models.
    pub fn parse_structure(bytes: &'a [u8]) -> Result<Self, Error> {
        Self::parse_structure_with(bytes, &Options::DEFAULT).map(|p| p.model)
    }

    /// [`Model::parse_structure`] with explicit limits, also returning the verifier's counts.
    pub fn parse_structure_with(bytes: &'a [u8], options: &Options) -> Result<Parsed<'a>, Error> {
        let mut v = Verifier::new(bytes, *options);
        let root = v.verify_root::<Model<'static>>(Some(super::IDENTIFIER))?;
        let table = crate::wire::Table::verified(bytes, root).ok_or(Error::new(
            ErrorKind::Truncated,
            0,
            Location::at(&MODEL),
        ))?;
        Ok(Parsed { model: <Model<'a> as crate::wire::FromTable<'a>>::from_table(table), stats: v.stats() })
    }

    /// Calls `f` for each advisory finding: things a runtime tolerates but a careful writer
    /// would not produce.
    pub fn for_each_warning(&self, f: impl FnMut(super::Warning)) {
        super::rules::warnings(*self, f);
    }

    /// The whole file the model was parsed from.
    pub fn file(&self) -> &'a [u8] {
        self.raw().buffer()
    }

    /// Subgraph `index`.
    pub fn subgraph(&self, index: usize) -> Option<SubGraph<'a>> {
        self.subgraphs()?.get(index)
    }

    /// The bytes of buffer `index`: `Buffer.data` if present, else `Buffer.offset/size`
    /// measured from the start of the file (offsets 0 and 1 are writers' placeholders and mean
    /// no data). An empty slice when the buffer holds no data.
    pub fn buffer_data(&self, index: u32) -> Result<&'a [u8], Error> {
        let buffer = self
            .buffers()
            .and_then(|b| b.get(usize::try_from(index).ok()?))
            .ok_or_else(|| self.buffer_error(ErrorKind::IndexOutOfRange, self.raw().position() as u64, index))?;
        self.data_of(buffer, index)
    }

    fn data_of(&self, buffer: Buffer<'a>, index: u32) -> Result<&'a [u8], Error> {
        if let Some(data) = buffer.data() {
            return Ok(data.as_slice());
        }
        let (offset, size) = (buffer.offset(), buffer.size());
        if offset <= 1 {
            return Ok(&[]);
        }
        external_range(self.file(), offset, size)
            .ok_or_else(|| self.buffer_error(ErrorKind::OutOfBounds, offset, index))
    }

    fn buffer_error(&self, kind: ErrorKind, offset: u64, index: u32) -> Error {
        let mut location = Location::at(&MODEL);
        location.push_outer(&BUFFERS, Some(index));
        Error::new(kind, offset, location)
    }

    /// The data of `tensor` (a tensor of one of this model's subgraphs); empty when it has none.
    pub fn tensor_data(&self, tensor: &Tensor<'a>) -> Result<&'a [u8], Error> {
        match tensor.buffer() {
            0 => Ok(&[]),
            index => self.buffer_data(index),
        }
    }

    /// The custom options of `op`: `custom_options` inline, or the bytes that
    /// `large_custom_options_offset/size` place in the file. `None` when it has neither.
    pub fn custom_options(&self, op: &Operator<'a>) -> Result<Option<&'a [u8]>, Error> {
        if let Some(inline) = op.custom_options() {
            return Ok(Some(inline.as_slice()));
        }
        let (offset, size) = (op.large_custom_options_offset(), op.large_custom_options_size());
        if offset <= 1 {
            return Ok(None);
        }
        external_range(self.file(), offset, size).map(Some).ok_or_else(|| {
            let mut location = Location::at(&MODEL);
            location.push_outer(&CUSTOM_OPTIONS, None);
            Error::new(ErrorKind::OutOfBounds, offset, location)
        })
    }

    /// The bytes of the first metadata entry named `name` (names can repeat in real files).
    pub fn metadata_bytes(&self, name: &str) -> Option<&'a [u8]> {
        let entry = self.metadata()?.iter().find(|m| m.name() == Some(name))?;
        self.buffer_data(entry.buffer()).ok()
    }

    /// The nested flatbuffer in metadata entry `name`, if it holds one with `identifier`
    /// (`TFLITE_METADATA` holds a tflite-support `M001` buffer).
    pub fn metadata_flatbuffer(&self, name: &str, identifier: Option<[u8; 4]>) -> Option<&'a [u8]> {
        let bytes = self.metadata_bytes(name)?;
        let root = crate::wire::root_position(bytes)?;
        let id_ok = identifier.is_none_or(|id| crate::wire::has_identifier(bytes, id));
        (id_ok && root < bytes.len()).then_some(bytes)
    }

    /// The `min_runtime_version` metadata: ASCII, cut at the first NUL.
    pub fn min_runtime_version(&self) -> Option<&'a str> {
        let bytes = self.metadata_bytes("min_runtime_version")?;
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        core::str::from_utf8(bytes.get(..end)?).ok()
    }

    /// The signature whose `signature_key` is `key`.
    pub fn signature(&self, key: &str) -> Option<SignatureDef<'a>> {
        self.signature_defs()?.iter().find(|s| s.signature_key() == Some(key))
    }

    /// The operator code of `op`.
    pub fn operator_code(&self, op: &Operator<'a>) -> Option<OperatorCode<'a>> {
        self.operator_codes()?.get(usize::try_from(op.opcode_index()).ok()?)
    }

    /// Bytes of the buffers that live inside the flatbuffer (`Buffer.data`) and outside it
    /// (`Buffer.offset/size`).
    pub fn buffer_bytes(&self) -> (u64, u64) {
        let mut inside = 0u64;
        let mut outside = 0u64;
        for buffer in self.buffers().into_iter().flat_map(|b| b.iter()) {
            match buffer.data() {
                Some(d) => inside = inside.saturating_add(d.len() as u64),
                None if buffer.offset() > 1 => outside = outside.saturating_add(buffer.size()),
                None => {}
            }
        }
        (inside, outside)
    }
}

impl<'a> Tensor<'a> {
    /// The shape with -1 for dimensions unknown until run time, as runtimes read it:
    /// `shape_signature` when present and non-empty, otherwise `shape`.
    pub fn signature(&self) -> Option<crate::wire::Vector<'a, i32>> {
        self.shape_signature().filter(|s| !s.is_empty()).or_else(|| self.shape())
    }
}

impl OperatorCode<'_> {
    /// The operator this code means: TFLite's rule, the larger of `builtin_code` and
    /// `deprecated_builtin_code` (which reads files that set either or both).
    pub fn builtin_operator(&self) -> BuiltinOperator {
        let deprecated = i32::from(self.deprecated_builtin_code());
        BuiltinOperator(self.builtin_code().0.max(deprecated))
    }
}

/// `file[offset .. offset + size]`, or `None` when it overflows or passes the end.
pub(crate) fn external_range(file: &[u8], offset: u64, size: u64) -> Option<&[u8]> {
    let start = usize::try_from(offset).ok()?;
    let end = start.checked_add(usize::try_from(size).ok()?)?;
    file.get(start..end)
}

/// Bytes per element of `t`, or `None` for strings, resources, variants and packed sub-byte
/// types (whose size is not a whole number of bytes per element).
pub fn element_size(t: TensorType) -> Option<u64> {
    Some(match t {
        TensorType::BOOL | TensorType::UINT8 | TensorType::INT8 => 1,
        TensorType::FLOAT8_E4M3FN | TensorType::FLOAT8_E5M2 => 1,
        TensorType::FLOAT16 | TensorType::INT16 | TensorType::UINT16 | TensorType::BFLOAT16 => 2,
        TensorType::FLOAT32 | TensorType::INT32 | TensorType::UINT32 => 4,
        TensorType::INT64 | TensorType::UINT64 | TensorType::FLOAT64 | TensorType::COMPLEX64 => 8,
        TensorType::COMPLEX128 => 16,
        _ => return None,
    })
}
