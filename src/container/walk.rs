//! One walk over a file's rules, failing in place (see [`super::slot`]): its work budget, the
//! error slot it fails with, and where it is, which is where its rule errors are located. A
//! failing rule returns the zero-sized [`Fail`], so `?` on the way out moves no error.

use super::budget::Budget;
use super::path::Segment;
use super::slot::locate;
use crate::error::{Error, ErrorKind};
use crate::verify::{Fail, Name, Options};
use crate::wire::to_u64;

/// What a check returns: a value, or [`Fail`] with its error written in place.
pub(crate) type Checked<T = ()> = Result<T, Fail>;

/// How deep a [`Walk`]'s path goes (a program's instruction arguments are four segments
/// below its root).
const MAX_DEPTH: usize = 4;

/// One walk over a file's rules: its work budget, the error it fails with, and where it is,
/// which is where its rule errors are located.
pub(crate) struct Walk<'e> {
    budget: Budget,
    /// The root its errors are located at.
    root: Name,
    /// The byte offset of rule errors (the root table's).
    at: u64,
    /// The path from the root to where the walk is, outermost first: its first `depth`
    /// segments. Kept here rather than built at each check, so that a check takes less to call.
    path: [Segment; MAX_DEPTH],
    depth: usize,
    error: &'e mut Error,
}

impl<'e> Walk<'e> {
    /// A walk over a file of `len` bytes with the work budget `options` give it, failing with
    /// `error`; its errors are located at `root`, rule errors at byte `at`.
    pub(crate) fn new(options: &Options, len: usize, (root, at): (Name, u64), error: &'e mut Error) -> Self {
        let none = (root, None);
        Walk { budget: Budget::new(options, len, root), root, at, path: [none, none, none, none], depth: 0, error }
    }

    /// The error the walk fails with.
    pub(crate) fn error(&mut self) -> &mut Error {
        self.error
    }

    /// Moves the walk to `segment`, the path's segment at `depth` (0: a field of the root),
    /// keeping the segments above it and dropping those below.
    pub(crate) fn enter(&mut self, depth: usize, segment: Segment) {
        if let Some(s) = self.path.get_mut(depth) {
            *s = segment;
            self.depth = depth.saturating_add(1);
        }
    }

    /// Charges `units` of work, failing with [`ErrorKind::ApparentSizeLimit`] at byte 0 of the
    /// root when fewer are left.
    pub(crate) fn charge(&mut self, units: usize) -> Checked {
        self.budget.charge_into(to_u64(units), 0, self.error)
    }

    /// Fails with a rule error of `kind`, located at `root.<path>.<inner>`: the walk's path,
    /// then `inner` (outermost first).
    #[cold]
    #[inline(never)]
    pub(crate) fn fail(&mut self, kind: ErrorKind, inner: &[Segment]) -> Fail {
        let fail = locate(self.error, kind, self.at, self.root, inner);
        // The walk's path lies outside `inner`: added after it, innermost first.
        for &(name, index) in self.path.get(..self.depth).unwrap_or_default().iter().rev() {
            self.error.location_mut().push_outer(name, index.and_then(|i| u32::try_from(i).ok()));
        }
        fail
    }
}
