//! The work budget of a walk over a file: the apparent-size budget of [`Options`], charged by
//! checks that may revisit shared data, so that their work stays linear in the file.

use crate::error::{Error, ErrorKind, Location};
use crate::verify::{Name, Options};

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

    /// The error of a spent budget.
    #[cold]
    fn spent(&self, at: u64) -> Error {
        Error::new(ErrorKind::ApparentSizeLimit, at, Location::at(self.root))
    }
}
