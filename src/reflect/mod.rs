//! Schemas read at run time (feature `alloc`): any FlatBuffers schema, from `.fbs` text or
//! from flatc's binary schema (`.bfbs`), driving the same verifier and the same dump as the
//! compiled-in formats, with a view that reads any field by name.
//!
//! ```
//! use flatmodel::reflect::Schema;
//! use flatmodel::verify::Options;
//!
//! let schema = Schema::from_fbs_text("table T { name: string; hp: short = 100; } root_type T;").unwrap();
//! let root = schema.root().unwrap();
//! // An empty table `T`: root offset, then vtable (4 bytes, inline size 4), then the table.
//! let bytes = [12, 0, 0, 0, 0, 0, 0, 0, 4, 0, 4, 0, 4, 0, 0, 0];
//! let table = schema.verify(&bytes[..], root, &Options::default()).unwrap();
//! assert_eq!(table.get("hp").and_then(|v| v.as_i64()), Some(100));
//! assert!(table.get("name").is_none());
//! ```
//!
//! A schema is resolved once, by flatc's rules: the names, enum values, union tags, struct
//! layouts, table slots and defaults. Resolving is linear in the schema read, and refuses what
//! flatc refuses with the file, line and column ([`SchemaError`]). What it builds is the
//! verifier's layout, the dump's description and the views' field table, all from one
//! resolved model, so the three cannot disagree. Errors in verified bytes are the crate's
//! [`crate::Error`] (paths with field numbers, which [`Schema::error_text`] names).

mod bfbs;
mod canonical;
mod describe;
pub mod fbs;
mod layout;
mod model;
mod resolve;
mod view;

pub use fbs::{Loader, SchemaError};
pub use model::{
    Elem, EnumDef, FieldDef, FieldType, Inline, Member, StructDef, StructFieldDef, TableDef, Types, UnionDef,
};
pub use view::{DynIter, DynStruct, DynTable, DynUnion, DynValue, DynVector};

use crate::dump::{dump_with, DumpError};
use crate::error::{Error, PathName};
use crate::verify::{Name, Options, Stats, Verifier};
use crate::wire::Table;
use core::fmt;
use layout::OwnedLayout;

/// A schema read at run time, resolved and ready to verify buffers.
#[derive(Clone, Debug, PartialEq)]
pub struct Schema {
    types: Types,
    layout: OwnedLayout,
}

/// A table type of a [`Schema`]: what a buffer's root is verified as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TableId(u16);

/// The root name errors carry until [`Schema::error_text`] names it.
static ROOT: &str = "root";
static ROOT_NAME: Name = &ROOT;

impl Schema {
    /// Reads the schema file `path` and its includes through `load`, which gets each file's
    /// name (includes resolved against the including file's directory) and returns its text.
    pub fn from_fbs(path: &str, load: &mut Loader<'_>) -> Result<Self, SchemaError> {
        let parsed = fbs::parse_flat(path, None, load, false)?;
        Self::from_types(resolve::resolve(&parsed)?)
    }

    /// Reads a schema from `.fbs` text without includes (an `include` is an error), named
    /// `schema.fbs` in errors.
    pub fn from_fbs_text(text: &str) -> Result<Self, SchemaError> {
        let mut load = |path: &str| match path {
            "schema.fbs" => Ok(text.into()),
            other => Err(alloc::format!("cannot read {other}: includes need Schema::from_fbs")),
        };
        let parsed = fbs::parse_flat("schema.fbs", Some(text), &mut load, false)?;
        Self::from_types(resolve::resolve(&parsed)?)
    }

    /// Reads flatc's binary schema (`flatc -b --schema`: reflection's `Schema` table, `BFBS`),
    /// verifying it first.
    pub fn from_bfbs(bytes: &[u8]) -> Result<Self, SchemaError> {
        Self::from_types(bfbs::read(bytes)?)
    }

    fn from_types(types: Types) -> Result<Self, SchemaError> {
        let layout = OwnedLayout::build(&types)?;
        Ok(Schema { types, layout })
    }

    /// The `root_type`, if the schema declares one.
    pub fn root(&self) -> Option<TableId> {
        self.types.root.map(TableId)
    }

    /// The table type named `name`, with its namespace (`feat.test.Monster`) or, when that
    /// is unambiguous, without (`Monster`).
    pub fn table(&self, name: &str) -> Option<TableId> {
        let tables = &self.types.tables;
        if let Some(i) = tables.iter().position(|t| t.name == name) {
            return u16::try_from(i).ok().map(TableId);
        }
        let short = |t: &model::TableDef| t.name.rsplit('.').next() == Some(name);
        let mut matches = tables.iter().enumerate().filter(|(_, t)| short(t)).map(|(i, _)| i);
        match (matches.next(), matches.next()) {
            (Some(i), None) => u16::try_from(i).ok().map(TableId),
            _ => None,
        }
    }

