//! The interpreter that run-time schemas use walks only the offset fields a table's vtable gives
//! (or whose absence needs a look), remembered per vtable. These buffers, laid out by hand,
//! check that what it skips is only what it may skip: a required field a short vtable leaves
//! out, a bad field in the third of three tables sharing a vtable, a union's type without its
//! value, offset fields past the 32 the remembered bits cover, and one after 34 inline fields.

use flatmodel::reflect::{DynValue, Schema};
use flatmodel::verify::Options;

/// A buffer written front to back: offsets point forwards, vtables come before their tables.
#[derive(Default)]
struct Bytes(Vec<u8>);

impl Bytes {
    fn u16(&mut self, v: u16) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn pad4(&mut self) -> &mut Self {
        while !self.0.len().is_multiple_of(4) {
            self.0.push(0);
        }
        self
    }
    fn at(&self) -> u32 {
        self.0.len() as u32
    }
    /// A one-character string, padded to 4 bytes.
    fn string(&mut self, c: u8) -> &mut Self {
        self.u32(1);
        self.0.extend_from_slice(&[c, 0, 0, 0]);
        self
    }
}

const ITEMS: &str = "table S { n: int; name: string (required); tag: string; }
table R { items: [S]; }
root_type R;";

/// `R { items: [S, S, S] }`, the three `S` sharing one vtable: `n` and `name` present, or
/// `n` only (`short`: a vtable one slot long). With `bad_third`, the third `name` points past
/// the end.
fn items(short: bool, bad_third: bool) -> Vec<u8> {
    let mut b = Bytes::default();
    b.u32(12); // root: R at 12
    b.u16(6).u16(8).u16(4).pad4(); // R's vtable at 4: `items` at +4
    b.u32(8).u32(4); // R at 12 (vtable 8 before), `items` -> 20
    b.u32(3); // the vector at 20, its offsets at 24, 28, 32
    let (first_s, size) = (48u32, 12u32);
    for i in 0..3u32 {
        let at = 24 + 4 * i;
        b.u32(first_s + size * i - at);
    }
    // S's vtable at 36: `n` at +4, `name` at +8 (or absent), `tag` absent.
    if short {
        b.u16(6).u16(12).u16(4);
    } else {
        b.u16(10).u16(12).u16(4).u16(8).u16(0);
    }
    while b.at() < first_s {
        b.0.push(0);
    }
    let first_string = first_s + 3 * size;
    for i in 0..3u32 {
        let table = b.at();
        let name_at = table + 8;
        let target = first_string + 8 * i;
        let name = if bad_third && i == 2 { 0x00FF_0000 } else { target - name_at };
        b.u32(table - 36).u32(i).u32(name);
    }
    for i in 0..3u8 {
        b.string(b'a' + i);
    }
    b.0
}

fn error_of(schema: &Schema, bytes: &[u8]) -> String {
    let root = schema.root().expect("a root_type");
    match schema.verify(bytes, root, &Options::default()) {
        Ok(_) => "ok".to_string(),
        Err(e) => schema.error_text(&e, root).to_string(),
    }
}

#[test]
fn tables_sharing_a_vtable_are_each_followed() {
    let schema = Schema::from_fbs_text(ITEMS).expect("the schema loads");
    let root = schema.root().expect("a root_type");
    let good = items(false, false);
    let table = schema.verify(&good, root, &Options::default()).expect("a valid buffer");
    let Some(DynValue::Vector(vector)) = table.get("items") else { panic!("items") };
    let name = |i: usize| match vector.get(i) {
        Some(DynValue::Table(s)) => s.get("name").and_then(|v| v.as_str().map(str::to_string)),
        _ => None,
    };
    let names: Vec<String> = (0..vector.len()).filter_map(name).collect();
    assert_eq!(names, ["a", "b", "c"]);
    let bad = error_of(&schema, &items(false, true));
    assert!(bad.contains("R.items[2].name"), "{bad}");
}

#[test]
fn a_required_field_a_short_vtable_leaves_out_is_missing() {
    let schema = Schema::from_fbs_text(ITEMS).expect("the schema loads");
    let bad = error_of(&schema, &items(true, false));
    assert_eq!(bad, "required field missing at byte 48 (R.items[0].name)");
}

