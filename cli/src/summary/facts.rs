//! A tensor as a person reads it: element type, shape with its dynamic dimensions, size and
//! quantization, built once and rendered both as text and as JSON.

use crate::budget::{Budget, OverBudget};
use flatmodel::graph::{ElementType, ModelView, QuantView, TensorView};
use serde::Serialize;

/// An element type as NumPy and LiteRT name it: the schema's name in lower case (`int8`,
/// `float32`), or `type(<code>)` for a code the schema does not name.
pub fn dtype(t: ElementType) -> String {
    t.name.map_or_else(|| format!("type({})", t.code), str::to_ascii_lowercase)
}

/// ExecuTorch's scalar type by NumPy's name where it has one (`FLOAT` -> `float32`).
pub fn scalar_dtype(t: flatmodel::pte::ScalarType) -> String {
    let numpy = match t.name() {
        Some("BYTE") => "uint8",
        Some("CHAR") => "int8",
        Some("SHORT") => "int16",
        Some("INT") => "int32",
        Some("LONG") => "int64",
        Some("HALF") => "float16",
        Some("FLOAT") => "float32",
        Some("DOUBLE") => "float64",
        Some(other) => return other.to_ascii_lowercase(),
        None => return format!("type({})", t.0),
    };
    numpy.to_string()
}

/// The name of `op`'s operator (`CONV_2D`, a custom operator's code), charged to `budget` a
/// unit per byte; `<missing operator code>` when its code index names none.
pub fn operator_name<'a, M: ModelView<'a>>(
    model: M,
    op: &M::Operator,
    budget: &mut Budget,
) -> Result<String, OverBudget> {
    let name = model.operator_kind(op).map_or_else(|| "<missing operator code>".into(), |k| k.to_string());
    budget.charge(name.len())?;
    Ok(name)
}

/// Elements of a tensor of dimensions `dims` (a dimension below 0 counts as 0), saturating.
pub fn elements<D: TryInto<u64>>(dims: impl IntoIterator<Item = D>) -> u64 {
    dims.into_iter().fold(1u64, |n, d| n.saturating_mul(d.try_into().unwrap_or(0)))
}

/// A schema enum's value: its name, or its number when the schema does not name it. As JSON
/// the bare name or number.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Named {
    /// The value's name in the schema (`KERAS_MODEL`).
    Name(String),
    /// A value the schema does not name.
    Number(i64),
}

impl Named {
    /// `name` when the schema names the value, else `number`.
    pub fn new(name: Option<&str>, number: impl Into<i64>) -> Named {
        name.map_or_else(|| Named::Number(number.into()), |n| Named::Name(n.to_string()))
    }

    /// The name, if the schema gives one.
    pub fn name(&self) -> Option<&str> {
        match self {
            Named::Name(n) => Some(n),
            Named::Number(_) => None,
        }
    }
}

/// The name, or the number.
impl std::fmt::Display for Named {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Named::Name(n) => f.write_str(n),
            Named::Number(n) => write!(f, "{n}"),
        }
    }
}

/// A tensor's quantization; as JSON every number at full precision, under a `kind` key.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind")]
pub enum Quant {
    /// One scale and zero point for the whole tensor.
    #[serde(rename = "per-tensor")]
    PerTensor {
        /// The scale.
        scale: f32,
        /// The zero point.
        zero_point: i64,
    },
    /// One scale (and zero point) per slice along `dimension`.
    #[serde(rename = "per-axis")]
    PerAxis {
        /// The quantized dimension.
        dimension: i32,
        /// The scales.
        scales: Vec<f32>,
        /// The zero points.
        zero_points: Vec<i64>,
    },
    /// Scales per block of elements, held by other tensors of the subgraph.
    #[serde(rename = "block-wise")]
    Blockwise {
        /// Elements per scale.
        block_size: i32,
        /// The tensor holding the scales.
        scales_tensor: i32,
        /// The tensor holding the zero points, -1 for none.
        zero_points_tensor: i32,
    },
}

impl Quant {
    /// The quantization `q` stores, `None` when it holds no scale.
    pub fn of(q: QuantView<'_>, budget: &mut Budget) -> Result<Option<Quant>, OverBudget> {
        if let Some(b) = q.blockwise {
            return Ok(Some(Quant::Blockwise {
                block_size: b.block_size,
                scales_tensor: b.scales,
                zero_points_tensor: b.zero_points,
            }));
        }
        let scales = q.scale.map_or(0, |s| s.len());
        let zero_points = q.zero_point.map_or(0, |z| z.len());
        budget.charge(scales.saturating_add(zero_points))?;
        let scale_list: Vec<f32> = q.scale.into_iter().flatten().collect();
        let zero_list: Vec<i64> = q.zero_point.into_iter().flatten().collect();
        Ok(match scale_list.as_slice() {
            [] => None,
            [scale] => Some(Quant::PerTensor { scale: *scale, zero_point: zero_list.first().copied().unwrap_or(0) }),
            _ => Some(Quant::PerAxis { dimension: q.quantized_dimension, scales: scale_list, zero_points: zero_list }),
        })
    }

