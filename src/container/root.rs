//! The verified root: verify a flatbuffer's root table, then build the typed view over it.

use crate::error::{Error, ErrorKind, Location};
use crate::verify::{Options, Stats, Verifier, VerifyTable};
use crate::wire::{FromTable, Identifier, Seal, Table};

/// Verifies `bytes` as a flatbuffer whose root is a `T` (carrying `identifier`, when the format
/// has one) and returns the view of its root with what the verifier counted. `base` is where
/// `bytes` start in the input: error offsets are moved by it.
pub(crate) fn verified_root<'a, T: VerifyTable + FromTable<'a>>(
    bytes: &'a [u8],
    identifier: Option<Identifier>,
    options: &Options,
    base: u64,
) -> Result<(T, Stats), Error> {
    let mut v = Verifier::new(bytes, options);
    let root = v.verify_root::<T>(identifier).map_err(|e| e.shifted(base))?;
    let table = Table::verified(bytes, root).ok_or(Error::new(ErrorKind::Truncated, base, Location::at(T::NAME)))?;
    Ok((T::from_table(table, Seal), v.stats()))
}
