//! The protobuf wire format, read without a schema (`docs/litertlm.md` §8.3): a message is a
//! run of fields, each a tag (a varint: field number << 3 | wire type) and a value. [`Fields`]
//! reads them one by one inside a message's bytes, checking each tag and each value's bounds,
//! and nothing else: what a length-delimited value holds is the caller's business.
//!
//! Accepted: varints of at most 10 bytes that fit 64 bits; field numbers 1 to 2^29 - 1; wire
//! types 0 (varint), 1 (8 bytes), 2 (a varint length, then that many bytes) and 5 (4 bytes).
//! Refused: the group wire types 3 and 4 (deprecated, written by no LiteRT-LM proto), and 6 and
//! 7, which do not exist. Offsets are counted from the message's first byte without overflow,
//! and a length is compared with the bytes left before anything is added to it.

use crate::error::ErrorKind;
use crate::wire::to_u64;

/// The longest varint: 64 bits in 7-bit groups.
const MAX_VARINT: usize = 10;
/// The largest field number protobuf allows.
const MAX_FIELD: u64 = (1 << 29) - 1;

/// Why a message's bytes are refused, and the offset (from the message's first byte) of the
/// tag, varint or value at fault.
pub(crate) type WireFault = (ErrorKind, usize);

/// A varint of more than 10 bytes, or one whose tenth byte carries bits past the 64th.
pub(crate) const LONG_VARINT: ErrorKind = ErrorKind::Rule("a protobuf varint must fit 64 bits in at most 10 bytes");
/// A tag with field number 0.
pub(crate) const FIELD_ZERO: ErrorKind = ErrorKind::Rule("a protobuf field number must not be 0");
/// A tag whose field number is past 2^29 - 1.
pub(crate) const FIELD_TOO_LARGE: ErrorKind = ErrorKind::Rule("a protobuf field number must be at most 2^29 - 1");
/// Wire types 3 and 4.
pub(crate) const GROUP: ErrorKind = ErrorKind::Rule("protobuf groups (wire types 3 and 4) are not accepted");
/// Wire types 6 and 7.
pub(crate) const NO_WIRE_TYPE: ErrorKind = ErrorKind::Rule("protobuf wire types 6 and 7 do not exist");

/// A field's value as the wire gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Value<'a> {
    /// Wire type 0.
    Varint(u64),
    /// Wire type 1: 8 bytes.
    Fixed64,
    /// Wire type 5: 4 bytes.
    Fixed32,
    /// Wire type 2: the bytes, and the offset of the first in the message.
    Bytes(&'a [u8], usize),
}

/// One field of a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Field<'a> {
    /// Its number, 1 to 2^29 - 1.
    pub(crate) number: u32,
    /// Its value.
    pub(crate) value: Value<'a>,
}

/// The fields of one message, in order.
pub(crate) struct Fields<'a> {
    bytes: &'a [u8],
    /// The offset of the next unread byte, at most `bytes.len()`.
    at: usize,
}

impl<'a> Fields<'a> {
    /// The fields of the message `bytes` (all of them: a message ends where its bytes do).
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Fields { bytes, at: 0 }
    }

    /// The next field, `None` at the message's end, or what is wrong with it.
    pub(crate) fn next_field(&mut self) -> Result<Option<Field<'a>>, WireFault> {
        if self.at >= self.bytes.len() {
            return Ok(None);
        }
        let tag_at = self.at;
        let tag = self.varint()?;
        let number = tag >> 3;
        if number == 0 {
            return Err((FIELD_ZERO, tag_at));
        }
        let number = match u32::try_from(number) {
            Ok(n) if number <= MAX_FIELD => n,
            _ => return Err((FIELD_TOO_LARGE, tag_at)),
        };
        let value = match tag & 7 {
            0 => Value::Varint(self.varint()?),
            1 => self.skip(8).map(|_| Value::Fixed64)?,
            2 => {
                let length_at = self.at;
                let length = self.varint()?;
                let start = self.at;
                let left = self.bytes.len().saturating_sub(start);
                if length > to_u64(left) {
                    return Err((ErrorKind::OutOfBounds, length_at));
                }
                // At most `left`, so a `usize`.
                let length = usize::try_from(length).unwrap_or(left);
                Value::Bytes(self.skip(length)?, start)
            }
            5 => self.skip(4).map(|_| Value::Fixed32)?,
            3 | 4 => return Err((GROUP, tag_at)),
            _ => return Err((NO_WIRE_TYPE, tag_at)),
        };
        Ok(Some(Field { number, value }))
    }

    /// Reads a varint: at most 10 bytes, fitting 64 bits.
    fn varint(&mut self) -> Result<u64, WireFault> {
        let start = self.at;
        let mut value = 0u64;
        let mut shift = 0u32;
        for _ in 0..MAX_VARINT {
            let Some(&byte) = self.bytes.get(self.at) else {
                return Err((ErrorKind::Truncated, start));
            };
            self.at = self.at.saturating_add(1);
            let bits = u64::from(byte & 0x7f);
            // The tenth byte holds bit 63 alone.
            if shift == 63 && bits > 1 {
                return Err((LONG_VARINT, start));
            }
            value |= bits.checked_shl(shift).unwrap_or(0);
            if byte & 0x80 == 0 {
                return Ok(value);
            }
            shift = shift.saturating_add(7);
        }
        Err((LONG_VARINT, start))
    }

    /// Takes the next `n` bytes, `Truncated` at their first when fewer are left.
    fn skip(&mut self, n: usize) -> Result<&'a [u8], WireFault> {
        let start = self.at;
        let end = start.checked_add(n).ok_or((ErrorKind::Truncated, start))?;
        let taken = self.bytes.get(start..end).ok_or((ErrorKind::Truncated, start))?;
        self.at = end;
        Ok(taken)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)] // in tests a panic is a failure
