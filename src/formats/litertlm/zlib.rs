//! A zlib stream inflated to count its bytes, not to keep them (`docs/litertlm.md` §8.3,
//! feature `zlib`): miniz_oxide's core decompressor writes into a wrapping 32 KiB window (the
//! farthest a deflate match reaches back), so a stream of any size takes the same memory: the
//! decompressor's state and the window, about 43 KB, on the stack of [`inflate_to`] while it
//! runs. Nothing is allocated.

use crate::container::Checked;
use crate::error::ErrorKind;
use crate::wire::to_u64;
use miniz_oxide::inflate::core::inflate_flags::TINFL_FLAG_PARSE_ZLIB_HEADER;
use miniz_oxide::inflate::core::{decompress_with_limit, DecompressorOxide};
use miniz_oxide::inflate::TINFLStatus;

/// The output window: deflate's largest match distance, a power of two as a wrapping window
/// must be.
const WINDOW: usize = 32 * 1024;
/// Output bytes per unit of work charged (as for a string's bytes, `verify::Options`).
const BYTES_PER_UNIT: usize = 16;

/// The header is not a zlib one (deflate, a window of at most 32 KiB, no preset dictionary,
/// its check bits right) or the deflate data is broken.
pub(crate) const INVALID: ErrorKind =
    ErrorKind::Rule("the zlib stream is invalid (its 2-byte header or its deflate data)");
/// The Adler-32 after the deflate data is not that of what it inflates to.
pub(crate) const ADLER: ErrorKind = ErrorKind::Rule("the zlib stream's Adler-32 does not match what it inflates to");
/// Bytes follow the stream's Adler-32 inside the section.
pub(crate) const TRAILING: ErrorKind = ErrorKind::Rule("the section must end where its zlib stream ends");
/// The stream inflates to more bytes than the section declares.
pub(crate) const MORE: ErrorKind = ErrorKind::Rule("the zlib stream inflates to more than its declared size");
/// The stream inflates to fewer bytes than the section declares.
pub(crate) const LESS: ErrorKind = ErrorKind::Rule("the zlib stream inflates to less than its declared size");

/// Why a stream was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// `charge` failed (the walk's budget is spent; its error is written).
    Spent,
    /// The stream is broken at this offset from its first byte (its 2-byte header's).
    At(ErrorKind, usize),
    /// It does not inflate to its declared size ([`MORE`] or [`LESS`]).
    Size(ErrorKind),
}

/// Inflates `stream` (a zlib stream: 2-byte header, deflate data, Adler-32) without keeping
/// it, and checks that it inflates to exactly `declared` bytes, its Adler-32 matches and it ends
/// with `stream`. It stops as soon as the output passes `declared`, so its work is at most
/// `declared` + 1 bytes of output; each call of the decompressor charges `charge` one unit per
/// 16 bytes it wrote (at least one).
#[inline(never)]
pub(crate) fn inflate_to(
    stream: &[u8],
    declared: u64,
    mut charge: impl FnMut(usize) -> Checked,
) -> Result<(), Refusal> {
    let mut state = DecompressorOxide::new();
    let mut window = [0u8; WINDOW];
    let (mut read, mut pos, mut inflated) = (0usize, 0usize, 0u64);
    loop {
        let input = stream.get(read..).unwrap_or_default();
        // One byte past the declared size is enough to know it is passed.
        let limit = usize::try_from(declared.saturating_sub(inflated).saturating_add(1)).unwrap_or(usize::MAX);
        let (status, used, written) =
            decompress_with_limit(&mut state, input, &mut window, pos, limit, TINFL_FLAG_PARSE_ZLIB_HEADER);
        read = read.saturating_add(used);
        pos = pos.saturating_add(written) & (WINDOW - 1);
        inflated = inflated.saturating_add(to_u64(written));
        charge(written.div_ceil(BYTES_PER_UNIT).max(1)).map_err(|_| Refusal::Spent)?;
        if inflated > declared {
            return Err(Refusal::Size(MORE));
        }
        match status {
            TINFLStatus::Done => break,
            TINFLStatus::HasMoreOutput => {}
            TINFLStatus::FailedCannotMakeProgress | TINFLStatus::NeedsMoreInput => {
                return Err(Refusal::At(ErrorKind::Truncated, stream.len()))
            }
            // The checksum is the stream's last 4 bytes.
            TINFLStatus::Adler32Mismatch => return Err(Refusal::At(ADLER, read.saturating_sub(4))),
            _ => return Err(Refusal::At(INVALID, read)),
        }
    }
    if inflated < declared {
        return Err(Refusal::Size(LESS));
    }
    if read < stream.len() {
        return Err(Refusal::At(TRAILING, read));
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::arithmetic_side_effects)] // in tests a panic is a failure
mod tests {
    use super::*;
    extern crate std;
    use std::vec::Vec;

