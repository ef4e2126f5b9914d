//! flatc's binary schemas (`.bfbs`): reflection's `Schema` table, verified, then resolved.

use super::fbs::SchemaError;
use super::model::Types;

/// Reads a binary schema.
pub(crate) fn read(bytes: &[u8]) -> Result<Types, SchemaError> {
    let _ = bytes;
    Err(SchemaError::at("schema.bfbs", 0, 0, "binary schemas are not read yet"))
}
