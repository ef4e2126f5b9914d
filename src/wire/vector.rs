//! Vectors: scalars as zero-copy slices, and vectors of tables, strings, structs and unions.
//!
//! Every vector is a `Copy` view. `for x in v` and `for x in &v` iterate it as `v.iter()` does,
//! and `Vector::default()` (each kind has one) is an empty vector over no bytes, so an absent
//! optional field iterates as nothing: `for t in sg.tensors().unwrap_or_default()`, or
//! `sg.tensors().into_iter().flatten()` in a chain. The iterator types are named here so that
//! they can be stored and returned.

use super::bytes::read_uoffset;
use super::utf8::verified_str;
use super::{broken, FromStruct, FromTable, FromUnion, Scalar, Seal, Table};
use core::fmt;
use core::iter::FusedIterator;
use core::marker::PhantomData;
use zerocopy::FromBytes;

/// A vector of scalars: a zero-copy slice of little-endian wire values.
#[derive(Clone, Copy)]
pub struct Vector<'a, T: Scalar> {
    slice: &'a [T::Wire],
}

impl<'a, T: Scalar> Vector<'a, T> {
    /// The vector over `bytes`, whose length must be a multiple of `T::SIZE`.
    pub(crate) fn from_bytes(bytes: &'a [u8]) -> Option<Self> {
        <[T::Wire]>::ref_from_bytes(bytes).ok().map(|slice| Vector { slice })
    }

    /// A vector with no elements.
    pub fn empty() -> Self {
        Vector { slice: &[] }
    }

    /// The elements as they lie in the buffer.
    pub fn as_slice(&self) -> &'a [T::Wire] {
        self.slice
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.slice.len()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.slice.is_empty()
    }

    /// Element `i`, decoded.
    #[inline]
    pub fn get(&self, i: usize) -> Option<T> {
        self.slice.get(i).map(|w| T::from_wire(*w))
    }

    /// The elements, decoded (`for x in v` gives the same as a [`VectorIter`]).
    pub fn iter(&self) -> impl ExactSizeIterator<Item = T> + DoubleEndedIterator + 'a {
        self.slice.iter().map(|w| T::from_wire(*w))
    }
}

impl<T: Scalar> fmt::Debug for Vector<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// An empty vector (over no bytes), as [`Vector::empty`].
impl<T: Scalar> Default for Vector<'_, T> {
    fn default() -> Self {
        Vector::empty()
    }
}

impl<'a, T: Scalar> IntoIterator for Vector<'a, T> {
    type Item = T;
    type IntoIter = VectorIter<'a, T>;

    fn into_iter(self) -> VectorIter<'a, T> {
        VectorIter { slice: self.slice.iter() }
    }
}

impl<'a, T: Scalar> IntoIterator for &Vector<'a, T> {
    type Item = T;
    type IntoIter = VectorIter<'a, T>;

    fn into_iter(self) -> VectorIter<'a, T> {
        VectorIter { slice: self.slice.iter() }
    }
}

/// The elements of a [`Vector`], decoded, in order: what `for x in vector` reads.
#[derive(Clone)]
pub struct VectorIter<'a, T: Scalar> {
    slice: core::slice::Iter<'a, T::Wire>,
}

impl<T: Scalar> Iterator for VectorIter<'_, T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        self.slice.next().map(|w| T::from_wire(*w))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.slice.size_hint()
    }
}

impl<T: Scalar> DoubleEndedIterator for VectorIter<'_, T> {
    #[inline]
    fn next_back(&mut self) -> Option<T> {
        self.slice.next_back().map(|w| T::from_wire(*w))
    }
}

impl<T: Scalar> ExactSizeIterator for VectorIter<'_, T> {}

impl<T: Scalar> FusedIterator for VectorIter<'_, T> {}

impl<T: Scalar> fmt::Debug for VectorIter<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VectorIter").field("left", &self.slice.len()).finish()
    }
}

/// A vector of offsets: `len` uoffsets starting at `pos`.
#[derive(Clone, Copy)]
struct Offsets<'a> {
    buf: &'a [u8],
    pos: usize,
    len: usize,
}

impl<'a> Offsets<'a> {
    /// No offsets, over no bytes.
    const EMPTY: Offsets<'static> = Offsets { buf: &[], pos: 0, len: 0 };

