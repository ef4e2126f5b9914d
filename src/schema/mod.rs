//! The declarative layer between a schema's `.fbs` file and the code that reads it.
//!
//! The generator (`codegen/`, `cargo xtask codegen`) resolves each format's `.fbs` with
//! [`crate::reflect`] and writes a `generated.rs` of macro calls (one per enum, union, struct
//! and table); the macros in this module expand each into the typed view, the verifier and a
//! static descriptor. The dump and the tools walk the descriptors.

mod desc;
mod macros;
// Hand-written macro calls: left out of the generator's bootstrap build (`src/lib.rs`), so
// that a change of the macros' grammar can be generated before this is brought up to date.
#[cfg(not(flatmodel_bootstrap))]
#[doc(hidden)]
pub mod sample;
mod walk;

pub use desc::{
    EnumDesc, EnumType, FieldDesc, FieldKind, ScalarType, ScalarValue, SchemaDesc, StructDesc, StructFieldDesc,
    StructFieldKind, StructType, TableDesc, TableRef, TableType, UnionDesc, UnionRef, UnionType,
};
pub use macros::GRAMMAR_VERSION;
pub use walk::{walk_bounded, Bits, Walk, Walker};