mod tests {
    use super::*;
    extern crate std;
    use std::vec::Vec;

    /// Every field of `bytes`, or the first fault.
    fn all(bytes: &[u8]) -> Result<Vec<Field<'_>>, WireFault> {
        let mut fields = Fields::new(bytes);
        let mut out = Vec::new();
        while let Some(f) = fields.next_field()? {
            out.push(f);
        }
        Ok(out)
    }

    #[test]
    fn each_wire_type_is_read_to_its_end() {
        // 1: varint 150; 2: fixed64; 3: "ab"; 4: fixed32; 5: an empty string.
        let bytes = [0x08, 0x96, 0x01, 0x11, 1, 2, 3, 4, 5, 6, 7, 8, 0x1a, 2, b'a', b'b', 0x25, 9, 9, 9, 9, 0x2a, 0];
        let fields = all(&bytes).unwrap();
        let values: Vec<_> = fields.iter().map(|f| (f.number, f.value)).collect();
        assert_eq!(
            values,
            [
                (1, Value::Varint(150)),
                (2, Value::Fixed64),
                (3, Value::Bytes(b"ab", 14)),
                (4, Value::Fixed32),
                (5, Value::Bytes(b"", 23))
            ]
        );
        assert_eq!(all(&[]).unwrap(), []);
    }

    #[test]
    fn varints_fit_64_bits_in_10_bytes() {
        let mut max = std::vec![0x08];
        max.extend([0xff; 9]);
        max.push(0x01);
        assert_eq!(all(&max).unwrap()[0].value, Value::Varint(u64::MAX));
        let mut over = max.clone();
        *over.last_mut().unwrap() = 0x02;
        assert_eq!(all(&over), Err((LONG_VARINT, 1)));
        let mut long = max.clone();
        *long.last_mut().unwrap() = 0x81;
        long.push(0);
        assert_eq!(all(&long), Err((LONG_VARINT, 1)));
        // Cut inside the value's varint, and inside the tag's.
        assert_eq!(all(&[0x08, 0x96]), Err((ErrorKind::Truncated, 1)));
        assert_eq!(all(&[0x08, 1, 0x80]), Err((ErrorKind::Truncated, 2)));
    }

    #[test]
    fn tags_name_fields_1_to_2_pow_29_with_known_wire_types() {
        assert_eq!(all(&[0x00, 0]), Err((FIELD_ZERO, 0)));
        assert_eq!(all(&[0x08, 0, 0x07]), Err((FIELD_ZERO, 2)));
        // Field 2^29 - 1 (tag 0xffff_fff8 | 0) is the last.
        assert_eq!(all(&[0xf8, 0xff, 0xff, 0xff, 0x0f, 0]).unwrap()[0].number, (1 << 29) - 1);
        assert_eq!(all(&[0x80, 0x80, 0x80, 0x80, 0x10, 0]), Err((FIELD_TOO_LARGE, 0)));
        assert_eq!(all(&[0x0b, 0x0c]), Err((GROUP, 0)));
        assert_eq!(all(&[0x08, 1, 0x0c]), Err((GROUP, 2)));
        assert_eq!(all(&[0x0e]), Err((NO_WIRE_TYPE, 0)));
        assert_eq!(all(&[0x0f]), Err((NO_WIRE_TYPE, 0)));
    }

    #[test]
    fn values_lie_inside_the_message() {
        // A length one past the end, a huge one, and fixed values cut short.
        assert_eq!(all(&[0x0a, 3, 1, 2]), Err((ErrorKind::OutOfBounds, 1)));
        let huge = [0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
        assert_eq!(all(&huge), Err((ErrorKind::OutOfBounds, 1)));
        assert_eq!(all(&[0x0a]), Err((ErrorKind::Truncated, 1)));
        assert_eq!(all(&[0x09, 1, 2, 3, 4, 5, 6, 7]), Err((ErrorKind::Truncated, 1)));
        assert_eq!(all(&[0x0d, 1, 2, 3]), Err((ErrorKind::Truncated, 1)));
        assert_eq!(all(&[0x0a, 2, 1, 2]).unwrap().len(), 1);
    }
}
