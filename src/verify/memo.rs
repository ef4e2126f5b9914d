//! A small set-associative memo of verified shared objects, kept on the stack.
//!
//! FlatBuffers lets many offsets point at one object. Re-verifying it for each offset makes the
//! work grow with the number of paths rather than the input size. The verifier consults this
//! memo once its work passes the input length (which a tree-shaped buffer never does), so
//! ordinary files pay nothing and shared subtrees are verified once. Collisions only cost
//! repeated work, which the apparent-size budget still bounds.

const SETS: usize = 64;

/// Keys are `position << 32 | tag`; 0 is never a valid key, as no object starts at byte 0.
pub(crate) struct Memo {
    /// Two ways a set, the most recently used first.
    sets: [[u64; 2]; SETS],
}

impl Memo {
    pub(crate) const fn new() -> Self {
        // A constant rather than a nested array repeat, which rustc writes as a loop into a
        // temporary (then copied) where a constant becomes one `memclr` in place.
        const EMPTY: [[u64; 2]; SETS] = [[0; 2]; SETS];
        Memo { sets: EMPTY }
    }

    pub(crate) fn key(pos: usize, tag: u32) -> Option<u64> {
        let pos = u32::try_from(pos).ok()?;
        Some(u64::from(pos) << 32 | u64::from(tag))
    }

    /// Whether `key` was recorded; records it when it was not.
    #[inline]
    pub(crate) fn check_and_insert(&mut self, key: u64) -> bool {
        // The top 6 bits of a multiplicative hash pick one of the 64 sets.
        let set = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as usize;
        let Some([recent, older]) = self.sets.get_mut(set) else {
            return false;
        };
        if *recent == key {
            return true;
        }
        // Either a hit on the older key, which becomes the recent one, or a miss, which
        // evicts the older (least recently used) key.
        let hit = *older == key;
        (*recent, *older) = (key, *recent);
        hit
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::unwrap_used, clippy::arithmetic_side_effects)] // in tests a panic is a failure
mod tests {
    use super::Memo;
    extern crate std;
    use std::vec::Vec;

    fn set_of(key: u64) -> u64 {
        key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58
    }

    #[test]
    fn remembers_objects_by_position_and_type() {
        let mut m = Memo::new();
        let key = Memo::key(100, 7).unwrap_or(0);
        assert!(!m.check_and_insert(key));
        assert!(m.check_and_insert(key));
        // Same position, other type: a different object.
        assert!(!m.check_and_insert(Memo::key(100, 8).unwrap_or(0)));
        // Positions past u32 are never memoised.
        assert_eq!(Memo::key(1 << 40, 7), None);
    }

    #[test]
    fn a_full_set_evicts_its_least_recent_key() {
        let mut m = Memo::new();
        let first = Memo::key(100, 7).unwrap_or(0);
        let same_set: Vec<u64> = (101..100_000)
            .filter_map(|pos| Memo::key(pos, 7))
            .filter(|&key| set_of(key) == set_of(first))
            .take(2)
            .collect();
        assert_eq!(same_set.len(), 2);
        assert!(!m.check_and_insert(first));
        assert!(!m.check_and_insert(same_set[0]));
        assert!(m.check_and_insert(first), "two ways: both still held");
        assert!(!m.check_and_insert(same_set[1]));
        assert!(!m.check_and_insert(same_set[0]), "the least recently used was evicted");
    }
}
