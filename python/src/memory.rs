//! The bytes a model is read from, held where they cannot move or change while views of them
//! live: a Python `bytes` object (immutable; borrowed, not copied), or a file read whole into
//! memory of this module's own as the command line reads it (`flatmodel::snapshot`, files of
//! 2 MiB or more into anonymous memory advised to use huge pages).

pub use flatmodel_cli::Memory;
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

/// Reads the regular file at `path` whole, as the command line reads it ([`Memory::read`]: one
/// consistent snapshot, files of 2 MiB or more into anonymous memory advised to use huge pages).
pub fn read_path(path: &Path) -> std::io::Result<Memory> {
    Memory::read(path)
}
