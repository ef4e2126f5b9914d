//! A section of the file: the section table's own helpers, and [`SectionRef`], a section
//! resolved to its stored payload (what the file type hands out and the rules check).

use super::Section;

impl Section<'_> {
    /// Whether the payload is an LZ4 block (`compress` with a non-zero `decompressed_size`).
    pub fn is_lz4(&self) -> bool {
        self.compress() && self.decompressed_size() > 0
    }

    /// The size of the section's data once decompressed (`size` when it is not compressed).
    pub fn data_size(&self) -> u32 {
        if self.is_lz4() {
            self.decompressed_size()
        } else {
            self.size()
        }
    }
}

/// A section of the file: its table and its stored payload.
#[derive(Clone, Copy)]
pub struct SectionRef<'a> {
    /// The section's index in `Model.sections`.
    pub index: usize,
    /// The section's table.
    pub section: Section<'a>,
    /// The stored payload (compressed or encrypted as stored).
    pub payload: &'a [u8],
    /// Where the payload starts in the file.
    pub file_offset: usize,
}

/// The payload's length, not its bytes.
impl core::fmt::Debug for SectionRef<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SectionRef")
            .field("index", &self.index)
            .field("section", &self.section)
            .field("payload_len", &self.payload.len())
            .field("file_offset", &self.file_offset)
            .finish()
    }
}
