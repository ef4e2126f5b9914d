//! Number conversions `std` has no `From` for, in one place: the command line denies `as`
//! everywhere else (`main.rs`), so each conversion here says what it does with a value it
//! cannot keep exactly.
#![allow(clippy::as_conversions)]

/// `n` as a `u64`, exactly: a `usize` has at most 64 bits on every target.
pub fn to_u64(n: usize) -> u64 {
    n as u64
}

/// `n` rounded to the nearest `f64` (ties to even): exact up to 2^53.
pub fn to_f64(n: u64) -> f64 {
    n as f64
}

/// `x` rounded to the nearest integer (halves away from zero), saturating at `i64`'s bounds;
/// 0 for NaN.
pub fn round_to_i64(x: f64) -> i64 {
    x.round() as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_keep_what_fits_and_say_what_they_do_with_the_rest() {
        assert_eq!(to_u64(0), 0);
        assert_eq!(to_u64(usize::MAX), u64::MAX >> (u64::BITS - usize::BITS));
        assert_eq!(to_f64(3 << 20), 3_145_728.0);
        assert_eq!(to_f64((1 << 53) + 1), 9_007_199_254_740_992.0);
        assert_eq!(round_to_i64(2.5), 3);
        assert_eq!(round_to_i64(-2.5), -3);
        assert_eq!(round_to_i64(-0.4), 0);
        assert_eq!(round_to_i64(1e300), i64::MAX);
        assert_eq!(round_to_i64(-1e300), i64::MIN);
        assert_eq!(round_to_i64(f64::NAN), 0);
    }
}
