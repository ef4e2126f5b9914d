//! Every kind of field the schema macros support, on a small hand-declared schema (TFLite uses
//! only some of them): structs with padding and 8-byte alignment, struct vectors, string
//! vectors, unions and union vectors, required fields, and nested and size-prefixed buffers.

mod support;

use flatmodel::verify::{Options, Verifier};
use flatmodel::ErrorKind;
use support::Bytes;

// The schema lives in the crate (`flatmodel::schema::sample`): only the crate builds views.
use flatmodel::schema::sample;
use sample::{Any, Color, Node};

/// Node { color: BLUE, pos: (1, 2, 3), pairs: [(GREEN, 2^40)], tags: ["a", "bc"],
///        any: Leaf { name: "x" }, anys: [Leaf { name: "y", v: 9 }], kids: [Leaf { name: <kid> }] }
/// Node's inline layout (after its soffset at 0): color @4, pos @8..20, offsets @20..40.
fn node(kid_name: Option<&[u8]>, union_types: &[u8]) -> Vec<u8> {
    let mut b = Bytes::with_identifier(b"NODE");
    let vt = b.vtable(&[4, 8, 20, 24, 5, 28, 32, 36, 40], 44);
    let mut inline = vec![2, 1, 0, 0]; // color BLUE, any_type = 1 (Leaf)
    for f in [1.0f32, 2.0, 3.0] {
        inline.extend_from_slice(&f.to_le_bytes());
    }
    inline.resize(40, 0);
    let node = b.table(vt, &inline);
    b.patch(0, node);
    // pairs: one 16-byte struct whose u64 must be 8-aligned: the vector's data starts at a
    // multiple of 8.
    while !(b.pos() + 4).is_multiple_of(8) {
        b.buf.push(0);
    }
    let pairs = b.pos();
    b.u32(1);
    b.buf.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0]);
    b.buf.extend_from_slice(&(1u64 << 40).to_le_bytes());
    b.patch(node + 20, pairs);
    let tags = b.offsets(2);
    b.patch(node + 24, tags);
    for (i, t) in [&b"a"[..], b"bc"].into_iter().enumerate() {
        let s = b.string(t);
        b.patch(tags + 4 + 4 * i, s);
    }
    let leaf_vt = b.vtable(&[4, 8], 12);
    let leaf = |b: &mut Bytes, name: Option<&[u8]>, v: u32| {
        let vt = if name.is_some() { leaf_vt } else { b.vtable(&[0, 8], 12) };
        let mut inline = vec![0; 4];
        inline.extend_from_slice(&v.to_le_bytes());
        let t = b.table(vt, &inline);
        if let Some(name) = name {
            let s = b.string(name);
            b.patch(t + 4, s);
        }
        t
    };
    let any = leaf(&mut b, Some(b"x"), 7);
    b.patch(node + 28, any);
    b.pad_to(4);
    let types = b.pos();
    b.u32(union_types.len() as u32);
    b.buf.extend_from_slice(union_types);
    b.patch(node + 32, types);
    let anys = b.offsets(1);
    b.patch(node + 36, anys);
    let y = leaf(&mut b, Some(b"y"), 9);
    b.patch(anys + 4, y);
    let kids = b.offsets(1);
    b.patch(node + 40, kids);
    let kid = leaf(&mut b, kid_name, 1);
    b.patch(kids + 4, kid);
    b.buf
}

fn parse(bytes: &[u8]) -> Result<Node<'_>, flatmodel::Error> {
    sample::parse(bytes, &Options::DEFAULT)
}

