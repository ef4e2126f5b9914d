//! The verifier: one pass over a buffer that checks everything the typed views will read.
//!
//! One interpreter serves every schema: it walks a table type's [`SchemaLayout`] (slots,
//! kinds, sizes, linked by index), so the code is the same few functions whatever the schema,
//! and a schema described at run time can drive it too. It never allocates and never panics.
//! Each check failure records an [`Error`] in the verifier and unwinds with the zero-sized
//! [`Fail`]; each level adds its path segment on the way out, so the hot path returns a
//! one-byte `Result` and the error still says `Model.subgraphs[0].tensors[12].name`.

// `as` is allowed here and in `wire` alone (the crate denies it): this is the verifier's hot
// path, counted in flash, and the `const fn` layout builders the schema macros run at compile
// time, where `From` cannot be called. Each cast widens, keeps the bits a hash shifted down, turns
// a field kind into its byte, or is checked by an `assert!` (a build error) just before.
#![allow(clippy::as_conversions)]

mod checks;
mod inline_cache;

#[doc(hidden)]
pub use checks::TableCheck;
pub mod layout;
mod memo;
mod options;
mod utf8;

pub use layout::{FieldKind, FieldLayout, FieldNames, SchemaLayout, SlotCheck, SlotTable, Span, StructMember};
pub use layout::{TableEntry, TableSpan};
pub use options::{Options, Stats};

use crate::error::{Error, ErrorKind, Location};
use crate::wire::{self, Identifier};
use inline_cache::InlineCache;
use memo::Memo;

/// A static name for a path segment or a root: a thin pointer to a `&'static str`.
pub type Name = &'static &'static str;

/// The unit failure the verifier unwinds with; the details are in the verifier.
#[derive(Clone, Copy, Debug)]
pub struct Fail;

/// The result of one verification step.
pub type VResult<T = ()> = core::result::Result<T, Fail>;

/// A table type of a schema with a [`SchemaLayout`] (implemented by the schema macros).
pub trait VerifyTable {
    /// The table type's name, for error paths.
    const NAME: Name;
    /// Its index among the table types of its schema.
    const ID: u16;
    /// Whether a table type of its schema has a union field: the verifier of a schema without
    /// one leaves out the union checks (flash on small targets).
    const SCHEMA_HAS_UNIONS: bool;
    /// Its fields in declaration order.
    const DECLARED: &'static [FieldLayout];
    /// Its fields: the inline ones first, then those holding offsets, each group in
    /// declaration order (the order of [`SchemaLayout::fields`]).
    const FIELDS: &'static [FieldLayout];
    /// Its fields' names, in the same order.
    const FIELD_NAMES: &'static [&'static str];
    /// The layout of the schema the table belongs to.
    fn schema() -> &'static SchemaLayout<'static>;

    /// Verifies a table of this type at `pos` (the `specialize` feature's per-table entry; by
    /// default, the interpreter).
    #[doc(hidden)]
    #[inline(always)]
    fn verify_specialized(v: &mut Verifier<'_>, pos: usize) -> VResult {
        v.interpret::<true>(Self::schema(), Self::ID, pos)
    }
}

/// A union type of a schema with a [`SchemaLayout`] (implemented by the schema macros).
pub trait VerifyUnion {
    /// Its index among the union types of its schema.
    const ID: u16;
    /// Its members: type tag and table index.
    const MEMBERS: &'static [(u8, u16)];
}