#[test]
fn fields_past_the_remembered_bits_are_followed() {
    let fields: String = (0..40).map(|i| format!("f{i}: string; ")).collect();
    let schema = Schema::from_fbs_text(&format!("table W {{ {fields} }} root_type W;")).expect("loads");
    // W's vtable at 4 (40 slots), `f35` its only field; W at 88, its string at 96.
    let buffer = |target: u32| {
        let mut b = Bytes::default();
        b.u32(88);
        b.u16(84).u16(8);
        for slot in 0..40 {
            b.u16(if slot == 35 { 4 } else { 0 });
        }
        assert_eq!(b.at(), 88);
        b.u32(84).u32(target);
        b.string(b'z');
        b.0
    };
    let root = schema.root().expect("a root_type");
    let good = buffer(4);
    let table = schema.verify(&good, root, &Options::default()).expect("a valid buffer");
    assert_eq!(table.get("f35").and_then(|v| v.as_str().map(str::to_string)).as_deref(), Some("z"));
    let bad = error_of(&schema, &buffer(0x00FF_0000));
    assert!(bad.contains("W.f35"), "{bad}");
}

const UNIONS: &str = "table A { x: int; }
union U { A }
table S { u: U; }
table R { items: [S]; }
root_type R;";

/// `R { items: [S, S, S] }`, the three `S` sharing one vtable that gives `u`'s type (the byte
/// `types[i]`) but not its value.
fn typed_unions(types: [u8; 3]) -> Vec<u8> {
    let mut b = Bytes::default();
    b.u32(12); // root: R at 12
    b.u16(6).u16(8).u16(4).pad4(); // R's vtable at 4: `items` at +4
    b.u32(8).u32(4); // R at 12, `items` -> 20
    b.u32(3); // the vector at 20, its offsets at 24, 28, 32 -> S at 44, 52, 60
    for i in 0..3u32 {
        b.u32(44 + 8 * i - (24 + 4 * i));
    }
    b.u16(8).u16(8).u16(4).u16(0); // S's vtable at 36: `u_type` at +4, `u` absent
    for (i, &ty) in types.iter().enumerate() {
        let table = 44 + 8 * i as u32;
        b.u32(table - 36);
        b.0.extend_from_slice(&[ty, 0, 0, 0]);
    }
    b.0
}

#[test]
fn a_union_type_without_its_value_is_looked_at_in_every_table_sharing_its_vtable() {
    let schema = Schema::from_fbs_text(UNIONS).expect("the schema loads");
    assert_eq!(error_of(&schema, &typed_unions([0, 0, 0])), "ok");
    let bad = error_of(&schema, &typed_unions([0, 0, 1]));
    assert!(bad.contains("at byte 60 (R.items[2].u)"), "{bad}");
    let bad = error_of(&schema, &typed_unions([1, 0, 0]));
    assert!(bad.contains("at byte 44 (R.items[0].u)"), "{bad}");
}

#[test]
fn an_offset_field_after_many_inline_fields_is_followed() {
    let ints: String = (0..34).map(|i| format!("i{i}: byte; ")).collect();
    let schema = Schema::from_fbs_text(&format!("table W {{ {ints} s: string; }} root_type W;")).expect("loads");
    // W's vtable at 4 (35 slots), `s` (slot 34) its only field; W at 80, its string at 88.
    let buffer = |target: u32| {
        let mut b = Bytes::default();
        b.u32(80);
        b.u16(74).u16(8);
        for slot in 0..35 {
            b.u16(if slot == 34 { 4 } else { 0 });
        }
        b.pad4();
        assert_eq!(b.at(), 80);
        b.u32(76).u32(target);
        b.string(b'y');
        b.0
    };
    let root = schema.root().expect("a root_type");
    let good = buffer(4);
    let table = schema.verify(&good, root, &Options::default()).expect("a valid buffer");
    assert_eq!(table.get("s").and_then(|v| v.as_str().map(str::to_string)).as_deref(), Some("y"));
    let bad = error_of(&schema, &buffer(0x00FF_0000));
    assert!(bad.contains("W.s"), "{bad}");
}