#[test]
fn every_field_kind_reads_back() {
    let bytes = node(Some(b"kid"), &[1]);
    let n = parse(&bytes).unwrap();
    assert_eq!(n.color(), Color::BLUE);
    let pos = n.pos().unwrap();
    assert_eq!((pos.x(), pos.y(), pos.z()), (1.0, 2.0, 3.0));
    let pairs = n.pairs().unwrap();
    assert_eq!(pairs.len(), 1);
    let pair = pairs.get(0).unwrap();
    assert_eq!((pair.id(), pair.value()), (Color::GREEN, 1 << 40));
    assert_eq!(n.tags().unwrap().iter().collect::<Vec<_>>(), ["a", "bc"]);
    let Any::Leaf(leaf) = n.any() else { panic!("any is a Leaf") };
    assert_eq!((leaf.name(), leaf.v()), ("x", 7));
    let anys: Vec<_> = n.anys().unwrap().iter().collect();
    assert!(matches!(anys.as_slice(), [Any::Leaf(l)] if l.name() == "y" && l.v() == 9));
    assert_eq!(n.kids().unwrap().get(0).unwrap().name(), "kid");
    // The descriptor-driven dump sees the same values.
    let mut text = String::new();
    flatmodel::dump::dump_table(&mut text, flatmodel::dump::Dumpable::new(n), &Options::DEFAULT).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["color"], "BLUE");
    assert_eq!(json["pos"], serde_json::json!({"x": 1.0, "y": 2.0, "z": 3.0}));
    assert_eq!(json["pairs"], serde_json::json!([{"id": "GREEN", "value": 1u64 << 40}]));
    assert_eq!(json["any_type"], "Leaf");
    assert_eq!(json["anys_type"], serde_json::json!(["Leaf"]));
    assert_eq!(json["anys"][0]["v"], 9);
    assert_eq!(json["kids"][0]["name"], "kid");
}

#[test]
fn a_missing_required_field_is_located() {
    let bytes = node(None, &[1]);
    let err = parse(&bytes).map(|_| ()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::MissingRequired);
    assert_eq!(err.location().to_string(), "Node.kids[0].name");
}

#[test]
fn union_vectors_need_one_known_type_per_value() {
    // Two types for one value.
    let err = parse(&node(Some(b"k"), &[1, 1])).map(|_| ()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UnionMismatch);
    assert_eq!(err.location().to_string(), "Node.anys");
    // A NONE element with a value.
    let err = parse(&node(Some(b"k"), &[0])).map(|_| ()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UnionMismatch);
    // A type from a newer writer reads as a raw number.
    let bytes = node(Some(b"k"), &[77]);
    let n = parse(&bytes).unwrap();
    assert!(matches!(n.anys().unwrap().get(0), Some(Any::Unknown(77))));
}

