//! The bytes a model is read from, held where they cannot move or change while views of them
//! live: a Python `bytes` object (immutable; borrowed, not copied), or a file read whole into
//! memory of this module's own as the command line reads it (`flatmodel::snapshot`, files of
//! 2 MiB or more into anonymous memory advised to use huge pages).

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::path::Path;

/// Bytes that stay at one address, unchanged, for as long as their holder lives.
pub enum Bytes {
    /// A Python `bytes` object: immutable, its storage never moves while referenced.
    Python(Py<PyBytes>),
    /// A file's bytes, read into memory owned here.
    Read(Memory),
    /// Bytes made here (an nnpackage model's, shared with its package).
    Shared(flatmodel::nnpackage::FileBytes),
}

impl Bytes {
    /// The bytes. Their address and content are the same for the holder's whole life: a
    /// `bytes` object is immutable, a `Vec`'s or mapping's storage does not move when its
    /// owner does, and nothing here writes to memory once it is read.
    pub fn get<'a>(&'a self, py: Python<'_>) -> &'a [u8] {
        match self {
            Bytes::Python(b) => b.as_bytes(py),
            Bytes::Read(m) => m.as_ref(),
            Bytes::Shared(s) => s.as_bytes(),
        }
    }
}

/// Reads the regular file at `path` whole, as one consistent snapshot
/// ([`flatmodel::snapshot::read_file_into`]): a file written while it is read is read again,
/// then refused; no mapping of the file, so no signal and no change under a view.
pub fn read_path(path: &Path) -> std::io::Result<Memory> {
    let file = std::fs::File::open(path)?;
    flatmodel::snapshot::read_file_into(&file, u64::MAX, Memory::new)
}

/// Files this large or larger are read into huge pages ([`Memory::Huge`]).
const HUGE_PAGE: usize = 2 << 20;

/// Memory a file is read into (as the command line's `cli/src/input.rs`): writing fresh memory
/// costs a page fault per page, so a file of [`HUGE_PAGE`] bytes or more goes into an
/// anonymous mapping (process memory, not the file: it cannot change or vanish) aligned to
/// 2 MiB and advised to use transparent huge pages, which fault 512 times less often.
pub enum Memory {
    /// A small file's bytes.
    Small(Vec<u8>),
    /// A large file's bytes: `map[start..start + len]`, `start` aligned to [`HUGE_PAGE`].
    Huge { map: memmap2::MmapMut, start: usize, len: usize },
}

impl Memory {
    /// Zeroed memory for `len` bytes.
    fn new(len: usize) -> std::io::Result<Memory> {
        if len < HUGE_PAGE {
            return Ok(Memory::Small(vec![0; len]));
        }
        let map = memmap2::MmapOptions::new().len(len.saturating_add(HUGE_PAGE)).map_anon()?;
        let misaligned = map.as_ptr().addr() % HUGE_PAGE;
        let start = (HUGE_PAGE - misaligned) % HUGE_PAGE;
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::HugePage); // advice: without it, ordinary pages
        Ok(Memory::Huge { map, start, len })
    }
}

impl AsRef<[u8]> for Memory {
    fn as_ref(&self) -> &[u8] {
        match self {
            Memory::Small(bytes) => bytes,
            Memory::Huge { map, start, len } => map.get(*start..start.saturating_add(*len)).unwrap_or_default(),
        }
    }
}

impl AsMut<[u8]> for Memory {
    fn as_mut(&mut self) -> &mut [u8] {
        match self {
            Memory::Small(bytes) => bytes,
            Memory::Huge { map, start, len } => map.get_mut(*start..start.saturating_add(*len)).unwrap_or_default(),
        }
    }
}
