//! Working memory for the model rules that need some: fixed-size bit sets on the stack, never a
//! heap, so every build (`no_std` firmware, the host library, the C ABI) checks every model the
//! same way. A rule whose input outgrows one set works through it a window at a time.

/// Words in a [`BitSet`].
const WORDS: usize = 64;

/// A set of the integers `0..BitSet::CAPACITY`, on the stack (512 bytes).
pub(crate) struct BitSet([u64; WORDS]);

impl BitSet {
    /// How many integers a set holds: 4,096.
    pub(crate) const CAPACITY: usize = WORDS * 64;

    /// The empty set.
    pub(crate) fn new() -> Self {
        BitSet([0; WORDS])
    }

    /// Empties the set.
    pub(crate) fn clear(&mut self) {
        self.0.fill(0);
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
mod tests {
    use super::BitSet;

    #[test]
    fn a_set_holds_its_capacity_and_ignores_the_rest() {
        let mut s = BitSet::new();
        assert!(!s.contains(4095));
        s.insert(4095);
        s.insert(0);
        s.insert(4096); // out of range: ignored
        assert!(s.contains(4095) && s.contains(0) && !s.contains(4094) && !s.contains(4096));
        s.clear();
        assert!(!s.contains(4095) && !s.contains(0));
        assert_eq!(BitSet::CAPACITY, 4096);
    }
}
