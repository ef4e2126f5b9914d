//! An XNNPACK delegate's graph (XNNGraph): its nodes by type, its values (dtype, shape,
//! quantization), inputs, outputs and weights (constants by dtype and by the node type that
//! reads them, each with where its bytes live), alone (an `XH00` blob or a bare XNNGraph) or
//! inside a `.pte`.

mod text;

use super::counts::{operator_list, OperatorCount};
use crate::budget::{Budget, OverBudget};
use crate::convert::to_u64;
use crate::summary::io::{Entry, Port, Runs};
use crate::summary::weights::UNREAD;
use flatmodel::xnnpack::{Blob, Constant, NodeIds, XNNDatatype, XNNQuantParams, XValueUnion, NAMED};
use serde::Serialize;
use std::collections::BTreeMap;

/// An `XH00` XNNPACK delegate blob or a bare XNNGraph, with its graph's summary alongside.
#[derive(Debug, Serialize)]
pub struct XnnpackBlobSummary {
    /// `XNNPACK delegate blob (XH00)` or `XNNGraph (XN01)`.
    pub format: &'static str,
    /// The file's length.
    pub file_bytes: usize,
    /// The `XH00` header and the regions it frames; `None` for a bare XNNGraph.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header: Option<XnnpackHeaderFields>,
    /// Its graph.
    #[serde(flatten)]
    pub graph: XnnpackGraphSummary,
}

/// A blob's `XH00` header: where the flatbuffer and the constant region lie.
#[derive(Debug, Serialize)]
pub struct XnnpackHeaderFields {
    /// The header's length.
    pub header_size: u16,
    /// Where the XNNGraph flatbuffer starts.
    pub flatbuffer_offset: u32,
    /// The flatbuffer's length.
    pub flatbuffer_size: u32,
    /// Where the constant region starts.
    pub constant_data_offset: u32,
    /// The constant region's length.
    pub constant_data_size: u64,
}

/// An XNNPACK graph at a glance: counts first, then its inputs, outputs and constants.
#[derive(Debug, Serialize)]
pub struct XnnpackGraphSummary {
    /// `XNNGraph.version`.
    pub version: Option<String>,
    /// Its inputs and outputs as ports: one entry, the `xnnpack` graph.
    pub io: Vec<Entry>,
    /// How many nodes.
    pub node_count: usize,
    /// How many nodes of each type (`XNNFullyConnected`; `XNodeUnion(N)` for a type this
    /// schema does not name), most frequent first.
    pub nodes: Vec<OperatorCount>,
    /// How many values.
    pub value_count: usize,
    /// Values by kind, dtype and quantization scheme.
    pub values: ValueCounts,
    /// Its input values.
    pub inputs: Vec<XnnValue>,
    /// Its output values.
    pub outputs: Vec<XnnValue>,
    /// `XNNGraph.num_externs`.
    pub num_externs: u32,
    /// How many `constant_data` entries (entry 0 is the writer's placeholder for "not constant").
    pub constant_count: usize,
    /// The constants' bytes, as the graph gives their sizes.
    pub constant_bytes: u64,
    /// The constants by dtype and by the node type that first reads them.
    pub weight_groups: XnnpackWeights,
    /// Every constant and where its bytes live.
    pub constants: Vec<XnnConstant>,
    /// Every value, with `--tensors`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tensor_list: Option<Vec<XnnValue>>,
}

/// Value counts.
#[derive(Debug, Default, Serialize)]
pub struct ValueCounts {
    /// By union member (`XNNTensorValue`, `XNNQuantizedTensorValue`, `XValueUnion(N)`).
    pub by_kind: BTreeMap<String, u64>,
    /// By dtype (`fp32`, `qcint8`, ...).
    pub by_dtype: BTreeMap<String, u64>,
    /// Quantized values by scheme (`per_tensor`, `per_channel`, ...).
    pub by_quantization: BTreeMap<String, u64>,
}

