//! The lists the model's rules and the section index walk, read as raw tables by slot: one
//! reader for every list, below both `rules.rs` and `names.rs`.

use crate::wire::{FromTable, Seal, Table, TableVector};

/// The elements of table vector field `slot` of `table`, as raw tables (see [`element`]). The
/// lists the rules walk are read through this by slot (`Model::SECTIONS_SLOT`), one lookup for
/// all of them, rather than through each list's own accessor, which small firmware inlines once
/// per list.
#[inline(never)]
pub(super) fn tables<'a>(table: &Table<'a>, slot: u16) -> Option<TableVector<'a, Table<'a>>> {
    table.table_vector(slot)
}

/// Element `i` of a list [`tables`] read, as the view type its field holds (and the verifier
/// checked it as).
#[inline(never)]
pub(super) fn element<'a, T: FromTable<'a>>(list: &Option<TableVector<'a, Table<'a>>>, i: usize) -> Option<T> {
    list.as_ref()?.get(i).map(|t| T::from_table(t, Seal))
}
