//! The tables whose inline fields are known good, so a shared vtable is checked once.
//!
//! The inline check of a table depends only on its vtable, its table type and its position
//! modulo its widest field alignment, and writers share vtables between many tables. With the
//! `specialize` feature (speed first) the verifier remembers the last (vtable, table type,
//! position modulo 8) checked in each of 32 entries; without it (flash first) the cache is
//! empty and zero-sized, so firmware pays neither its code nor its 384 bytes of stack.
//!
//! Each entry also keeps which of the table's fields the interpreter must follow: those the
//! vtable gives and those whose absence needs a look, one bit per field. They too depend only
//! on the vtable and the table type, so [`super::Verifier::interpret`] walks just those bits.

use super::layout::FieldLayout;

/// A cache key: the vtable position, the table type and the table position modulo 8.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Key(u64);

/// Remembered inline checks.
pub(crate) struct InlineCache {
    #[cfg(feature = "specialize")]
    entries: [u64; 32],
    /// For each entry, the fields to follow ([`InlineCache::fields_to_follow`]).
    #[cfg(feature = "specialize")]
    follow: [u32; 32],
}

impl InlineCache {
    /// An empty cache.
    pub(crate) const fn new() -> Self {
        InlineCache {
            #[cfg(feature = "specialize")]
            entries: [0; 32],
            #[cfg(feature = "specialize")]
            follow: [0; 32],
        }
    }

    /// The key of a table of type `table` (whose fields are `fields`) at `pos` whose vtable is
    /// at `vt`, if it can be cached (never without the `specialize` feature). Only the bits of
    /// `pos` that some field's alignment looks at (when alignment is checked) enter the key, so
    /// the tables of a type whose fields need at most 4 bytes share one entry per vtable.
    /// `follows` marks the keys of the interpreter, which keeps the fields to follow, apart
    /// from those of specialized code, which keeps none.
    #[inline(always)]
    pub(crate) fn key(
        vt: usize,
        table: u16,
        pos: usize,
        fields: &[FieldLayout],
        widest: Option<u8>,
        aligned: bool,
        follows: bool,
    ) -> Option<Key> {
        #[cfg(feature = "specialize")]
        {
            // The widest alignment any field may need, minus one: given for run-time schemas,
            // else folded from the fields (a constant in specialized code).
            let mask = match widest {
                Some(mask) => usize::from(mask),
                None => fields.iter().fold(0, |m, f| m | if f.is_inline() { f.align_mask() } else { 3 }),
            };
            let residue = if aligned { pos & mask & 7 } else { 0 };
            // A marker bit, the vtable position, the table type, whose key, the position bits
            // that matter.
            let vt = u64::try_from(vt).ok().filter(|&vt| vt < 1 << 38)?;
            let whose = if follows { 1 << 3 } else { 0 };
            Some(Key(1 << 63 | vt << 24 | u64::from(table) << 8 | whose | u64::try_from(residue).unwrap_or(0)))
        }
        #[cfg(not(feature = "specialize"))]
        {
            let _ = (vt, table, pos, fields, widest, aligned, follows);
            None
        }
    }

    /// The fields to follow that were remembered with `key` (bit `i` for field `i`), if it was.
    #[inline(always)]
    pub(crate) fn fields_to_follow(&self, key: Key) -> Option<u32> {
        #[cfg(feature = "specialize")]
        {
            let e = Self::entry(key);
            match (self.entries.get(e), self.follow.get(e)) {
                (Some(&k), Some(&follow)) if k == key.0 => Some(follow),
                _ => None,
            }
        }
        #[cfg(not(feature = "specialize"))]
        {
            let _ = key;
            None
        }
    }

    /// Remembers `key` and its fields to follow, replacing what its entry held.
    #[inline(always)]
    pub(crate) fn insert(&mut self, key: Key, follow: u32) {
        #[cfg(feature = "specialize")]
        {
            let e = Self::entry(key);
            if let (Some(k), Some(f)) = (self.entries.get_mut(e), self.follow.get_mut(e)) {
                *k = key.0;
                *f = follow;
            }
        }
        #[cfg(not(feature = "specialize"))]
        let _ = (key, follow);
    }

    /// Forgets everything (for another buffer).
    #[inline(always)]
    pub(crate) fn clear(&mut self) {
        *self = Self::new();
    }

    #[cfg(feature = "specialize")]
    #[inline(always)]
    fn entry(key: Key) -> usize {
        // The top 5 bits of a multiplicative hash pick one of the 32 entries.
        (key.0.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 59) as usize
    }
}
