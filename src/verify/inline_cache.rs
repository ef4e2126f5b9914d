//! The tables whose inline fields are known good, so a shared vtable is checked once.
//!
//! The inline check of a table depends only on its vtable, its table type and its position
//! modulo its widest field alignment, and writers share vtables between many tables. With the
//! `specialize` feature (speed first) the verifier remembers the two last (vtable, table type,
//! position modulo 8) checked in each of 16 sets (two ways a set, so two keys that hash alike,
//! such as the vtables of two kinds of operator taking turns, do not evict each other); without
//! it (flash first) the cache is empty and zero-sized, so firmware pays neither its code nor
//! its 384 bytes of stack.
//!
//! The cache starts off, and is switched on (its sets cleared) by the first miss after
//! [`InlineCache::START`] tables have been entered: the root table is the one table of its
//! type in a buffer, so hashing and remembering its vtable only costs, and a buffer of one
//! table need not clear the sets at all. Until then every table gets the full inline check,
//! which is the check a cached vtable passed, so whether the cache is on changes no outcome.
//! (Switching on later costs more than it saves: small models share vtables from their first
//! tables on, as their tensors and buffers do.)
//!
//! Each entry also keeps which of the table's offset fields the interpreter must follow, one
//! bit per field: those the vtable gives, the required ones, and unions whose type the vtable
//! gives. They too depend only on the vtable and the table type, so
//! [`super::Verifier::interpret`] walks just those bits.

use super::layout::FieldLayout;

/// A cache key: the vtable position, the table type and the table position modulo 8.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Key(u64);

/// Remembered inline checks.
pub(crate) struct InlineCache {
    /// The sets, once switched on.
    #[cfg(feature = "specialize")]
    sets: Option<Sets>,
}

/// The cache's sets: keys, and for each the fields to follow
/// ([`InlineCache::fields_to_follow`]).
#[cfg(feature = "specialize")]
struct Sets {
    entries: [u64; 32],
    follow: [u32; 32],
}

impl InlineCache {
    /// How many tables are entered before the cache is switched on: the root alone.
    pub(crate) const START: usize = 1;

    /// A cache, off.
    pub(crate) const fn new() -> Self {
        InlineCache {
            #[cfg(feature = "specialize")]
            sets: None,
        }
    }

    /// Whether the cache is on (never without the `specialize` feature).
    #[inline(always)]
    pub(crate) fn is_on(&self) -> bool {
        #[cfg(feature = "specialize")]
        return self.sets.is_some();
        #[cfg(not(feature = "specialize"))]
        false
    }

    /// Switches the cache on, empty.
    #[cold]
    #[inline(never)]
    pub(crate) fn switch_on(&mut self) {
        #[cfg(feature = "specialize")]
        {
            self.sets = Some(Sets { entries: [0; 32], follow: [0; 32] });
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

    /// The fields to follow that were remembered with `key` (bit `i` for offset field `i`), if
    /// it was.
    #[inline(always)]
    pub(crate) fn fields_to_follow(&self, key: Key) -> Option<u32> {
        #[cfg(feature = "specialize")]
        {
            // The set's first way holds its newer key.
            let sets = self.sets.as_ref()?;
            let e = Self::set(key);
            let way = match sets.entries.get(e..e.wrapping_add(2)) {
                Some(&[first, _]) if first == key.0 => e,
                Some(&[_, second]) if second == key.0 => e.wrapping_add(1),
                _ => return None,
            };
            sets.follow.get(way).copied()
        }
        #[cfg(not(feature = "specialize"))]
        {
            let _ = key;
            None
        }
    }

    /// Remembers `key` and its fields to follow in the first way of its set, moving the key
    /// that was there to the second (whose key is forgotten); nothing while the cache is off.
    #[inline(always)]
    pub(crate) fn insert(&mut self, key: Key, follow: u32) {
        #[cfg(feature = "specialize")]
        if let Some(sets) = &mut self.sets {
            let e = Self::set(key);
            if let Some([first, second]) =
                sets.entries.get_mut(e..e.wrapping_add(2)).and_then(|w| <&mut [_; 2]>::try_from(w).ok())
            {
                *second = *first;
                *first = key.0;
            }
            if let Some([first, second]) =
                sets.follow.get_mut(e..e.wrapping_add(2)).and_then(|w| <&mut [_; 2]>::try_from(w).ok())
            {
                *second = *first;
                *first = follow;
            }
        }
        #[cfg(not(feature = "specialize"))]
        let _ = (key, follow);
    }

    /// Forgets everything (for another buffer), and switches the cache off.
    #[inline(always)]
    pub(crate) fn clear(&mut self) {
        *self = Self::new();
    }

    /// The first entry of `key`'s set (an even index).
    #[cfg(feature = "specialize")]
    #[inline(always)]
    fn set(key: Key) -> usize {
        // The top 4 bits of a multiplicative hash pick one of the 16 sets.
        ((key.0.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 60) as usize) << 1
    }
}

#[cfg(all(test, feature = "specialize"))]
mod tests {
    use super::{InlineCache, Key};

    /// Keys (vtable positions of table type 1) that fall in the same set as the first.
    fn same_set(n: usize) -> std::vec::Vec<Key> {
        let key = |vt| InlineCache::key(vt, 1, 0, &[], Some(3), true, true);
        let first = key(4).map(InlineCache::set);
        (4..).step_by(4).filter_map(key).filter(|&k| Some(InlineCache::set(k)) == first).take(n).collect()
    }

    #[test]
    fn a_cache_switched_off_remembers_nothing_until_switched_on() {
        let [a] = same_set(1)[..] else { panic!("one key") };
        let mut cache = InlineCache::new();
        assert!(!cache.is_on());
        cache.insert(a, 0b01);
        assert_eq!(cache.fields_to_follow(a), None);
        cache.switch_on();
        assert!(cache.is_on());
        assert_eq!(cache.fields_to_follow(a), None, "switched on empty");
        cache.insert(a, 0b01);
        assert_eq!(cache.fields_to_follow(a), Some(0b01));
        cache.clear();
        assert!(!cache.is_on());
        assert_eq!(cache.fields_to_follow(a), None);
    }

    #[test]
    fn two_keys_of_one_set_take_turns_without_evicting_each_other() {
        let [a, b] = same_set(2)[..] else { panic!("two keys of one set") };
        let mut cache = InlineCache::new();
        cache.switch_on();
        cache.insert(a, 0b01);
        cache.insert(b, 0b10);
        for _ in 0..3 {
            assert_eq!(cache.fields_to_follow(a), Some(0b01));
            assert_eq!(cache.fields_to_follow(b), Some(0b10));
        }
    }

    #[test]
    fn a_third_key_of_a_set_evicts_the_older_of_two() {
        let [a, b, c] = same_set(3)[..] else { panic!("three keys of one set") };
        let mut cache = InlineCache::new();
        cache.switch_on();
        cache.insert(a, 1);
        cache.insert(b, 2);
        cache.insert(c, 3);
        assert_eq!(cache.fields_to_follow(a), None);
        assert_eq!(cache.fields_to_follow(b), Some(2));
        assert_eq!(cache.fields_to_follow(c), Some(3));
    }
}
