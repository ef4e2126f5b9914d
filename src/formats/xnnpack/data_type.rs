//! XNNPACK's data types: whether one is quantized, and the bits one element takes
//! (`docs/executorch.md` §3.8).

use super::XNNDatatype;

impl XNNDatatype {
    /// Bits per element of a tensor of this type; `None` for `xnn_datatype_invalid`, for the
    /// packed types whose layout XNNPACK chooses (`qpint8`, `pfp32`) and for a value this schema
    /// does not name.
    pub const fn element_bits(self) -> Option<u64> {
        Some(match self {
            XNNDatatype::xnn_datatype_qcint4 | XNNDatatype::xnn_datatype_qbint4 => 4,
            XNNDatatype::xnn_datatype_qint8
            | XNNDatatype::xnn_datatype_quint8
            | XNNDatatype::xnn_datatype_qcint8
            | XNNDatatype::xnn_datatype_qdint8 => 8,
            XNNDatatype::xnn_datatype_fp16 | XNNDatatype::xnn_datatype_bf16 => 16,
            XNNDatatype::xnn_datatype_fp32
            | XNNDatatype::xnn_datatype_qint32
            | XNNDatatype::xnn_datatype_qcint32
            | XNNDatatype::xnn_datatype_int32 => 32,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::XNNDatatype;

    /// Each named type's width, by the C type XNNPACK's `xnn_datatype` documentation gives it.
    #[test]
    fn element_bits_are_the_c_types() {
        let bits: [(i16, u64); 12] =
            [(1, 32), (2, 16), (3, 8), (4, 8), (5, 32), (6, 8), (7, 32), (8, 4), (9, 8), (10, 4), (12, 32), (14, 16)];
        for code in -2..=20 {
            let expected = bits.iter().find(|&&(c, _)| c == code).map(|&(_, b)| b);
            assert_eq!(XNNDatatype(code).element_bits(), expected, "{code}");
        }
        assert_eq!(XNNDatatype(99).name(), None);
    }
}
