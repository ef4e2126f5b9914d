//! `extract` of XNNPACK constants and `.ptd` named data: `constant:N` of a blob,
//! `delegate:N/constant:M` of a `.pte` (a named constant resolved from the program's named
//! data) and `named:KEY` of a `.ptd`, each as a `.npy` file where NumPy has the dtype, else as
//! stored (with a note saying so); `--raw` always writes them as stored.

use super::executorch::number;
use crate::status::Failure;
use flatmodel::ptd::PtdFile;
use flatmodel::pte::{PteFile, ScalarType};
use flatmodel::xnnpack::{Blob, Constant, XNNDatatype, XNNQuantParams};
use std::borrow::Cow;

/// What an extraction gives: the bytes and, when they are written as stored although NumPy
/// was asked for, the note saying why; why the file is invalid ([`Failure::Invalid`]); or a
/// usage error.
pub type Extracted<'a> = Result<(Cow<'a, [u8]>, Option<String>), Failure>;

/// NumPy's `descr` and the element size of a dtype NumPy has.
type Descr = (&'static str, u64);

/// An XNNPACK dtype as NumPy stores it; `None` for packed 4-bit, bfloat16 and XNNPACK's
/// packed types, which NumPy has no dtype for.
fn xnn_descr(t: XNNDatatype) -> Option<Descr> {
    use XNNDatatype as T;
    Some(match t {
        T::xnn_datatype_fp32 => ("<f4", 4),
        T::xnn_datatype_fp16 => ("<f2", 2),
        T::xnn_datatype_qint8 | T::xnn_datatype_qcint8 | T::xnn_datatype_qdint8 => ("|i1", 1),
        T::xnn_datatype_quint8 => ("|u1", 1),
        T::xnn_datatype_qint32 | T::xnn_datatype_qcint32 | T::xnn_datatype_int32 => ("<i4", 4),
        _ => return None,
    })
}

/// An ExecuTorch scalar type as NumPy stores it; `None` for those NumPy has no dtype for
/// (bfloat16, packed and quantized types, 8-bit floats).
fn scalar_descr(t: ScalarType) -> Option<Descr> {
    Some(match t.name()? {
        "BYTE" => ("|u1", 1),
        "CHAR" => ("|i1", 1),
        "SHORT" => ("<i2", 2),
        "INT" => ("<i4", 4),
        "LONG" => ("<i8", 8),
        "HALF" => ("<f2", 2),
        "FLOAT" => ("<f4", 4),
        "DOUBLE" => ("<f8", 8),
        "BOOL" => ("|b1", 1),
        "UINT16" => ("<u2", 2),
        "UINT32" => ("<u4", 4),
        "UINT64" => ("<u8", 8),
        _ => return None,
    })
}

/// What a constant holds: the dtype's name, NumPy's layout of it (if any) and the shape.
struct Holds {
    dtype: String,
    descr: Option<Descr>,
    shape: Vec<i64>,
}

/// What constant `index` of `blob` holds: a value's elements (the first value naming it), or
/// a quantized value's scales (`float` per channel, bfloat16 per group).
fn holds(blob: &Blob<'_>, index: u32) -> Option<Holds> {
    let values = blob.graph().xvalues()?;
    for v in values.iter() {
        let Some(t) = v.tensor() else { continue };
        if t.constant_buffer_idx() == index {
            let dtype = t.datatype();
            let shape = t.dims().into_iter().flatten().map(i64::from).collect();
            let name = dtype.name().map_or_else(|| format!("XNNDatatype({})", dtype.0), str::to_string);
            return Some(Holds { dtype: name, descr: xnn_descr(dtype), shape });
        }
        let scales = match v.quantized().map(|q| q.quant_params()) {
            Some(XNNQuantParams::PerChannelQuant(q)) if q.scale_buffer_idx() == index => {
                Some((q.num_scales(), "fp32 scales", Some(("<f4", 4))))
            }
            Some(XNNQuantParams::PerChannelGroupQuant(q)) if q.scale_buffer_idx() == index => {
                Some((q.num_scales(), "bf16 scales", None))
            }
            _ => None,
        };
        if let Some((count, dtype, descr)) = scales {
            return Some(Holds { dtype: dtype.to_string(), descr, shape: vec![i64::from(count)] });
        }
    }
    None
}

/// `data` of constant `index` as a `.npy` file when NumPy has its dtype and `raw` is not set,
/// else as stored, with the note why.
fn encode<'a>(name: &str, blob: &Blob<'_>, index: u32, data: &'a [u8], raw: bool) -> Extracted<'a> {
    if raw {
        return Ok((Cow::Borrowed(data), None));
    }
    let Some(h) = holds(blob, index) else {
        let note = format!("{name}: constant {index} is held by no value: written as stored (raw bytes)");
        return Ok((Cow::Borrowed(data), Some(note)));
    };
    let Some((descr, size)) = h.descr else {
        let note =
            format!("{name}: NumPy has no dtype for {}: constant {index} written as stored (raw bytes)", h.dtype);
        return Ok((Cow::Borrowed(data), Some(note)));
    };
    super::npy::plain(descr, size, &h.shape, data)
        .map(|npy| (Cow::Owned(npy), None))
        .map_err(|why| Failure::Invalid(format!("{name}: constant {index} cannot be written as .npy: {why}")))
}

/// Constant `constant:N` of the verified blob `blob`: an inline constant's bytes; a named one
/// lives elsewhere, which the error says.
pub fn from_blob<'a>(name: &str, blob: &Blob<'a>, what: &str, raw: bool) -> Extracted<'a> {
    let Some(("constant", n)) = what.split_once(':') else {
        return Err(Failure::new(format!("'{what}': an XNNPACK blob has constant:N")));
    };
    let n = number(what, n)?;
    let index = u32::try_from(n).map_err(|_| Failure::new(format!("{name}: no constant {n}")))?;
    match blob.constant(n) {
        Ok(Constant::Inline(data)) => encode(name, blob, index, data, raw),
        Ok(Constant::Named { key, .. }) => Err(Failure::new(format!(
            "{name}: constant {n} lives in named data under key '{key}': extract delegate:D/constant:{n} from \
             the .pte, or named:{key} from its .ptd"
        ))),
        Err(e) if e.kind() == flatmodel::ErrorKind::IndexOutOfRange => {
            Err(Failure::new(format!("{name}: no constant {n} (the blob has {})", constants(blob))))
        }
        Err(e) => Err(Failure::Invalid(e.to_string())),
    }
}