    /// The position element `i` points to. The verifier checked the vector lies in the buffer,
    /// so `pos + 4 * i` for `i < len` cannot overflow.
    #[inline]
    fn target(&self, i: usize) -> Option<usize> {
        if i >= self.len {
            return None;
        }
        match read_uoffset(self.buf, self.pos.wrapping_add(i.wrapping_mul(4))) {
            Some(t) => Some(t),
            None => broken(None),
        }
    }

    /// The positions the elements point to, in order.
    #[inline]
    fn targets(&self) -> Targets<'a> {
        let bytes = self.len.checked_mul(4).and_then(|n| self.buf.get(self.pos..)?.get(..n));
        let Some(bytes) = bytes else {
            return broken(Targets { rest: &[], at: 0 });
        };
        Targets { rest: bytes.as_chunks::<4>().0, at: self.pos }
    }
}

/// The targets of a vector of offsets: each offset's position plus its value.
#[derive(Clone)]
struct Targets<'a> {
    /// The offsets not yet read.
    rest: &'a [[u8; 4]],
    /// The position of the first of them.
    at: usize,
}

impl Iterator for Targets<'_> {
    type Item = usize;

    /// The verifier checked every `at + offset` lies in the buffer, so the wrapping
    /// arithmetic is exact.
    #[inline]
    fn next(&mut self) -> Option<usize> {
        let (first, rest) = self.rest.split_first()?;
        let at = self.at;
        self.rest = rest;
        self.at = at.wrapping_add(4);
        Some(at.wrapping_add(u32::from_le_bytes(*first) as usize))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.rest.len(), Some(self.rest.len()))
    }
}

/// The tables of a [`TableVector`], in order ([`TableVector::iter`]).
pub struct TableIter<'a, T> {
    buf: &'a [u8],
    targets: Targets<'a>,
    _t: PhantomData<T>,
}

impl<T> Clone for TableIter<'_, T> {
    fn clone(&self) -> Self {
        TableIter { buf: self.buf, targets: self.targets.clone(), _t: PhantomData }
    }
}

impl<T> fmt::Debug for TableIter<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TableIter").field("left", &self.targets.rest.len()).finish()
    }
}

impl<'a, T: FromTable<'a>> Iterator for TableIter<'a, T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        loop {
            let t = self.targets.next()?;
            // `None` only on a verifier bug (after `broken`): skip the element.
            if let Some(table) = Table::verified(self.buf, t) {
                return Some(T::from_table(table, Seal));
            }
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, self.targets.size_hint().1)
    }
}

impl<'a, T: FromTable<'a>> FusedIterator for TableIter<'a, T> {}

/// The strings of a [`StrVector`], in order ([`StrVector::iter`]).
#[derive(Clone)]
pub struct StrIter<'a> {
    buf: &'a [u8],
    targets: Targets<'a>,
}

impl fmt::Debug for StrIter<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StrIter").field("left", &self.targets.rest.len()).finish()
    }
}

impl<'a> Iterator for StrIter<'a> {
    type Item = &'a str;

    #[inline]
    fn next(&mut self) -> Option<&'a str> {
        loop {
            let t = self.targets.next()?;
            // `None` only on a verifier bug (after `broken`): skip the element.
            if let Some(s) = verified_str(self.buf, t) {
                return Some(s);
            }
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, self.targets.size_hint().1)
    }
}

impl FusedIterator for StrIter<'_> {}

/// A vector of tables of type `T`.
#[derive(Clone, Copy)]
pub struct TableVector<'a, T> {
    offsets: Offsets<'a>,
    _t: PhantomData<T>,
}

impl<'a, T: FromTable<'a>> TableVector<'a, T> {
    pub(crate) fn new(buf: &'a [u8], pos: usize, len: usize) -> Self {
        TableVector { offsets: Offsets { buf, pos, len }, _t: PhantomData }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.offsets.len
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.offsets.len == 0
    }

    /// Element `i`.
    #[inline]
    pub fn get(&self, i: usize) -> Option<T> {
        let t = self.offsets.target(i)?;
        Table::verified(self.offsets.buf, t).map(|t| T::from_table(t, Seal))
    }

    /// The elements.
    #[inline]
    pub fn iter(&self) -> TableIter<'a, T> {
        TableIter { buf: self.offsets.buf, targets: self.offsets.targets(), _t: PhantomData }
    }
}

