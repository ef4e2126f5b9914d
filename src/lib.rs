//! # flatmodel
//!
//! Zero-copy, verified readers for the FlatBuffers-based model formats edge runtimes ship:
//! TFLite (`TFL3`, schema v2.15 plus the newer LiteRT values), Samsung ONE's Circle (`CIR0`,
//! revision 0 plus the later revisions' values) and, with the `nnpackage` feature, its
//! nnpackage directories and zip archives; ExecuTorch `.pte` programs and their Vulkan delegate
//! (VkGraph behind a `VH00` header); Sophgo cvimodels.
//!
//! ## Guarantees
//!
//! - **Verify first, then read in place.** [`tflite::Model::parse`] (and
//!   [`circle::Model::parse`]) runs one verification pass over the bytes; only then does it
//!   hand out views, which borrow the input and read straight from it. View accessors are
//!   infallible and do not allocate or copy. Only the crate builds views, and only over bytes
//!   it verified: the view constructors (`wire::FromTable`, `FromStruct`, `FromUnion`) take a
//!   seal outside code cannot name, and [`wire::Table`] cannot be made or read from outside.
//! - **Any input is safe.** Every byte string yields an [`Error`] (its kind, byte offset and
//!   schema path such as `Model.subgraphs[0].tensors[12].name`) or a valid model. No input makes
//!   the library panic, hang or recurse without bound.
//! - **No heap.** Verification, the model rules, the views and the dump never allocate, in any
//!   build (cvimodel LZ4 sections are checked without being inflated; LiteRT-LM's zlib
//!   tokenizers are inflated through a fixed window on the stack). The rules' working
//!   memory is a few fixed-size sets on the stack: a subgraph of more than 4,096 tensors is
//!   walked once per 4,096 of them, a model's first 4,096 subgraphs are checked for call cycles
//!   (one past them may call no other), and a cvimodel of more than 256 sections resolves each
//!   routine's section by a scan; all of it charged to the work budget.
//! - **Bounded work.** Verification, the model rules, the warnings
//!   (`Model::for_each_warning`), the runtime profiles (`tflite::Model::check_runtime`),
//!   [`schema::walk_bounded`] and the dump each charge their work
//!   to the apparent-size budget of [`verify::Options`], a constant times the input length, and
//!   stop with [`ErrorKind::ApparentSizeLimit`] when it is spent, shared subtrees included (the
//!   warnings of a model the rules accepted with the same options never run out). Accessors and
//!   helpers read a fixed number of fields or scan one vector, which is linear in the input.
//!   The traversals that expand shared subtrees without a budget say so and cost the logical
//!   (expanded) size: [`schema::Walk::walk`] with an unbudgeted [`schema::Walker`] (bounded:
//!   [`schema::Walker::with_budget`], [`schema::walk_bounded`]) and the lazy
//!   [`pte::PteFile::delegates`] (bounded: `take`).
//! - **One `unsafe` block, audited.** The library denies `unsafe_code` but for one function,
//!   `verified_str` in `src/wire/utf8.rs`: it hands out a view's string with
//!   `core::str::from_utf8_unchecked`, so that reading a string costs O(1) in its length instead
//!   of re-checking UTF-8 the verifier already checked. It is sound because the verifier
//!   rejects any buffer with a string that is not UTF-8 among those it reaches, and views exist
//!   only over accepted buffers and follow only the fields their schema verified (the sealed
//!   constructors above); its `SAFETY` comment gives the argument. Debug builds (tests,
//!   fuzzing) check the UTF-8 again as an assertion, and CI runs the library's tests that read
//!   strings under Miri. The panicking operations (`unwrap`, indexing, unchecked arithmetic)
//!   are denied by lint, and so are `as` casts outside the wire reads and the verifier.
//! - **`no_std`.** The core needs neither `std` nor an allocator; the `alloc` and `std` features
//!   add conveniences (with `std`, [`snapshot`] reads a file whole as one consistent snapshot).
//!   The `flatmodel` command line is a crate of its own (`cli/` in the repository).
//! - **Newer writers are not errors.** Enum values and union types this crate's schemas do not
//!   name read as raw numbers.
//!
//! ## Beyond FlatBuffers' own verifier, and its cost
//!
//! [`tflite::Model::parse_structure`] checks everything FlatBuffers' C++ verifier checks (every
//! offset, vtable, table, vector and string inside the buffer and aligned, required fields,
//! union types against their values, depth and table limits), and more:
//!
//! | check | what C++ (flatbuffers 2.0.8) does | share of `parse_structure`'s instructions |
//! |---|---|---|
//! | every string is UTF-8 | checks the terminator only | 4.1% (0 to 8.6%: none without strings, most on name-heavy models) |
//! | linear work: each object charged to a budget proportional to the input length | no budget: a shared subtree is verified again through each offset to it, up to a million tables | 5.1% (4.6 to 5.7%) |
//! | shared objects verified once (the memo, consulted once the work passes the input length) | none | 3.7% (3.1 to 4.8%: the test for suspected sharing; it never fires on a tree) |
//! | each field inside its own table (not only inside the buffer) | inside the buffer | about 0.2% (one compare more per field, on a vtable's first visit) |
//! | vector data aligned to its element (8-byte elements) | not checked | 0.1% |
//! | statistics ([`verify::Stats`]: tables, vectors, strings) | none | 0.6% |
//!
//! (Instructions counted by callgrind with each check left out in turn, over 11 TFLite models
//! from 80 bytes to 400 KB; the geometric mean, then the range. Together about 13.6%.)
//!
//! The model rules ([`tflite::Model::parse`], then `check_rules`) are checks no FlatBuffers
//! verifier has: tensor and buffer indices in range, shapes and data sizes agreeing, quantization
//! parameters, sparse tensors' index vectors, operators in dataflow order, subgraph calls
//! without cycles.
//!
//! `benches/README.md` in the repository measures it: instructions per call of `parse_structure`,
//! `parse`, a run-time schema, the `flatbuffers` crate's verifier and the C++ verifier on every
//! TFLite model of the project's corpus, their per-model ratios and geometric means
//! (`benches/RESULTS.md` has the latest run). On its 45 models, `parse_structure` executes 1.06
//! times the C++ verifier's instructions (geometric mean; 0.73 to 1.44): 0.90 on the 11 models
//! over 100 KB, 1.22 on the 16 under 2 KB, where a fixed cost of about 200 instructions a call
//! (C++: about 60) weighs most. That is a quarter of the `flatbuffers` crate's verifier (0.25).
//! The rules cost 0.99 times the structure check (geometric mean; at most 1.40).
//!
//! ## Layout
//!
//! - [`wire`]: the schema-free FlatBuffers wire format (all byte access happens there).
//! - [`verify`]: the verifier and its limits: one interpreter over each schema's compact
//!   [`verify::SchemaLayout`] (with the default `specialize` feature, inlined per table type for
//!   speed; without it, as `no_std` builds use it, one small loop for every schema).
//! - [`schema`]: the macros and descriptors generated code feeds, one description per type.
//! - [`dump`]: JSON output following flatc's conventions, driven by the descriptors.
//! - [`graph`]: the model graph TFLite and Circle share (tensor data, custom options, the
//!   model rules), written once over traits both formats implement.
//! - [`tflite`]: the TFLite schema's views and the helpers a runtime needs, and its runtime
//!   profiles ([`tflite::Model::check_runtime`]: what LiteRT or TFLite Micro would refuse).
//! - [`tflite_metadata`], [`conversion_metadata`]: the flatbuffers a TFLite model nests in its
//!   metadata (tflite-support's `M001`, the converter's record), verified with the model.
//! - [`circle`]: Circle's views (every revision through 0.10), its operator-code rule, and
//!   [`circle_training`], the training parameters a Circle model nests in its metadata.
//! - [`cvimodel`]: Sophgo's cvimodel: its header, the verified `cvi.model` body, sections
//!   resolved to bytes, LZ4 blocks checked without inflating them (inflated with the `lz4`
//!   feature, MD5 with `md5`), tagged offsets decoded.
//! - [`vkgraph`]: ExecuTorch's Vulkan delegate: the `VH00` blob, its VkGraph and constants.
//! - [`xnnpack`]: ExecuTorch's XNNPACK delegate: the `XH00` blob, its XNNGraph, its rules and
//!   constants.
//! - [`pte`]: ExecuTorch programs: extended header, segments, delegates, named data.
//! - [`ptd`]: ExecuTorch data files (`.ptd`): the `FH01` header, the FlatTensor, its segments
//!   and named data.
//! - [`litertlm`]: LiteRT-LM's on-device language model files (`.litertlm`): the header, the
//!   `LiteRTLMMetaData` flatbuffer, sections inside the file and not overlapping, TFLite sections
//!   verified as TFLite models, protobuf sections walked as messages, HF tokenizers' zlib
//!   streams inflated to their declared size (feature `zlib`, through a 32 KiB window on the
//!   stack, nothing allocated).
//! - `reflect` (feature `alloc`): any FlatBuffers schema read at run time, from `.fbs` text
//!   or flatc's binary schema, driving the same verifier and dump as the formats above (the
//!   verifier's layout and the dump's description are built from the resolved schema), with
//!   dynamic views that read any field by name.
//! - `nnpackage` (feature `nnpackage`, with `std`): Samsung ONE's model packages, a directory
//!   or zip holding a JSON MANIFEST and models, checked end to end; its zip reader also reads
//!   the associated files tflite-support appends to a model.
//! - `bundle` (feature `nnpackage`): model bundles, zip archives of models that are not
//!   nnpackages (MediaPipe's `.task`), recognised by content, each member verified by its
//!   format under the nnpackage's zip limits.
#![no_std]
// The generator of `src/formats/*/generated.rs` (`codegen/`) resolves schemas through
// `reflect`. `cargo xtask codegen` builds the library for it with `--cfg flatmodel_bootstrap`:
// without the modules that include generated code, so that it builds, and the generator runs,
// when a `generated.rs` is stale or missing (CONTRIBUTING.md, "Regenerating").
#![cfg_attr(flatmodel_bootstrap, allow(dead_code, unused_imports, unused_macros))]
#![deny(unsafe_code)]
#![deny(clippy::undocumented_unsafe_blocks)]
#![warn(missing_docs)]
#![warn(missing_debug_implementations)]
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::panic_in_result_fn,
    clippy::as_conversions
)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

#[cfg(all(feature = "nnpackage", not(flatmodel_bootstrap)))]
pub mod bundle;
mod container;
pub mod dump;
mod error;
mod field_names;
#[cfg(not(flatmodel_bootstrap))]
pub mod formats;
#[cfg(not(flatmodel_bootstrap))]
pub mod graph;
#[cfg(all(feature = "nnpackage", not(flatmodel_bootstrap)))]
pub mod nnpackage;
#[cfg(feature = "alloc")]
pub mod reflect;
pub mod schema;
#[cfg(feature = "std")]
pub mod snapshot;
pub mod verify;
pub mod wire;

pub use container::Parsed;
pub use error::{Error, ErrorKind, Location, PathName, Result, MAX_PATH};
#[cfg(not(flatmodel_bootstrap))]
pub use formats::{
    circle, circle_training, conversion_metadata, cvimodel, litertlm, ptd, pte, tflite, tflite_metadata, vkgraph,
    xnnpack,
};
#[cfg(not(flatmodel_bootstrap))]
pub use formats::{detect, File, FileWarning, Format};

/// The README's examples, compiled as doctests so they cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
