//! A verified file and the bytes it was verified over, kept together: the one place this
//! crate ties a view's lifetime to bytes it owns.

use crate::memory::Bytes;
use flatmodel::File;
use pyo3::prelude::*;
use std::sync::Arc;

/// A verified model file with the bytes its views read. Every Python object that reads the
/// file (a tensor, an operator, an array) holds an `Arc<Core>`, so the bytes outlive them all.
pub struct Core {
    /// The file's views, over `bytes`. Never handed out as `'static`: [`Core::file`] gives them
    /// the lifetime of a borrow of the core.
    file: File<'static>,
    /// The bytes `file` reads: a slice of `owner`.
    bytes: &'static [u8],
    /// What keeps `bytes` alive and in place. Dropped after the fields above (declaration
    /// order), though neither of them has a destructor.
    _owner: Bytes,
}

/// The shared handle every wrapper holds.
pub type Shared = Arc<Core>;

impl Core {
    /// Verifies `owner`'s bytes in full (structure and rules, `File::parse`) with the GIL
    /// released: the core, or the error.
    pub fn open(py: Python<'_>, owner: Bytes) -> Result<Core, flatmodel::Error> {
        let held: &[u8] = owner.get(py);
        // SAFETY: `held` points into storage `owner` owns or references: the buffer of an
        // immutable Python `bytes` object (a strong reference is held), a `Vec`'s heap buffer,
        // an anonymous mapping, or an nnpackage's shared `Arc` of bytes. None of them moves
        // when `owner` is moved into the `Core` below, and nothing writes to them. The core
        // keeps `owner` for as long as it keeps the slice (and the views made from it), and
        // hands both out only through `&self` borrows (`Core::file`, `Core::bytes`), so no
        // reference to the bytes outlives the core.
        let bytes: &'static [u8] = unsafe { &*std::ptr::from_ref::<[u8]>(held) };
        let file = py.allow_threads(|| File::parse(bytes))?;
        Ok(Core { file, bytes, _owner: owner })
    }

    /// The verified file, borrowed from the core.
    pub fn file(&self) -> File<'_> {
        self.file
    }

    /// The whole input.
    pub fn bytes(&self) -> &[u8] {
        self.bytes
    }

    /// Where `part` (a slice of this core's bytes) starts in them; `None` for bytes elsewhere.
    pub fn offset_of(&self, part: &[u8]) -> Option<usize> {
        let start = self.bytes.as_ptr().addr();
        let at = part.as_ptr().addr().checked_sub(start)?;
        (at.checked_add(part.len())? <= self.bytes.len()).then_some(at)
    }
}