/// Verification state for one buffer.
pub struct Verifier<'b> {
    buf: &'b [u8],
    /// [`Options::check_alignment`].
    check_alignment: bool,
    /// [`Options::max_tables`], as a `usize` (on 16- and 32-bit targets a larger limit could
    /// never be reached: a table takes at least 4 bytes of the buffer).
    max_tables: usize,
    /// Table nesting levels left before the depth limit.
    depth_left: u32,
    /// Table visits left before the table limit.
    tables_left: usize,
    /// Strings, vectors and memo hits so far (native-width counters; [`Verifier::stats`]
    /// widens them).
    strings: usize,
    vectors: usize,
    memo_hits: usize,
    /// The apparent-size budget (work units) of the whole verification.
    budget: u64,
    /// Work units left: `budget` minus the apparent size so far.
    budget_left: u64,
    /// The memo is consulted once fewer work units than this are left (the work so far has
    /// passed the input length).
    memo_below: u64,
    /// Shared objects already verified; made when first consulted, so that a buffer which
    /// never needs it does not pay for clearing it.
    memo: Option<Memo>,
    /// Inline checks already done.
    inline_checked: InlineCache,
    error: Error,
    /// The element index to attach to the next path segment, set by vector loops.
    pending_index: Option<u32>,
}

static UNKNOWN: &str = "?";

/// The buffer's length and the limits left, not the buffer's bytes nor the memo.
impl core::fmt::Debug for Verifier<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Verifier")
            .field("len", &self.buf.len())
            .field("depth_left", &self.depth_left)
            .field("tables_left", &self.tables_left)
            .field("budget_left", &self.budget_left)
            .finish_non_exhaustive()
    }
}

impl<'b> Verifier<'b> {
    /// A verifier for `buf` with `opts`.
    pub fn new(buf: &'b [u8], opts: &Options) -> Self {
        let budget = opts.apparent_size_budget(buf.len());
        let max_tables = usize::try_from(opts.max_tables).unwrap_or(usize::MAX);
        Verifier {
            buf,
            check_alignment: opts.check_alignment,
            max_tables,
            depth_left: opts.max_depth,
            tables_left: max_tables,
            strings: 0,
            vectors: 0,
            memo_hits: 0,
            budget,
            budget_left: budget,
            memo_below: budget.saturating_sub(u64::try_from(buf.len()).unwrap_or(u64::MAX)),
            memo: None,
            inline_checked: InlineCache::new(),
            error: Error::new(ErrorKind::Truncated, 0, Location::at(&UNKNOWN)),
            pending_index: None,
        }
    }

