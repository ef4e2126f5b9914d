//! NumPy's `.npy` format (version 1.0) for a tensor's constant data: a header naming the dtype
//! and shape, then the little-endian elements in C order. Packed 4- and 2-bit integers are
//! unpacked to one byte per element (`int8`, `uint8`), low bits first, as TFLite packs them.

use crate::convert::to_u64;
use crate::summary::facts::TensorFacts;

/// How a TFLite or Circle element type is written: NumPy's `descr`, and for packed types the
/// bits per element and whether they are signed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Layout {
    descr: &'static str,
    /// Bits per stored element when packed (4 or 2), 0 when stored as `descr` says.
    packed_bits: u32,
    signed: bool,
}

/// The layout of element type `name` (the schema's name), or why NumPy has none for it.
fn layout(name: Option<&str>) -> Result<Layout, String> {
    let plain = |descr| Ok(Layout { descr, packed_bits: 0, signed: false });
    match name {
        Some("FLOAT32") => plain("<f4"),
        Some("FLOAT16") => plain("<f2"),
        Some("FLOAT64") => plain("<f8"),
        Some("INT8") => plain("|i1"),
        Some("UINT8") => plain("|u1"),
        Some("INT16") => plain("<i2"),
        Some("UINT16") => plain("<u2"),
        Some("INT32") => plain("<i4"),
        Some("UINT32") => plain("<u4"),
        Some("INT64") => plain("<i8"),
        Some("UINT64") => plain("<u8"),
        Some("BOOL") => plain("|b1"),
        Some("COMPLEX64") => plain("<c8"),
        Some("COMPLEX128") => plain("<c16"),
        Some("INT4") => Ok(Layout { descr: "|i1", packed_bits: 4, signed: true }),
        Some("UINT4") => Ok(Layout { descr: "|u1", packed_bits: 4, signed: false }),
        Some("INT2") => Ok(Layout { descr: "|i1", packed_bits: 2, signed: true }),
        Some(other) => Err(format!("NumPy has no dtype for {other} elements: --raw writes them as stored")),
        None => Err("its element type is not one this schema names: --raw writes the bytes as stored".into()),
    }
}

/// The `.npy` file for `tensor`, whose constant data is `data`, or why it cannot be one.
pub fn encode(tensor: &TensorFacts, data: &[u8], sparse: bool) -> Result<Vec<u8>, String> {
    if sparse {
        return Err("it is sparse (its data holds only the stored values, in its sparsity's order): --raw writes \
                    them as stored"
            .into());
    }
    let layout = layout(tensor.element.name)?;
    let elements = tensor.elements();
    let body = match layout.packed_bits {
        0 => {
            let size = tensor.element.size.unwrap_or(0);
            let expected = elements.checked_mul(size);
            if expected != Some(to_u64(data.len())) {
                return Err(format!("its data is {} bytes, not the {} its shape needs", data.len(), show(expected)));
            }
            data.to_vec()
        }
        bits => unpack(data, bits, layout.signed, elements)?,
    };
    let shape: Vec<i64> = tensor.shape.iter().map(|&d| i64::from(d)).collect();
    let mut out = header(layout.descr, &shape);
    out.extend_from_slice(&body);
    Ok(out)
}

/// The `.npy` file of `data` as elements of NumPy's `descr`, `size` bytes each, in C order of
/// dimensions `shape`, or why it cannot be one (the data is not the size the shape needs).
pub fn plain(descr: &str, size: u64, shape: &[i64], data: &[u8]) -> Result<Vec<u8>, String> {
    let expected = crate::summary::facts::elements(shape.iter().copied()).checked_mul(size);
    if expected != Some(to_u64(data.len())) {
        return Err(format!("its data is {} bytes, not the {} its shape needs", data.len(), show(expected)));
    }
    let mut out = header(descr, shape);
    out.extend_from_slice(data);
    Ok(out)
}

fn show(n: Option<u64>) -> String {
    n.map_or_else(|| "more than 2^64".into(), |n| n.to_string())
}

/// `elements` values of `bits` bits packed into `data`, low bits first, one byte each.
fn unpack(data: &[u8], bits: u32, signed: bool, elements: u64) -> Result<Vec<u8>, String> {
    let per_byte = u64::from(8 / bits);
    let needed = elements.div_ceil(per_byte);
    if needed != to_u64(data.len()) {
        return Err(format!("its data is {} bytes, not the {needed} its shape needs packed", data.len()));
    }
    let mask = (1u8 << bits) - 1;
    let shift_back = 8 - bits;
    let values = data.iter().flat_map(|&byte| {
        (0..8 / bits).map(move |k| {
            let v = (byte >> (k * bits)) & mask;
            // Sign-extend from `bits` bits by moving the field to the top of the byte and back.
            if signed {
                ((v << shift_back).cast_signed() >> shift_back).cast_unsigned()
            } else {
                v
            }
        })
    });
    Ok(values.take(usize::try_from(elements).unwrap_or(usize::MAX)).collect())
}

/// The `.npy` 1.0 header for `descr` and `shape`, padded with spaces to a multiple of 64 bytes
/// and ended by a newline.
fn header(descr: &str, shape: &[i64]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(|d| d.max(&0).to_string()).collect();
    let shape = match dims.as_slice() {
        [one] => format!("({one},)"),
        _ => format!("({})", dims.join(", ")),
    };
    let mut dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    let unpadded = 10 + dict.len() + 1;
    dict.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    dict.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&u16::try_from(dict.len()).unwrap_or(u16::MAX).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::{header, plain, unpack};

    #[test]
    fn packed_integers_unpack_low_bits_first() {
        // 0x7F: low nibble 0xF (-1), high 0x7 (7); 0x08: 8 (-8), 0 (0).
        assert_eq!(unpack(&[0x7F, 0x08], 4, true, 4), Ok(vec![0xFF, 7, 0xF8, 0]));
        assert_eq!(unpack(&[0x7F, 0x08], 4, false, 3), Ok(vec![15, 7, 8]));
        // 0b11_10_01_00: 0, 1, -2, -1.
        assert_eq!(unpack(&[0b1110_0100], 2, true, 4), Ok(vec![0, 1, 0xFE, 0xFF]));
        assert!(unpack(&[0x7F], 4, true, 3).is_err(), "3 nibbles need 2 bytes");
    }

    #[test]
    fn the_header_is_numpys() {
        let h = header("<f4", &[2, 3]);
        assert_eq!(h.len() % 64, 0);
        assert_eq!(&h[..8], b"\x93NUMPY\x01\x00");
        let text = std::str::from_utf8(&h[10..]).unwrap();
        assert!(text.starts_with("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"), "{text}");
        assert!(text.ends_with(" \n"));
        assert!(std::str::from_utf8(&header("|i1", &[5])[10..]).unwrap().contains("'shape': (5,)"));
        assert!(std::str::from_utf8(&header("|i1", &[])[10..]).unwrap().contains("'shape': ()"));
    }

    #[test]
    fn plain_data_must_fill_its_shape() {
        let npy = plain("<f4", 4, &[2], &[0, 0, 128, 63, 0, 0, 0, 64]).unwrap();
        let header = 10 + usize::from(u16::from_le_bytes([npy[8], npy[9]]));
        assert_eq!(header % 64, 0);
        assert_eq!(&npy[header..], &[0, 0, 128, 63, 0, 0, 0, 64]);
        assert!(plain("<f4", 4, &[3], &[0; 8]).unwrap_err().contains("not the 12"));
    }
}