/// One value of the graph.
#[derive(Debug, Clone, Serialize)]
pub struct XnnValue {
    /// Its id (its index in `xvalues`).
    pub id: u32,
    /// Its dtype (`XNNDatatype` without `xnn_datatype_`; `XNNDatatype(N)` for one this schema
    /// does not name); `None` for a value of a kind this schema does not name.
    pub dtype: Option<String>,
    /// Its dimensions.
    pub shape: Option<Vec<u32>>,
    /// Its quantization, when quantized.
    pub quantization: Option<XnnQuant>,
    /// Its `constant_data` index, when constant.
    pub constant: Option<u32>,
    /// `flags`: 1 external input, 2 external output.
    pub flags: u32,
}

/// A value's quantization parameters.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "scheme", rename_all = "snake_case")]
pub enum XnnQuant {
    /// One scale and zero point for the tensor.
    PerTensor {
        /// The scale (`null` when not finite).
        scale: f32,
        /// The zero point.
        zero_point: i32,
    },
    /// A scale per channel along `axis`.
    PerChannel {
        /// `channel_dim`.
        axis: i32,
        /// How many scales.
        scales: u64,
        /// Where the scales are: `inline`, or `constant N`.
        scales_stored: String,
    },
    /// A scale per group of `group_size` elements of each channel along `axis`.
    PerChannelGroup {
        /// `channel_dim`.
        axis: i32,
        /// `group_size`.
        group_size: i32,
        /// How many scales.
        scales: u64,
        /// Where the scales are: `inline`, or `constant N` (bf16).
        scales_stored: String,
    },
    /// Dynamic quantization per token (per row of the last `num_nonbatch_dims` dimensions).
    DynamicPerToken {
        /// `num_nonbatch_dims`.
        num_nonbatch_dims: i32,
    },
    /// A scheme this schema does not name.
    Unknown {
        /// Its union tag.
        type_number: u8,
    },
}

/// Constants grouped by dtype and by the node type that first reads them.
#[derive(Debug, Default, Serialize)]
pub struct XnnpackWeights {
    /// By dtype, largest first.
    pub by_dtype: Vec<WeightGroup>,
    /// By node type, largest first.
    pub by_operator: Vec<WeightGroup>,
}

/// A group of constants.
#[derive(Debug, Serialize)]
pub struct WeightGroup {
    /// The dtype or node type.
    pub name: String,
    /// How many constants.
    pub count: u64,
    /// Their bytes.
    pub bytes: u64,
}

/// One `constant_data` entry.
#[derive(Debug, Serialize)]
pub struct XnnConstant {
    /// Its index in `constant_data`.
    pub index: usize,
    /// `ConstantDataOffset.size`.
    pub bytes: u64,
    /// The dtype of the value holding it (`bf16`/`fp32` for a quantized weight's scales).
    pub dtype: Option<String>,
    /// The value holding it (for scales: the value they quantize).
    pub value: Option<u32>,
    /// `data` for a value's elements, `scales` for its quantization scales.
    pub role: Option<&'static str>,
    /// The node type that first reads it.
    pub operator: Option<String>,
    /// Where its bytes are.
    #[serde(flatten)]
    pub storage: XnnStorage,
}

/// Where a constant's bytes live.
#[derive(Debug, Serialize)]
#[serde(tag = "stored", rename_all = "snake_case")]
pub enum XnnStorage {
    /// In the blob's constant region, at `offset` from its start (`blob_offset` in the blob).
    Inline {
        /// `ConstantDataOffset.offset`.
        offset: u64,
        /// Its offset in the blob, when the blob has a header.
        blob_offset: Option<u64>,
    },
    /// In named data under `key` (the program's, or a `.ptd` file's).
    Named {
        /// `ConstantDataOffset.named_key`.
        key: String,
        /// Whether the program holds that key; `None` for a blob alone.
        found: Option<bool>,
    },
    /// In the constant region a bare XNNGraph lacks.
    OutsideBareGraph {
        /// `ConstantDataOffset.offset`.
        offset: u64,
    },
    /// Nowhere that reads: why.
    Unreadable {
        /// Why.
        error: String,
    },
}

