//! Errors written in place. A check takes the one [`Error`] it may fail with as `&mut Error`,
//! writes it there when it fails and returns the zero-sized [`Fail`], so `?` on the way out
//! moves no error: on small targets each move of an [`Error`] is a `memcpy` call. The error is
//! copied out once, by the public function that started the check ([`in_place`]).

use super::budget::Budget;
use super::path::{fail_at, Segment};
use crate::error::{Error, ErrorKind, Location};
use crate::verify::{Fail, Name, Options};

/// What a check returns: a value, or [`Fail`] with its error written in place.
pub(crate) type Checked<T = ()> = Result<T, Fail>;

/// Runs `check` with an error to fail with, for the public functions over checks written in
/// place; `root` only fills the error until a failure writes it.
#[inline(always)]
pub(crate) fn in_place<T>(root: Name, check: impl FnOnce(&mut Error) -> Checked<T>) -> Result<T, Error> {
    // Every `Fail` overwrites this first.
    let mut error = Error::new(ErrorKind::ApparentSizeLimit, 0, Location::at(root));
    check(&mut error).map_err(|Fail| error)
}

/// One walk over a file's rules: its work budget, the error it fails with, and where its rule
/// errors are located.
pub(crate) struct Walk<'e> {
    budget: Budget,
    /// The byte offset of rule errors (the root table's).
    at: u64,
    error: &'e mut Error,
}

impl<'e> Walk<'e> {
    /// A walk over a file of `len` bytes with the work budget `options` give it, failing with
    /// `error`; its errors are located at `root`, rule errors at byte `at`.
    pub(crate) fn new(options: &Options, len: usize, (root, at): (Name, u64), error: &'e mut Error) -> Self {
        Walk { budget: Budget::new(options, len, root), at, error }
    }

    /// The error the walk fails with.
    pub(crate) fn error(&mut self) -> &mut Error {
        self.error
    }

    /// Charges `units` of work, failing with [`ErrorKind::ApparentSizeLimit`] at byte 0 of the
    /// root when fewer are left.
    pub(crate) fn charge(&mut self, units: u64) -> Checked {
        if self.budget.take(units) {
            Ok(())
        } else {
            Err(self.spent())
        }
    }

    #[cold]
    #[inline(never)]
    fn spent(&mut self) -> Fail {
        self.error.reset(ErrorKind::ApparentSizeLimit, 0, self.budget.root());
        Fail
    }

    /// Fails with a rule error of `kind`, located at `root.<outer>.<inner>` (each list
    /// outermost first).
    pub(crate) fn fail(&mut self, kind: ErrorKind, outer: &[Segment], inner: &[Segment]) -> Fail {
        fail_at(self.error, kind, self.at, self.budget.root(), outer, inner)
    }
}
