//! Working memory for the model rules that need some: on the stack up to a fixed size (so
//! typical models are checked without a heap, `no_std` firmware included), on the heap beyond
//! it when the `alloc` feature allows.

/// Calls `f` with `len` values of `T`, initially `fill`: on the stack up to `N` (built in
/// place, never moved), on the heap beyond it when the `alloc` feature allows; `None` when
/// `len` is past `N` and there is no heap.
pub(crate) fn with_scratch<T: Copy, const N: usize, R>(
    len: usize,
    fill: T,
    f: impl FnOnce(&mut [T]) -> R,
) -> Option<R> {
    if len <= N {
        let mut values = [fill; N];
        return values.get_mut(..len).map(f);
    }
    #[cfg(feature = "alloc")]
    return Some(f(&mut alloc::vec![fill; len]));
    #[cfg(not(feature = "alloc"))]
    None
}

/// A set of small integers, over words from [`with_scratch`].
pub(crate) struct BitSet<'s>(&'s mut [u64]);

impl<'s> BitSet<'s> {
    /// Calls `f` with an empty set for `0..len`; `None` when it would need a heap and there is
    /// none.
    pub(crate) fn with<R>(len: usize, f: impl FnOnce(BitSet<'_>) -> R) -> Option<R> {
        with_scratch::<u64, 64, R>(len.div_ceil(64), 0, |words| f(BitSet(words)))
    }

    /// Whether `i` is in the set (out of range: no).
    pub(crate) fn contains(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    /// Adds `i` (out of range: ignored).
    pub(crate) fn insert(&mut self, i: usize) {
        if let Some(w) = self.0.get_mut(i / 64) {
            *w |= 1 << (i % 64);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // in tests a panic is a failure
mod tests {
    use super::{with_scratch, BitSet};

    #[test]
    fn small_sets_need_no_heap() {
        let found = BitSet::with(4096, |mut s| {
            assert!(!s.contains(4095));
            s.insert(4095);
            s.insert(5000); // out of range: ignored
            s.contains(4095) && !s.contains(4094) && !s.contains(5000)
        });
        assert_eq!(found, Some(true));
        assert_eq!(with_scratch::<u32, 4, _>(3, 7, |v| v.len() == 3 && v.iter().all(|&x| x == 7)), Some(true));
    }

    #[test]
    fn large_sets_need_a_heap() {
        let s = BitSet::with(4097, |s| s.0.len());
        #[cfg(feature = "alloc")]
        assert_eq!(s, Some(65));
        #[cfg(not(feature = "alloc"))]
        assert!(s.is_none());
    }
}
