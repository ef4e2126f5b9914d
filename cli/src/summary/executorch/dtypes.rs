//! A Vulkan data type's name as the summaries write it (the element sizes of ExecuTorch's and
//! Vulkan's types are the library's: `ScalarType::element_size`, `VkDataType::element_size`).

use flatmodel::vkgraph::VkDataType;

/// A Vulkan data type as NumPy names it (the schema's name in lower case: `float32`), or
/// `type(CODE)` for a code the schema does not name.
pub fn vk_dtype(t: VkDataType) -> String {
    t.name().map_or_else(|| format!("type({})", t.0), str::to_ascii_lowercase)
}
