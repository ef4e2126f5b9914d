//! Quantization parameters against the tensor they quantize (`docs/executorch.md` §3.8):
//! per-channel scales one per channel, groupwise scales one per group of a channel, with the
//! group size dividing the channel, scales kept as constants the size their count needs, and
//! per-token parameters within the tensor's rank.

use super::blob::Blob;
use super::{PerChannelGroupQuant, PerChannelQuant, PerTokenDynamicQuant, XNNQuantParams, XNNTensorValue};
use crate::container::{in_range, Checked, Walk};
use crate::error::ErrorKind;
use crate::verify::Name;
use crate::wire::{to_u64, Vector};

/// Bytes per scale kept as a constant: `float` per channel, bfloat16 per group (as
/// ExecuTorch's runtime reads them).
const CHANNEL_SCALE_BYTES: u64 = 4;
const GROUP_SCALE_BYTES: u64 = 2;

/// A broken rule: its kind and the parameter's field it is located at.
type Fault = (ErrorKind, Name);

impl XNNQuantParams<'_> {
    /// The constant holding these parameters' scales (`scale_buffer_idx`, an index of
    /// `XNNGraph.constant_data`) and the bytes ExecuTorch's runtime reads there: `num_scales`
    /// floats per channel, or bfloat16s per group. `None` when the scales are inline (a
    /// non-empty `scale`), when no constant holds them, and for the other parameter types.
    pub fn scale_constant(&self) -> Option<(u32, u64)> {
        let (inline, buffer, count, bytes) = match self {
            XNNQuantParams::PerChannelQuant(q) => {
                (q.scale(), q.scale_buffer_idx(), q.num_scales(), CHANNEL_SCALE_BYTES)
            }
            XNNQuantParams::PerChannelGroupQuant(q) => {
                (q.scale(), q.scale_buffer_idx(), q.num_scales(), GROUP_SCALE_BYTES)
            }
            _ => return None,
        };
        let inline = inline.is_some_and(|s| !s.is_empty());
        (!inline && buffer != 0).then(|| (buffer, u64::from(count).saturating_mul(bytes)))
    }
}

/// Checks `params` against `tensor`, the walk at the value's `quant_params`.
pub(super) fn check_quant(
    walk: &mut Walk<'_>,
    blob: &Blob<'_>,
    params: &XNNQuantParams<'_>,
    tensor: &XNNTensorValue<'_>,
) -> Checked {
    let dims = tensor.dims().unwrap_or_default();
    walk.charge(dims.len())?;
    let outcome = match params {
        XNNQuantParams::PerChannelQuant(q) => per_channel(blob, q, dims),
        XNNQuantParams::PerChannelGroupQuant(q) => per_group(blob, q, dims),
        XNNQuantParams::PerTokenDynamicQuant(q) => per_token(q, dims),
        // Per-tensor parameters hold no count; a member this schema does not name reads as
        // its number.
        _ => Ok(()),
    };
    outcome.map_err(|(kind, field)| walk.fail(kind, &[(field, None)]))
}

fn per_channel(blob: &Blob<'_>, q: &PerChannelQuant<'_>, dims: Vector<'_, u32>) -> Result<(), Fault> {
    let channels = channel(dims, q.channel_dim()).ok_or(out_of_rank(&PerChannelQuant::CHANNEL_DIM_NAME))?;
    let scales = Scales {
        inline: q.scale().map_or(0, |s| s.len()),
        buffer: q.scale_buffer_idx(),
        count: q.num_scales(),
        bytes: CHANNEL_SCALE_BYTES,
        names: [
            &PerChannelQuant::SCALE_NAME,
            &PerChannelQuant::SCALE_BUFFER_IDX_NAME,
            &PerChannelQuant::NUM_SCALES_NAME,
        ],
    };
    scales.check(blob, channels, "per-channel scales must number the channels")
}

