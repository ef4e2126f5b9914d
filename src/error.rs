//! The one error type of the crate: what went wrong, at which byte, and where in the schema.

use core::fmt;

use crate::field_names::FieldNames;

/// How many path segments an [`Error`] keeps; deeper paths keep their innermost segments.
pub const MAX_PATH: usize = 6;

/// Why some bytes were rejected.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ErrorKind {
    /// The input ends before a structure it must hold.
    #[error("input too short")]
    Truncated,
    /// An offset or a length points outside the input.
    #[error("offset or length out of bounds")]
    OutOfBounds,
    /// A value is not aligned as the format requires.
    #[error("misaligned")]
    Misaligned,
    /// A vtable's own size is odd, too small or past the end of the input.
    #[error("malformed vtable")]
    BadVtable,
    /// A field's bytes reach past the inline size its vtable gives the table.
    #[error("field lies outside its table")]
    FieldOutsideTable,
    /// A string has no NUL terminator.
    #[error("string not NUL-terminated")]
    UnterminatedString,
    /// A string is not UTF-8.
    #[error("string is not valid UTF-8")]
    InvalidUtf8,
    /// A field the schema marks `required` is absent.
    #[error("required field missing")]
    MissingRequired,
    /// A union's type and value disagree (a type without value, or a value without type).
    #[error("union type and value disagree")]
    UnionMismatch,
    /// The file identifier is not the one the format requires.
    #[error("wrong file identifier")]
    WrongIdentifier,
    /// Nesting is deeper than [`crate::verify::Options::max_depth`].
    #[error("nesting too deep")]
    DepthLimit,
    /// More tables than [`crate::verify::Options::max_tables`].
    #[error("too many tables")]
    TableLimit,
    /// Verification work passed the apparent-size budget of [`crate::verify::Options`].
    #[error("apparent size limit exceeded")]
    ApparentSizeLimit,
    /// Compressed data claims to inflate to more than
    /// [`crate::verify::Options::max_inflated_size`].
    #[error("inflated size limit exceeded")]
    InflatedSizeLimit,
    /// The bytes are not any format this crate reads.
    #[error("unknown format")]
    UnknownFormat,
    /// A container header field is invalid.
    #[error("invalid header")]
    BadHeader,
    /// An index refers to an element that does not exist.
    #[error("index out of range")]
    IndexOutOfRange,
    /// A model-level rule of the format is broken; the text names the rule.
    #[error("{0}")]
    Rule(&'static str),
    /// Something asked for by name or number does not exist.
    #[error("not found")]
    NotFound,
}

impl ErrorKind {
    /// The kind's number among those the verifier records, if it is one of them: a byte to
    /// pass where an `ErrorKind` (twelve bytes on 32-bit targets) would be passed in memory.
    #[inline(always)]
    pub(crate) const fn number(self) -> Option<u8> {
        use ErrorKind::*;
        Some(match self {
            Truncated => 0,
            OutOfBounds => 1,
            Misaligned => 2,
            BadVtable => 3,
            FieldOutsideTable => 4,
            UnterminatedString => 5,
            InvalidUtf8 => 6,
            MissingRequired => 7,
            UnionMismatch => 8,
            WrongIdentifier => 9,
            DepthLimit => 10,
            TableLimit => 11,
            ApparentSizeLimit => 12,
            _ => return None,
        })
    }

    /// The kind numbered `number` by [`ErrorKind::number`] (the last one for larger numbers).
    #[inline(always)]
    pub(crate) const fn numbered(number: u8) -> Self {
        use ErrorKind::*;
        match number {
            0 => Truncated,
            1 => OutOfBounds,
            2 => Misaligned,
            3 => BadVtable,
            4 => FieldOutsideTable,
            5 => UnterminatedString,
            6 => InvalidUtf8,
            7 => MissingRequired,
            8 => UnionMismatch,
            9 => WrongIdentifier,
            10 => DepthLimit,
            11 => TableLimit,
            _ => ApparentSizeLimit,
        }
    }
}

/// One step of a [`Location`]'s path: a field's name, or its number in its schema's layout
/// (`#12`) where the build carries no names (the `numeric-paths` feature, which leaves the
/// names out of flash; `flatmodel path` turns the numbers back into names).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PathName {
    /// A name.
    Name(&'static str),
    /// A field's index in its schema's [`crate::verify::SchemaLayout::fields`].
    Field(u16),
}

impl fmt::Display for PathName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathName::Name(name) => f.write_str(name),
            PathName::Field(index) => write!(f, "#{index}"),
        }
    }
}

