//! The tagged offsets of `Weight.offset` and `Tensor.offset` (`docs/cvimodel.md` §4.2): a
//! region in the high bits, the byte offset inside it in the low 40.

use super::{Tensor, Weight};

/// The low 40 bits of a tagged offset: the offset inside its region.
const OFFSET_MASK: u64 = (1 << 40) - 1;

/// Bit 40 of `Weight.offset`, set by the writers.
const WEIGHT_TAG: u64 = 1 << 40;

/// Where a tensor's memory is (bits 40..42 of `Tensor.offset`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryRegion {
    /// 0: memory shared between models (activations).
    Shared,
    /// 1: the weight memory.
    Weight,
    /// 2: memory private to the model.
    Private,
    /// 3 and up: an input or output buffer (the value is the region number).
    Io(u8),
}

impl MemoryRegion {
    /// The region number as stored.
    pub fn number(self) -> u8 {
        match self {
            MemoryRegion::Shared => 0,
            MemoryRegion::Weight => 1,
            MemoryRegion::Private => 2,
            MemoryRegion::Io(n) => n,
        }
    }
}

/// A decoded `Tensor.offset`: the region and the offset inside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TensorAddress {
    /// The memory region.
    pub region: MemoryRegion,
    /// The byte offset inside the region (the low 40 bits).
    pub offset: u64,
}

/// Decodes a `Tensor.offset` value: `None` for -1 (no memory).
pub fn decode_tensor_offset(raw: i64) -> Option<TensorAddress> {
    if raw == -1 {
        return None;
    }
    let bits = raw.cast_unsigned(); // two's complement reinterpretation: the tag lives in the high bits
    let region = match (bits >> 40) & 0x7 {
        0 => MemoryRegion::Shared,
        1 => MemoryRegion::Weight,
        2 => MemoryRegion::Private,
        n => MemoryRegion::Io(u8::try_from(n).unwrap_or(u8::MAX)), // 3 to 7
    };
    Some(TensorAddress { region, offset: bits & OFFSET_MASK })
}

/// A decoded `Weight.offset`: the offset inside the WEIGHT section and whether bit 40 (the
/// tag writers set) is present.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WeightAddress {
    /// The byte offset inside the WEIGHT section's data (the low 40 bits).
    pub offset: u64,
    /// Whether bit 40 is set, as writers do.
    pub tagged: bool,
}

/// Decodes a `Weight.offset` value.
pub fn decode_weight_offset(raw: i64) -> WeightAddress {
    let bits = raw.cast_unsigned(); // two's complement reinterpretation: the tag lives in the high bits
    WeightAddress { offset: bits & OFFSET_MASK, tagged: bits & WEIGHT_TAG != 0 }
}

impl Tensor<'_> {
    /// The decoded `offset`: region and offset, or `None` when it is -1 (no memory).
    pub fn address(&self) -> Option<TensorAddress> {
        decode_tensor_offset(self.offset())
    }
}

impl Weight<'_> {
    /// The decoded `offset`: the offset inside the WEIGHT section and its tag bit.
    pub fn address(&self) -> WeightAddress {
        decode_weight_offset(self.offset())
    }
}