impl XnnpackBlobSummary {
    /// The summary of `blob`, charged to `budget`.
    pub fn of(blob: &Blob<'_>, tensors: bool, budget: &mut Budget) -> Result<Self, OverBudget> {
        let header = blob.header().map(|h| XnnpackHeaderFields {
            header_size: h.header_size,
            flatbuffer_offset: h.flatbuffer_offset,
            flatbuffer_size: h.flatbuffer_size,
            constant_data_offset: h.constant_data_offset,
            constant_data_size: h.constant_data_size,
        });
        Ok(XnnpackBlobSummary {
            format: if header.is_some() { "XNNPACK delegate blob (XH00)" } else { "XNNGraph (XN01)" },
            file_bytes: blob.bytes().len(),
            header,
            graph: XnnpackGraphSummary::of(blob, None::<fn(&str) -> bool>, tensors, budget)?,
        })
    }
}

/// The dtype's name without `xnn_datatype_`, or `XNNDatatype(N)`.
fn dtype_name(t: XNNDatatype) -> String {
    t.name().map_or_else(|| format!("XNNDatatype({})", t.0), |n| n.trim_start_matches("xnn_datatype_").to_string())
}

/// The type's name of a node (`XNNFullyConnected`), or `XNodeUnion(N)`.
fn node_name(node: &flatmodel::xnnpack::XNodeUnion<'_>) -> String {
    node.type_name().map_or_else(|| format!("XNodeUnion({})", node.tag()), str::to_string)
}

impl XnnpackGraphSummary {
    /// The summary of `blob`'s graph; `named`, for a blob inside a program, says whether the
    /// program holds a key. Its lists are charged to `budget`.
    pub fn of(
        blob: &Blob<'_>,
        named: Option<impl Fn(&str) -> bool>,
        tensors: bool,
        budget: &mut Budget,
    ) -> Result<Self, OverBudget> {
        let g = blob.graph();
        let values_list = g.xvalues();
        let value_count = values_list.map_or(0, |v| v.len());
        let nodes_list = g.xnodes();
        let node_count = nodes_list.map_or(0, |n| n.len());
        let constant_count = g.constant_data().map_or(0, |c| c.len());
        budget.charge(value_count.saturating_add(node_count).saturating_add(constant_count))?;

        // Every value's row (dimensions charged), kept for the constants' dtypes.
        let mut rows = Vec::with_capacity(value_count);
        let mut values = ValueCounts::default();
        for (id, v) in values_list.into_iter().flatten().enumerate() {
            let row = value_row(u32::try_from(id).unwrap_or(u32::MAX), &v, budget)?;
            let u = v.xvalue_union();
            bump(
                &mut values.by_kind,
                u.type_name().map_or_else(|| format!("XValueUnion({})", u.tag()), str::to_string),
                1,
            );
            if let Some(dtype) = &row.dtype {
                bump(&mut values.by_dtype, dtype.clone(), 1);
            }
            if let Some(q) = &row.quantization {
                bump(&mut values.by_quantization, q.scheme().to_string(), 1);
            }
            rows.push(row);
        }

        // What each constant holds: a value's data or its scales.
        let mut held: BTreeMap<usize, (String, u32, &'static str)> = BTreeMap::new();
        for row in &rows {
            if let (Some(c), Some(dtype)) = (row.constant.filter(|&c| c > 0), &row.dtype) {
                held.entry(index(c)).or_insert((dtype.clone(), row.id, "data"));
            }
            if let Some((c, dtype)) = row.quantization.as_ref().and_then(XnnQuant::scales_constant) {
                held.entry(c).or_insert((dtype.to_string(), row.id, "scales"));
            }
        }

        // The node type first reading each constant (through the value it belongs to).
        let mut counts: BTreeMap<String, u64> = BTreeMap::new();
        let mut reader: BTreeMap<usize, String> = BTreeMap::new();
        for node in nodes_list.into_iter().flatten() {
            let u = node.xnode_union();
            let name = node_name(&u);
            let Some(ids) = NodeIds::of(&u) else {
                bump(&mut counts, name, 1);
                continue;
            };
            budget.charge(ids.inputs().len())?;
            for &id in ids.inputs() {
                let Some(row) = rows.get(index(id)) else { continue };
                let data = row.constant.filter(|&c| c > 0).map(index);
                let scales = row.quantization.as_ref().and_then(XnnQuant::scales_constant).map(|(c, _)| c);
                for c in [data, scales].into_iter().flatten() {
                    reader.entry(c).or_insert_with(|| name.clone());
                }
            }
            bump(&mut counts, name, 1);
        }

        let mut constants = Vec::with_capacity(constant_count);
        for i in 0..constant_count {
            let storage = storage(blob, i, named.as_ref(), budget)?;
            let bytes = g.constant_data().and_then(|c| c.get(i)).map_or(0, |e| e.size());
            let (dtype, value, role) = match held.get(&i) {
                Some((d, v, r)) => (Some(d.clone()), Some(*v), Some(*r)),
                None => (None, None, None),
            };
            constants.push(XnnConstant {
                index: i,
                bytes,
                dtype,
                value,
                role,
                operator: reader.get(&i).cloned(),
                storage,
            });
        }
        let constant_bytes = constants.iter().fold(0u64, |sum, c| sum.saturating_add(c.bytes));
        let weight_groups = XnnpackWeights::of(&constants);

        let ids = |list: Option<flatmodel::wire::Vector<'_, u32>>| -> Vec<XnnValue> {
            list.into_iter().flatten().filter_map(|id| rows.get(index(id)).cloned()).collect()
        };
        let (inputs, outputs) = (ids(g.input_ids()), ids(g.output_ids()));
        budget.charge(inputs.len().saturating_add(outputs.len()))?;
        let ports = |values: &[XnnValue]| values.iter().map(XnnValue::port).collect();
        let io =
            vec![Entry { runs: Runs::Graph { graph: "xnnpack" }, inputs: ports(&inputs), outputs: ports(&outputs) }];
        Ok(XnnpackGraphSummary {
            version: budget.text_of(g.version())?,
            io,
            node_count,
            nodes: operator_list(counts),
            value_count,
            values,
            inputs,
            outputs,
            num_externs: g.num_externs(),
            constant_count,
            constant_bytes,
            weight_groups,
            constants,
            tensor_list: if tensors { Some(rows) } else { None },
        })
    }
}

