//! The parsing entry points every format offers, written once. A format says how to verify its
//! structure and how to check its rules ([`Container`]); [`entry_points!`] then gives its type
//! `parse`, `parse_with`, `parse_structure` and `parse_structure_with`, with the same docs and
//! the one result type [`Parsed`].
//!
//! The entry points are inherent methods made by a macro rather than methods of a public
//! trait, so that `tflite::Model::parse(bytes)` needs no `use` of a trait and the docs show them
//! on each type; the trait stays inside the crate.

use super::walk::Checked;
use crate::error::Error;
use crate::verify::{Fail, Options, Stats};

/// A parsed file (or root view) together with what the structural verification counted: what
/// every format's `parse_with` and `parse_structure_with` return.
#[derive(Clone, Copy, Debug)]
pub struct Parsed<T> {
    /// What was parsed: `tflite::Model`, `circle::Model`, `pte::PteFile`, `vkgraph::Blob` or
    /// `cvimodel::CviModel`.
    pub value: T,
    /// What the structural verification visited.
    pub stats: Stats,
}

/// What a format supplies to get the entry points.
pub(crate) trait Container<'a>: Sized {
    /// Reads the header (if the format has one) and verifies the flatbuffer's structure.
    fn structure(bytes: &'a [u8], options: &Options) -> Result<(Self, Stats), Error>;

    /// Checks the format's rules over a file whose structure is verified.
    fn rules(&self, options: &Options) -> Result<(), Error>;

    /// [`Container::structure`], writing a failure into `error` in place. A format whose
    /// errors can be built in the caller's slot overrides it (see [`parse_into`]).
    #[inline(always)]
    fn structure_into(bytes: &'a [u8], options: &Options, error: &mut Error) -> Checked<(Self, Stats)> {
        Self::structure(bytes, options).map_err(|e| {
            error.copy_from(&e);
            Fail
        })
    }

    /// [`Container::rules`], writing a failure into `error` in place.
    #[inline(always)]
    fn rules_into(&self, options: &Options, error: &mut Error) -> Checked {
        self.rules(options).map_err(|e| {
            error.copy_from(&e);
            Fail
        })
    }
}

/// The structure of `bytes` as a `T`, then its rules, with the verifier's counts.
pub(crate) fn parse_with<'a, T: Container<'a>>(bytes: &'a [u8], options: &Options) -> Result<Parsed<T>, Error> {
    let (value, stats) = T::structure(bytes, options)?;
    value.rules(options)?;
    Ok(Parsed { value, stats })
}

/// [`parse_with`], writing a failure's error into `error` rather than returning it: an `Error`
/// returned through a few calls is copied at each (a `memcpy` on small targets), where one
/// written in place is built once. `error` is left as it was when the bytes are valid.
#[inline(always)]
pub(crate) fn parse_into<'a, T: Container<'a>>(
    bytes: &'a [u8],
    options: &Options,
    error: &mut Error,
) -> Option<Parsed<T>> {
    let (value, stats) = T::structure_into(bytes, options, error).ok()?;
    value.rules_into(options, error).ok()?;
    Some(Parsed { value, stats })
}

/// `parse`, `parse_with`, `parse_structure` and `parse_structure_with` for `$ty<'a>`, which
/// implements [`Container`]. `$what` names a file of the format ("a TFLite file"), `$rules`
/// says what its rules check. The methods call the format's `structure` directly rather than
/// one another, so that no extra layer moves the large `Result` (on a Cortex-M4 the layer
/// costs hundreds of bytes of flash).
macro_rules! entry_points {
    ($ty:ident, $what:literal, $rules:literal) => {
        impl<'a> $ty<'a> {
            #[doc = concat!("Verifies `bytes` as ", $what, ": its structure, then its rules (", $rules, ").")]
            ///
            /// `bytes` are the whole file; error offsets count from its start.
            pub fn parse(bytes: &'a [u8]) -> Result<Self, $crate::Error> {
                Self::parse_with(bytes, &$crate::verify::Options::DEFAULT).map(|p| p.value)
            }

            #[doc = concat!("[`", stringify!($ty), "::parse`] with explicit limits, also returning the verifier's counts.")]
            pub fn parse_with(
                bytes: &'a [u8],
                options: &$crate::verify::Options,
            ) -> Result<$crate::Parsed<Self>, $crate::Error> {
                $crate::container::parse_with(bytes, options)
            }

            #[doc = concat!("[`", stringify!($ty), "::parse_with`], writing a failure's error into `error` (and returning `None`)")]
            /// rather than returning it; `error` is left as it was when the bytes are valid.
            ///
            /// For callers that keep the error in memory of their own, such as the C ABI's
            /// report: an `Error` returned through a few calls is copied at each, which on a
            /// microcontroller links `memcpy`; one written in place is built once.
            pub fn parse_into(
                bytes: &'a [u8],
                options: &$crate::verify::Options,
                error: &mut $crate::Error,
            ) -> Option<$crate::Parsed<Self>> {
                $crate::container::parse_into(bytes, options, error)
            }

            #[doc = concat!("Verifies only the structure of `bytes` as ", $what, ": its header, if the format has")]
            /// one, and every offset, length, string and union of its flatbuffer that the views
            /// can read; not its rules. For tools that show broken files.
            pub fn parse_structure(bytes: &'a [u8]) -> Result<Self, $crate::Error> {
                <Self as $crate::container::Container>::structure(bytes, &$crate::verify::Options::DEFAULT).map(|(v, _)| v)
            }

            #[doc = concat!("Checks the rules (", $rules, ") of a file [`", stringify!($ty), "::parse_structure`] accepted:")]
            /// with it, the same verdict as `parse`, without verifying the structure twice.
            pub fn check_rules(&self, options: &$crate::verify::Options) -> Result<(), $crate::Error> {
                <Self as $crate::container::Container>::rules(self, options)
            }

            #[doc = concat!("[`", stringify!($ty), "::parse_structure`] with explicit limits, also returning the verifier's counts.")]
            pub fn parse_structure_with(
                bytes: &'a [u8],
                options: &$crate::verify::Options,
            ) -> Result<$crate::Parsed<Self>, $crate::Error> {
                <Self as $crate::container::Container>::structure(bytes, options)
                    .map(|(value, stats)| $crate::Parsed { value, stats })
            }
        }
    };
}

pub(crate) use entry_points;
