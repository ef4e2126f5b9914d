//! ExecuTorch's XNNPACK delegate: the XNNGraph flatbuffer (`XN01`, `schema.fbs`) and the `XH00`
//! blob around it, with its constant region (`docs/executorch.md` §3.7, §3.8).
//!
//! [`Blob::parse`] reads a delegate blob (the `XH00` header, the XNNGraph it frames and the
//! constant region after it) or a bare `XN01` flatbuffer, verifies the graph's rules (value
//! ids, node inputs and outputs, constants, quantization parameters) and resolves constants to
//! bytes ([`Blob::constant`]).

mod blob;
mod data_type;
mod generated;
mod header;
mod node_ids;
mod quant;
mod rules;

pub use blob::{Blob, Constant};
pub use generated::*;
pub use header::{Header, HEADER_MAGIC};
pub use node_ids::NodeIds;

/// The XNNGraph flatbuffer's file identifier.
pub const IDENTIFIER: [u8; 4] = *b"XN01";

/// `ConstantDataOffset.offset` meaning "the bytes are named data under `named_key`".
pub const NAMED: u64 = u64::MAX;

/// The id XNNPACK reads as "no value" (`XNN_INVALID_VALUE_ID`), for a node's optional inputs.
pub const INVALID_VALUE_ID: u32 = u32::MAX;
