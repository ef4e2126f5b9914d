//! Sections by name, as TPU routines name them: the section indices sorted by name once, so
//! that resolving every routine of a file takes n·log n name comparisons rather than one scan
//! of the sections per routine.

use super::lists::element;
use super::Section;
use crate::container::Budget;
use crate::error::Error;
use crate::verify::Fail;
use crate::wire::{Table, TableVector};
use core::cmp::Ordering;

/// How many sections are indexed (on the stack); a file of more is looked up by a scan.
const ON_STACK: usize = 256;

/// Room for the index of the section names, made by the caller and lent to [`SectionNames`]
/// (so that the index is never moved: on a Cortex-M4 each move of it is a `memcpy`).
// Aligned to 8 so that making one clears it with the 8-byte-aligned `memclr` the verifier
// already links (as `Location` is): small firmware then links one clearing routine, not two.
#[repr(align(8))]
pub(super) struct NameRoom {
    stack: [u32; ON_STACK],
}

impl NameRoom {
    /// Empty room.
    pub(super) fn new() -> Self {
        NameRoom { stack: [0; ON_STACK] }
    }

    /// `n` slots, or `None` when `n` is past [`ON_STACK`].
    fn slots(&mut self, n: usize) -> Option<&mut [u32]> {
        self.stack.get_mut(..n)
    }
}

/// The sections of a file, findable by name: the first section of a name wins, as in the
/// runtime's own scan.
///
/// A file of more than [`ON_STACK`] sections is not indexed: each lookup scans the sections
/// (charged to the work budget like any other scan).
pub(super) struct SectionNames<'a, 'r> {
    sections: Option<TableVector<'a, Table<'a>>>,
    /// Section indices sorted by name, then index; `None` when not indexed.
    sorted: Option<&'r mut [u32]>,
}

/// The name of section `i` of `sections`, as bytes (empty when absent).
fn name_of<'a>(sections: &Option<TableVector<'a, Table<'a>>>, i: usize) -> &'a [u8] {
    element::<Table<'a>>(sections, i).and_then(|s| s.string_bytes(Section::NAME_SLOT)).unwrap_or(&[])
}

/// A section index as held in the index's slots, as a `usize` (`usize::MAX`, naming no
/// section, where it does not fit).
fn slot_index(i: u32) -> usize {
    usize::try_from(i).unwrap_or(usize::MAX)
}

/// How the name of section `i` orders against `name`, the comparison charged to `work`: the
/// one comparison of the sort, the binary search and the scan.
fn compare(
    sections: &Option<TableVector<'_, Table<'_>>>,
    i: usize,
    name: &[u8],
    work: &mut Budget,
    error: &mut Error,
) -> Result<Ordering, Fail> {
    let here = name_of(sections, i);
    work.charge_into(cost(here, name), 0, error)?;
    Ok(order(here, name))
}

/// The byte order of two names (a prefix first), written out so that small firmware links no
/// `memcmp` for it.
fn order(a: &[u8], b: &[u8]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return x.cmp(y);
        }
    }
    a.len().cmp(&b.len())
}

/// The work charged for comparing two names: one unit, and one per 16 bytes they can share.
fn cost(a: &[u8], b: &[u8]) -> u64 {
    u64::try_from(a.len().min(b.len()) / 16).unwrap_or(u64::MAX).saturating_add(1)
}

impl<'a, 'r> SectionNames<'a, 'r> {
    /// Indexes `sections` in `room`, charging each name comparison to `work`.
    pub(super) fn new(
        sections: Option<TableVector<'a, Table<'a>>>,
        room: &'r mut NameRoom,
        work: &mut Budget,
        error: &mut Error,
    ) -> Result<Self, Fail> {
        let n = sections.map_or(0, |s| s.len());
        let mut sorted = match u32::try_from(n) {
            Ok(_) => room.slots(n),
            Err(_) => None,
        };
        if let (Some(_), Some(indices)) = (sections, sorted.as_deref_mut()) {
            let mut next = 0u32;
            for slot in indices.iter_mut() {
                *slot = next;
                next = next.saturating_add(1);
            }
            heapsort(indices, |a, b| {
                let by_name = compare(&sections, slot_index(a), name_of(&sections, slot_index(b)), work, error)?;
                Ok(by_name.then(a.cmp(&b)) == Ordering::Less)
            })?;
        }
        Ok(SectionNames { sections, sorted })
    }

    /// The index of the first section named `name`, charging each comparison to `work`, and
    /// `name` itself by its length: its accessor decoded it, and a name shared by many routines
    /// is decoded for each.
    pub(super) fn find(&mut self, name: &str, work: &mut Budget, error: &mut Error) -> Result<Option<usize>, Fail> {
        work.charge_into(u64::try_from(name.len() / 16).unwrap_or(u64::MAX), 0, error)?;
        let list = &self.sections;
        let Some(count) = list.map(|l| l.len()) else { return Ok(None) };
        let name = name.as_bytes();
        let Some(sorted) = self.sorted.as_deref() else {
            for i in 0..count {
                if compare(list, i, name, work, error)? == Ordering::Equal {
                    return Ok(Some(i));
                }
            }
            return Ok(None);
        };
        // The first position whose name is not less than `name`: among equal names, the
        // smallest index.
        let (mut lo, mut hi) = (0usize, sorted.len());
        while lo < hi {
            let mid = lo.saturating_add(hi.saturating_sub(lo) / 2);
            let here = sorted.get(mid).copied().map_or(usize::MAX, slot_index);
            if compare(list, here, name, work, error)? == Ordering::Less {
                lo = mid.saturating_add(1);
            } else {
                hi = mid;
            }
        }
        Ok(sorted
            .get(lo)
            .copied()
            .filter(|&i| order(name_of(list, slot_index(i)), name) == Ordering::Equal)
            .and_then(|i| usize::try_from(i).ok()))
    }
}