/// An empty vector over no bytes: it has no element to read.
impl<T> Default for TableVector<'_, T> {
    fn default() -> Self {
        TableVector { offsets: Offsets::EMPTY, _t: PhantomData }
    }
}

impl<'a, T: FromTable<'a>> IntoIterator for TableVector<'a, T> {
    type Item = T;
    type IntoIter = TableIter<'a, T>;

    #[inline]
    fn into_iter(self) -> TableIter<'a, T> {
        self.iter()
    }
}

impl<'a, T: FromTable<'a>> IntoIterator for &TableVector<'a, T> {
    type Item = T;
    type IntoIter = TableIter<'a, T>;

    #[inline]
    fn into_iter(self) -> TableIter<'a, T> {
        self.iter()
    }
}

/// The length only: the elements are as many tables as the vector holds.
impl<T> fmt::Debug for TableVector<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TableVector").field("len", &self.offsets.len).finish()
    }
}

/// A vector of strings.
#[derive(Clone, Copy)]
pub struct StrVector<'a> {
    offsets: Offsets<'a>,
}

impl<'a> StrVector<'a> {
    pub(crate) fn new(buf: &'a [u8], pos: usize, len: usize) -> Self {
        StrVector { offsets: Offsets { buf, pos, len } }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.offsets.len
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.offsets.len == 0
    }

    /// Element `i`.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&'a str> {
        let t = self.offsets.target(i)?;
        verified_str(self.offsets.buf, t)
    }

    /// The elements.
    #[inline]
    pub fn iter(&self) -> StrIter<'a> {
        StrIter { buf: self.offsets.buf, targets: self.offsets.targets() }
    }
}

/// An empty vector over no bytes: it has no element to read.
impl Default for StrVector<'_> {
    fn default() -> Self {
        StrVector { offsets: Offsets::EMPTY }
    }
}

impl<'a> IntoIterator for StrVector<'a> {
    type Item = &'a str;
    type IntoIter = StrIter<'a>;

    #[inline]
    fn into_iter(self) -> StrIter<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for &StrVector<'a> {
    type Item = &'a str;
    type IntoIter = StrIter<'a>;

    #[inline]
    fn into_iter(self) -> StrIter<'a> {
        self.iter()
    }
}

/// The length only: the strings can hold as many bytes as the input.
impl fmt::Debug for StrVector<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StrVector").field("len", &self.offsets.len).finish()
    }
}

/// A vector of fixed-size structs of type `S`, stored inline.
#[derive(Clone, Copy)]
pub struct StructVector<'a, S> {
    bytes: &'a [u8],
    _s: PhantomData<S>,
}

