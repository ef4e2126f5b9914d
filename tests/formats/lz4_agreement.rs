//! The LZ4 block check that cvimodel verification runs (`cvimodel::check_lz4_block`, which
//! never inflates) accepts exactly the blocks `lz4_flex::block::decompress_into` decompresses
//! into a buffer of exactly the claimed size: on blocks lz4_flex compresses, on those blocks
//! mutated, truncated or claimed one byte off, on blocks assembled from random sequences and
//! on random bytes.

#![cfg(feature = "lz4")]

use flatmodel::cvimodel::{check_lz4_block, Lz4Fault};
use proptest::prelude::*;

/// Whether lz4_flex decompresses `block` to exactly `size` bytes.
fn lz4_flex_accepts(block: &[u8], size: usize) -> bool {
    let mut out = vec![0u8; size];
    matches!(lz4_flex::block::decompress_into(block, &mut out), Ok(n) if n == size)
}

fn agree(block: &[u8], size: usize) {
    let ours = check_lz4_block(block, size);
    assert_eq!(ours.is_ok(), lz4_flex_accepts(block, size), "size {size}, block {block:02x?}: {ours:?}");
    if let Err((_, at)) = ours {
        assert!(at <= block.len(), "{at} past the block");
    }
}

/// Data with repeats near and far (so the compressor emits matches of all lengths and
/// offsets), from `seed` bytes.
fn repetitive(seed: &[u8], runs: &[(u16, u16)]) -> Vec<u8> {
    let mut data = seed.to_vec();
    for &(back, len) in runs {
        let back = usize::from(back) % data.len().max(1) + 1;
        for _ in 0..len {
            let b = data.get(data.len().wrapping_sub(back)).copied().unwrap_or(0x55);
            data.push(b);
        }
        data.extend_from_slice(seed.get(..(len as usize % 7).min(seed.len())).unwrap_or(&[]));
    }
    data
}

/// One sequence of a block: literal count, literal bytes' seed, match offset and length.
type Sequence = (usize, u8, u16, usize);

/// How `assemble` takes the drawn offsets.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Offsets {
    /// As drawn.
    Drawn,
    /// Brought into what precedes the match: the block is valid when something precedes the
    /// first match.
    Within,
    /// Within two bytes of the output so far, either side: the edge of validity.
    Edge,
}

/// A block assembled from `sequences` (lengths encoded with their extension bytes) and a last
/// literal run of `tail` bytes, its offsets taken as `offsets` says.
fn assemble(sequences: &[Sequence], tail: usize, offsets: Offsets) -> Vec<u8> {
    fn length(v: &mut Vec<u8>, mut n: usize) {
        while n >= 255 {
            v.push(255);
            n -= 255;
        }
        v.push(n as u8);
    }
    let mut v = Vec::new();
    let mut out = 0usize;
    for &(literals, fill, offset, matched) in sequences {
        out += literals;
        let offset = match offsets {
            Offsets::Within if out > 0 => (1 + usize::from(offset) % out.min(65535)) as u16,
            Offsets::Edge => (out + usize::from(offset) % 5).saturating_sub(2).min(65535) as u16,
            _ => offset,
        };
        out += matched + 4;
        v.push(((literals.min(15) as u8) << 4) | matched.min(15) as u8);
        if literals >= 15 {
            length(&mut v, literals - 15);
        }
        v.extend((0..literals).map(|i| fill.wrapping_add(i as u8)));
        v.extend_from_slice(&offset.to_le_bytes());
        if matched >= 15 {
            length(&mut v, matched - 15);
        }
    }
    v.push((tail.min(15) as u8) << 4);
    if tail >= 15 {
        length(&mut v, tail - 15);
    }
    v.extend(std::iter::repeat_n(0x42, tail));
    v
}

/// What `assemble` inflates to when it is valid.
fn assembled_size(sequences: &[Sequence], tail: usize) -> usize {
    sequences.iter().map(|&(l, _, _, m)| l + m + 4).sum::<usize>() + tail
}