/// Where an error happened, in schema terms: `Model.subgraphs[0].tensors[12].name`.
///
/// It holds up to [`MAX_PATH`] segments without allocating; deeper paths keep the innermost ones
/// and print `…` where the outer ones were.
// Aligned to 8 so that making one clears it with the 8-byte-aligned `memclr` the verifier's memo
// already uses: small firmware then links one clearing routine, not two.
#[derive(Clone, Copy)]
#[repr(align(8))]
pub struct Location {
    root: &'static &'static str,
    /// Innermost segment first; only the first `len` entries of each array are meaningful
    /// (the rest are zeros or left over, so that resetting a location writes a few bytes).
    /// A named segment's name; `None` for a schema field's.
    names: [Option<&'static &'static str>; MAX_PATH],
    /// For a schema field's segment, its field index plus `SCHEMA_BIT` when its names are
    /// `schemas[1]` rather than `schemas[0]`.
    fields: [u16; MAX_PATH],
    /// The field names of the (at most two: a buffer and one nested in it) schemas whose
    /// fields the path crosses.
    schemas: [Option<&'static FieldNames>; 2],
    /// A vector element's index plus one; 0 for no index.
    indices: [u32; MAX_PATH],
    len: u8,
    truncated: bool,
}

const SCHEMA_BIT: u16 = 1 << 15;

// A new location's arrays, as constants: rustc writes an array repeat (`[None; MAX_PATH]`) in
// place as a loop, where a copy of all-zero constants becomes one `memclr` of the location.
const NO_NAMES: [Option<&'static &'static str>; MAX_PATH] = [None; MAX_PATH];
const NO_FIELDS: [u16; MAX_PATH] = [0; MAX_PATH];
const NO_SCHEMAS: [Option<&'static FieldNames>; 2] = [None; 2];
const NO_INDICES: [u32; MAX_PATH] = [0; MAX_PATH];

impl Location {
    /// A location with no segments below `root` (for example a header or a whole file).
    pub const fn at(root: &'static &'static str) -> Self {
        Location {
            root,
            names: NO_NAMES,
            fields: NO_FIELDS,
            schemas: NO_SCHEMAS,
            indices: NO_INDICES,
            len: 0,
            truncated: false,
        }
    }

    /// The name the path starts from (a root table, a header).
    pub fn root(&self) -> &'static str {
        self.root
    }

    /// Segments from outermost to innermost: a field name and, for vector elements, an index.
    pub fn segments(&self) -> impl DoubleEndedIterator<Item = (PathName, Option<u32>)> + '_ {
        let len = usize::from(self.len).min(MAX_PATH);
        let names = self.names.get(..len).unwrap_or(&[]);
        let fields = self.fields.get(..len).unwrap_or(&[]);
        let indices = self.indices.get(..len).unwrap_or(&[]);
        let name = |(&name, &field): (&Option<&'static &'static str>, &u16)| match name {
            Some(name) => PathName::Name(name),
            None => {
                let (schema, index) = (usize::from(field >= SCHEMA_BIT), field & !SCHEMA_BIT);
                match self.schemas.get(schema).copied().flatten().and_then(|n| n.get(usize::from(index))) {
                    Some(name) => PathName::Name(name),
                    None => PathName::Field(index),
                }
            }
        };
        names.iter().zip(fields).map(name).zip(indices).rev().map(|(n, &i)| (n, i.checked_sub(1)))
    }

    /// Whether outer segments were dropped because the path was deeper than [`MAX_PATH`].
    pub fn is_truncated(&self) -> bool {
        self.truncated
    }

    /// Adds a segment named `name` outside the ones already held (used while unwinding).
    pub(crate) fn push_outer(&mut self, name: &'static &'static str, index: Option<u32>) {
        self.push(Some(name), 0, index);
    }

    /// Adds the segment of field `field` of the schema whose field names are `names`.
    pub(crate) fn push_field(&mut self, names: &'static FieldNames, field: u16, index: Option<u32>) {
        let field = field.min(SCHEMA_BIT - 1);
        let slot = self.schemas.iter().position(|s| s.is_none_or(|s| core::ptr::eq(s, names)));
        let field = match slot {
            Some(slot) => {
                if let Some(s) = self.schemas.get_mut(slot) {
                    *s = Some(names);
                }
                if slot == 1 {
                    field | SCHEMA_BIT
                } else {
                    field
                }
            }
            // A third schema: its fields show as numbers (`FieldNames::NONE` never names).
            None => field,
        };
        self.push(None, field, index);
    }

    fn push(&mut self, name: Option<&'static &'static str>, field: u16, index: Option<u32>) {
        let at = usize::from(self.len);
        match (self.names.get_mut(at), self.fields.get_mut(at), self.indices.get_mut(at)) {
            (Some(n), Some(f), Some(i)) => {
                (*n, *f, *i) = (name, field, index.map_or(0, |i| i.saturating_add(1)));
                self.len = self.len.saturating_add(1);
            }
            _ => self.truncated = true,
        }
    }

    pub(crate) fn set_root(&mut self, root: &'static &'static str) {
        self.root = root;
    }

    /// Makes this the location [`Location::at`] `root` gives, writing only what that reads.
    pub(crate) fn reset(&mut self, root: &'static &'static str) {
        (self.root, self.schemas, self.len, self.truncated) = (root, [None, None], 0, false);
    }
}

impl PartialEq for Location {
    fn eq(&self, other: &Self) -> bool {
        self.root() == other.root() && self.truncated == other.truncated && self.segments().eq(other.segments())
    }
}

