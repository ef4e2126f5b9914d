//! Quantization as a runtime reads it: per-tensor and per-axis scales stored in the tensor's
//! `QuantizationParameters`, or block-wise scales (and zero points) stored in other tensors of
//! the subgraph (the LiteRT revision's `BlockwiseQuantization`).

use super::{BlockwiseQuantization, Model, QuantizationDetails, SubGraph, Tensor, TensorType};
use crate::container::path_error;
use crate::error::{Error, ErrorKind};
use crate::graph::ModelView;
use crate::wire::{to_u64, Vector};

static MODEL: &str = "Model";

/// Numbers stored either inline in the quantization table or as another tensor's data.
#[derive(Clone, Copy, Debug)]
pub enum QuantValues<'a, T: QuantNumber> {
    /// None stored.
    None,
    /// Stored in the `QuantizationParameters` table.
    Inline(Vector<'a, T>),
    /// The data of another tensor, in its element type.
    Tensor {
        /// The element type of the data.
        element: TensorType,
        /// The data.
        data: &'a [u8],
    },
}

/// A tensor's quantization, resolved.
#[derive(Clone, Copy, Debug)]
pub struct Quantization<'a> {
    /// The scales.
    pub scales: QuantValues<'a, f32>,
    /// The zero points.
    pub zero_points: QuantValues<'a, i64>,
    /// The dimension per-axis scales run along.
    pub quantized_dimension: i32,
    /// For block-wise quantization, the number of elements each scale covers; 0 otherwise.
    pub block_size: i32,
}

/// A number type quantization values widen to, decoded from a tensor's element bytes.
pub trait QuantNumber: crate::wire::Scalar {
    /// The value stored in `bytes`, elements of type `t`.
    fn decode(t: TensorType, bytes: &[u8]) -> Self;
}

impl QuantNumber for f32 {
    fn decode(t: TensorType, c: &[u8]) -> f32 {
        match (t, c) {
            (TensorType::FLOAT32, &[a, b, c, d]) => f32::from_le_bytes([a, b, c, d]),
            (TensorType::FLOAT16, &[a, b]) => f16_to_f32(u16::from_le_bytes([a, b])),
            (TensorType::BFLOAT16, &[a, b]) => f32::from_bits(u32::from(u16::from_le_bytes([a, b])) << 16),
            _ => f32::NAN,
        }
    }
}

impl QuantNumber for i64 {
    fn decode(t: TensorType, c: &[u8]) -> i64 {
        match (t, c) {
            (TensorType::INT8, &[a]) => i64::from(i8::from_le_bytes([a])),
            (TensorType::UINT8, &[a]) => i64::from(a),
            (TensorType::INT16, &[a, b]) => i64::from(i16::from_le_bytes([a, b])),
            (TensorType::INT32, &[a, b, c, d]) => i64::from(i32::from_le_bytes([a, b, c, d])),
            (TensorType::INT64, bytes) => bytes.try_into().map(i64::from_le_bytes).unwrap_or(0),
            _ => 0,
        }
    }
}

impl<T: QuantNumber> QuantValues<'_, T> {
    /// The number of values.
    pub fn len(&self) -> usize {
        match self {
            QuantValues::None => 0,
            QuantValues::Inline(v) => v.len(),
            QuantValues::Tensor { element, data } => {
                width(*element).and_then(|w| data.len().checked_div(w)).unwrap_or(0)
            }
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The values, widened (float16 and bfloat16 scales decoded).
    pub fn iter(&self) -> impl Iterator<Item = T> + '_ {
        let inline = match self {
            QuantValues::Inline(v) => Some(v.iter()),
            _ => None,
        };
        let stored = match self {
            QuantValues::Tensor { element, data } => Some((*element, *data)),
            _ => None,
        };
        let decoded = stored.into_iter().flat_map(|(element, data)| {
            let w = width(element).unwrap_or(T::SIZE).max(1);
            data.chunks_exact(w).map(move |c| T::decode(element, c))
        });
        inline.into_iter().flatten().chain(decoded)
    }
}