fn sequence() -> impl Strategy<Value = Sequence> {
    (
        prop_oneof![0usize..16, 0usize..600],
        any::<u8>(),
        prop_oneof![0u16..40, any::<u16>()],
        prop_oneof![0usize..16, 0usize..600],
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn compressed_blocks_are_accepted_at_their_size_only(
        seed in proptest::collection::vec(any::<u8>(), 1..64),
        runs in proptest::collection::vec((any::<u16>(), 0u16..700), 0..12),
    ) {
        let data = repetitive(&seed, &runs);
        let block = lz4_flex::block::compress(&data);
        prop_assert_eq!(check_lz4_block(&block, data.len()), Ok(()));
        agree(&block, data.len());
        let short = check_lz4_block(&block, data.len() + 1).unwrap_err().0;
        prop_assert_eq!(short, Lz4Fault::TooShort);
        agree(&block, data.len() + 1);
        if !data.is_empty() {
            prop_assert_eq!(check_lz4_block(&block, data.len() - 1).unwrap_err().0, Lz4Fault::TooLong);
            agree(&block, data.len() - 1);
        }
    }

    #[test]
    fn mutated_blocks_agree(
        seed in proptest::collection::vec(any::<u8>(), 1..32),
        runs in proptest::collection::vec((any::<u16>(), 0u16..300), 0..8),
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..4),
        cut in any::<usize>(),
        slack in -3i64..4,
    ) {
        let data = repetitive(&seed, &runs);
        let mut block = lz4_flex::block::compress(&data);
        for &(at, byte) in &edits {
            let i = at % block.len();
            block[i] = byte;
        }
        let size = (data.len() as i64 + slack).max(0) as usize;
        agree(&block, size);
        agree(&block[..cut % (block.len() + 1)], size);
    }

    #[test]
    fn assembled_blocks_agree(
        sequences in proptest::collection::vec(sequence(), 0..8),
        tail in prop_oneof![0usize..16, 0usize..300],
        slack in -2i64..3,
        offsets in prop_oneof![Just(Offsets::Drawn), Just(Offsets::Within), Just(Offsets::Edge)],
    ) {
        let block = assemble(&sequences, tail, offsets);
        let exact = assembled_size(&sequences, tail);
        let size = (exact as i64 + slack).max(0) as usize;
        agree(&block, size);
        if offsets == Offsets::Within && sequences.first().is_none_or(|s| s.0 > 0) {
            prop_assert_eq!(check_lz4_block(&block, exact), Ok(()));
        }
    }

    #[test]
    fn random_bytes_agree(block in proptest::collection::vec(any::<u8>(), 0..48), size in 0usize..400) {
        agree(&block, size);
    }
}

#[test]
fn the_assembled_blocks_are_valid_when_their_offsets_are() {
    // Offsets within what precedes them, exactly the size: valid.
    let sequences = [(3, b'a', 1, 0), (20, b'b', 23, 300), (0, 0, 5, 15), (15, b'c', 360, 255)];
    let block = assemble(&sequences, 17, Offsets::Drawn);
    let size = assembled_size(&sequences, 17);
    assert_eq!(check_lz4_block(&block, size), Ok(()));
    assert!(lz4_flex_accepts(&block, size));
    // A zero offset, or one reaching before the start, is refused at the offset's position.
    let zero = assemble(&[(3, b'a', 0, 0)], 0, Offsets::Drawn);
    assert_eq!(check_lz4_block(&zero, 7), Err((Lz4Fault::ZeroOffset, 4)));
    let far = assemble(&[(3, b'a', 4, 0)], 0, Offsets::Drawn);
    assert_eq!(check_lz4_block(&far, 7), Err((Lz4Fault::OffsetBeforeStart, 4)));
    assert!(!lz4_flex_accepts(&zero, 7) && !lz4_flex_accepts(&far, 7));
    // A block that ends after a match, not after a literal run, is truncated.
    let cut = &block[..block.len() - 18];
    assert_eq!(check_lz4_block(cut, size - 17).unwrap_err().0, Lz4Fault::Truncated);
    assert!(!lz4_flex_accepts(cut, size - 17));
}
