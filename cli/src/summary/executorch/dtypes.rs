//! ExecuTorch's and the Vulkan delegate's element types: their sizes, and a Vulkan type's name
//! as the summaries write it.

use flatmodel::pte::ScalarType;
use flatmodel::vkgraph::VkDataType;

/// Bytes per element of a scalar type, as the runtime sizes it; `None` for a code the schema
/// does not name.
pub fn scalar_size(t: ScalarType) -> Option<u64> {
    Some(match t.name()? {
        "BYTE" | "CHAR" | "BOOL" | "QINT8" | "QUINT8" | "QUINT4X2" | "QUINT2X4" => 1,
        "FLOAT8E5M2" | "FLOAT8E4M3FN" | "FLOAT8E5M2FNUZ" | "FLOAT8E4M3FNUZ" => 1,
        "SHORT" | "HALF" | "BFLOAT16" | "BITS16" | "UINT16" => 2,
        "INT" | "FLOAT" | "QINT32" | "UINT32" => 4,
        "LONG" | "DOUBLE" | "UINT64" => 8,
        _ => return None,
    })
}

/// Bytes per element of a Vulkan data type; `None` for a code the schema does not name.
pub fn vk_size(t: VkDataType) -> Option<u64> {
    Some(match t.name()? {
        "BOOL" | "UINT8" | "INT8" => 1,
        "FLOAT16" => 2,
        "INT32" | "FLOAT32" => 4,
        "FLOAT64" | "INT64" => 8,
        _ => return None,
    })
}

/// A Vulkan data type as NumPy names it (the schema's name in lower case: `float32`), or
/// `type(CODE)` for a code the schema does not name.
pub fn vk_dtype(t: VkDataType) -> String {
    t.name().map_or_else(|| format!("type({})", t.0), str::to_ascii_lowercase)
}