/// `n` as an index (`usize::MAX` when it cannot be one, which indexes nothing).
fn index(n: u32) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

fn bump(map: &mut BTreeMap<String, u64>, key: String, by: u64) {
    let count = map.entry(key).or_default();
    *count = count.saturating_add(by);
}

/// The row of value `id`, its dimensions and scales charged to `budget`.
fn value_row(id: u32, v: &flatmodel::xnnpack::XValue<'_>, budget: &mut Budget) -> Result<XnnValue, OverBudget> {
    let tensor = v.tensor();
    let dims = tensor.and_then(|t| t.dims());
    budget.charge(dims.map_or(0, |d| d.len()))?;
    let quantization = match v.xvalue_union() {
        XValueUnion::XNNQuantizedTensorValue(q) => Some(XnnQuant::of(&q.quant_params())),
        _ => None,
    };
    Ok(XnnValue {
        id,
        dtype: tensor.map(|t| dtype_name(t.datatype())),
        shape: dims.map(|d| d.iter().collect()),
        quantization,
        constant: tensor.map(|t| t.constant_buffer_idx()).filter(|&c| c > 0),
        flags: tensor.map_or(0, |t| t.flags()),
    })
}

/// Where constant `i` of `blob` lives; `named` says whether the program holds a key.
fn storage(
    blob: &Blob<'_>,
    i: usize,
    named: Option<&impl Fn(&str) -> bool>,
    budget: &mut Budget,
) -> Result<XnnStorage, OverBudget> {
    let entry = blob.graph().constant_data().and_then(|c| c.get(i));
    Ok(match blob.constant(i) {
        Ok(Constant::Inline(_)) => {
            let offset = entry.map_or(0, |e| e.offset());
            let blob_offset = blob.header().and_then(|h| u64::from(h.constant_data_offset).checked_add(offset));
            XnnStorage::Inline { offset, blob_offset }
        }
        Ok(Constant::Named { key, .. }) => XnnStorage::Named { key: budget.text(key)?, found: named.map(|f| f(key)) },
        Err(_) if blob.header().is_none() && entry.is_some_and(|e| e.offset() != NAMED) => {
            XnnStorage::OutsideBareGraph { offset: entry.map_or(0, |e| e.offset()) }
        }
        Err(e) => XnnStorage::Unreadable { error: e.to_string() },
    })
}