#[test]
fn misaligned_8_byte_fields_are_rejected_unless_alignment_is_off() {
    // A Node whose u64 `big` (slot 9) sits right after the soffset of an 8-aligned table.
    let mut b = Bytes::with_identifier(b"NODE");
    let vt = b.vtable(&[0, 0, 0, 0, 0, 0, 0, 0, 0, 4], 12);
    b.pad_to(8);
    let t = b.table(vt, &7u64.to_le_bytes());
    assert_eq!(t % 8, 0);
    b.patch(0, t);
    let err = parse(&b.buf).map(|_| ()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Misaligned);
    assert_eq!(err.location().to_string(), "Node.big");
    assert_eq!(err.offset() as usize, t + 4);
    let lenient = Options { check_alignment: false, ..Options::DEFAULT };
    let mut v = Verifier::new(&b.buf, &lenient);
    assert!(v.verify_root::<Node<'static>>(None).is_ok());
}

#[test]
fn nested_flatbuffers_report_offsets_in_the_outer_buffer() {
    // A Leaf-rooted flatbuffer whose name is not UTF-8, placed at byte 64 of a larger buffer.
    let mut inner = Bytes::default();
    inner.u32(0);
    let vt = inner.vtable(&[4, 8], 12);
    let t = inner.table(vt, &[0, 0, 0, 0, 5, 0, 0, 0]);
    inner.patch(0, t);
    let s = inner.string(&[0xff]);
    inner.patch(t + 4, s);
    let mut outer = vec![0u8; 64];
    outer.extend_from_slice(&inner.buf);
    let bad_byte = 64 + s + 4;
    assert_eq!(outer[bad_byte], 0xff);
    let mut v = Verifier::new(&outer, &Options::DEFAULT);
    assert!(v.verify_nested::<sample::Leaf<'static>>(&outer[64..], 64, None).is_err());
    let err = v.last_error();
    assert_eq!(err.kind(), ErrorKind::InvalidUtf8);
    assert_eq!(err.offset() as usize, bad_byte);
    assert!(err.location().to_string().ends_with("Leaf.name"), "{}", err.location());
    // With a valid name, the nested buffer verifies and its root position is returned.
    outer[bad_byte] = b'k';
    let mut v = Verifier::new(&outer, &Options::DEFAULT);
    assert_eq!(v.verify_nested::<sample::Leaf<'static>>(&outer[64..], 64, None).ok(), Some(t));
}

#[test]
fn size_prefixed_buffers_are_unframed() {
    let bytes = node(Some(b"kid"), &[1]);
    let mut framed = (bytes.len() as u32).to_le_bytes().to_vec();
    framed.extend_from_slice(&bytes);
    framed.extend_from_slice(b"trailing");
    let inner = flatmodel::wire::size_prefixed(&framed).unwrap();
    assert_eq!(inner, &bytes[..]);
    assert!(parse(inner).is_ok());
    assert_eq!(flatmodel::wire::size_prefixed(&framed[..10]), None);
    assert_eq!(flatmodel::wire::size_prefixed(&[1, 0]), None);
}

/// Root { anys: [A, B] }, A and B Nodes sharing one vtable that puts the u64 `big` at
/// voffset 8. A is 8-aligned; B is 8-aligned too, or 4 bytes off when `misalign_b`.
fn two_nodes(misalign_b: bool) -> Vec<u8> {
    let mut b = Bytes::with_identifier(b"NODE");
    let vt_root = b.vtable(&[0, 0, 0, 0, 0, 0, 4, 8], 12);
    let root = b.table(vt_root, &[0; 8]);
    b.patch(0, root);
    b.pad_to(4);
    let types = b.pos();
    b.u32(2);
    b.buf.extend_from_slice(&[2, 2]);
    b.patch(root + 4, types);
    let anys = b.offsets(2);
    b.patch(root + 8, anys);
    let vt = b.vtable(&[0, 0, 0, 0, 0, 0, 0, 0, 0, 8], 16);
    let node = |b: &mut Bytes| b.table(vt, &[0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0]);
    b.pad_to(8);
    let a = node(&mut b);
    assert_eq!(a % 8, 0);
    b.pad_to(8);
    if misalign_b {
        b.u32(0);
    }
    let c = node(&mut b);
    assert_eq!(c % 8, if misalign_b { 4 } else { 0 });
    b.patch(anys + 4, a);
    b.patch(anys + 8, c);
    b.buf
}

#[test]
fn a_shared_vtable_is_rechecked_for_each_alignment_class() {
    // A is verified first, so its vtable check is remembered; B must still be rejected.
    let err = parse(&two_nodes(true)).map(|_| ()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Misaligned, "{err}");
    assert_eq!(err.location().to_string(), "Node.anys[1].big");
    let ok = two_nodes(false);
    let n = parse(&ok).unwrap();
    let bigs: Vec<u64> = n
        .anys()
        .unwrap()
        .iter()
        .map(|u| match u {
            Any::Node(node) => node.big(),
            _ => 0,
        })
        .collect();
    assert_eq!(bigs, [7, 7]);
}

/// Every kind of vector iterates by value (`for x in v`) and by reference (`for x in &v`) as
/// `v.iter()` does; its default is empty, over no bytes: no element and nothing iterated; its
/// `Debug` prints its length, not its elements.
#[test]
fn vectors_are_iterable_and_default_to_empty() {
    use flatmodel::wire::{StrVector, StructVector, TableVector, UnionVector, Vector};
    let bytes = node(Some(b"kid"), &[1]);
    let n = parse(&bytes).unwrap();

    let pairs = n.pairs().unwrap();
    let pair = |p: sample::Pair<'_>| (p.id(), p.value());
    assert_eq!(pairs.iter().map(pair).collect::<Vec<_>>(), [(Color::GREEN, 1 << 40)]);
    assert_eq!(pairs.into_iter().map(pair).collect::<Vec<_>>(), [(Color::GREEN, 1 << 40)]);
    assert_eq!((&pairs).into_iter().map(pair).collect::<Vec<_>>(), [(Color::GREEN, 1 << 40)]);
    assert_eq!(pairs.iter().len(), 1);

    let tags = n.tags().unwrap();
    assert_eq!(tags.into_iter().collect::<Vec<_>>(), ["a", "bc"]);
    assert_eq!((&tags).into_iter().collect::<Vec<_>>(), ["a", "bc"]);
    let mut looped = Vec::new();
    for t in n.tags().unwrap_or_default() {
        looped.push(t);
    }
    assert_eq!(looped, ["a", "bc"]);

    fn leaf_name(a: Any<'_>) -> Option<&str> {
        match a {
            Any::Leaf(l) => Some(l.name()),
            _ => None,
        }
    }
    let anys = n.anys().unwrap();
    assert_eq!(anys.into_iter().map(leaf_name).collect::<Vec<_>>(), [Some("y")]);
    assert_eq!((&anys).into_iter().map(leaf_name).collect::<Vec<_>>(), [Some("y")]);
    assert_eq!(anys.iter().len(), 1);

    let kids = n.kids().unwrap();
    assert_eq!(kids.into_iter().map(|k| k.name()).collect::<Vec<_>>(), ["kid"]);
    assert_eq!((&kids).into_iter().map(|k| k.name()).collect::<Vec<_>>(), ["kid"]);
    assert_eq!(n.kids().into_iter().flatten().map(|k| k.v()).collect::<Vec<_>>(), [1]);

    assert_eq!(format!("{tags:?}"), "StrVector { len: 2 }");
    assert_eq!(format!("{kids:?}"), "TableVector { len: 1 }");
    assert_eq!(format!("{anys:?}"), "UnionVector { len: 1 }");
    assert_eq!(format!("{pairs:?}"), "StructVector { bytes: 16 }");

    let empty: StructVector<'_, sample::Pair<'_>> = Default::default();
    assert_eq!((empty.len(), empty.is_empty(), empty.get(0).is_none(), empty.bytes()), (0, true, true, &[][..]));
    assert_eq!((empty.iter().count(), empty.into_iter().count()), (0, 0));
    let empty = StrVector::default();
    assert_eq!((empty.len(), empty.is_empty(), empty.get(0).is_none()), (0, true, true));
    assert_eq!((empty.iter().count(), empty.into_iter().count()), (0, 0));
    let empty: UnionVector<'_, Any<'_>> = Default::default();
    assert_eq!((empty.len(), empty.is_empty(), empty.get(0).is_none()), (0, true, true));
    assert_eq!((empty.iter().count(), empty.into_iter().count()), (0, 0));
    let empty: TableVector<'_, sample::Leaf<'_>> = Default::default();
    assert_eq!((empty.len(), empty.is_empty(), empty.get(0).is_none()), (0, true, true));
    assert_eq!((empty.iter().count(), empty.into_iter().count()), (0, 0));
    let empty: Vector<'_, u64> = Default::default();
    assert_eq!((empty.len(), empty.is_empty(), empty.get(0), empty.as_slice().len()), (0, true, None, 0));
    assert_eq!((empty.iter().count(), empty.into_iter().count()), (0, 0));
}