    /// `data` as a zlib stream with one stored block (written by hand: header 78 01, a final
    /// stored block, the Adler-32 big-endian).
    fn stored(data: &[u8]) -> Vec<u8> {
        let len = u16::try_from(data.len()).unwrap();
        let mut s = std::vec![0x78, 0x01, 0x01];
        s.extend(len.to_le_bytes());
        s.extend((!len).to_le_bytes());
        s.extend(data);
        let (mut a, mut b) = (1u32, 0u32);
        for &byte in data {
            a = (a + u32::from(byte)) % 65521;
            b = (b + a) % 65521;
        }
        s.extend(((b << 16) | a).to_be_bytes());
        s
    }

    fn free(_: usize) -> Checked {
        Ok(())
    }

    #[test]
    fn a_stream_inflates_to_its_declared_size_alone() {
        let s = stored(b"hello, tokenizer");
        assert_eq!(inflate_to(&s, 16, free), Ok(()));
        assert_eq!(inflate_to(&s, 15, free), Err(Refusal::Size(MORE)));
        assert_eq!(inflate_to(&s, 17, free), Err(Refusal::Size(LESS)));
        assert_eq!(inflate_to(&s, u64::MAX, free), Err(Refusal::Size(LESS)));
        assert_eq!(inflate_to(&stored(b""), 0, free), Ok(()));
    }

    #[test]
    fn broken_streams_are_located() {
        let s = stored(b"hello, tokenizer");
        let n = s.len();
        let mut adler = s.clone();
        adler[n - 1] ^= 1;
        assert_eq!(inflate_to(&adler, 16, free), Err(Refusal::At(ADLER, n - 4)));
        assert_eq!(inflate_to(&s[..n - 2], 16, free), Err(Refusal::At(ErrorKind::Truncated, n - 2)));
        assert_eq!(inflate_to(&s[..1], 16, free), Err(Refusal::At(ErrorKind::Truncated, 1)));
        assert_eq!(inflate_to(&[], 0, free), Err(Refusal::At(ErrorKind::Truncated, 0)));
        let mut header = s.clone();
        header[1] ^= 1;
        assert!(matches!(inflate_to(&header, 16, free), Err(Refusal::At(INVALID, _))));
        let mut trailing = s.clone();
        trailing.push(0);
        assert_eq!(inflate_to(&trailing, 16, free), Err(Refusal::At(TRAILING, n)));
    }

    #[test]
    fn a_spent_budget_stops_the_inflation() {
        let s = stored(&[7; 1000]);
        let mut charged = 0;
        let counted = inflate_to(&s, 1000, |units| {
            charged += units;
            Ok(())
        });
        assert_eq!(counted, Ok(()));
        // One unit per 16 bytes written, rounded up at each call of the decompressor.
        assert!((63..=66).contains(&charged), "{charged}");
        let spent = inflate_to(&s, 1000, |_| Err(crate::verify::Fail));
        assert_eq!(spent, Err(Refusal::Spent));
    }
}
