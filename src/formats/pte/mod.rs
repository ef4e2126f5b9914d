//! ExecuTorch programs (`.pte`): the `Program` flatbuffer (`ET12`, `schema.fbs` including
//! `scalar_type.fbs`), its `eh00` extended header, and the segments after it
//! (`docs/executorch.md` §3.4).
//!
//! [`PteFile::parse`] verifies the program and every segment range, then enumerates execution
//! plans, delegates (with their blobs, inline or in a segment) and named data; Vulkan delegate
//! blobs are verified as [`crate::vkgraph::Blob`]s and XNNPACK ones as
//! [`crate::xnnpack::Blob`]s, their named constants looked up here.
//!
//! [`PteFile::data_keys`] lists the keys the program reads from named data (external tensors,
//! delegates' named constants) and [`PteFile::check_data`] checks them against the program's
//! named data and `.ptd` files ([`crate::ptd::PtdFile`]) together.

mod data;
mod file;
mod generated;
mod header;
mod scalar_type;

pub use data::{DataError, DataKey, DataProblem, DataReader, DataSource, UnresolvedKey};
pub use file::{Delegate, PteFile};
pub use generated::*;
pub use header::{ExtendedHeader, EXTENDED_HEADER_MAGIC};

/// The program flatbuffer's file identifier.
pub const IDENTIFIER: [u8; 4] = *b"ET12";

/// The backend id of ExecuTorch's Vulkan delegate.
pub const VULKAN_BACKEND: &str = "VulkanBackend";

/// The backend id of ExecuTorch's XNNPACK delegate.
pub const XNNPACK_BACKEND: &str = "XnnpackBackend";
