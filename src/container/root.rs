//! The verified root: verify a flatbuffer's root table, then build the typed view over it.

use crate::error::{Error, ErrorKind, Location};
use crate::verify::{Name, Options, SchemaLayout, Stats, Verifier, VerifyTable};
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
    let (table, stats) = verified_table(bytes, identifier, options, base, T::schema(), T::ID, T::NAME)?;
    Ok((T::from_table(table, Seal), stats))
}

/// [`verified_root`] for the root table type `id` of `schema`, named `name`: the one copy of
/// the sequence whatever the root type (a file with a nested schema has two).
fn verified_table<'a>(
    bytes: &'a [u8],
    identifier: Option<Identifier>,
    options: &Options,
    base: u64,
    schema: &'static SchemaLayout<'static>,
    id: u16,
    name: Name,
) -> Result<(Table<'a>, Stats), Error> {
    let mut v = Verifier::new(bytes, options);
    let root = v.verify_root_of(schema, id, name, identifier).map_err(|e| e.shifted(base))?;
    let table = Table::verified(bytes, root).ok_or(Error::new(ErrorKind::Truncated, base, Location::at(name)))?;
    Ok((table, v.stats()))
}
