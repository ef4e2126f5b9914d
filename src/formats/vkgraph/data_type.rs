//! The Vulkan delegate's data types: the bytes one element of each takes (`docs/executorch.md`
//! §3.6).

use super::VkDataType;

impl VkDataType {
    /// Bytes per element of a tensor of this type (`docs/executorch.md` §3.6); `None` for
    /// `UNSET` (no type given) and for a value this schema does not name.
    pub const fn element_size(self) -> Option<u64> {
        Some(match self {
            VkDataType::BOOL | VkDataType::UINT8 | VkDataType::INT8 => 1,
            VkDataType::FLOAT16 => 2,
            VkDataType::INT32 | VkDataType::FLOAT32 => 4,
            VkDataType::INT64 | VkDataType::FLOAT64 => 8,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::VkDataType;

    /// Each named type's size, by the C++ type `docs/executorch.md` §3.6 gives it; no size for
    /// `UNSET` nor for any code the schema does not name.
    #[test]
    fn element_sizes_are_the_c_types() {
        let sizes: [(i8, u64); 8] = [
            (0, 1), // BOOL: bool
            (1, 1), // UINT8: uint8_t
            (2, 1), // INT8: int8_t
            (3, 4), // INT32: int32_t
            (4, 2), // FLOAT16: IEEE binary16
            (5, 4), // FLOAT32: float
            (6, 8), // FLOAT64: double
            (7, 8), // INT64: int64_t
        ];
        for code in i8::MIN..=i8::MAX {
            let expected = sizes.iter().find(|&&(c, _)| c == code).map(|&(_, size)| size);
            let t = VkDataType(code);
            assert_eq!(t.element_size(), expected, "{t:?}");
        }
        assert_eq!(VkDataType::UNSET.name(), Some("UNSET"));
        assert_eq!(VkDataType::UNSET.element_size(), None);
    }
}
