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
    match verified_table::<T>(&mut v, identifier) {
        Ok(table) => Ok((T::from_table(table, Seal), v.stats())),
        Err(Fail) => {
            let mut error = v.last_error();
            error.location_mut().set_root(T::NAME);
            error.shift(base);
            Err(error)
        }
    }
}

/// The root view of `bytes` that this crate verified before as a `T` (by [`verified_root`]),
/// built again without verifying them twice: for a caller that keeps the bytes, not the view
/// (a package's model files). The reads stay checked, so bytes that changed since give `None`
/// or a view of other valid-looking data, never undefined behaviour.
#[cfg(feature = "nnpackage")]
pub(crate) fn reread_root<'a, T: FromTable<'a>>(bytes: &'a [u8]) -> Option<T> {
    let root = crate::wire::read_u32(bytes, 0)?;
    Table::verified(bytes, usize::try_from(root).ok()?).map(|table| T::from_table(table, Seal))
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
    match verified_table::<T>(&mut v, identifier) {
        Ok(table) => Ok((T::from_table(table, Seal), v.stats())),
        Err(Fail) => {
            error.copy_from(&v.last_error());
            error.location_mut().set_root(T::NAME);
            error.shift(base);
            Err(Fail)
        }
    }
}

/// The root table of `v`'s buffer, verified as a `T`: through [`root_table`], with the union
/// checks only where `T`'s schema has unions.
#[inline(always)]
fn verified_table<'a, T: VerifyTable>(v: &mut Verifier<'a>, identifier: Option<Identifier>) -> Result<Table<'a>, Fail> {
    match T::SCHEMA_HAS_UNIONS {
        true => root_table::<true>(v, identifier, T::schema(), T::ID, T::NAME),
        false => root_table::<false>(v, identifier, T::schema(), T::ID, T::NAME),
    }
}

/// [`verified_root`] for the root table type `id` of `schema`, named `name`: the one copy of
/// the sequence whatever the root type (a file with a nested schema has two), or two where
/// some schemas have unions and some have not (`UNIONS`: whether to check them). A failure
/// leaves its error in `v`, located at `name` or, for a root table the verifier passed but
/// that cannot be read back, at its caller's root.
fn root_table<'a, const UNIONS: bool>(
    v: &mut Verifier<'a>,
    identifier: Option<Identifier>,
    schema: &'static SchemaLayout<'static>,
    id: u16,
    name: Name,
) -> Result<Table<'a>, Fail> {
    let root = v.verify_root_as::<UNIONS>(schema, id, name, identifier).map_err(|_| Fail)?;
    match Table::verified(v.buffer(), root) {
        Some(table) => Ok(table),
        None => Err(v.fail(ErrorKind::Truncated, 0)),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)] // in tests a panic is a failure
mod tests {
    use crate::cvimodel::{CviModel, Model};
    use crate::verify::{Options, Verifier, VerifyTable};
    extern crate std;

    /// The union checks are left out only for schemas without unions, and leaving them out
    /// changes no verdict there: cvimodel's body and a few thousand mutants of it verify to the
    /// same result, error and location included, both ways.
    #[test]
    fn schemas_without_unions_verify_alike_without_the_union_checks() {
        const {
            assert!(!Model::SCHEMA_HAS_UNIONS);
            assert!(crate::tflite::Model::SCHEMA_HAS_UNIONS && crate::pte::Program::SCHEMA_HAS_UNIONS);
            assert!(crate::schema::sample::Node::SCHEMA_HAS_UNIONS);
        }
        static FILE: &[u8] = include_bytes!("../../testdata/cvimodel/tpumlir_tinycnn_int8_cv181x.cvimodel");
        let body = CviModel::parse(FILE).unwrap().body();
        let options = Options::default();
        let verify = |bytes: &[u8], unions: bool| {
            let mut v = Verifier::new(bytes, &options);
            match unions {
                true => v.verify_root_as::<true>(Model::schema(), Model::ID, Model::NAME, None),
                false => v.verify_root_as::<false>(Model::schema(), Model::ID, Model::NAME, None),
            }
        };
        assert!(verify(body, false).is_ok());
        let (mut mutant, mut rejected) = (body.to_vec(), 0);
        for i in 0..body.len() {
            for value in [0, 0xff, body[i] ^ 0x04] {
                mutant[i] = value;
                let without = verify(&mutant, false);
                assert_eq!(verify(&mutant, true), without, "byte {i} set to {value:#x}");
                rejected += usize::from(without.is_err());
            }
            mutant[i] = body[i];
        }
        assert!(rejected > 500, "only {rejected} mutants rejected: the mutation misses the verifier");
    }
}