fn per_group(blob: &Blob<'_>, q: &PerChannelGroupQuant<'_>, dims: Vector<'_, u32>) -> Result<(), Fault> {
    let channels = channel(dims, q.channel_dim()).ok_or(out_of_rank(&PerChannelGroupQuant::CHANNEL_DIM_NAME))?;
    let group = u64::try_from(q.group_size()).ok().filter(|&g| g > 0);
    let Some(group) = group else {
        return Err((ErrorKind::Rule("group_size must be positive"), &PerChannelGroupQuant::GROUP_SIZE_NAME));
    };
    // The elements of one channel: every other dimension's product.
    let mut per_channel = Some(1u64);
    for (d, size) in dims.iter().enumerate() {
        if Ok(d) != usize::try_from(q.channel_dim()) {
            per_channel = per_channel.and_then(|p| p.checked_mul(u64::from(size)));
        }
    }
    let groups = per_channel.filter(|p| p.checked_rem(group) == Some(0)).and_then(|p| p.checked_div(group));
    let Some(count) = groups.and_then(|g| g.checked_mul(channels)) else {
        return Err((ErrorKind::Rule("group_size must divide a channel"), &PerChannelGroupQuant::GROUP_SIZE_NAME));
    };
    let scales = Scales {
        inline: q.scale().map_or(0, |s| s.len()),
        buffer: q.scale_buffer_idx(),
        count: q.num_scales(),
        bytes: GROUP_SCALE_BYTES,
        names: [
            &PerChannelGroupQuant::SCALE_NAME,
            &PerChannelGroupQuant::SCALE_BUFFER_IDX_NAME,
            &PerChannelGroupQuant::NUM_SCALES_NAME,
        ],
    };
    scales.check(blob, count, "groupwise scales must number the groups")
}

fn per_token(q: &PerTokenDynamicQuant<'_>, dims: Vector<'_, u32>) -> Result<(), Fault> {
    match usize::try_from(q.num_nonbatch_dims()) {
        Ok(n) if n <= dims.len() => Ok(()),
        _ => Err((
            ErrorKind::Rule("num_nonbatch_dims must be within the tensor's rank"),
            &PerTokenDynamicQuant::NUM_NONBATCH_DIMS_NAME,
        )),
    }
}

/// The size of dimension `channel_dim`, if the tensor has it.
fn channel(dims: Vector<'_, u32>, channel_dim: i32) -> Option<u64> {
    usize::try_from(channel_dim).ok().and_then(|d| dims.get(d)).map(u64::from)
}

fn out_of_rank(field: Name) -> Fault {
    (ErrorKind::Rule("channel_dim must be a dimension of the tensor"), field)
}

/// Where a parameter's scales are: inline (`scale`), or as constant `buffer` of `count`
/// scales of `bytes` each; `names` are the three fields.
struct Scales {
    inline: usize,
    buffer: u32,
    count: u32,
    bytes: u64,
    names: [Name; 3],
}

impl Scales {
    /// The scales number `expected`: the inline ones when there are any, else the constant's
    /// (whose entry must be that many scales long). A writer of the deprecated `scale_bf16`
    /// sets neither, and is not checked here.
    fn check(&self, blob: &Blob<'_>, expected: u64, rule: &'static str) -> Result<(), Fault> {
        let [inline, buffer, count] = self.names;
        if self.inline != 0 {
            return if to_u64(self.inline) == expected { Ok(()) } else { Err((ErrorKind::Rule(rule), inline)) };
        }
        if self.buffer == 0 {
            return Ok(());
        }
        let constants = blob.graph().constant_data();
        if !in_range(self.buffer, constants.map_or(0, |c| c.len())) {
            return Err((ErrorKind::IndexOutOfRange, buffer));
        }
        if u64::from(self.count) != expected {
            return Err((ErrorKind::Rule(rule), count));
        }
        let size = constants.and_then(|c| c.get(usize::try_from(self.buffer).ok()?)).map(|e| e.size());
        match expected.checked_mul(self.bytes) {
            Some(bytes) if size == Some(bytes) => Ok(()),
            _ => Err((ErrorKind::Rule("the scales' constant is not num_scales scales long"), buffer)),
        }
    }
}