    /// For a person: `scale=0.0245 zero_point=-128`, `per-axis(dim 3, 32 scales)` or
    /// `block-wise(block 32, scales in tensor 7, zero points in tensor 8)`.
    pub fn text(&self) -> String {
        match self {
            Quant::PerTensor { scale, zero_point } => format!("scale={} zero_point={zero_point}", short(*scale)),
            Quant::PerAxis { dimension, scales, .. } => format!("per-axis(dim {dimension}, {} scales)", scales.len()),
            Quant::Blockwise { block_size, scales_tensor, zero_points_tensor } => {
                let zero = match zero_points_tensor {
                    -1 => "zero points 0".to_string(),
                    t => format!("zero points in tensor {t}"),
                };
                format!("block-wise(block {block_size}, scales in tensor {scales_tensor}, {zero})")
            }
        }
    }
}

/// A scale with seven significant digits (as `f32` holds them), for a person to read.
fn short(x: f32) -> String {
    let text = format!("{x:.6e}");
    // Back through a float drops the exponent form and the trailing zeros where it can.
    text.parse::<f64>().map_or(text, |v| format!("{v}"))
}

/// One tensor of a subgraph.
#[derive(Debug, Clone)]
pub struct TensorFacts {
    /// Its index in the subgraph.
    pub index: usize,
    /// `Tensor.name`.
    pub name: Option<String>,
    /// The element type.
    pub element: ElementType,
    /// The stored shape.
    pub shape: Vec<i32>,
    /// `shape_signature`, when stored (-1 marks a dynamic dimension).
    pub shape_signature: Option<Vec<i32>>,
    /// Bytes of constant data (0 for an activation).
    pub data_bytes: usize,
    /// `Tensor.buffer`.
    pub buffer: u32,
    /// `Tensor.is_variable`.
    pub is_variable: bool,
    /// Its quantization.
    pub quant: Option<Quant>,
    /// Whether it is stored sparse (`Tensor.sparsity`).
    pub sparse: bool,
}

impl TensorFacts {
    /// The facts of `tensor`, the `index`th of its subgraph in `model`.
    pub fn of<'a, M: ModelView<'a>>(
        model: M,
        index: usize,
        tensor: &M::Tensor,
        budget: &mut Budget,
    ) -> Result<TensorFacts, OverBudget> {
        budget.charge(1)?;
        let shape: Vec<i32> = tensor.shape().into_iter().flatten().collect();
        let signature: Option<Vec<i32>> = tensor.shape_signature().map(|s| s.iter().collect());
        budget.charge(shape.len().saturating_add(signature.as_ref().map_or(0, Vec::len)))?;
        let quant = match tensor.quantization() {
            Some(q) => Quant::of(q, budget)?,
            None => None,
        };
        Ok(TensorFacts {
            index,
            name: budget.text_of(tensor.name())?,
            element: tensor.element_type(),
            shape,
            shape_signature: signature,
            data_bytes: model.tensor_data(tensor).map_or(0, <[u8]>::len),
            buffer: tensor.buffer(),
            is_variable: tensor.is_variable(),
            quant,
            sparse: tensor.sparsity().is_some(),
        })
    }

    /// The shape a runtime resizes: `shape_signature` when it has the stored rank, with -1 for
    /// a dynamic dimension (`[-1,224,224,3]`), else the stored shape.
    pub fn dims(&self) -> &[i32] {
        match &self.shape_signature {
            Some(s) if s.len() == self.shape.len() => s,
            _ => &self.shape,
        }
    }

    /// Elements in the stored shape (a dimension below 0 counts as 0), saturating.
    pub fn elements(&self) -> u64 {
        elements(self.shape.iter().copied())
    }

    /// Bytes the stored shape takes at runtime, when the element type has a fixed size.
    pub fn runtime_bytes(&self) -> Option<u64> {
        self.element.size.map(|size| size.saturating_mul(self.elements()))
    }
}

#[cfg(test)]
mod tests {
    use super::Quant;

    #[test]
    fn quantization_reads_for_a_person() {
        let q = Quant::PerTensor { scale: 0.024_509_8, zero_point: -128 };
        assert_eq!(q.text(), "scale=0.0245098 zero_point=-128");
        let q = Quant::PerAxis { dimension: 3, scales: vec![0.5; 32], zero_points: vec![0; 32] };
        assert_eq!(q.text(), "per-axis(dim 3, 32 scales)");
        let q = Quant::Blockwise { block_size: 32, scales_tensor: 7, zero_points_tensor: -1 };
        assert_eq!(q.text(), "block-wise(block 32, scales in tensor 7, zero points 0)");
        let json = serde_json::to_value(&q).unwrap_or_default();
        let expected =
            serde_json::json!({"kind": "block-wise", "block_size": 32, "scales_tensor": 7, "zero_points_tensor": -1});
        assert_eq!(json, expected, "the layout inspect.schema.json names");
        let json = serde_json::to_value(Quant::PerTensor { scale: 0.5, zero_point: 3 }).unwrap_or_default();
        assert_eq!(json, serde_json::json!({"kind": "per-tensor", "scale": 0.5, "zero_point": 3}));
    }
}
