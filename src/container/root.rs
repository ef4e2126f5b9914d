//! The verified root: verify a flatbuffer's root table, then build the typed view over it.

use super::walk::Checked;
use crate::error::{Error, ErrorKind};
use crate::verify::{Fail, Name, Options, SchemaLayout, Stats, Verifier, VerifyTable};
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
    // The verifier lives here and keeps its error until it is returned: an error moved through
    // a call is a `memcpy` on small targets.
    let mut v = Verifier::new(bytes, options);
    match verified_table(&mut v, identifier, T::schema(), T::ID, T::NAME) {
        Ok(table) => Ok((T::from_table(table, Seal), v.stats())),
        Err(Fail) => {
            let mut error = v.last_error();
            error.location_mut().set_root(T::NAME);
            error.shift(base);
            Err(error)
        }
    }
}

/// [`verified_root`], failing with its error written into `error`.
#[inline(always)]
pub(crate) fn verified_root_in<'a, T: VerifyTable + FromTable<'a>>(
    bytes: &'a [u8],
    identifier: Option<Identifier>,
    options: &Options,
    base: u64,
    error: &mut Error,
) -> Checked<(T, Stats)> {
    // The same steps as `verified_root`, copying the verifier's error straight into `error`
    // (through a `Result` it could be moved whole, with a `memcpy`).
    let mut v = Verifier::new(bytes, options);
    match verified_table(&mut v, identifier, T::schema(), T::ID, T::NAME) {
        Ok(table) => Ok((T::from_table(table, Seal), v.stats())),
        Err(Fail) => {
            error.copy_from(&v.last_error());
            error.location_mut().set_root(T::NAME);
            error.shift(base);
            Err(Fail)
        }
    }
}

/// [`verified_root`] for the root table type `id` of `schema`, named `name`: the one copy of
/// the sequence whatever the root type (a file with a nested schema has two). A failure leaves
/// its error in `v`, located at `name` or, for a root table the verifier passed but that
/// cannot be read back, at its caller's root.
fn verified_table<'a>(
    v: &mut Verifier<'a>,
    identifier: Option<Identifier>,
    schema: &'static SchemaLayout<'static>,
    id: u16,
    name: Name,
) -> Result<Table<'a>, Fail> {
    let root = v.verify_root_of(schema, id, name, identifier).map_err(|_| Fail)?;
    match Table::verified(v.buffer(), root) {
        Some(table) => Ok(table),
        None => Err(v.fail(ErrorKind::Truncated, 0)),
    }
}