    /// The buffer being verified.
    pub fn buffer(&self) -> &'b [u8] {
        self.buf
    }

    /// The error the last failed step recorded (its root is `?` until a root verification
    /// finishes it), for code that calls the step functions itself.
    pub fn last_error(&self) -> Error {
        self.error
    }

    /// What has been verified so far.
    pub fn stats(&self) -> Stats {
        let wide = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
        Stats {
            tables: wide(self.max_tables.saturating_sub(self.tables_left)),
            vectors: wide(self.vectors),
            strings: wide(self.strings),
            memo_hits: wide(self.memo_hits),
            apparent_size: self.budget.saturating_sub(self.budget_left),
        }
    }

    /// Verifies the whole buffer as a root table `T`, with `identifier` at bytes 4..8 if given.
    pub fn verify_root<T: VerifyTable>(&mut self, identifier: Option<Identifier>) -> Result<usize, Error> {
        self.verify_root_of(T::schema(), T::ID, T::NAME, identifier)
    }

    /// [`Verifier::verify_root`] for table type `id` of `schema`, named `name`: one copy of the
    /// code whatever the root type.
    pub fn verify_root_of(
        &mut self,
        schema: &SchemaLayout<'_>,
        id: u16,
        name: Name,
        identifier: Option<Identifier>,
    ) -> Result<usize, Error> {
        self.verify_root_as::<true>(schema, id, name, identifier)
    }

    /// [`Verifier::verify_root_of`], leaving out the union checks unless `UNIONS`: `false` only
    /// for a schema without union fields ([`VerifyTable::SCHEMA_HAS_UNIONS`], which the crate's
    /// own roots follow).
    pub(crate) fn verify_root_as<const UNIONS: bool>(
        &mut self,
        schema: &SchemaLayout<'_>,
        id: u16,
        name: Name,
        identifier: Option<Identifier>,
    ) -> Result<usize, Error> {
        let outcome = self.root::<UNIONS>(schema, id, identifier);
        outcome.map_err(|Fail| self.finish_error(name))
    }

    fn root<const UNIONS: bool>(
        &mut self,
        schema: &SchemaLayout<'_>,
        id: u16,
        identifier: Option<Identifier>,
    ) -> VResult<usize> {
        let min = if identifier.is_some() { 8 } else { 4 };
        if self.buf.len() < min {
            return Err(self.fail(ErrorKind::Truncated, 0));
        }
        if let Some(id) = identifier {
            if !wire::has_identifier(self.buf, id) {
                return Err(self.fail(ErrorKind::WrongIdentifier, 4));
            }
        }
        let pos = self.uoffset(0)?;
        self.table::<UNIONS>(schema, id, pos)?;
        Ok(pos)
    }

    /// Verifies `bytes`, a flatbuffer nested inside the buffer at byte `base`, as root `T`,
    /// sharing this verifier's depth, table and work budgets. Errors are offset by `base`.
    pub fn verify_nested<T: VerifyTable>(
        &mut self,
        bytes: &'b [u8],
        base: usize,
        identifier: Option<Identifier>,
    ) -> VResult<usize> {
        let outcome = self.nested(T::schema(), T::ID, bytes, base, identifier);
        if outcome.is_err() {
            let root = T::NAME;
            self.error.location_mut().push_outer(root, None);
        }
        outcome
    }

    /// [`Verifier::verify_nested`] for table type `id` of `schema`, without naming the root in
    /// the error's path (a run-time schema's nested flatbuffer field names it).
    pub(crate) fn nested(
        &mut self,
        schema: &SchemaLayout<'_>,
        id: u16,
        bytes: &'b [u8],
        base: usize,
        identifier: Option<Identifier>,
    ) -> VResult<usize> {
        let outer_buf = core::mem::replace(&mut self.buf, bytes);
        let outer_memo_below = core::mem::replace(&mut self.memo_below, 0);
        self.memo = None;
        self.inline_checked.clear();
        let outcome = match self.depth_left.checked_sub(1) {
            Some(left) => {
                self.depth_left = left;
                let outcome = self.root::<true>(schema, id, identifier);
                self.depth_left = self.depth_left.saturating_add(1);
                outcome
            }
            None => Err(self.fail(ErrorKind::DepthLimit, 0)),
        };
        self.buf = outer_buf;
        self.memo_below = outer_memo_below;
        self.memo = None;
        self.inline_checked.clear();
        if outcome.is_err() {
            self.error = self.error.shifted(u64::try_from(base).unwrap_or(u64::MAX));
        }
        outcome
    }

    /// The error recorded by the last failure, with its root name set.
    fn finish_error(&mut self, root: Name) -> Error {
        self.error.location_mut().set_root(root);
        self.error
    }

    /// Records a failure of `kind` at `offset`.
    ///
    /// Inlined so that the verifier's own kinds, constants at every call, reach the recording
    /// function as a byte (`ErrorKind::number`) rather than as an `ErrorKind` in memory.
    #[inline(always)]
    pub fn fail(&mut self, kind: ErrorKind, offset: usize) -> Fail {
        match kind.number() {
            Some(number) => self.fail_numbered(number, offset),
            None => self.fail_kind(kind, offset),
        }
    }

    /// [`Verifier::fail`] with kind number `number`.
    #[cold]
    #[inline(never)]
    fn fail_numbered(&mut self, number: u8, offset: usize) -> Fail {
        self.fail_kind(ErrorKind::numbered(number), offset)
    }

    /// [`Verifier::fail`] for any kind.
    #[cold]
    #[inline(always)]
    fn fail_kind(&mut self, kind: ErrorKind, offset: usize) -> Fail {
        let offset = u64::try_from(offset).unwrap_or(u64::MAX);
        self.error.reset(kind, offset, &UNKNOWN);
        self.pending_index = None;
        Fail
    }

    /// Adds the segment of field `index` of `schema` (its name, or its number when the layout
    /// carries no names) to the error's path.
    #[cold]
    #[inline(never)]
    fn unwind_field(&mut self, schema: &SchemaLayout<'_>, index: usize) -> Fail {
        let index = u16::try_from(index).unwrap_or(u16::MAX);
        let at = self.pending_index.take();
        self.error.location_mut().push_field(schema.names, index, at);
        Fail
    }

    /// Marks the element index of the vector whose element just failed.
    #[cold]
    #[inline(never)]
    pub(crate) fn unwind_index(&mut self, index: usize) -> Fail {
        self.pending_index = u32::try_from(index).ok();
        Fail
    }

    /// Adds `units` of work, failing past the budget. (A `usize`, as every count charged is
    /// one: a `u64` argument takes two registers on 32-bit targets.)
    #[cfg_attr(feature = "specialize", inline(always))]
    #[cfg_attr(not(feature = "specialize"), inline(never))]
    fn charge(&mut self, units: usize, at: usize) -> VResult {
        match self.budget_left.checked_sub(u64::try_from(units).unwrap_or(u64::MAX)) {
            Some(left) => {
                self.budget_left = left;
                Ok(())
            }
            None => {
                self.budget_left = 0;
                Err(self.fail(ErrorKind::ApparentSizeLimit, at))
            }
        }
    }

    /// Whether the object at `pos` with `tag` was verified before: looked up once sharing is
    /// suspected, or `always`. (One function for both, so compact builds hold one copy.)
    #[cfg_attr(feature = "specialize", inline(always))]
    #[cfg_attr(not(feature = "specialize"), inline(never))]
    fn memoized(&mut self, pos: usize, tag: u32, always: bool) -> bool {
        if !always && self.budget_left >= self.memo_below {
            return false;
        }
        self.memo_lookup(pos, tag)
    }

    /// Whether the object at `pos` with `tag` was verified before, whatever the work so far.
    #[inline]
    fn memo_lookup(&mut self, pos: usize, tag: u32) -> bool {
        let Some(key) = Memo::key(pos, tag) else {
            return false;
        };
        let hit = self.memo.get_or_insert_with(Memo::new).check_and_insert(key);
        if hit {
            self.memo_hits = self.memo_hits.saturating_add(1);
        }
        hit
    }

    /// Whether `pos` is aligned to `mask + 1`, or alignment is not checked.
    #[inline(always)]
    fn is_aligned(&self, pos: usize, mask: usize) -> bool {
        !self.check_alignment || pos & mask == 0
    }

    #[inline(always)]
    fn aligned(&mut self, pos: usize, align: usize) -> VResult {
        if self.check_alignment && pos & align.wrapping_sub(1) != 0 {
            return Err(self.fail(ErrorKind::Misaligned, pos));
        }
        Ok(())
    }

    /// Checks that `len` bytes at `pos` lie inside the buffer.
    #[inline(always)]
    fn check_range(&mut self, pos: usize, len: usize) -> VResult {
        match pos.checked_add(len) {
            Some(end) if end <= self.buf.len() => Ok(()),
            _ => Err(self.fail(ErrorKind::OutOfBounds, pos)),
        }
    }

    /// Follows the aligned uoffset at `at` to a position inside the buffer.
    #[inline(always)]
    fn uoffset(&mut self, at: usize) -> VResult<usize> {
        self.aligned(at, 4)?;
        match wire::read_uoffset(self.buf, at) {
            Some(t) if t < self.buf.len() => Ok(t),
            Some(_) => Err(self.fail(ErrorKind::OutOfBounds, at)),
            None => Err(self.fail(ErrorKind::Truncated, at)),
        }
    }
}
