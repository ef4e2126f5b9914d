//! Vectors: scalars as zero-copy slices, and vectors of tables, strings, structs and unions.

use super::bytes::read_uoffset;
use super::utf8::verified_str;
use super::{broken, FromStruct, FromTable, FromUnion, Scalar, Seal, Table};
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

    /// The elements, decoded.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = T> + DoubleEndedIterator + 'a {
        self.slice.iter().map(|w| T::from_wire(*w))
    }
}

impl<T: Scalar> core::fmt::Debug for Vector<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
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

/// The tables of a [`TableVector`], in order.
struct TableIter<'a, T> {
    buf: &'a [u8],
    targets: Targets<'a>,
    _t: PhantomData<T>,
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

/// The strings of a [`StrVector`], in order.
struct StrIter<'a> {
    buf: &'a [u8],
    targets: Targets<'a>,
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
    pub fn iter(&self) -> impl Iterator<Item = T> + 'a {
        TableIter { buf: self.offsets.buf, targets: self.offsets.targets(), _t: PhantomData }
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
    pub fn iter(&self) -> impl Iterator<Item = &'a str> + 'a {
        StrIter { buf: self.offsets.buf, targets: self.offsets.targets() }
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
    pub fn iter(&self) -> impl ExactSizeIterator<Item = S> + 'a {
        self.bytes.chunks_exact(S::SIZE.max(1)).map(|b| S::from_bytes(b, Seal))
    }

    /// The raw bytes of all elements.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
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
    pub fn iter(&self) -> impl Iterator<Item = U> + 'a {
        let this = *self;
        (0..self.len()).filter_map(move |i| this.get(i))
    }
}
