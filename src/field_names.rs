//! The names of a schema's fields, as error paths print them. Errors (`error::Location`) and
//! the verifier's schema layouts (`verify::SchemaLayout::names`) both hold them, so they live
//! below both; the public path is `verify::FieldNames`.

/// The names of a schema's fields, packed: the distinct names, each followed by a space, and
/// for each field the number of its name among them (a byte a field, so a schema has at most
/// 256 distinct field names; every schema this crate reads has under 220). Finding a name
/// scans the text, which only printing an error does.
#[derive(Debug, PartialEq, Eq)]
pub struct FieldNames {
    /// The distinct names, each followed by a space.
    pub text: &'static str,
    /// The number of each field's name in `text`, by field index.
    pub ids: &'static [u8],
}

impl FieldNames {
    /// No names: paths show field numbers.
    pub const NONE: FieldNames = FieldNames { text: "", ids: &[] };

    /// The name of field `index`, if these names cover it.
    pub fn get(&self, index: usize) -> Option<&'static str> {
        let id = usize::from(*self.ids.get(index)?);
        self.text.split(' ').nth(id).filter(|name| !name.is_empty())
    }
}
