//! The rules' work counter: every check charges the verifier's apparent-size budget, so that
//! offsets shared many times (a routine list referenced by every program, one section table
//! listed many times) cannot make the checks superlinear in the file.

use crate::error::{Error, ErrorKind, Location, Result};

static MODEL: &str = "Model";

/// The work left of a budget.
pub(super) struct Work {
    left: u64,
}

impl Work {
    /// A budget of `units`.
    pub(super) fn new(units: u64) -> Self {
        Work { left: units }
    }

    /// Charges `units`, or fails with [`ErrorKind::ApparentSizeLimit`] when the budget is spent.
    pub(super) fn spend(&mut self, units: u64) -> Result<()> {
        match self.left.checked_sub(units) {
            Some(left) => {
                self.left = left;
                Ok(())
            }
            None => Err(Error::new(ErrorKind::ApparentSizeLimit, 0, Location::at(&MODEL))),
        }
    }
}