impl XnnQuant {
    /// The parameters `params` hold.
    fn of(params: &XNNQuantParams<'_>) -> XnnQuant {
        let stored = |inline: usize, buffer: u32| {
            if inline > 0 || buffer == 0 {
                "inline".to_string()
            } else {
                format!("constant {buffer}")
            }
        };
        match params {
            XNNQuantParams::PerTensorQuant(q) => XnnQuant::PerTensor { scale: q.scale(), zero_point: q.zero_point() },
            XNNQuantParams::PerChannelQuant(q) => {
                let inline = q.scale().map_or(0, |s| s.len());
                XnnQuant::PerChannel {
                    axis: q.channel_dim(),
                    scales: if inline > 0 { to_u64(inline) } else { u64::from(q.num_scales()) },
                    scales_stored: stored(inline, q.scale_buffer_idx()),
                }
            }
            XNNQuantParams::PerChannelGroupQuant(q) => {
                let inline = q.scale().map_or(0, |s| s.len());
                XnnQuant::PerChannelGroup {
                    axis: q.channel_dim(),
                    group_size: q.group_size(),
                    scales: if inline > 0 { to_u64(inline) } else { u64::from(q.num_scales()) },
                    scales_stored: stored(inline, q.scale_buffer_idx()),
                }
            }
            XNNQuantParams::PerTokenDynamicQuant(q) => {
                XnnQuant::DynamicPerToken { num_nonbatch_dims: q.num_nonbatch_dims() }
            }
            other => XnnQuant::Unknown { type_number: other.tag() },
        }
    }

    /// The scheme's name, as the JSON's `scheme`.
    fn scheme(&self) -> &'static str {
        match self {
            XnnQuant::PerTensor { .. } => "per_tensor",
            XnnQuant::PerChannel { .. } => "per_channel",
            XnnQuant::PerChannelGroup { .. } => "per_channel_group",
            XnnQuant::DynamicPerToken { .. } => "dynamic_per_token",
            XnnQuant::Unknown { .. } => "unknown",
        }
    }

    /// The constant holding the scales and their dtype, when they are kept as one (`float`
    /// per channel, bfloat16 per group, as ExecuTorch's runtime reads them).
    fn scales_constant(&self) -> Option<(usize, &'static str)> {
        let (stored, dtype) = match self {
            XnnQuant::PerChannel { scales_stored, .. } => (scales_stored, "fp32"),
            XnnQuant::PerChannelGroup { scales_stored, .. } => (scales_stored, "bf16"),
            _ => return None,
        };
        let c = stored.strip_prefix("constant ")?.parse::<usize>().ok()?;
        Some((c, dtype))
    }
}

impl XnnValue {
    /// The value as a port: its dtype and shape.
    fn port(&self) -> Port {
        let shape = self.shape.as_ref().map(|d| d.iter().map(|&n| i64::from(n)).collect());
        Port::plain(None, i64::from(self.id), self.dtype.clone().unwrap_or_else(|| "-".into()), shape)
    }
}

impl XnnpackWeights {
    /// The constants held by a value, by dtype and by the node type first reading them.
    fn of(constants: &[XnnConstant]) -> XnnpackWeights {
        let mut by_dtype: BTreeMap<String, (u64, u64)> = BTreeMap::new();
        let mut by_operator: BTreeMap<String, (u64, u64)> = BTreeMap::new();
        for c in constants.iter().filter(|c| c.dtype.is_some()) {
            for (map, key) in [
                (&mut by_dtype, c.dtype.clone().unwrap_or_default()),
                (&mut by_operator, c.operator.clone().unwrap_or_else(|| UNREAD.to_string())),
            ] {
                let e = map.entry(key).or_default();
                *e = (e.0.saturating_add(1), e.1.saturating_add(c.bytes));
            }
        }
        let list = |m: BTreeMap<String, (u64, u64)>| {
            let mut rows: Vec<WeightGroup> =
                m.into_iter().map(|(name, (count, bytes))| WeightGroup { name, count, bytes }).collect();
            rows.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.name.cmp(&b.name)));
            rows
        };
        XnnpackWeights { by_dtype: list(by_dtype), by_operator: list(by_operator) }
    }
}
