//! The `VH00` header of a Vulkan delegate blob (`docs/executorch.md` §3.1): the header every
//! ExecuTorch delegate blob shares (`container::blob_header`), with its raw constant bytes as the data region.

use crate::container::blob_header::{self, Fields, Layout};
use crate::error::Error;
use core::ops::Range;

pub(crate) use crate::container::blob_header::HeaderFault;

/// The magic at bytes 4..8 of a blob with a header (a bare VkGraph has `VK00` there).
pub const HEADER_MAGIC: [u8; 4] = *b"VH00";

/// The header's magic, its fields' names in errors and its data region's rule.
static LAYOUT: Layout = Layout {
    magic: HEADER_MAGIC,
    names: [
        &"VH00.magic",
        &"VH00.header_size",
        &"VH00.flatbuffer_offset",
        &"VH00.flatbuffer_size",
        &"VH00.bytes_offset",
        &"VH00.bytes_size",
    ],
    data_after_flatbuffer: "the raw bytes must start after the flatbuffer",
};

/// A checked `VH00` header: where the VkGraph flatbuffer and the raw constant bytes lie, as
/// offsets from the start of the blob.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The header's length (the writer's is 30).
    pub header_size: u16,
    /// Where the VkGraph flatbuffer starts.
    pub flatbuffer_offset: u32,
    /// The flatbuffer's length.
    pub flatbuffer_size: u32,
    /// Where the raw constant bytes start.
    pub bytes_offset: u32,
    /// The raw constant bytes' length.
    pub bytes_size: u64,
}

impl Header {
    /// Reads and checks the header at the start of `blob`: `header_size >= 30`, the flatbuffer
    /// after the header and not empty, the raw constant bytes after the flatbuffer, both inside `blob`.
    pub fn parse(blob: &[u8]) -> Result<Header, Error> {
        Header::read(blob).map_err(|(kind, at, field)| Error::header(kind, at, field))
    }

    /// [`Header::parse`], failing with the error's kind, offset and field (small, so that no
    /// error is built and moved until a caller builds one).
    pub(crate) fn read(blob: &[u8]) -> Result<Header, HeaderFault> {
        let Fields { header_size, flatbuffer_offset, flatbuffer_size, data_offset, data_size } =
            blob_header::read(blob, &LAYOUT)?;
        Ok(Header { header_size, flatbuffer_offset, flatbuffer_size, bytes_offset: data_offset, bytes_size: data_size })
    }

    /// Where the VkGraph flatbuffer lies in the blob.
    pub fn flatbuffer_range(&self) -> Range<usize> {
        blob_header::range(u64::from(self.flatbuffer_offset), u64::from(self.flatbuffer_size))
    }

    /// Where the raw constant bytes lie in the blob.
    pub fn bytes_range(&self) -> Range<usize> {
        blob_header::range(u64::from(self.bytes_offset), self.bytes_size)
    }
}
