//! Index rules: every element of a vector of ids names an element of a list of `n`.

use super::walk::{Checked, Walk};
use crate::error::ErrorKind;
use crate::verify::Name;
use crate::wire::{Scalar, Vector};

/// Checks that every id of `ids` (absent: none) is an index into a list of `n` elements,
/// charging `walk` one unit per id. The first that is not (negative or `n` or more) is an
/// [`ErrorKind::IndexOutOfRange`] rule error located at `root.<walk's path>.<field>[i]`.
pub(crate) fn check_ids<T: Scalar>(walk: &mut Walk<'_>, ids: Option<Vector<'_, T>>, n: usize, field: Name) -> Checked
where
    usize: TryFrom<T>,
{
    let ids = ids.unwrap_or_default();
    walk.charge(ids.len())?;
    match ids.iter().position(|id| !in_range(id, n)) {
        Some(i) => Err(walk.fail(ErrorKind::IndexOutOfRange, &[(field, Some(i))])),
        None => Ok(()),
    }
}

/// Whether `id` (of any integer type) is an index into a list of `n` elements.
pub(crate) fn in_range<T>(id: T, n: usize) -> bool
where
    usize: TryFrom<T>,
{
    usize::try_from(id).is_ok_and(|i| i < n)
}
