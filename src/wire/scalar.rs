//! Scalars as they lie on the wire, read through zerocopy's little-endian types.

use zerocopy::little_endian as le;
use zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};

/// A FlatBuffers scalar: its Rust type and its little-endian wire type.
pub trait Scalar: Copy + PartialEq + core::fmt::Debug + 'static {
    /// The unaligned little-endian representation in the buffer.
    type Wire: FromBytes + Unaligned + Immutable + KnownLayout + Copy;
    /// Size in bytes (also the alignment the format gives it).
    const SIZE: usize;
    /// Decodes the wire value.
    fn from_wire(wire: Self::Wire) -> Self;
}

macro_rules! scalar {
    ($($t:ty => $wire:ty),* $(,)?) => {$(
        impl Scalar for $t {
            type Wire = $wire;
            const SIZE: usize = core::mem::size_of::<$t>();
            #[inline(always)]
            fn from_wire(wire: $wire) -> $t {
                wire.into()
            }
        }
    )*};
}

scalar! {
    u8 => u8, i8 => i8,
    u16 => le::U16, i16 => le::I16,
    u32 => le::U32, i32 => le::I32,
    u64 => le::U64, i64 => le::I64,
    f32 => le::F32, f64 => le::F64,
}

impl Scalar for bool {
    type Wire = u8;
    const SIZE: usize = 1;
    #[inline(always)]
    fn from_wire(wire: u8) -> bool {
        wire != 0
    }
}
