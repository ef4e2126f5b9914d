//! `verify(..., schema=, root_type=)`: a schema read at run time (`.fbs` text with its
//! includes, or flatc's binary `.bfbs`), as `flatmodel verify --schema` reads it.

use flatmodel::reflect::{Schema, TableId};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use std::io::Read;
use std::path::Path;

/// The largest schema file read (`.fbs` or `.bfbs`); real ones are kilobytes.
const MAX_SCHEMA_BYTES: u64 = 64 << 20;

/// The schema at `path` and its root table: `root_type`'s, else the schema's own. An
/// unreadable file is an `OSError`; a schema that does not parse, or names no such table, a
/// `ValueError`.
pub fn load(path: &str, root_type: Option<&str>) -> PyResult<(Schema, TableId)> {
    let bytes = read(path).map_err(|e| PyOSError::new_err(format!("{path}: {e}")))?;
    let binary = Path::new(path).extension().is_some_and(|e| e.eq_ignore_ascii_case("bfbs"))
        || bytes.get(4..8) == Some(b"BFBS".as_slice());
    let schema = if binary {
        Schema::from_bfbs(&bytes)
    } else {
        let mut main = Some(String::from_utf8(bytes).map_err(|_| {
            PyValueError::new_err(format!("{path}: neither .fbs text (not UTF-8) nor a binary schema (BFBS at byte 4)"))
        })?);
        // The main file is the loader's first request (read already); includes come from disk.
        Schema::from_fbs(path, &mut |p: &str| match main.take() {
            Some(text) => Ok(text),
            None => read(p).and_then(|b| String::from_utf8(b).map_err(|_| "not UTF-8 text".to_string())),
        })
    }
    .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let root = match root_type {
        Some(name) => {
            schema.table(name).ok_or_else(|| PyValueError::new_err(format!("{path} has no table named '{name}'")))?
        }
        None => schema
            .root()
            .ok_or_else(|| PyValueError::new_err(format!("{path} declares no root_type: pass root_type=")))?,
    };
    Ok((schema, root))
}

/// The identifier a buffer must carry to be read as `schema`'s `root` table: the schema's
/// `file_identifier` when `root` is its `root_type`.
pub fn identifier_of(schema: &Schema, root: TableId) -> Option<[u8; 4]> {
    schema.file_identifier().filter(|_| schema.root() == Some(root))
}

/// A schema file's bytes, at most [`MAX_SCHEMA_BYTES`].
fn read(path: &str) -> Result<Vec<u8>, String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    file.take(MAX_SCHEMA_BYTES + 1).read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > MAX_SCHEMA_BYTES {
        return Err(format!("larger than {} MiB: not a schema", MAX_SCHEMA_BYTES >> 20));
    }
    Ok(bytes)
}
