//! Which Circle schema revision a file was written with, as far as its content tells.
//!
//! Every Circle revision stores `Model.version = 0` and the identifier `CIR0` (`docs/circle.md`
//! §2.1), so only the fields a file holds can tell revision 0 from the later ones: revision 0 wrote
//! its operator codes in slot 0 alone and could store `SubGraph.data_format`; ONE's later writers
//! write the int32 `builtin_code` (slot 3) beside any non-zero slot 0, and the later revisions add
//! fields revision 0 does not have. (A file converted from a pre-2.4 TFLite file may keep slot 0
//! alone: it then reads as revision 0's encoding, which means the same operators.)

use super::{revision0, Model};
use crate::schema::TableType;
use crate::wire::Table;

/// What a Circle file's content says of the schema revision that wrote it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Revision {
    /// Revision 0's encoding: an operator code with a builtin code in slot 0 alone, or a
    /// stored `SubGraph.data_format`, and no field that only later revisions have. (A later
    /// writer that copies a pre-2.4 TFLite file's operator codes writes the same bytes; they
    /// mean the same operators either way, by [`super::OperatorCode::builtin_operator`].)
    Zero,
    /// Revision 0.4 or later: an operator code with the int32 `builtin_code`, or a field of a
    /// model, subgraph, tensor, quantization, operator or buffer that revision 0 does not have.
    Later,
    /// Nothing revision-specific: the file reads the same with either schema's fields (a
    /// model without operators, for example); only the names a dump prints differ.
    Undetermined,
}

/// Slot 3 of `OperatorCode` in revision 0.4 and later: the int32 `builtin_code`.
const BUILTIN_CODE: u16 = 3;

/// Slot 5 of `SubGraph`: revision 0's `data_format`.
pub(super) const DATA_FORMAT: u16 = 5;

/// The evidence found so far, and how many more tables may be looked at.
struct Evidence {
    zero: bool,
    later: bool,
    /// Tables left to look at: a quarter of the file's bytes, which a file without shared
    /// tables never reaches (a table starts with a 4-byte offset), so that a file whose
    /// offsets share tables many times over is still looked at in linear time.
    left: usize,
}

impl Evidence {
    /// Takes one table visit from the allowance; false once it is spent.
    fn visit(&mut self) -> bool {
        match self.left.checked_sub(1) {
            Some(left) => {
                self.left = left;
                true
            }
            None => false,
        }
    }

    /// Notes whether `t`, a table of type `L` (revision 0.10) that revision 0 knows as `R`,
    /// holds a field revision 0 does not have.
    fn fields<R: TableType, L: TableType>(&mut self, t: Table<'_>) {
        let (old, new) = (slot_count(R::desc()), slot_count(L::desc()));
        if (old..new).any(|slot| t.has(slot)) {
            self.later = true;
        }
    }
}

/// One past the highest slot of a table type's fields.
fn slot_count(desc: &crate::schema::TableDesc) -> u16 {
    desc.fields.iter().map(|f| f.slot.saturating_add(1)).max().unwrap_or(0)
}

impl Model<'_> {
    /// The schema revision this file's content shows (see [`Revision`]): a walk over the
    /// model, its operator codes, subgraphs, tensors with their quantization, operators and
    /// buffers, linear in the file whatever it shares.
    pub fn revision(&self) -> Revision {
        let mut e = Evidence { zero: false, later: false, left: self.raw().buffer().len() / 4 };
        e.fields::<revision0::Model, Model>(self.raw());
        for code in self.operator_codes().unwrap_or_default() {
            if !e.visit() {
                break;
            }
            match code.raw().has(BUILTIN_CODE) {
                true => e.later = true,
                false => e.zero |= code.deprecated_builtin_code() != 0,
            }
        }
        for b in self.buffers().unwrap_or_default() {
            if !e.visit() {
                break;
            }
            e.fields::<revision0::Buffer, super::Buffer>(b.raw());
        }
        'subgraphs: for sg in self.subgraphs().unwrap_or_default() {
            if !e.visit() {
                break;
            }
            e.zero |= sg.raw().has(DATA_FORMAT);
            e.fields::<revision0::SubGraph, super::SubGraph>(sg.raw());
            for t in sg.tensors().unwrap_or_default() {
                if !e.visit() {
                    break 'subgraphs;
                }
                e.fields::<revision0::Tensor, super::Tensor>(t.raw());
                if let Some(q) = t.quantization() {
                    e.fields::<revision0::QuantizationParameters, super::QuantizationParameters>(q.raw());
                }
            }
            for op in sg.operators().unwrap_or_default() {
                if !e.visit() {
                    break 'subgraphs;
                }
                e.fields::<revision0::Operator, super::Operator>(op.raw());
            }
        }
        match (e.zero, e.later) {
            (_, true) => Revision::Later,
            (true, false) => Revision::Zero,
            (false, false) => Revision::Undetermined,
        }
    }
}

impl<'a> Model<'a> {
    /// The root table to dump, by the names of the schema that wrote the file
    /// ([`Model::dump_root_as`] of [`Model::revision`]).
    pub fn dump_root(&self) -> Result<crate::dump::Dumpable<'a>, crate::Error> {
        self.dump_root_as(self.revision())
    }

    /// The root table to dump by the names of `revision`'s schema: revision 0's ([`revision0`],
    /// whose layout verifies the bytes again) for [`Revision::Zero`], otherwise the latest
    /// revision's. Both read the same bytes; the names and the types of slot 0 of
    /// `OperatorCode` and of `SubGraph.data_format` differ.
    pub fn dump_root_as(&self, revision: Revision) -> Result<crate::dump::Dumpable<'a>, crate::Error> {
        match revision {
            Revision::Zero => revision0::Model::parse_structure(self.raw().buffer()).map(crate::dump::Dumpable::new),
            Revision::Later | Revision::Undetermined => Ok(crate::dump::Dumpable::new(*self)),
        }
    }
}
