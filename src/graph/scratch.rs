//! Working memory for the model rules that need some: on the stack up to a fixed size (so
//! typical models are checked without a heap, `no_std` firmware included), on the heap beyond
//! it when the `alloc` feature allows.

/// `len` values of `T`, initially `fill`.
pub(crate) enum Scratch<T: Copy, const N: usize> {
    Stack([T; N], usize),
    #[cfg(feature = "alloc")]
    Heap(alloc::vec::Vec<T>),
}

impl<T: Copy, const N: usize> Scratch<T, N> {
    /// Room for `len` values, or `None` when `len` is past `N` and there is no heap.
    pub(crate) fn new(len: usize, fill: T) -> Option<Self> {
        if len <= N {
            return Some(Scratch::Stack([fill; N], len));
        }
        #[cfg(feature = "alloc")]
        return Some(Scratch::Heap(alloc::vec![fill; len]));
        #[cfg(not(feature = "alloc"))]
        None
    }

    pub(crate) fn as_mut_slice(&mut self) -> &mut [T] {
        match self {
            Scratch::Stack(values, len) => values.get_mut(..*len).unwrap_or_default(),
            #[cfg(feature = "alloc")]
            Scratch::Heap(values) => values,
        }
    }
}

/// A set of small integers.
pub(crate) struct BitSet(Scratch<u64, 64>);

impl BitSet {
    /// A set for `0..len`, empty; `None` when it would need a heap and there is none.
    pub(crate) fn new(len: usize) -> Option<Self> {
        Scratch::new(len.div_ceil(64), 0).map(BitSet)
    }

    /// Whether `i` is in the set (out of range: no).
    pub(crate) fn contains(&mut self, i: usize) -> bool {
        self.0.as_mut_slice().get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    /// Adds `i` (out of range: ignored).
    pub(crate) fn insert(&mut self, i: usize) {
        if let Some(w) = self.0.as_mut_slice().get_mut(i / 64) {
            *w |= 1 << (i % 64);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // in tests a panic is a failure
mod tests {
    use super::{BitSet, Scratch};

    #[test]
    fn small_sets_live_on_the_stack() {
        let mut s = BitSet::new(4096).unwrap();
        assert!(matches!(s.0, Scratch::Stack(..)));
        assert!(!s.contains(4095));
        s.insert(4095);
        s.insert(5000); // out of range: ignored
        assert!(s.contains(4095) && !s.contains(4094) && !s.contains(5000));
    }

    #[test]
    fn large_sets_need_a_heap() {
        let s = BitSet::new(4097);
        #[cfg(feature = "alloc")]
        assert!(matches!(s.unwrap().0, Scratch::Heap(_)));
        #[cfg(not(feature = "alloc"))]
        assert!(s.is_none());
    }
}