impl Eq for Location {}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.root)?;
        if self.truncated {
            f.write_str(".…")?;
        }
        for (name, index) in self.segments() {
            // A segment that qualifies the one before it (`metadata[2](TFLITE_METADATA)`, the
            // entry's name) follows it without a dot.
            match name {
                PathName::Name(qualifier) if qualifier.starts_with('(') => f.write_str(qualifier)?,
                _ => write!(f, ".{name}")?,
            }
            if let Some(i) = index {
                write!(f, "[{i}]")?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

/// An error: its kind, the byte offset it was found at, and the schema location.
///
/// `Copy` and allocation-free, so it can be returned from `no_std` code without a heap.
#[derive(Clone, Copy, PartialEq, Eq, Debug, thiserror::Error)]
#[error("{kind} at byte {offset} ({location})")]
pub struct Error {
    kind: ErrorKind,
    offset: u64,
    location: Location,
}

impl Error {
    /// An error of `kind` at byte `offset`, located at `location`.
    #[cold]
    pub const fn new(kind: ErrorKind, offset: u64, location: Location) -> Self {
        Error { kind, offset, location }
    }

    /// An error about a named field of a container header, such as `VH00.flatbuffer_size`.
    #[cold]
    pub const fn header(kind: ErrorKind, offset: u64, field: &'static &'static str) -> Self {
        Error::new(kind, offset, Location::at(field))
    }

    /// What went wrong.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The byte offset, from the start of the input given to the reader, where it went wrong.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Where in the schema it went wrong.
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// The same error with its offset moved by `base` (for data found inside a larger file).
    pub fn shifted(mut self, base: u64) -> Self {
        self.shift(base);
        self
    }

    /// Moves the offset by `base` in place (no copy of the whole error, which would cost a
    /// `memcpy` in small firmware).
    pub(crate) fn shift(&mut self, base: u64) {
        self.offset = self.offset.saturating_add(base);
    }

    pub(crate) fn location_mut(&mut self) -> &mut Location {
        &mut self.location
    }

    /// Makes this a copy of `other`, part by part: a whole copy is a `memcpy` call, which
    /// small firmware need not otherwise link.
    #[inline(always)]
    pub(crate) fn copy_from(&mut self, other: &Error) {
        (self.kind, self.offset) = (other.kind, other.offset);
        let (to, from) = (&mut self.location, &other.location);
        (to.root, to.names, to.fields) = (from.root, from.names, from.fields);
        (to.schemas, to.indices, to.len, to.truncated) = (from.schemas, from.indices, from.len, from.truncated);
    }

    /// Makes this `Error::new(kind, offset, Location::at(root))` in place (no copy of the
    /// whole error, which would cost a `memcpy` in small firmware).
    pub(crate) fn reset(&mut self, kind: ErrorKind, offset: u64, root: &'static &'static str) {
        (self.kind, self.offset) = (kind, offset);
        self.location.reset(root);
    }
}

/// The crate's result type.
pub type Result<T, E = Error> = core::result::Result<T, E>;

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::unwrap_used, clippy::arithmetic_side_effects)] // in tests a panic is a failure
mod tests {
    use super::*;
    extern crate std;
    use std::string::ToString;

    static ROOT: &str = "Model";
    static NAMES: [&str; 8] = ["s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7"];
    static FIELDS: FieldNames = FieldNames { text: "alpha beta ", ids: &[0, 1] };

    #[test]
    fn paths_print_outermost_first_with_indices() {
        let mut l = Location::at(&ROOT);
        l.push_outer(&NAMES[0], None);
        l.push_field(&FIELDS, 1, Some(12));
        l.push_outer(&NAMES[2], Some(0));
        l.push_field(&FieldNames::NONE, 7, None);
        assert_eq!(l.to_string(), "Model.#7.s2[0].beta[12].s0");
        assert!(!l.is_truncated());
    }

    #[test]
    fn deep_paths_keep_the_innermost_segments() {
        let mut l = Location::at(&ROOT);
        for name in &NAMES {
            l.push_outer(name, None);
        }
        assert!(l.is_truncated());
        assert_eq!(l.segments().count(), MAX_PATH);
        assert_eq!(l.to_string(), "Model.….s5.s4.s3.s2.s1.s0");
    }

    #[test]
    fn numbered_kinds_round_trip() {
        for n in 0..13u8 {
            let kind = ErrorKind::numbered(n);
            assert_eq!(kind.number(), Some(n), "{kind:?}");
        }
        assert_eq!(ErrorKind::numbered(12), ErrorKind::ApparentSizeLimit);
        assert_eq!(ErrorKind::Rule("r").number(), None);
        assert_eq!(ErrorKind::BadHeader.number(), None);
    }

    #[test]
    fn errors_show_kind_offset_and_location() {
        let e = Error::new(ErrorKind::InvalidUtf8, 1234, Location::at(&ROOT));
        assert_eq!(e.to_string(), "string is not valid UTF-8 at byte 1234 (Model)");
        assert_eq!(e.shifted(10).offset(), 1244);
        assert_eq!(e.shifted(u64::MAX).offset(), u64::MAX);
    }
}
