//! ExecuTorch's Vulkan delegate: the VkGraph flatbuffer (`VK00`, `schema.fbs` plus the
//! ExecuTorch 1.5 revision's values and fields, `docs/executorch.md` §3.3) and the `VH00` blob
//! around it.
//!
//! [`Blob::parse`] reads a delegate blob (the `VH00` header, the VkGraph it frames and the raw
//! constant bytes after it) or a bare legacy `VK00` flatbuffer, verifies the graph and its
//! indices, and resolves constants to bytes ([`Blob::constant`]).

mod blob;
mod data_type;
mod generated;
mod header;

pub use blob::{Blob, Constant};
pub use generated::*;
pub use header::{Header, HEADER_MAGIC};

/// The VkGraph flatbuffer's file identifier.
pub const IDENTIFIER: [u8; 4] = *b"VK00";
