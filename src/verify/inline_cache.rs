//! The tables whose inline fields are known good, so a shared vtable is checked once.
//!
//! The inline check of a table depends only on its vtable, its table type and its position
//! modulo its widest field alignment, and writers share vtables between many tables. With the
//! `specialize` feature (speed first) the verifier remembers the last (vtable, table type,
//! position modulo 8) checked in each of 32 entries; without it (flash first) the cache is
//! empty and zero-sized, so firmware pays neither its code nor its 256 bytes of stack.

use super::layout::FieldLayout;

/// A cache key: the vtable position, the table type and the table position modulo 8.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Key(u64);

/// Remembered inline checks.
pub(crate) struct InlineCache {
    #[cfg(feature = "specialize")]
    entries: [u64; 32],
}

impl InlineCache {
    /// An empty cache.
    pub(crate) const fn new() -> Self {
        InlineCache {
            #[cfg(feature = "specialize")]
            entries: [0; 32],
        }
    }

    /// The key of a table of type `table` (whose fields are `fields`) at `pos` whose vtable is
    /// at `vt`, if it can be cached (never without the `specialize` feature). Only the bits of
    /// `pos` that some field's alignment looks at (when alignment is checked) enter the key, so
    /// the tables of a type whose fields need at most 4 bytes share one entry per vtable.
    #[inline(always)]
    pub(crate) fn key(
        vt: usize,
        table: u16,
        pos: usize,
        fields: &[FieldLayout],
        widest: Option<u8>,
        aligned: bool,
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
            // A marker bit, the vtable position, the table type, the position bits that matter.
            let vt = u64::try_from(vt).ok().filter(|&vt| vt < 1 << 38)?;
            Some(Key(1 << 63 | vt << 24 | u64::from(table) << 8 | u64::try_from(residue).unwrap_or(0)))
        }
        #[cfg(not(feature = "specialize"))]
        {
            let _ = (vt, table, pos, fields, widest, aligned);
            None
        }
    }

    /// Whether `key` was remembered.
    #[inline(always)]
    pub(crate) fn contains(&self, key: Key) -> bool {
        #[cfg(feature = "specialize")]
        return self.entries.get(Self::entry(key)).is_some_and(|&k| k == key.0);
        #[cfg(not(feature = "specialize"))]
        {
            let _ = key;
            false
        }
    }

    /// Remembers `key`, replacing what its entry held.
    #[inline(always)]
    pub(crate) fn insert(&mut self, key: Key) {
        #[cfg(feature = "specialize")]
        if let Some(e) = self.entries.get_mut(Self::entry(key)) {
            *e = key.0;
        }
        #[cfg(not(feature = "specialize"))]
        let _ = key;
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
