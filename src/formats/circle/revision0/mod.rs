//! Circle revision 0 (`schema.fbs` here is ONE's first schema, TFLite 1.13.1 plus
//! `SubGraph.data_format`), for reading a revision-0 file by the names and types its writer
//! used: slot 0 of `OperatorCode` as `builtin_code`, `data_format` as a field, and no union
//! member at type 80 (`docs/circle.md` §2.2: writers of January 2020 put InstanceNormOptions
//! there, where later revisions have UniqueOptions).
//!
//! [`super::Model`] reads every revision; this schema only serves the names of the dump of a
//! file whose content shows revision 0 ([`super::Model::revision`]).

mod generated;

pub use generated::*;

use crate::container::verified_root;
use crate::verify::Options;

impl<'a> Model<'a> {
    /// Verifies the structure of `bytes` as a Circle file read with revision 0's schema (the
    /// model rules are [`super::Model::parse`]'s, over the same bytes).
    pub fn parse_structure(bytes: &'a [u8]) -> Result<Self, crate::Error> {
        Self::parse_structure_with(bytes, &Options::DEFAULT)
    }

    /// [`Model::parse_structure`] with explicit limits.
    pub fn parse_structure_with(bytes: &'a [u8], options: &Options) -> Result<Self, crate::Error> {
        verified_root(bytes, Some(super::IDENTIFIER), options, 0).map(|(model, _)| model)
    }
}