/// How many constants `blob` lists.
fn constants(blob: &Blob<'_>) -> usize {
    blob.graph().constant_data().map_or(0, |c| c.len())
}

/// Constant `M` of delegate `N` of the verified program `file` (`delegate:N/constant:M`, after
/// `delegate:N/`): inline, or resolved from the program's named data.
pub fn from_program<'a>(name: &str, file: &PteFile<'a>, delegate: usize, what: &str, raw: bool) -> Extracted<'a> {
    let d = file.delegate(delegate).ok_or_else(|| Failure::new(format!("{name}: no delegate {delegate}")))?;
    let blob = match file.xnnpack_blob(&d) {
        Some(blob) => blob.map_err(|e| Failure::Invalid(e.to_string()))?,
        None => {
            let backend = d.id.unwrap_or("-");
            return Err(Failure::new(format!(
                "{name}: delegate {delegate} is {backend}'s, not XNNPACK's: delegate:N/constant:M reads XNNPACK \
                 delegates"
            )));
        }
    };
    let Some(("constant", m)) = what.split_once(':') else {
        return Err(Failure::new(format!("'{what}': an XNNPACK delegate has constant:M")));
    };
    let m = number(what, m)?;
    let index = u32::try_from(m).map_err(|_| Failure::new(format!("{name}: no constant {m}")))?;
    if m >= constants(&blob) {
        return Err(Failure::new(format!(
            "{name}: delegate {delegate} has no constant {m} (it has {})",
            constants(&blob)
        )));
    }
    match blob.constant_data(m, |key| file.named_data(key)) {
        Ok(data) => encode(name, &blob, index, data, raw),
        Err(e) if e.kind() == flatmodel::ErrorKind::NotFound => {
            let key = match blob.constant(m) {
                Ok(Constant::Named { key, .. }) => key,
                _ => "-",
            };
            Err(Failure::new(format!(
                "{name}: constant {m} of delegate {delegate} lives in named data under key '{key}', which the \
                 program does not hold: extract named:{key} from its .ptd"
            )))
        }
        Err(e) => Err(Failure::Invalid(e.to_string())),
    }
}

/// Named datum `named:KEY` of the verified `.ptd` `file`: a `.npy` file of its tensor layout
/// when it has one NumPy has the dtype of (and `raw` is not set), else its segment as stored.
pub fn from_ptd<'a>(name: &str, file: &PtdFile<'a>, what: &str, raw: bool) -> Extracted<'a> {
    let Some(("named", key)) = what.split_once(':') else {
        return Err(Failure::new(format!("'{what}': a .ptd has named:KEY")));
    };
    let Some((entry, segment)) = file.named_data(key) else {
        let keys = file.flat_tensor().named_data().into_iter().flatten().filter_map(|d| d.key());
        let hint = crate::suggest::hint(key, keys);
        return Err(Failure::new(format!("{name}: no named data '{key}'{hint}")));
    };
    if raw {
        return Ok((Cow::Borrowed(segment), None));
    }
    let Some(layout) = entry.tensor_layout() else {
        let note = format!("{name}: '{key}' has no tensor layout: its segment written as stored (raw bytes)");
        return Ok((Cow::Borrowed(segment), Some(note)));
    };
    let scalar = ScalarType(layout.scalar_type().0);
    let Some((descr, size)) = scalar_descr(scalar) else {
        let dtype = crate::summary::facts::scalar_dtype(scalar);
        let note = format!("{name}: NumPy has no dtype for {dtype}: '{key}' written as stored (raw bytes)");
        return Ok((Cow::Borrowed(segment), Some(note)));
    };
    let order = layout.dim_order();
    if order.into_iter().flatten().enumerate().any(|(i, d)| usize::from(d) != i) {
        let note = format!("{name}: '{key}' is not in C order (dim_order): written as stored (raw bytes)");
        return Ok((Cow::Borrowed(segment), Some(note)));
    }
    let shape: Vec<i64> = layout.sizes().into_iter().flatten().map(i64::from).collect();
    // The layout's bytes start the segment, which the verifier checked holds them.
    let bytes = crate::summary::facts::elements(shape.iter().copied()).saturating_mul(size);
    let data = usize::try_from(bytes).ok().and_then(|n| segment.get(..n)).unwrap_or(segment);
    super::npy::plain(descr, size, &shape, data)
        .map(|npy| (Cow::Owned(npy), None))
        .map_err(|why| Failure::Invalid(format!("{name}: '{key}' cannot be written as .npy: {why}")))
}
