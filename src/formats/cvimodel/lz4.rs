//! LZ4 block validation without decompressing: walks a block's sequences and does arithmetic on
//! their lengths only, so checking a block takes time linear in its stored size and no memory,
//! whatever it inflates to.
//!
//! A block is a run of sequences. Each starts with a token byte: its high nibble is the literal
//! count, its low nibble the match length minus 4; a nibble of 15 continues in extension bytes
//! (each added, until one is not 255). The literals follow, then, unless the block ends there, a
//! little-endian 2-byte match offset (how far back the copy starts) and the match length's
//! extension bytes. The accepted blocks are exactly those `lz4_flex::block::decompress_into`
//! (with `safe-decode`) decompresses into a buffer of exactly the claimed size: the block may end
//! only right after a literal run (of any length, zero included), and the LZ4 format's
//! end-of-block recommendations (last literals, last match distance) are not required. One
//! difference is deliberate: lz4_flex sums a length's extension bytes in a `u32`, which wraps
//! past 16 MiB of 255 bytes; here such a length is what it says, more than the block or the
//! output holds, and the block is refused.

/// Why an LZ4 block does not decompress to the size it is claimed to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Lz4Fault {
    /// The block ends inside a sequence: a token, a length, the literals or a match offset.
    Truncated,
    /// A match offset of zero.
    ZeroOffset,
    /// A match reaches back before the start of the output.
    OffsetBeforeStart,
    /// The block inflates to more than the claimed size.
    TooLong,
    /// The block inflates to less than the claimed size.
    TooShort,
}

impl Lz4Fault {
    /// What is wrong, in words.
    pub fn text(self) -> &'static str {
        match self {
            Lz4Fault::Truncated => "the LZ4 block ends inside a sequence",
            Lz4Fault::ZeroOffset => "an LZ4 match has offset zero",
            Lz4Fault::OffsetBeforeStart => "an LZ4 match reaches back before the start of the output",
            Lz4Fault::TooLong => "the LZ4 data decompresses to more than decompressed_size bytes",
            Lz4Fault::TooShort => "the LZ4 data decompresses to fewer than decompressed_size bytes",
        }
    }

    /// Whether the fault is in the output's size (rather than in the block's own structure).
    pub fn is_size(self) -> bool {
        matches!(self, Lz4Fault::TooLong | Lz4Fault::TooShort)
    }
}

/// Checks that the LZ4 block `block` decompresses to exactly `size` bytes, without producing
/// them: every match offset non-zero and within the output so far, no length past the block or
/// past `size`. On failure, the fault and its position in `block`.
pub fn check_lz4_block(block: &[u8], size: usize) -> Result<(), (Lz4Fault, usize)> {
    let mut at = 0usize; // the next byte of `block`
    let mut out = 0usize; // bytes the block has produced so far (never more than `size`)
    loop {
        let token_at = at;
        let token = *block.get(at).ok_or((Lz4Fault::Truncated, at))?;
        at = at.saturating_add(1);
        let literals = extended(usize::from(token >> 4), block, &mut at).ok_or((Lz4Fault::Truncated, at))?;
        if literals > block.len().saturating_sub(at) {
            return Err((Lz4Fault::Truncated, token_at));
        }
        if literals > size.saturating_sub(out) {
            return Err((Lz4Fault::TooLong, token_at));
        }
        at = at.saturating_add(literals);
        out = out.saturating_add(literals);
        if at >= block.len() {
            break; // a block ends after a literal run
        }
        let offset_at = at;
        let offset = match block.get(at..at.saturating_add(2)) {
            Some(&[lo, hi]) => usize::from(u16::from_le_bytes([lo, hi])),
            _ => return Err((Lz4Fault::Truncated, offset_at)),
        };
        at = at.saturating_add(2);
        if offset == 0 {
            return Err((Lz4Fault::ZeroOffset, offset_at));
        }
        let length = extended(usize::from(token & 0x0F), block, &mut at).ok_or((Lz4Fault::Truncated, at))?;
        let length = length.saturating_add(4);
        if length > size.saturating_sub(out) {
            return Err((Lz4Fault::TooLong, token_at));
        }
        if offset > out {
            return Err((Lz4Fault::OffsetBeforeStart, offset_at));
        }
        out = out.saturating_add(length);
    }
    if out < size {
        return Err((Lz4Fault::TooShort, block.len()));
    }
    Ok(())
}

/// A length from its token nibble: 15 continues with bytes at `*at`, each added, up to and
/// including the first that is not 255. Saturates (a saturated length exceeds any block).
/// `None` when the block ends first, `*at` then being where the missing byte would be.
fn extended(nibble: usize, block: &[u8], at: &mut usize) -> Option<usize> {
    if nibble != 15 {
        return Some(nibble);
    }
    let mut n = nibble;
    loop {
        let byte = *block.get(*at)?;
        *at = at.saturating_add(1);
        n = n.saturating_add(usize::from(byte));
        if byte != 0xFF {
            return Some(n);
        }
    }
}
