//! Hostile input: linear work on shared subtrees and large files, and the fuzz targets replayed on
//! stable over every regression and testdata file.
//!
//! One test binary of the library's, by concern; each module was a test file of its own.

#[path = "../nnpackage_support/mod.rs"]
mod nnpackage_support;
#[path = "../support/mod.rs"]
mod support;

mod bounded_work;
mod fuzz_inputs;
mod fuzz_replay;
mod fuzz_replay_schema;
