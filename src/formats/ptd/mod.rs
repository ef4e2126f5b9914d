//! ExecuTorch's `.ptd` data files (program-data separation): the FlatTensor flatbuffer (`FT01`,
//! `schema.fbs` including `scalar_type.fbs`), its `FH01` header, and the segments after it
//! (`docs/executorch.md` §3.9).
//!
//! [`PtdFile::parse`] verifies the header, the FlatTensor and its rules (segments inside the
//! file, named data naming segments with unique keys, each tensor layout's bytes inside its
//! segment and aligned), then finds named data by key ([`PtdFile::named_data`]).

mod file;
mod generated;
mod header;

pub use file::PtdFile;
pub use generated::*;
pub use header::{Header, HEADER_MAGIC};

/// The FlatTensor flatbuffer's file identifier.
pub const IDENTIFIER: [u8; 4] = *b"FT01";
