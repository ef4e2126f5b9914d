//! Number conversions `core` has no `From` for, made here for the rest of the crate, which
//! denies `as`: each says what it does with a value it cannot keep exactly. They compile to the
//! cast itself, so code on the flash-counted paths pays nothing for them.

// A `usize` fits a `u64` on every target Rust has (16, 32 and 64 bits).
const _: () = assert!(usize::BITS <= u64::BITS);

/// `n` as a `u64`, exactly.
#[inline(always)]
pub(crate) const fn to_u64(n: usize) -> u64 {
    n as u64
}

/// `n` as a `usize`: exactly on 32- and 64-bit targets; where it does not fit, `usize::MAX`,
/// which indexes nothing.
#[cfg(feature = "alloc")]
#[inline(always)]
pub(crate) fn to_usize(n: u32) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// `x` rounded to the nearest `f32` (ties to even; past `f32`'s range, an infinity), as a
/// `float` default written in decimal is stored.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) const fn f32_from_f64(x: f64) -> f32 {
    x as f32
}

/// `n` rounded to the nearest `f32` (ties to even).
#[cfg(feature = "alloc")]
#[inline]
pub(crate) const fn f32_from_int(n: i128) -> f32 {
    n as f32
}

/// `n` rounded to the nearest `f64` (ties to even): exact up to 2^53 in magnitude.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) const fn f64_from_int(n: i128) -> f64 {
    n as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_keep_their_value() {
        // `usize::MAX`: all ones in `usize::BITS` bits.
        assert_eq!(to_u64(usize::MAX), u64::MAX >> (u64::BITS - usize::BITS));
        assert_eq!(to_u64(0), 0);
        assert_eq!(to_usize(7), 7);
        assert_eq!(to_usize(u32::MAX), usize::try_from(u32::MAX).unwrap_or(usize::MAX));
    }

    #[cfg(feature = "alloc")]
    #[test]
    fn floats_round_to_nearest() {
        assert_eq!(f32_from_f64(0.1), 0.1f32);
        assert_eq!(f32_from_f64(1e300), f32::INFINITY);
        assert_eq!(f32_from_int(16_777_217), 16_777_216.0); // 2^24 + 1: ties to even
        assert_eq!(f32_from_int(-3), -3.0);
        assert_eq!(f64_from_int(9_007_199_254_740_993), 9_007_199_254_740_992.0); // 2^53 + 1
        assert_eq!(f64_from_int(i128::from(i64::MIN)), -9_223_372_036_854_775_808.0);
    }
}
