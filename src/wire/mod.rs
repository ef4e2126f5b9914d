//! The FlatBuffers wire format, schema-free: every byte the crate reads goes through here.
//!
//! Reads are bounds-checked and never panic. On verified bytes they cannot fail; if one ever
//! does (a verifier bug), [`broken`] fires a debug assertion and the accessor yields its default.

// `as` is allowed here and in `verify` alone (the crate denies it): these are the views' reads
// of the wire format, hot and counted in flash, and each cast widens (a `u16` or `u32` offset to
// `usize`, an `i32` soffset to `isize`) on the 32- and 64-bit targets the crate builds for. The
// `const fn` helpers the rest of the crate converts with are here too.
#![allow(clippy::as_conversions)]

mod bytes;
mod convert;
mod root;
mod scalar;
mod table;
mod utf8;
mod vector;

pub(crate) use bytes::{position_in, voffset, vtable_position};
pub use bytes::{read_scalar, read_u32, read_uoffset};
pub(crate) use convert::to_u64;
#[cfg(feature = "alloc")]
pub(crate) use convert::{f32_from_f64, f32_from_int, f64_from_int, to_usize};
pub use root::{has_identifier, root_position, size_prefixed, Identifier};
pub use scalar::Scalar;
pub use table::Table;
pub(crate) use utf8::verified_str;
pub use vector::{
    StrIter, StrVector, StructIter, StructVector, TableIter, TableVector, UnionIter, UnionVector, Vector, VectorIter,
};

/// The seal on view construction.
mod seal {
    /// The proof that a view is being built by this crate over bytes its verifier accepted.
    ///
    /// The constructors of [`FromTable`](super::FromTable), [`FromStruct`](super::FromStruct)
    /// and [`FromUnion`](super::FromUnion) take one. It is public in a private module, the
    /// sealed-trait pattern: outside code can name neither the type nor these constructors'
    /// signatures, so it can use the views the traits describe but cannot build one, nor
    /// implement the traits for its own types (nor expand the `fb_*!` macros, which name it).
    /// Every view therefore lies over verified bytes, which is what lets string accessors skip
    /// the UTF-8 check the verifier already made (see `wire/utf8.rs`).
    #[derive(Clone, Copy, Debug)]
    pub struct Seal;
}
pub(crate) use seal::Seal;

/// A table type of some schema, viewed over verified bytes. Sealed: only this crate builds
/// views (see [`Table`]).
pub trait FromTable<'a>: Copy + 'a {
    /// The view of `table`, which the verifier checked as this type.
    fn from_table(table: Table<'a>, seal: Seal) -> Self;
    /// The table the view reads.
    fn as_table(&self) -> Table<'a>;
}

/// A fixed-size struct type of some schema, viewed over its inline bytes. Sealed like
/// [`FromTable`].
pub trait FromStruct<'a>: Copy + 'a {
    /// The struct's size in bytes.
    const SIZE: usize;
    /// The struct's alignment in bytes.
    const ALIGN: usize;
    /// The view of `bytes`, which are exactly [`Self::SIZE`] long.
    fn from_bytes(bytes: &'a [u8], seal: Seal) -> Self;
}

/// A union type of some schema: a type tag and the table it selects. Sealed like
/// [`FromTable`].
pub trait FromUnion<'a>: Copy + 'a {
    /// The value for type `tag` whose table is `value`.
    fn from_union(tag: u8, value: UnionValue<'a>, seal: Seal) -> Self;
}

/// A member table of union `U`, with the type tag that selects it: lets the crate read one
/// member of a union field without building the union's value (a match over all its members).
pub trait UnionMember<'a, U>: FromTable<'a> {
    /// The member's type tag in `U`.
    const TAG: u8;
}

/// Where a union's value table is, read only for the types a schema names (a type from a newer
/// writer is never looked inside, as it was not verified).
#[derive(Clone, Copy)]
pub struct UnionValue<'a> {
    buf: &'a [u8],
    pos: Option<usize>,
}

/// The value's position only, not the buffer's bytes.
impl core::fmt::Debug for UnionValue<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("UnionValue").field("pos", &self.pos).finish_non_exhaustive()
    }
}

impl<'a> UnionValue<'a> {
    pub(crate) fn new(buf: &'a [u8], pos: Option<usize>) -> Self {
        UnionValue { buf, pos }
    }

    /// The value as a table of type `T` (which the union's tag selected, so the verifier
    /// checked it as a `T`).
    #[inline]
    pub(crate) fn table<T: FromTable<'a>>(&self) -> Option<T> {
        Table::verified(self.buf, self.pos?).map(|t| T::from_table(t, Seal))
    }

    /// The buffer and the value's position in it (`None` for a `NONE` element).
    pub(crate) fn raw(&self) -> Option<(&'a [u8], usize)> {
        Some((self.buf, self.pos?))
    }
}

/// Called when a read of verified bytes fails, which means a verifier bug: a debug assertion
/// in debug builds and fuzzing, `fallback` otherwise.
#[cold]
#[inline(never)]
pub fn broken<T>(fallback: T) -> T {
    if cfg!(debug_assertions) {
        panic!("flatmodel: a read of verified bytes failed (verifier bug)");
    }
    fallback
}

impl<'a> FromTable<'a> for Table<'a> {
    #[inline(always)]
    fn from_table(table: Table<'a>, _: Seal) -> Self {
        table
    }

    #[inline(always)]
    fn as_table(&self) -> Table<'a> {
        *self
    }
}