    /// Every table type, in the order the schema declares them.
    pub fn tables(&self) -> impl Iterator<Item = TableId> + '_ {
        (0..self.types.tables.len()).map_while(|i| u16::try_from(i).ok()).map(TableId)
    }

    /// The name of table type `t`, with its namespace.
    pub fn table_name(&self, t: TableId) -> &str {
        self.types.tables.get(usize::from(t.0)).map_or("?", |t| t.name.as_str())
    }

    /// A deterministic text of every table, struct, enum and union and their fields, sorted by
    /// name, types named: two schemas that resolve alike give the same text (for tests).
    #[doc(hidden)]
    pub fn canonical(&self) -> alloc::string::String {
        canonical::canonical(&self.types)
    }

    /// Every table, struct, enum and union the schema declares, as FlatBuffers' rules resolved
    /// them: each field's slot, type and default, each struct's layout, enum values and union
    /// tags. Read-only; the verifier, the dump and the views are built from the same.
    ///
    /// ```
    /// use flatmodel::reflect::{FieldType, Schema};
    ///
    /// let schema = Schema::from_fbs_text("table T { a: int = 7; u: U; } union U { T } root_type T;").unwrap();
    /// let t = &schema.types().tables()[0];
    /// let slots: Vec<_> = t.fields().iter().map(|f| (f.name(), f.slot())).collect();
    /// assert_eq!(slots, [("a", 0), ("u", 2)]); // the union's type tag takes slot 1
    /// assert!(matches!(t.fields()[1].ty(), FieldType::Union(0)));
    /// assert_eq!(t.fields()[0].default().and_then(|d| d.as_i128()), Some(7));
    /// ```
    pub fn types(&self) -> &Types {
        &self.types
    }

    /// The `file_identifier`, if the schema declares one.
    pub fn file_identifier(&self) -> Option<[u8; 4]> {
        self.types.identifier
    }

    /// How many tables, structs, enums and unions the schema declares.
    pub fn counts(&self) -> [usize; 4] {
        let t = &self.types;
        [t.tables.len(), t.structs.len(), t.enums.len(), t.unions.len()]
    }

    /// Verifies `bytes` as a buffer whose root is a table of type `root`, by the same verifier
    /// as the compiled-in formats, and gives the root's view. The schema's `file_identifier`
    /// is required at bytes 4..8 when `root` is its `root_type`.
    pub fn verify<'s, 'b>(
        &'s self,
        bytes: &'b [u8],
        root: TableId,
        options: &Options,
    ) -> Result<DynTable<'s, 'b>, Error> {
        let identifier = self.types.identifier.filter(|_| self.types.root == Some(root.0));
        self.verify_with(bytes, root, identifier, options)
    }

    /// [`Schema::verify`] with the file identifier given (or not checked, `None`).
    pub fn verify_with<'s, 'b>(
        &'s self,
        bytes: &'b [u8],
        root: TableId,
        identifier: Option<[u8; 4]>,
        options: &Options,
    ) -> Result<DynTable<'s, 'b>, Error> {
        self.verify_with_stats(bytes, root, identifier, options).map(|(table, _)| table)
    }

    /// [`Schema::verify_with`], also saying what the verifier saw: tables, vectors and strings
    /// visited, and the work they took.
    pub fn verify_with_stats<'s, 'b>(
        &'s self,
        bytes: &'b [u8],
        root: TableId,
        identifier: Option<[u8; 4]>,
        options: &Options,
    ) -> Result<(DynTable<'s, 'b>, Stats), Error> {
        let mut v = Verifier::new(bytes, options);
        let pos = v.verify_root_of(&self.layout.layout(), root.0, ROOT_NAME, identifier)?;
        match Table::verified(bytes, pos) {
            Some(table) => Ok((DynTable::new(self, table, root.0), v.stats())),
            None => Err(v.last_error()),
        }
    }

    /// Writes `table` as JSON, as flatc does (`--strict-json --defaults-json`): the same dump
    /// as the compiled-in formats'.
    pub fn dump<W: fmt::Write>(
        &self,
        out: &mut W,
        table: DynTable<'_, '_>,
        options: &Options,
    ) -> Result<(), DumpError> {
        dump_with(out, &describe::Described(&self.types), table.raw(), table.type_index(), options)
    }

    /// `error`, from verifying a buffer as `root`, with its path's field numbers named:
    /// `Monster.weapons[1].name` rather than `root.#12[1].#3`.
    pub fn error_text<'e>(&'e self, error: &'e Error, root: TableId) -> impl fmt::Display + 'e {
        ErrorText { schema: self, error, root }
    }

    /// The name of the field the verifier's layout numbers `index`.
    fn field_name(&self, index: u16) -> Option<&str> {
        let &(table, field) = self.layout.origin.get(usize::from(index))?;
        let t = self.types.tables.get(usize::from(table))?;
        t.fields.get(usize::from(field)).map(|f| f.name.as_str())
    }
}

/// [`Schema::error_text`].
struct ErrorText<'e> {
    schema: &'e Schema,
    error: &'e Error,
    root: TableId,
}

impl fmt::Display for ErrorText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let location = self.error.location();
        write!(f, "{} at byte {} (", self.error.kind(), self.error.offset())?;
        let root = self.schema.table_name(self.root);
        f.write_str(root.rsplit('.').next().unwrap_or(root))?;
        if location.is_truncated() {
            f.write_str(".…")?;
        }
        for (name, index) in location.segments() {
            match name {
                PathName::Field(n) => match self.schema.field_name(n) {
                    Some(name) => write!(f, ".{name}")?,
                    None => write!(f, ".#{n}")?,
                },
                PathName::Name(name) => write!(f, ".{name}")?,
            }
            if let Some(i) = index {
                write!(f, "[{i}]")?;
            }
        }
        f.write_str(")")
    }
}
