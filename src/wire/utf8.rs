//! Strings of verified buffers, read without checking their UTF-8 a second time. This is the
//! crate's one `unsafe` block.
//!
//! The verifier checks every string it reaches (`Verifier::string`); views exist only over
//! buffers it accepted (the `Seal` in `wire/mod.rs`), so a view's string accessor has nothing
//! left to check, and checking again would make reading a string cost its length on every
//! call: 30,000 references to one 64 KiB name verify in a fraction of a millisecond (the
//! verifier's memo checks the name once) but took about 100 ms to read.

use super::broken;
use super::bytes::vector_bytes_at;

/// The string whose length prefix is at `at` in `buf`, where a view's accessor found a string
/// field (or a string vector's element) of its schema.
///
/// Debug builds (tests, fuzzing) check the UTF-8 again and panic on a verifier bug; CI also
/// runs the tests that read strings through here under Miri.
#[inline(always)]
#[allow(unsafe_code)] // the crate's one `unsafe`: see the SAFETY comment below
pub(crate) fn verified_str(buf: &[u8], at: usize) -> Option<&str> {
    let Some((bytes, _)) = vector_bytes_at(buf, at, 1) else {
        return broken(None);
    };
    debug_assert!(core::str::from_utf8(bytes).is_ok(), "flatmodel: a verified string is not UTF-8 (verifier bug)");
    // SAFETY: `bytes` is the string at `at`: its u32 length, then that many bytes, exactly what
    // `Verifier::string` read at `at` before accepting the buffer, and it rejects the buffer
    // (`InvalidUtf8`) unless those bytes are UTF-8 (a string it meets again through its memo
    // was checked the first time; any failure fails the whole verification). `at` is such a
    // position because only views call this, only this crate builds views (their
    // constructors take a `Seal` outside code cannot name, and `Table`'s constructors and
    // field reads are crate-private), every view starts at a root `container::verified_root`
    // returns after the verifier accepted `buf`, and views only follow the fields their own
    // `fb_table!` expansion declared, with the kinds it verified (the dump follows the
    // descriptor of the same expansion, through `dump::Dumpable`). A schema read at run time
    // (`reflect`) is the same argument with one resolved model in place of the expansion: its
    // views and its dump start at a root `Schema::verify` returns after the verifier accepted
    // `buf` against the layout built from that model, and follow only the model's fields with
    // the kinds that layout verified (a union's string member, a nested flatbuffer's root
    // included). `buf` is borrowed immutably for as long as any view of it, so its bytes are
    // the ones that were checked.
    Some(unsafe { core::str::from_utf8_unchecked(bytes) })
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::unwrap_used, clippy::arithmetic_side_effects)] // in tests a panic is a failure
mod tests {
    //! The strings `verified_str` hands out, on a small buffer of the sample schema: CI runs
    //! these under Miri (`.ci/run`), which checks the `unsafe` block on every path into it.
    extern crate std;
    use crate::schema::sample;
    use crate::verify::Options;
    use crate::ErrorKind;
    use std::vec::Vec;

    /// Node { tags: TAGS, kids: [Leaf { name: KID }] }, every string given as raw bytes.
    fn node(tags: &[&[u8]], kid: &[u8]) -> Vec<u8> {
        let mut b = Vec::new();
        let pad = |b: &mut Vec<u8>| b.resize(b.len().next_multiple_of(4), 0);
        let put = |b: &mut Vec<u8>, v: u32| b.extend_from_slice(&v.to_le_bytes());
        let patch = |b: &mut Vec<u8>, at: usize, to: usize| {
            b[at..at + 4].copy_from_slice(&u32::try_from(to - at).unwrap().to_le_bytes());
        };
        let string = |b: &mut Vec<u8>, s: &[u8]| {
            pad(b);
            let at = b.len();
            put(b, u32::try_from(s.len()).unwrap());
            b.extend_from_slice(s);
            b.push(0);
            at
        };
        put(&mut b, 0);
        b.extend_from_slice(b"NODE");
        // Node's vtable: 9 slots, `tags` (3) at 4 and `kids` (8) at 8 of a 12-byte table.
        let node_vt = b.len();
        for v in [22u16, 12, 0, 0, 0, 4, 0, 0, 0, 0, 8] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        // Leaf's vtable: `name` (0) at 4 of an 8-byte table.
        let leaf_vt = b.len();
        for v in [6u16, 8, 4] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        pad(&mut b);
        let node = b.len();
        put(&mut b, u32::try_from(node - node_vt).unwrap());
        b.resize(node + 12, 0);
        patch(&mut b, 0, node);
        let tag_vec = b.len();
        put(&mut b, u32::try_from(tags.len()).unwrap());
        b.resize(tag_vec + 4 + 4 * tags.len(), 0);
        patch(&mut b, node + 4, tag_vec);
        let kid_vec = b.len();
        put(&mut b, 1);
        put(&mut b, 0);
        patch(&mut b, node + 8, kid_vec);
        let leaf = b.len();
        put(&mut b, u32::try_from(leaf - leaf_vt).unwrap());
        put(&mut b, 0);
        patch(&mut b, kid_vec + 4, leaf);
        let name = string(&mut b, kid);
        patch(&mut b, leaf + 4, name);
        for (i, t) in tags.iter().enumerate() {
            let s = string(&mut b, t);
            patch(&mut b, tag_vec + 4 + 4 * i, s);
        }
        b
    }

    /// Whether `s` lies inside `buf`.
    fn in_buffer(s: &str, buf: &[u8]) -> bool {
        let range = buf.as_ptr_range();
        range.contains(&s.as_ptr()) && s.as_bytes().as_ptr_range().end <= range.end
    }

    #[test]
    fn strings_read_back_in_place_through_every_accessor() {
        let tags: [&[u8]; 4] = [b"", "h\u{e9}llo".as_bytes(), "\u{540d}\u{524d}".as_bytes(), b"\x7f"];
        let bytes = node(&tags, "ok \u{2713}".as_bytes());
        let n = sample::parse(&bytes, &Options::DEFAULT).unwrap();
        // A string field (`Table::string`).
        let kid = n.kids().unwrap().get(0).unwrap().name();
        assert_eq!(kid, "ok \u{2713}");
        assert!(in_buffer(kid, &bytes));
        // A string vector, by index and by iteration (`StrVector`).
        let v = n.tags().unwrap();
        let by_index: Vec<&str> = (0..v.len()).map(|i| v.get(i).unwrap()).collect();
        let by_iter: Vec<&str> = v.iter().collect();
        assert_eq!(by_index, ["", "h\u{e9}llo", "\u{540d}\u{524d}", "\x7f"]);
        assert_eq!(by_iter, by_index);
        assert!(by_iter.iter().all(|s| in_buffer(s, &bytes)));
    }

    #[test]
    fn a_buffer_with_any_string_not_utf8_yields_no_view() {
        // A lone continuation byte, a truncated sequence, a surrogate, an overlong encoding.
        for bad in [&b"\x80"[..], b"\xe5\x90", b"\xed\xa0\x80", b"\xc0\xaf"] {
            let as_tag = node(&[b"ok", bad], b"kid");
            let err = sample::parse(&as_tag, &Options::DEFAULT).map(|_| ()).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidUtf8, "{bad:?} as a tag");
            let as_name = node(&[b"ok"], bad);
            let err = sample::parse(&as_name, &Options::DEFAULT).map(|_| ()).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidUtf8, "{bad:?} as a name");
        }
    }
}
