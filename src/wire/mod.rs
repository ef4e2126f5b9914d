//! The FlatBuffers wire format, schema-free: every byte the crate reads goes through here.
//!
//! Reads are bounds-checked and never panic. On verified bytes they cannot fail; if one ever
//! does (a verifier bug), [`broken`] fires a debug assertion and the accessor yields its default.

mod bytes;
mod root;
mod scalar;
mod table;
mod vector;

pub(crate) use bytes::vtable_position;
pub use bytes::{read_scalar, read_u32, read_uoffset};
pub use root::{has_identifier, root_position, size_prefixed, Identifier};
pub use scalar::Scalar;
pub use table::Table;
pub use vector::{StrVector, StructVector, TableVector, UnionVector, Vector};

/// A table type of some schema, viewed over verified bytes.
pub trait FromTable<'a>: Copy + 'a {
    /// The view of `table`.
    fn from_table(table: Table<'a>) -> Self;
}

/// A fixed-size struct type of some schema, viewed over its inline bytes.
pub trait FromStruct<'a>: Copy + 'a {
    /// The struct's size in bytes.
    const SIZE: usize;
    /// The struct's alignment in bytes.
    const ALIGN: usize;
    /// The view of `bytes`, which are exactly [`Self::SIZE`] long.
    fn from_bytes(bytes: &'a [u8]) -> Self;
}

/// A union type of some schema: a type tag and the table it selects.
pub trait FromUnion<'a>: Copy + 'a {
    /// The value for type `tag` whose table is `value`.
    fn from_union(tag: u8, value: UnionValue<'a>) -> Self;
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

impl<'a> UnionValue<'a> {
    pub(crate) fn new(buf: &'a [u8], pos: Option<usize>) -> Self {
        UnionValue { buf, pos }
    }

    /// The value as a table of type `T`.
    #[inline]
    pub fn table<T: FromTable<'a>>(&self) -> Option<T> {
        Table::verified(self.buf, self.pos?).map(T::from_table)
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
    fn from_table(table: Table<'a>) -> Self {
        table
    }
}
