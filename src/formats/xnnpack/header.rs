//! The `XH00` header of an XNNPACK delegate blob (`docs/executorch.md` §3.7): the header every
//! ExecuTorch delegate blob shares (`container::blob_header`), with its constant region as the data region.

use crate::container::blob_header::{self, Fields, Layout};
use crate::error::Error;
use core::ops::Range;

pub(crate) use crate::container::blob_header::HeaderFault;

/// The magic at bytes 4..8 of a blob with a header (a bare XNNGraph has `XN01` there).
pub const HEADER_MAGIC: [u8; 4] = *b"XH00";

/// The header's magic, its fields' names in errors and its data region's rule.
static LAYOUT: Layout = Layout {
    magic: HEADER_MAGIC,
    names: [
        &"XH00.magic",
        &"XH00.header_size",
        &"XH00.flatbuffer_offset",
        &"XH00.flatbuffer_size",
        &"XH00.constant_data_offset",
        &"XH00.constant_data_size",
    ],
    data_after_flatbuffer: "the constant region must start after the flatbuffer",
};

/// A checked `XH00` header: where the XNNGraph flatbuffer and the constant region lie, as
/// offsets from the start of the blob.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The header's length (the writer's is 30).
    pub header_size: u16,
    /// Where the XNNGraph flatbuffer starts.
    pub flatbuffer_offset: u32,
    /// The flatbuffer's length.
    pub flatbuffer_size: u32,
    /// Where the constant region starts.
    pub constant_data_offset: u32,
    /// The constant region's length.
    pub constant_data_size: u64,
}

impl Header {
    /// Reads and checks the header at the start of `blob`: `header_size >= 30`, the flatbuffer
    /// after the header and not empty, the constant region after the flatbuffer, both inside `blob`.
    pub fn parse(blob: &[u8]) -> Result<Header, Error> {
        Header::read(blob).map_err(|(kind, at, field)| Error::header(kind, at, field))
    }

    /// [`Header::parse`], failing with the error's kind, offset and field (small, so that no
    /// error is built and moved until a caller builds one).
    pub(crate) fn read(blob: &[u8]) -> Result<Header, HeaderFault> {
        let Fields { header_size, flatbuffer_offset, flatbuffer_size, data_offset, data_size } =
            blob_header::read(blob, &LAYOUT)?;
        Ok(Header {
            header_size,
            flatbuffer_offset,
            flatbuffer_size,
            constant_data_offset: data_offset,
            constant_data_size: data_size,
        })
    }

    /// Where the XNNGraph flatbuffer lies in the blob.
    pub fn flatbuffer_range(&self) -> Range<usize> {
        blob_header::range(u64::from(self.flatbuffer_offset), u64::from(self.flatbuffer_size))
    }

    /// Where the constant region lies in the blob.
    pub fn constant_data_range(&self) -> Range<usize> {
        blob_header::range(u64::from(self.constant_data_offset), self.constant_data_size)
    }
}
