//! The work budget of a walk over a file: the apparent-size budget of [`Options`], charged by
//! checks that may revisit shared data, so that their work stays linear in the file.

use crate::error::{Error, ErrorKind, Location};
use crate::verify::{Fail, Name, Options};

/// Work units left, and the root a spent budget's error is located at.
pub(crate) struct Budget {
    left: u64,
    root: Name,
}

impl Budget {
    /// The budget `options` give an input of `len` bytes; its error is located at `root`.
    pub(crate) fn new(options: &Options, len: usize, root: Name) -> Self {
        Budget { left: options.apparent_size_budget(len), root }
    }

    /// Charges `units`, or fails with [`ErrorKind::ApparentSizeLimit`] at byte `at` (leaving
    /// the budget as it was) when fewer are left.
    pub(crate) fn charge(&mut self, units: u64, at: u64) -> Result<(), Error> {
        match self.left.checked_sub(units) {
            Some(left) => {
                self.left = left;
                Ok(())
            }
            None => Err(self.spent(at)),
        }
    }

    /// [`Budget::charge`] with its error written into `error` in place (see
    /// [`super::slot`]).
    pub(crate) fn charge_into(&mut self, units: u64, at: u64, error: &mut Error) -> Result<(), Fail> {
        match self.left.checked_sub(units) {
            Some(left) => {
                self.left = left;
                Ok(())
            }
            None => Err(self.spent_into(at, error)),
        }
    }

    /// Writes the error of a spent budget into `error`.
    #[cold]
    #[inline(never)]
    fn spent_into(&self, at: u64, error: &mut Error) -> Fail {
        error.reset(ErrorKind::ApparentSizeLimit, at, self.root);
        Fail
    }

    /// The error of a spent budget.
    #[cold]
    fn spent(&self, at: u64) -> Error {
        Error::new(ErrorKind::ApparentSizeLimit, at, Location::at(self.root))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // in tests a panic is a failure
mod tests {
    use super::*;

    static ROOT: &str = "Model";

    #[test]
    fn a_spent_budget_fails_at_its_root_and_keeps_what_was_left() {
        let options = Options { apparent_size_per_byte: 0, ..Options::DEFAULT };
        let mut b = Budget::new(&options, 100, &ROOT);
        b.charge(Options::APPARENT_SIZE_SLACK - 1, 0).unwrap();
        let e = b.charge(2, 7).unwrap_err();
        assert_eq!((e.kind(), e.offset()), (ErrorKind::ApparentSizeLimit, 7));
        assert_eq!(*e.location(), Location::at(&ROOT));
        b.charge(1, 0).unwrap();
        assert!(b.charge(1, 0).is_err());
    }
}