/// Sorts `v` in place by `less`, which may fail (when the work budget runs out): heapsort, so
/// at most about 2·n·log2(n) calls whatever the input, and no memory.
fn heapsort<E>(v: &mut [u32], mut less: impl FnMut(u32, u32) -> Result<bool, E>) -> Result<(), E> {
    let n = v.len();
    // One loop, so one sift-down call: steps n + n/2 - 1 down to n build the heap (roots n/2 - 1
    // down to 0), steps n - 1 down to 0 move its largest to the end (step 0 compares nothing).
    for step in (0..n.saturating_add(n / 2)).rev() {
        let (root, end) = match step.checked_sub(n) {
            Some(root) => (root, n),
            None => {
                swap(v, 0, step);
                (0, step)
            }
        };
        sift_down(v, root, end, &mut less)?;
    }
    Ok(())
}

/// Moves `v[root]` down the max-heap `v[..end]` until neither child is greater.
fn sift_down<E>(
    v: &mut [u32],
    mut root: usize,
    end: usize,
    less: &mut impl FnMut(u32, u32) -> Result<bool, E>,
) -> Result<(), E> {
    loop {
        let left = root.saturating_mul(2).saturating_add(1);
        if left >= end {
            return Ok(());
        }
        let mut child = left;
        let right = left.saturating_add(1);
        if let (true, Some(&l), Some(&r)) = (right < end, v.get(left), v.get(right)) {
            if less(l, r)? {
                child = right;
            }
        }
        let (Some(&parent), Some(&bigger)) = (v.get(root), v.get(child)) else { return Ok(()) };
        if !less(parent, bigger)? {
            return Ok(());
        }
        swap(v, root, child);
        root = child;
    }
}

/// Exchanges `v[a]` and `v[b]` (out of range: nothing).
fn swap(v: &mut [u32], a: usize, b: usize) {
    if let (Some(&x), Some(&y)) = (v.get(a), v.get(b)) {
        if let Some(slot) = v.get_mut(a) {
            *slot = y;
        }
        if let Some(slot) = v.get_mut(b) {
            *slot = x;
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::arithmetic_side_effects)] // in tests a panic is a failure
mod tests {
    use super::super::lists::tables;
    use super::{heapsort, Budget, NameRoom, SectionNames};
    use crate::cvimodel::CviModel;
    extern crate std;
    use crate::error::{Error, ErrorKind, Location};
    use crate::verify::Options;
    use std::vec::Vec;

    static MODEL: &str = "Model";

    #[test]
    fn the_scan_finds_what_the_index_finds() {
        let bytes = include_bytes!("../../../testdata/cvimodel/tpumlir_tinycnn_int8_cv181x.cvimodel");
        let file = CviModel::parse(bytes).unwrap();
        let sections = tables(&file.model().raw(), crate::cvimodel::Model::SECTIONS_SLOT);
        let mut error = Error::new(ErrorKind::NotFound, 0, Location::at(&MODEL));
        let mut work = Budget::new(&Options::DEFAULT, bytes.len(), &MODEL);
        let mut room = NameRoom::new();
        let mut indexed = SectionNames::new(sections, &mut room, &mut work, &mut error).unwrap();
        assert!(indexed.sorted.is_some());
        // What a file of more sections than the index holds gets.
        let mut scan = SectionNames { sections, sorted: None };
        let names: Vec<_> = file.model().sections().unwrap().iter().map(|s| s.name()).collect();
        assert!(names.len() >= 2);
        for (i, name) in names.iter().enumerate() {
            assert_eq!(indexed.find(name, &mut work, &mut error).unwrap(), Some(i), "{name}");
            assert_eq!(scan.find(name, &mut work, &mut error).unwrap(), Some(i), "{name}");
        }
        for missing in ["", "subfunc", "zzz"] {
            assert_eq!(indexed.find(missing, &mut work, &mut error).unwrap(), None, "{missing}");
            assert_eq!(scan.find(missing, &mut work, &mut error).unwrap(), None, "{missing}");
        }
    }

    #[test]
    fn heapsort_sorts_and_stops_when_the_comparison_fails() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut buf = [0u32; 1000];
        for n in [0usize, 1, 2, 3, 7, 64, 1000] {
            let v = &mut buf[..n];
            for x in v.iter_mut() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                *x = u32::try_from(state % 50).unwrap();
            }
            let mut expected = [0u32; 1000];
            expected[..n].copy_from_slice(v);
            expected[..n].sort_unstable();
            heapsort::<()>(v, |a, b| Ok(a < b)).unwrap();
            assert_eq!(v, &expected[..n], "{n} elements");
        }
        let mut v = [0u32; 100];
        for (i, x) in v.iter_mut().enumerate() {
            *x = u32::try_from(100 - i).unwrap();
        }
        let mut calls = 0;
        let r = heapsort(&mut v, |a, b| {
            calls += 1;
            if calls > 10 {
                Err("spent")
            } else {
                Ok(a < b)
            }
        });
        assert_eq!((r, calls), (Err("spent"), 11));
    }
}
