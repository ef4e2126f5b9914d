//! UTF-8 validation as the verifier needs it: where the first invalid sequence starts.
//!
//! [`first_invalid`] is a byte loop, a tenth of the size of `core::str::from_utf8`'s word-wise
//! validator; with the `specialize` feature (speed first) an ASCII scan a word at a time settles
//! most names before it. It accepts exactly the bytes `core::str::from_utf8` accepts (the tests
//! compare them on every sequence of up to three bytes and on the boundaries of the four-byte
//! ones), which is what the crate's one `unsafe` (`wire::utf8::verified_str`) relies on.

/// The position of the first byte of `bytes` that does not start a valid UTF-8 sequence
/// (`core::str::Utf8Error::valid_up_to`), or `None` when all of `bytes` is UTF-8.
#[inline(never)]
pub(crate) fn first_invalid(bytes: &[u8]) -> Option<usize> {
    let mut at = 0;
    while let Some(&lead) = bytes.get(at) {
        // The sequence's length and the range of its second byte (the others: 0x80..=0xBF).
        let (len, low, high) = match lead {
            0x00..=0x7f => (1, 0, 0),
            0xc2..=0xdf => (2, 0x80, 0xbf),
            0xe0 => (3, 0xa0, 0xbf),
            0xed => (3, 0x80, 0x9f),
            0xe1..=0xef => (3, 0x80, 0xbf),
            0xf0 => (4, 0x90, 0xbf),
            0xf1..=0xf3 => (4, 0x80, 0xbf),
            0xf4 => (4, 0x80, 0x8f),
            _ => return Some(at),
        };
        if len > 1 {
            let Some(tail) = bytes.get(at.wrapping_add(1)..at.wrapping_add(len)) else {
                return Some(at);
            };
            let mut range = (low, high);
            for &b in tail {
                if b < range.0 || b > range.1 {
                    return Some(at);
                }
                range = (0x80, 0xbf);
            }
        }
        at = at.wrapping_add(len);
    }
    None
}

/// Whether `bytes` are all ASCII: for names (mostly under 64 bytes), a branch-light OR of
/// 8-byte words, the last one overlapping the others, instead of a loop over the tail bytes.
#[cfg(feature = "specialize")]
#[inline(always)]
fn is_ascii(bytes: &[u8]) -> bool {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    if let Some(last) = bytes.last_chunk::<8>() {
        let (words, _) = bytes.as_chunks::<8>();
        let any = words.iter().fold(u64::from_le_bytes(*last), |acc, w| acc | u64::from_le_bytes(*w));
        return any & HIGH == 0;
    }
    if let (Some(first), Some(last)) = (bytes.first_chunk::<4>(), bytes.last_chunk::<4>()) {
        return (u32::from_le_bytes(*first) | u32::from_le_bytes(*last)) & 0x8080_8080 == 0;
    }
    bytes.iter().fold(0, |acc, &b| acc | b) < 0x80
}

/// [`first_invalid`], after the ASCII scan in `specialize` builds.
#[inline(always)]
pub(crate) fn check(bytes: &[u8]) -> Option<usize> {
    #[cfg(feature = "specialize")]
    if is_ascii(bytes) {
        return None;
    }
    first_invalid(bytes)
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)] // in tests a panic is a failure
mod tests {
    use super::{check, first_invalid};

    fn core_says(bytes: &[u8]) -> Option<usize> {
        core::str::from_utf8(bytes).err().map(|e| e.valid_up_to())
    }

    #[test]
    fn agrees_with_core_on_every_sequence_of_up_to_three_bytes() {
        let mut buf = [0u8; 5];
        for a in 0..=255u8 {
            assert_eq!(first_invalid(&[a]), core_says(&[a]), "{a:#x}");
            for b in 0..=255u8 {
                assert_eq!(first_invalid(&[a, b]), core_says(&[a, b]), "{a:#x} {b:#x}");
                for c in 0..=255u8 {
                    // Behind an ASCII byte and before one, so positions other than 0 count.
                    buf[..5].copy_from_slice(&[b'x', a, b, c, b'y']);
                    assert_eq!(first_invalid(&buf), core_says(&buf), "{a:#x} {b:#x} {c:#x}");
                    assert_eq!(first_invalid(&buf[1..4]), core_says(&buf[1..4]), "{a:#x} {b:#x} {c:#x}");
                }
            }
        }
    }

    #[test]
    fn agrees_with_core_on_four_byte_sequences() {
        // Every lead and second byte, with the third and fourth on and around the boundaries.
        let edges = [0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xff];
        for a in 0xe0..=0xffu8 {
            for b in 0..=255u8 {
                for c in edges {
                    for d in edges {
                        let s = [a, b, c, d];
                        assert_eq!(first_invalid(&s), core_says(&s), "{s:x?}");
                        assert_eq!(first_invalid(&s[..3]), core_says(&s[..3]), "{s:x?}");
                    }
                }
            }
        }
    }

    #[cfg(feature = "specialize")]
    #[test]
    fn is_ascii_agrees_with_core_for_every_length_and_position() {
        let mut bytes = [b'a'; 80];
        for len in 0..bytes.len() {
            assert!(super::is_ascii(&bytes[..len]), "ASCII, length {len}");
            for at in 0..len {
                for high in [0x80, 0xc3, 0xff] {
                    bytes[at] = high;
                    assert!(!super::is_ascii(&bytes[..len]), "byte {high:#x} at {at} of {len}");
                    bytes[at] = b'a';
                }
            }
        }
    }

    #[test]
    fn the_build_s_check_agrees_with_core_on_text() {
        for s in ["", "tensor_name", "ünïcödé", "日本語の名前", "emoji 🦀 here", "a\u{10ffff}"] {
            assert_eq!(check(s.as_bytes()), None, "{s}");
        }
        let mut bad = "long ascii prefix of a name, then ".as_bytes().to_vec();
        bad.extend_from_slice(&[0xe2, 0x82]);
        assert_eq!(check(&bad), core_says(&bad));
        assert_eq!(check(&bad), Some(bad.len() - 2));
    }
}
