//! What `inspect --schema` says of a flatbuffer verified by a schema read at run time: its root
//! type, file identifier, the objects the verifier visited and its sizes.

use super::weights::grouped;
use crate::convert::to_u64;
use flatmodel::reflect::{Schema, TableId};
use flatmodel::verify::Stats;
use serde::Serialize;
use std::io::Write;

/// The summary of a flatbuffer read by a run-time schema.
#[derive(Debug, Serialize)]
pub struct FlatbufferSummary {
    /// Always `flatbuffer`.
    format: &'static str,
    /// The schema file, as given.
    schema: String,
    /// How many tables, structs, enums and unions the schema declares.
    schema_types: SchemaTypes,
    /// The root's table type, with its namespace.
    root_type: String,
    /// The file identifier at bytes 4..8 and the schema's.
    identifier: Identifier,
    /// The objects the verifier visited.
    objects: Objects,
    /// The file's size.
    file_bytes: usize,
    /// The verifier's units of work (a table and each of its fields, a vector element, 16
    /// string bytes), which its budget bounds by the file's size.
    apparent_size: u64,
}

#[derive(Debug, Serialize)]
struct SchemaTypes {
    tables: usize,
    structs: usize,
    enums: usize,
    unions: usize,
}

#[derive(Debug, Serialize)]
struct Identifier {
    /// Bytes 4..8 when they are four printable ASCII characters, else `null` (there is none,
    /// or they are not text).
    found: Option<String>,
    /// The schema's `file_identifier`, if it declares one.
    expected: Option<String>,
    /// Whether the verifier required it: the root is the schema's `root_type`.
    checked: bool,
}

#[derive(Debug, Serialize)]
struct Objects {
    tables: u64,
    vectors: u64,
    strings: u64,
    /// Shared objects met again, not verified twice.
    shared: u64,
}

impl FlatbufferSummary {
    /// The summary of `bytes`, verified as `schema`'s `root` table with `stats`; `schema_path`
    /// names the schema.
    pub fn of(schema: &Schema, schema_path: &str, root: TableId, bytes: &[u8], stats: &Stats) -> Self {
        let [tables, structs, enums, unions] = schema.counts();
        let text = |id: &[u8]| {
            (id.len() == 4 && id.iter().all(u8::is_ascii_graphic)).then(|| String::from_utf8_lossy(id).into_owned())
        };
        FlatbufferSummary {
            format: "flatbuffer",
            schema: schema_path.to_string(),
            schema_types: SchemaTypes { tables, structs, enums, unions },
            root_type: schema.table_name(root).to_string(),
            identifier: Identifier {
                found: bytes.get(4..8).and_then(text),
                expected: schema.file_identifier().map(|id| String::from_utf8_lossy(&id).into_owned()),
                checked: schema.file_identifier().is_some() && schema.root() == Some(root),
            },
            objects: Objects {
                tables: stats.tables,
                vectors: stats.vectors,
                strings: stats.strings,
                shared: stats.memo_hits,
            },
            file_bytes: bytes.len(),
            apparent_size: stats.apparent_size,
        }
    }

    /// Prints the summary as text, under the file's `name`.
    pub fn print_text(&self, out: &mut dyn Write, name: &str) -> std::io::Result<()> {
        let t = &self.schema_types;
        let id = &self.identifier;
        writeln!(out, "{name}")?;
        writeln!(out, "  format:      flatbuffer")?;
        let declares = [(t.tables, "table"), (t.structs, "struct"), (t.enums, "enum"), (t.unions, "union")];
        let declares: Vec<String> = declares.iter().map(|&(n, what)| counted(to_u64(n), what)).collect();
        writeln!(out, "  schema:      {} ({})", self.schema, declares.join(", "))?;
        writeln!(out, "  root type:   {}", self.root_type)?;
        let found = id.found.as_deref().unwrap_or("-");
        let identifier = match (&id.expected, id.checked) {
            (Some(expected), true) => format!("{found} (expected {expected}, checked)"),
            (Some(expected), false) => format!("{found} (not checked: the schema's {expected} is its root_type's)"),
            (None, _) => format!("{found} (the schema declares none)"),
        };
        writeln!(out, "  identifier:  {identifier}")?;
        let o = &self.objects;
        writeln!(
            out,
            "  objects:     {}, {}, {}; {} met again",
            counted(o.tables, "table"),
            counted(o.vectors, "vector"),
            counted(o.strings, "string"),
            counted(o.shared, "shared object")
        )?;
        writeln!(
            out,
            "  size:        {} bytes; apparent size {}",
            grouped(to_u64(self.file_bytes)),
            grouped(self.apparent_size)
        )
    }
}

/// `1 table`, `2 tables`, `1,024 tables`.
fn counted(n: u64, what: &str) -> String {
    format!("{} {what}{}", grouped(n), if n == 1 { "" } else { "s" })
}
