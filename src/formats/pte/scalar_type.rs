//! ExecuTorch's scalar types: the bytes one element of each takes (`docs/executorch.md` §3.6).

use super::ScalarType;

impl ScalarType {
    /// Bytes per element, as ExecuTorch lays out a tensor of this type (`docs/executorch.md`
    /// §3.6): the packed sub-byte types `QUINT4X2` and `QUINT2X4` count one byte per stored
    /// element, which holds two or four values. `None` for a value this schema does not name
    /// (the complex and `BITS1x8`-style codes `scalar_type.fbs` leaves out, or a newer one).
    pub const fn element_size(self) -> Option<u64> {
        Some(match self {
            ScalarType::BYTE | ScalarType::CHAR | ScalarType::BOOL => 1,
            ScalarType::QINT8 | ScalarType::QUINT8 | ScalarType::QUINT4X2 | ScalarType::QUINT2X4 => 1,
            ScalarType::FLOAT8E5M2 | ScalarType::FLOAT8E4M3FN => 1,
            ScalarType::FLOAT8E5M2FNUZ | ScalarType::FLOAT8E4M3FNUZ => 1,
            ScalarType::SHORT | ScalarType::HALF | ScalarType::BFLOAT16 => 2,
            ScalarType::BITS16 | ScalarType::UINT16 => 2,
            ScalarType::INT | ScalarType::FLOAT | ScalarType::QINT32 | ScalarType::UINT32 => 4,
            ScalarType::LONG | ScalarType::DOUBLE | ScalarType::UINT64 => 8,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::ScalarType;

    /// Each named value's size, by the C++ type `docs/executorch.md` §3.6 gives it, and no size
    /// for every code `scalar_type.fbs` does not name.
    #[test]
    fn element_sizes_are_the_c_types() {
        let sizes: [(i8, u64); 23] = [
            (0, 1),  // BYTE: uint8_t
            (1, 1),  // CHAR: int8_t
            (2, 2),  // SHORT: int16_t
            (3, 4),  // INT: int32_t
            (4, 8),  // LONG: int64_t
            (5, 2),  // HALF: IEEE binary16
            (6, 4),  // FLOAT: float
            (7, 8),  // DOUBLE: double
            (11, 1), // BOOL: bool
            (12, 1), // QINT8
            (13, 1), // QUINT8
            (14, 4), // QINT32
            (15, 2), // BFLOAT16
            (16, 1), // QUINT4X2: two 4-bit values a byte
            (17, 1), // QUINT2X4: four 2-bit values a byte
            (22, 2), // BITS16
            (23, 1), // FLOAT8E5M2
            (24, 1), // FLOAT8E4M3FN
            (25, 1), // FLOAT8E5M2FNUZ
            (26, 1), // FLOAT8E4M3FNUZ
            (27, 2), // UINT16
            (28, 4), // UINT32
            (29, 8), // UINT64
        ];
        for code in i8::MIN..=i8::MAX {
            let expected = sizes.iter().find(|&&(c, _)| c == code).map(|&(_, size)| size);
            let t = ScalarType(code);
            assert_eq!(t.element_size(), expected, "{t:?}");
            assert_eq!(t.name().is_some(), expected.is_some(), "{t:?}: a size for each named value");
        }
    }
}
