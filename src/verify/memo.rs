//! A small set-associative memo of verified shared objects, kept on the stack.
//!
//! FlatBuffers lets many offsets point at one object. Re-verifying it for each offset makes the
//! work grow with the number of paths rather than the input size. The verifier consults this
//! memo once its work passes the input length (which a tree-shaped buffer never does), so
//! ordinary files pay nothing and shared subtrees are verified once. Collisions only cost
//! repeated work, which the apparent-size budget still bounds.

const SETS: usize = 64;
const WAYS: usize = 2;

/// Keys are `position << 32 | tag`; 0 is never a valid key, as no object starts at byte 0.
pub(crate) struct Memo {
    keys: [u64; SETS * WAYS],
}

impl Memo {
    pub(crate) const fn new() -> Self {
        Memo { keys: [0; SETS * WAYS] }
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
        let Some(ways) = self.keys.chunks_exact_mut(WAYS).nth(set) else {
            return false;
        };
        if ways.contains(&key) {
            return true;
        }
        ways.rotate_right(1);
        if let Some(first) = ways.first_mut() {
            *first = key;
        }
        false
    }

    pub(crate) fn clear(&mut self) {
        self.keys = [0; SETS * WAYS];
    }
}
