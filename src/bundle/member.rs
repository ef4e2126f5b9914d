//! One member of a model bundle: its name, its bytes (a view into the archive when stored,
//! inflated when deflated), where it lies, and the format its bytes show.

use crate::Format;
use std::borrow::Cow;
use std::string::String;

/// How a member is kept in the archive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// Stored (method 0): its bytes are the archive's, from this offset on.
    Stored {
        /// The offset of its first byte in the archive.
        offset: u64,
    },
    /// Deflated (method 8): inflated into memory of its own.
    Deflated {
        /// Its compressed size in the archive.
        compressed: u64,
    },
}

/// One member of a [`Bundle`](super::Bundle), in archive order.
#[derive(Clone)]
pub struct Member<'a> {
    pub(super) name: String,
    pub(super) bytes: Cow<'a, [u8]>,
    pub(super) storage: Storage,
    pub(super) format: Option<Format>,
}

impl<'a> Member<'a> {
    /// Its name in the archive, normalised (`/`-separated, no `.` components).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its bytes, checked against the archive's CRC-32.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Its size in bytes (uncompressed).
    pub fn size(&self) -> usize {
        self.bytes.len()
    }

    /// How it is kept in the archive.
    pub fn storage(&self) -> Storage {
        self.storage
    }

    /// The format its bytes show ([`crate::detect`]), verified in full when the bundle was
    /// read; `None` for a member no format claims (a tokenizer, a label list, a nested
    /// archive), which is listed and not verified.
    pub fn format(&self) -> Option<Format> {
        self.format
    }

    /// The offset in the archive of byte `offset` of this member, for a stored one; `None`
    /// for a deflated one (its bytes are not the archive's) or on overflow.
    pub fn archive_offset(&self, offset: u64) -> Option<u64> {
        match self.storage {
            Storage::Stored { offset: start } => start.checked_add(offset),
            Storage::Deflated { .. } => None,
        }
    }
}

/// The name, size, storage and format, not the bytes.
impl core::fmt::Debug for Member<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Member")
            .field("name", &self.name)
            .field("size", &self.bytes.len())
            .field("storage", &self.storage)
            .field("format", &self.format)
            .finish()
    }
}