fn width(t: TensorType) -> Option<usize> {
    super::element_size(t).and_then(|w| usize::try_from(w).ok())
}

/// IEEE 754 half precision to single precision, exactly.
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exp = u32::from((h >> 10) & 0x1f);
    let mant = u32::from(h & 0x3ff);
    let bits = match (exp, mant) {
        (0, 0) => sign,
        (0, m) => {
            // Subnormal: normalise the mantissa.
            let shift = m.leading_zeros().saturating_sub(21);
            let m = (m << shift) & 0x3ff;
            let e = 113u32.saturating_sub(shift);
            sign | (e << 23) | (m << 13)
        }
        (0x1f, m) => sign | 0x7f80_0000 | (m << 13),
        (e, m) => sign | ((e.saturating_add(112)) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

impl<'a> Model<'a> {
    /// The quantization of `tensor`, a tensor of `subgraph`, as a runtime reads it: scales and
    /// zero points from its `QuantizationParameters`, or, for block-wise quantization, from
    /// the tensors its details name.
    pub fn quantization(&self, subgraph: &SubGraph<'a>, tensor: &Tensor<'a>) -> Result<Quantization<'a>, Error> {
        let none = Quantization {
            scales: QuantValues::None,
            zero_points: QuantValues::None,
            quantized_dimension: 0,
            block_size: 0,
        };
        let Some(q) = tensor.quantization() else { return Ok(none) };
        let quantized_dimension = q.quantized_dimension();
        if let QuantizationDetails::BlockwiseQuantization(b) = q.details() {
            let scales = self.tensor_values(subgraph, b.scales(), tensor)?;
            let zero_points = self.tensor_values(subgraph, b.zero_points(), tensor)?;
            return Ok(Quantization {
                scales: scales.map_or(QuantValues::None, |(element, data)| QuantValues::Tensor { element, data }),
                zero_points: zero_points
                    .map_or(QuantValues::None, |(element, data)| QuantValues::Tensor { element, data }),
                quantized_dimension,
                block_size: b.block_size(),
            });
        }
        Ok(Quantization {
            scales: q.scale().map_or(QuantValues::None, QuantValues::Inline),
            zero_points: q.zero_point().map_or(QuantValues::None, QuantValues::Inline),
            quantized_dimension,
            block_size: 0,
        })
    }

    /// The element type and data of tensor `index` of `subgraph`; `None` for -1.
    fn tensor_values(
        &self,
        subgraph: &SubGraph<'a>,
        index: i32,
        of: &Tensor<'a>,
    ) -> Result<Option<(TensorType, &'a [u8])>, Error> {
        if index == -1 {
            return Ok(None);
        }
        let tensor = usize::try_from(index).ok().and_then(|i| subgraph.tensors()?.get(i));
        let Some(tensor) = tensor else {
            let (at, path) = (to_u64(of.raw().position()), [(&BlockwiseQuantization::SCALES_NAME, None)]);
            return Err(path_error(ErrorKind::IndexOutOfRange, at, &MODEL, &path, &[]));
        };
        Ok(Some((tensor.type_(), self.tensor_data(&tensor)?)))
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::unwrap_used, clippy::arithmetic_side_effects)] // in tests a panic is a failure
mod tests {
    use super::f16_to_f32;

    #[test]
    fn half_precision_decodes_exactly() {
        // Values whose half-precision bits are known from IEEE 754.
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0xc000), -2.0);
        assert_eq!(f16_to_f32(0x3555), 0.333_251_95);
        assert_eq!(f16_to_f32(0x0001), 5.960_464_5e-8); // smallest subnormal, 2^-24
        assert_eq!(f16_to_f32(0x03ff), 1023.0 / 16_777_216.0); // largest subnormal, 1023 x 2^-24
        assert_eq!(f16_to_f32(0x7bff), 65504.0);
        assert!(f16_to_f32(0x7c00).is_infinite());
        assert!(f16_to_f32(0x7e00).is_nan());
        assert_eq!(f16_to_f32(0x8000).to_bits(), 0x8000_0000);
    }
}