impl<'a, S: FromStruct<'a>> StructVector<'a, S> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        StructVector { bytes, _s: PhantomData }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.bytes.len().checked_div(S::SIZE).unwrap_or(0)
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i`.
    pub fn get(&self, i: usize) -> Option<S> {
        let start = i.checked_mul(S::SIZE)?;
        let b = self.bytes.get(start..start.checked_add(S::SIZE)?)?;
        Some(S::from_bytes(b, Seal))
    }

    /// The elements.
    pub fn iter(&self) -> StructIter<'a, S> {
        StructIter { chunks: self.bytes.chunks_exact(S::SIZE.max(1)), _s: PhantomData }
    }

    /// The raw bytes of all elements.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }
}

/// An empty vector over no bytes: it has no element to read.
impl<S> Default for StructVector<'_, S> {
    fn default() -> Self {
        StructVector { bytes: &[], _s: PhantomData }
    }
}

impl<'a, S: FromStruct<'a>> IntoIterator for StructVector<'a, S> {
    type Item = S;
    type IntoIter = StructIter<'a, S>;

    fn into_iter(self) -> StructIter<'a, S> {
        self.iter()
    }
}

impl<'a, S: FromStruct<'a>> IntoIterator for &StructVector<'a, S> {
    type Item = S;
    type IntoIter = StructIter<'a, S>;

    fn into_iter(self) -> StructIter<'a, S> {
        self.iter()
    }
}

/// The length in bytes only: the elements can be as many as the input's bytes.
impl<S> fmt::Debug for StructVector<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StructVector").field("bytes", &self.bytes.len()).finish()
    }
}

/// The structs of a [`StructVector`], in order ([`StructVector::iter`]).
pub struct StructIter<'a, S> {
    chunks: core::slice::ChunksExact<'a, u8>,
    _s: PhantomData<S>,
}

impl<S> Clone for StructIter<'_, S> {
    fn clone(&self) -> Self {
        StructIter { chunks: self.chunks.clone(), _s: PhantomData }
    }
}

impl<'a, S: FromStruct<'a>> Iterator for StructIter<'a, S> {
    type Item = S;

    #[inline]
    fn next(&mut self) -> Option<S> {
        self.chunks.next().map(|b| S::from_bytes(b, Seal))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.chunks.size_hint()
    }
}

impl<'a, S: FromStruct<'a>> DoubleEndedIterator for StructIter<'a, S> {
    #[inline]
    fn next_back(&mut self) -> Option<S> {
        self.chunks.next_back().map(|b| S::from_bytes(b, Seal))
    }
}

impl<'a, S: FromStruct<'a>> ExactSizeIterator for StructIter<'a, S> {}

impl<'a, S: FromStruct<'a>> FusedIterator for StructIter<'a, S> {}

impl<S> fmt::Debug for StructIter<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StructIter").field("left", &self.chunks.len()).finish()
    }
}

/// A vector of unions of type `U`: a type per element and a table offset per element.
#[derive(Clone, Copy)]
pub struct UnionVector<'a, U> {
    types: &'a [u8],
    values: Offsets<'a>,
    _u: PhantomData<U>,
}

impl<'a, U: FromUnion<'a>> UnionVector<'a, U> {
    pub(crate) fn new(buf: &'a [u8], types: &'a [u8], pos: usize) -> Self {
        UnionVector { types, values: Offsets { buf, pos, len: types.len() }, _u: PhantomData }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.types.len()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.types.is_empty()
    }

    /// Element `i`.
    pub fn get(&self, i: usize) -> Option<U> {
        let tag = *self.types.get(i)?;
        let pos = if tag == 0 { None } else { self.values.target(i) };
        Some(U::from_union(tag, super::UnionValue::new(self.values.buf, pos), Seal))
    }

    /// The elements.
    pub fn iter(&self) -> UnionIter<'a, U> {
        UnionIter { vector: *self, next: 0 }
    }
}

/// An empty vector over no bytes: it has no element to read.
impl<U> Default for UnionVector<'_, U> {
    fn default() -> Self {
        UnionVector { types: &[], values: Offsets::EMPTY, _u: PhantomData }
    }
}

impl<'a, U: FromUnion<'a>> IntoIterator for UnionVector<'a, U> {
    type Item = U;
    type IntoIter = UnionIter<'a, U>;

    fn into_iter(self) -> UnionIter<'a, U> {
        self.iter()
    }
}

impl<'a, U: FromUnion<'a>> IntoIterator for &UnionVector<'a, U> {
    type Item = U;
    type IntoIter = UnionIter<'a, U>;

    fn into_iter(self) -> UnionIter<'a, U> {
        self.iter()
    }
}

/// The length only: the elements are as many tables as the vector holds.
impl<U> fmt::Debug for UnionVector<'_, U> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnionVector").field("len", &self.types.len()).finish()
    }
}

/// The unions of a [`UnionVector`], in order ([`UnionVector::iter`]).
pub struct UnionIter<'a, U> {
    vector: UnionVector<'a, U>,
    /// The index of the next element.
    next: usize,
}

impl<U> Clone for UnionIter<'_, U> {
    fn clone(&self) -> Self {
        UnionIter { vector: UnionVector { _u: PhantomData, ..self.vector }, next: self.next }
    }
}

impl<'a, U: FromUnion<'a>> Iterator for UnionIter<'a, U> {
    type Item = U;

    #[inline]
    fn next(&mut self) -> Option<U> {
        let i = self.next;
        let element = self.vector.get(i)?;
        self.next = i.saturating_add(1);
        Some(element)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.vector.len().saturating_sub(self.next);
        (left, Some(left))
    }
}

impl<'a, U: FromUnion<'a>> ExactSizeIterator for UnionIter<'a, U> {}

impl<'a, U: FromUnion<'a>> FusedIterator for UnionIter<'a, U> {}

impl<U> fmt::Debug for UnionIter<'_, U> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnionIter").field("left", &self.vector.types.len().saturating_sub(self.next)).finish()
    }
}
