//! A full traversal of verified data through the typed accessors, for fuzzing and benchmarks.
//!
//! A walk visits the logical tree: a table that many offsets share is walked once per offset,
//! so its cost is the logical (expanded) size, which shared subtrees can make far larger than
//! the buffer (verification, which remembers shared objects, stays linear). A [`Walker`] made
//! by [`Walker::with_budget`], or [`walk_bounded`], stops descending once its budget is spent.

use crate::error::{Error, ErrorKind, Location};
use crate::verify::{Options, VerifyTable};
use crate::wire::to_u64;

/// Visits every field of a view and everything it reaches, through the typed accessors.
pub trait Walk {
    /// Walks `self` into `w`. The work is linear in the logical size of what `self` reaches
    /// (every path through shared offsets counted), unless `w`'s budget stops it: then it is
    /// at most a constant times the budget plus, for each open vector of offsets on the path to
    /// where it stopped, one skipped step per remaining element.
    fn walk(&self, w: &mut Walker);
}

/// Walks `root`, the root table of a verified buffer of `len` bytes, spending at most the
/// apparent-size budget `options` give such a buffer ([`Options::apparent_size_budget`]): one
/// unit per table and per vector of offsets, plus one per element of such a vector.
///
/// The walk is never more than the verification of the same bytes charged, except through
/// shared subtrees (which the verifier visits once and the walk once per path), so on a buffer
/// without them that verified with `options` this always completes. Otherwise it is an
/// [`ErrorKind::ApparentSizeLimit`] error at the table where the budget ran out.
pub fn walk_bounded<T: Walk + VerifyTable>(root: &T, len: usize, options: &Options) -> Result<Walker, Error> {
    let mut w = Walker::with_budget(options.apparent_size_budget(len));
    root.walk(&mut w);
    match w.stopped_at {
        None => Ok(w),
        Some(at) => Err(Error::new(ErrorKind::ApparentSizeLimit, to_u64(at), Location::at(T::NAME))),
    }
}

/// Counts what a walk touched and folds every value read into a checksum (so no read can be
/// optimised away); with a budget, stops the walk from descending once it is spent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Walker {
    /// Tables visited.
    pub tables: u64,
    /// Vectors visited (scalar, struct and offset vectors).
    pub vectors: u64,
    /// Strings read.
    pub strings: u64,
    /// A fold of every value read.
    pub checksum: u64,
    /// Work units left: tables and vectors of offsets entered, and their elements.
    left: u64,
    /// The position of the table where the budget ran out, if it did.
    stopped_at: Option<usize>,
}

impl Default for Walker {
    /// A walker without a budget: the walk visits the whole logical tree.
    fn default() -> Self {
        Walker::with_budget(u64::MAX)
    }
}

/// A scalar's bits, for the checksum.
pub trait Bits: Copy {
    /// The value's bits widened to 64.
    fn bits(self) -> u64;
}

macro_rules! bits {
    ($($t:ty => |$v:ident| $e:expr),* $(,)?) => {$(
        impl Bits for $t {
            #[inline(always)]
            fn bits(self) -> u64 {
                let $v = self;
                $e
            }
        }
    )*};
}

bits! {
    bool => |v| u64::from(v), u8 => |v| u64::from(v), i8 => |v| u64::from(v.to_le_bytes()[0]),
    u16 => |v| u64::from(v), i16 => |v| u64::from(u16::from_le_bytes(v.to_le_bytes())),
    u32 => |v| u64::from(v), i32 => |v| u64::from(u32::from_le_bytes(v.to_le_bytes())),
    u64 => |v| v, i64 => |v| u64::from_le_bytes(v.to_le_bytes()),
    f32 => |v| u64::from(v.to_bits()), f64 => |v| v.to_bits(),
}

impl Walker {
    /// A walker that enters tables and vectors of offsets only while it has work units left:
    /// one per table, one per vector of offsets plus one per element.
    pub fn with_budget(units: u64) -> Self {
        Walker { tables: 0, vectors: 0, strings: 0, checksum: 0, left: units, stopped_at: None }
    }

    /// Whether the budget ran out, so the walk skipped part of the tree.
    pub fn is_exhausted(&self) -> bool {
        self.stopped_at.is_some()
    }

    /// The position of the table where the budget ran out (the table refused, or the one whose
    /// vector of offsets was), if it did.
    pub fn stopped_at(&self) -> Option<usize> {
        self.stopped_at
    }

    #[inline(always)]
    fn mix(&mut self, bits: u64) {
        self.checksum = self.checksum.rotate_left(5) ^ bits;
    }

    /// Spends `units`; `false` (recording `pos`) when fewer are left.
    #[inline(always)]
    fn spend(&mut self, units: u64, pos: usize) -> bool {
        match self.left.checked_sub(units) {
            Some(left) => {
                self.left = left;
                true
            }
            None => self.stop(pos),
        }
    }

    #[cold]
    #[inline(never)]
    fn stop(&mut self, pos: usize) -> bool {
        self.left = 0;
        self.stopped_at.get_or_insert(pos);
        false
    }

    /// Asks to enter the table at `pos`: `true` (and counted) when the budget allows.
    #[inline(always)]
    pub fn enter_table(&mut self, pos: usize) -> bool {
        if !self.spend(1, pos) {
            return false;
        }
        self.tables = self.tables.wrapping_add(1);
        true
    }

    /// A scalar was read.
    #[inline(always)]
    pub fn scalar<T: Bits>(&mut self, value: T) {
        self.mix(value.bits());
    }

    /// A string was read.
    #[inline(always)]
    pub fn string(&mut self, s: &str) {
        self.strings = self.strings.wrapping_add(1);
        self.mix(to_u64(s.len()) ^ u64::from(s.bytes().next().unwrap_or(0)));
    }

    /// A scalar or struct vector of `len` elements was read, starting with `first`.
    #[inline(always)]
    pub fn vector<T: Bits>(&mut self, len: usize, first: Option<T>) {
        self.vectors = self.vectors.wrapping_add(1);
        self.mix(to_u64(len) ^ first.map_or(0, Bits::bits));
    }

    /// Asks to enter a vector of `len` offsets in the table at `pos`: `true` (and counted)
    /// when the budget allows it and its elements.
    #[inline(always)]
    pub fn enter_offsets(&mut self, len: usize, pos: usize) -> bool {
        if !self.spend(to_u64(len).saturating_add(1), pos) {
            return false;
        }
        self.vectors = self.vectors.wrapping_add(1);
        self.mix(to_u64(len));
        true
    }

    /// A struct's bytes were read.
    #[inline(always)]
    pub fn bytes(&mut self, bytes: &[u8]) {
        self.mix(to_u64(bytes.len()) ^ u64::from(bytes.first().copied().unwrap_or(0)));
    }

    /// Tables, vectors and strings visited.
    pub fn objects(&self) -> u64 {
        self.tables.wrapping_add(self.vectors).wrapping_add(self.strings)
    }
}
