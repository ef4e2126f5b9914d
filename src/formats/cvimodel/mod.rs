//! Sophgo cvimodel (`CviModel` magic): a 48-byte header (32 in version 1.0), a flatbuffer body
//! of schema `cvi.model` (no file identifier), then the section payloads (`docs/cvimodel.md`
//! §4).
//!
//! [`CviModel::parse`] reads the header, verifies the body as `Model` and checks where the
//! sections, weights and routines point; [`CviModel::parse_structure`] stops after the body's
//! structure. Every table, struct, enum and union of `schema.fbs` has a view type here
//! (generated into `generated.rs`); `header.rs` is the container header, `offsets.rs` the tagged
//! offsets, `model.rs` the file and its section area, `section.rs` a section resolved to its
//! payload, `rules.rs` the model's rules, `lz4.rs` the LZ4 block check, `names.rs` the sections
//! indexed by name, `lists.rs` the lists both read by slot, `warning_text.rs` how a [`Warning`]
//! reads.
//!
//! - Sections resolve to their stored payload ([`CviModel::section_at`], [`CviModel::section`]).
//! - Verification checks that every unencrypted LZ4 section decompresses to exactly its
//!   `decompressed_size` without decompressing it: [`check_lz4_block`] walks the block's
//!   sequences, in time linear in the stored bytes and with no memory. The claims together
//!   must stay within [`crate::verify::Options::max_inflated_size`]. With the `lz4` feature,
//!   [`CviModel::decompress_section`] inflates a section: the one place the crate does, bounded
//!   by the same limit. Encrypted sections are reported, never interpreted.
//! - `Weight.offset` and `Tensor.offset` are tagged: [`Weight::address`] and
//!   [`Tensor::address`] decode them; [`CviModel::weight_data`] slices a weight's bytes.
//! - TPU routines name their command buffer by section name: [`CviModel::routine_section`]
//!   resolves one (a scan of the sections). Verification resolves them all through the section
//!   names sorted once, n·log n comparisons in all: the index lives on the stack, for up to 256
//!   sections; a larger file's routines are each resolved by a scan, within the work budget.
//! - `CpuRoutine.function_args` is a nested flatbuffer of schema `cvi.cpu_op.Parameter`, which
//!   `schema.fbs` does not describe: it is exposed as bytes.
//! - With the `md5` feature, [`CviModel::md5_check`] recomputes the header's MD5; a mismatch is
//!   a [`Warning`], never an error (runtimes do not check it and some tools leave it unset).

mod generated;
mod header;
mod lists;
mod lz4;
mod model;
mod names;
mod offsets;
mod rules;
mod section;
mod warning_text;

pub use generated::*;
pub use header::{Header, RawHeader, RawHeaderV1_0, HEADER_SIZE, HEADER_SIZE_V1_0, MAGIC};
pub use lz4::{check_lz4_block, Lz4Fault};
#[cfg(feature = "md5")]
pub use model::Md5Check;
pub use model::{CviModel, MemoryUsage, Warning};
pub use offsets::{decode_tensor_offset, decode_weight_offset, MemoryRegion, TensorAddress, WeightAddress};
pub use section::SectionRef;

/// Whether `bytes` start with the cvimodel magic.
pub fn is_cvimodel(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}
