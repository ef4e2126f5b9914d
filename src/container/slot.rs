//! Errors built in place: checks that thread one error slot through their work write the
//! error where it will be returned and fail with the zero-sized [`Fail`], as the verifier does,
//! so that no [`Error`] is ever moved (on a Cortex-M4 each move of one is a `memcpy`).

use super::path::Segment;
use crate::error::{Error, ErrorKind, Location};
use crate::verify::{Fail, Name};

/// Makes `error` the [`super::path_error`] of the same arguments, in place, and returns the failure
/// marker: code that threads one error slot through its checks never copies an [`Error`]
/// (on a Cortex-M4 each copy of one is a `memcpy`).
#[cold]
#[inline(never)]
pub(crate) fn locate(error: &mut Error, kind: ErrorKind, offset: u64, root: Name, path: &[Segment]) -> Fail {
    error.reset(kind, offset, root);
    for &(name, index) in path.iter().rev() {
        error.location_mut().push_outer(name, index.and_then(|i| u32::try_from(i).ok()));
    }
    Fail
}

/// Runs `check` with an error slot located at `root`, and returns what it found with the
/// error it wrote: the public face of code written with [`locate`].
pub(crate) fn with_error_slot<T>(root: Name, check: impl FnOnce(&mut Error) -> Result<T, Fail>) -> Result<T, Error> {
    let mut error = Error::new(ErrorKind::NotFound, 0, Location::at(root));
    check(&mut error).map_err(|Fail| error)
}
