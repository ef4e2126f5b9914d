//! JSON output of any verified table, walked through the schema descriptors with flatc's
//! conventions (`flatc --json --strict-json --defaults-json`): fields in declaration order,
//! enum values by name, a `<field>_type` entry before each union, scalar defaults written out,
//! absent non-scalar fields left out, deprecated fields skipped. Floats are written in their
//! shortest form that reads back to the same value (flatc's `nan`/`inf` for non-finite ones).
//!
//! Works in `no_std` into any [`core::fmt::Write`]. The output is bounded: a buffer whose
//! tables are shared by many offsets could otherwise print far more than its size.

mod describe;
mod json;

pub use describe::{Compiled, Describe, Field, Inline, Kind, Member, StructField};
pub use json::{dump_table, DumpError, Dumpable};
#[cfg(feature = "alloc")]
pub(crate) use json::{dump_with, read_at};
