//! Schemas read at run time: .fbs and .bfbs schemas against flatc, dynamic views, the run-time
//! verifier against the compiled-in one, hostile schemas.
//!
//! One test binary of the library's, by concern; each module was a test file of its own.

#[path = "../support/mod.rs"]
mod support;

mod reflect;
mod reflect_bfbs;
mod reflect_follow;
mod reflect_hostile;
