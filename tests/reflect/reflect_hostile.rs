//! Hostile schemas and buffers for `flatmodel::reflect`: each is refused with a clear error, or
//! (where flatc accepts it) loads, and either way the work stays bounded: no recursion on the
//! input's nesting, nothing quadratic in its size. The sizes are large enough that a quadratic
//! step or a recursion per level would show (as a test that does not finish, or a stack
//! overflow); no test measures time.

use flatmodel::dump::DumpError;
use flatmodel::reflect::{fbs, DynValue, Schema, SchemaError};
use flatmodel::verify::Options;
use flatmodel::ErrorKind;
use std::fmt::Write as _;

/// A `fmt::Write` that only counts.
struct Sink(usize);

impl std::fmt::Write for Sink {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0 += s.len();
        Ok(())
    }
}

/// The error `text` is refused with; panics if it loads.
fn refused(text: &str) -> SchemaError {
    match Schema::from_fbs_text(text) {
        Ok(_) => panic!("loaded: {}", &text[..text.len().min(200)]),
        Err(e) => e,
    }
}

fn loads(text: &str) -> Schema {
    Schema::from_fbs_text(text).unwrap_or_else(|e| panic!("{e}"))
}

/// Asserts the error message contains `want` (the message alone: a hostile name in it may be
/// huge, so only its start is shown on failure).
fn assert_message(e: &SchemaError, want: &str) {
    let text = e.to_string();
    assert!(e.message.contains(want), "want {want:?} in {:?}", &text[..text.len().min(300)]);
}

// ---- buffers -----------------------------------------------------------------------------------

/// Little-endian writes into a buffer of zeros.
fn put_u16(buf: &mut [u8], at: usize, v: u16) {
    buf[at..at + 2].copy_from_slice(&v.to_le_bytes());
}

fn put_u32(buf: &mut [u8], at: usize, v: u32) {
    buf[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// `depth` tables of `table T { child: T; }`, each the child of the one before: the root offset,
/// two vtables (with the field, without), then 8-byte tables, the last without a child.
fn chain(depth: usize) -> Vec<u8> {
    let first = 16;
    let mut buf = vec![0u8; first + 8 * depth];
    put_u32(&mut buf, 0, first as u32);
    // The vtable of a table with its child (at 4) and of the last, without.
    for (at, v) in [(4, 6u16), (6, 8), (8, 4), (10, 4), (12, 4)] {
        put_u16(&mut buf, at, v);
    }
    for i in 0..depth {
        let pos = first + 8 * i;
        if i + 1 < depth {
            put_u32(&mut buf, pos, (pos - 4) as u32);
            put_u32(&mut buf, pos + 4, 4);
        } else {
            put_u32(&mut buf, pos, (pos - 10) as u32);
        }
    }
    buf
}

/// `depth` flatbuffers of `table N { inner: [ubyte] (nested_flatbuffer: "N"); }`, each nested
/// in the one before; the innermost an empty `N`. Each level: root offset, vtable, table
/// (soffset, offset to the vector), the vector's length, then the next level as its bytes.
fn nested(depth: usize) -> Vec<u8> {
    let total = 24 * depth + 16;
    let mut buf = vec![0u8; total];
    for k in 0..depth {
        let b = 24 * k;
        put_u32(&mut buf, b, 12);
        for (at, v) in [(4, 6u16), (6, 8), (8, 4)] {
            put_u16(&mut buf, b + at, v);
        }
        put_u32(&mut buf, b + 12, 8);
        put_u32(&mut buf, b + 16, 4);
        put_u32(&mut buf, b + 20, (total - b - 24) as u32);
    }
    let empty = [12, 0, 0, 0, 0, 0, 0, 0, 4, 0, 4, 0, 4, 0, 0, 0];
    buf[24 * depth..].copy_from_slice(&empty);
    buf
}

/// `depth` tables of `table D { l: D; r: D; }` whose two children are the same next table: a
/// buffer of `12 * depth` bytes that reads as a tree of `2^depth` tables.
fn diamond_chain(depth: usize) -> Vec<u8> {
    let first = 20;
    let mut buf = vec![0u8; first + 12 * depth];
    put_u32(&mut buf, 0, first as u32);
    for (at, v) in [(4, 8u16), (6, 12), (8, 4), (10, 8), (12, 4), (14, 4)] {
        put_u16(&mut buf, at, v);
    }
    for i in 0..depth {
        let pos = first + 12 * i;
        if i + 1 < depth {
            put_u32(&mut buf, pos, (pos - 4) as u32);
            put_u32(&mut buf, pos + 4, 12 - 4);
            put_u32(&mut buf, pos + 8, 12 - 8);
        } else {
            put_u32(&mut buf, pos, (pos - 12) as u32);
        }
    }
    buf
}

// ---- enums -------------------------------------------------------------------------------------

fn enum_text(repr: &str, attrs: &str, n: usize) -> String {
    let mut text = format!("enum E : {repr} {attrs} {{\n");
    for i in 0..n {
        write!(text, "V{i},").unwrap();
        if i % 16 == 15 {
            text.push('\n');
        }
    }
    text.push_str("}\ntable T { e: E; es: [E]; }\nroot_type T;\n");
    text
}

#[test]
fn an_enum_of_200000_values_loads() {
    let schema = loads(&enum_text("int", "", 200_000));
    assert_eq!(schema.counts(), [1, 0, 1, 0]);
}

#[test]
fn enums_of_200000_values_past_their_type_are_refused() {
    // flatc numbers values on from the last: the 257th of a ubyte enum is 256.
    assert_message(&refused(&enum_text("ubyte", "", 200_000)), "enum value does not fit: V256 = 256");
    assert_message(&refused(&enum_text("short", "", 200_000)), "enum value does not fit: V32768 = 32768");
    assert_message(
        &refused(&enum_text("ubyte", "(bit_flags)", 200_000)),
        "bit flag out of range of underlying type: 8",
    );
}

#[test]
fn a_vector_of_a_large_enum_dumps_in_linear_time() {
    let schema = loads(&enum_text("int", "", 60_000));
    // T { es: [E] } with 20,000 values absent from the enum (each scan goes to the end).
    let n = 20_000;
    let mut buf = vec![0u8; 24 + 4 * n];
    put_u32(&mut buf, 0, 12);
    for (at, v) in [(4, 8u16), (6, 8), (8, 0), (10, 4)] {
        put_u16(&mut buf, at, v);
    }
    put_u32(&mut buf, 12, 8);
    put_u32(&mut buf, 16, 4);
    put_u32(&mut buf, 20, n as u32);
    for i in 0..n {
        put_u32(&mut buf, 24 + 4 * i, 1_000_000);
    }
    let table = schema.verify(&buf, schema.root().unwrap(), &Options::default()).unwrap();
    let Some(DynValue::Vector(es)) = table.get("es") else { panic!("no es") };
    assert_eq!(es.iter().filter(|v| matches!(v, DynValue::Enum(_, None))).count(), n);
    schema.dump(&mut Sink(0), table, &Options::default()).unwrap();
}

// ---- includes ----------------------------------------------------------------------------------

#[test]
fn a_10000_deep_include_chain_is_refused_at_the_depth_limit() {
    // f0 includes f1 includes f2 ... f10000: the loader is asked for 65 files, not 10,001.
    let mut asked = 0usize;
    let e = Schema::from_fbs("f0.fbs", &mut |p: &str| {
        asked += 1;
        let n: usize =
            p.trim_start_matches('f').trim_end_matches(".fbs").parse().map_err(|_| format!("bad name {p}"))?;
        Ok(if n < 10_000 { format!("include \"f{}.fbs\";\ntable T{n} {{}}\n", n + 1) } else { String::new() })
    })
    .unwrap_err();
    assert_message(&e, "includes nest more than 64 deep");
    assert_eq!(asked, 65);
    // The same through directories: d/a.fbs includes d/d/a.fbs, ... (each name new).
    let mut asked = 0usize;
    let e = Schema::from_fbs("a.fbs", &mut |_: &str| {
        asked += 1;
        Ok("include \"d/a.fbs\";\n".to_string())
    })
    .unwrap_err();
    assert_message(&e, "includes nest more than 64 deep");
    assert_eq!(asked, 65);
}

#[test]
fn more_than_1024_files_are_refused() {
    // One file including 10,000 others, each once: refused at the 1,025th.
    let mut asked = 0usize;
    let e = Schema::from_fbs("main.fbs", &mut |p: &str| {
        asked += 1;
        Ok(match p {
            "main.fbs" => (0..10_000).map(|i| format!("include \"f{i}.fbs\";\n")).collect(),
            _ => String::new(),
        })
    })
    .unwrap_err();
    assert_message(&e, "more than 1024 schema files");
    assert_eq!(asked, 1024);
}

#[test]
fn include_cycles_are_read_once() {
    let files = |p: &str| -> Result<String, String> {
        Ok(match p {
            "a.fbs" => "include \"b.fbs\";\ninclude \"a.fbs\";\ntable A { b: B; }\nroot_type A;\n",
            "b.fbs" => "include \"c.fbs\";\ntable B { c: C; }\n",
            "c.fbs" => "include \"a.fbs\";\ninclude \"./b.fbs\";\ntable C { a: A; }\n",
            other => return Err(format!("no {other}")),
        }
        .to_string())
    };
    let mut asked = Vec::new();
    let schema = Schema::from_fbs("a.fbs", &mut |p: &str| {
        asked.push(p.to_string());
        files(p)
    })
    .unwrap();
    assert_eq!(asked, ["a.fbs", "b.fbs", "c.fbs"]);
    assert_eq!(schema.counts(), [3, 0, 0, 0]);
    // Names that normalize to the file itself are the file; under another name it is read
    // again, and its declarations clash.
    let mut asked = Vec::new();
    let e = Schema::from_fbs("a.fbs", &mut |p: &str| {
        asked.push(p.to_string());
        Ok("include \"./a.fbs\";\ninclude \"b/../a.fbs\";\ninclude \"c.fbs\";\ntable T {}\n".into())
    })
    .unwrap_err();
    assert_eq!(asked, ["a.fbs", "c.fbs"]);
    assert_message(&e, "`T` is declared twice");
}

// ---- recursive and repeated declarations -------------------------------------------------------

#[test]
fn structs_that_contain_themselves_are_refused() {
    assert_message(&refused("struct S { a: int; s: S; }"), "struct `S` must be declared before a struct holds it");
    assert_message(&refused("struct S { a: [S:2]; }"), "struct `S` must be declared before a struct holds it");
    assert_message(
        &refused("struct A { x: byte; b: B; }\nstruct B { y: byte; a: A; }"),
        "struct `B` must be declared before a struct holds it",
    );
    // A table may hold itself, directly or through a vector, a union or another table.
    let schema = loads("table T { t: T; ts: [T]; u: U; o: O; }\ntable O { t: T; }\nunion U { T, O }\nroot_type T;");
    assert_eq!(schema.counts(), [2, 0, 0, 1]);
}

#[test]
fn a_struct_larger_than_a_table_field_can_hold_is_refused() {
    assert_message(&refused("struct S { a: [ulong:65535]; }"), "struct `S` is larger than 65535 bytes");
    // Nested: each struct doubles the one before.
    let mut text = String::from("struct S0 { a: [ulong:1000]; }\n");
    for i in 1..20 {
        writeln!(text, "struct S{i} {{ a: S{}; b: S{}; }}", i - 1, i - 1).unwrap();
    }
    assert_message(&refused(&text), "struct `S4` is larger than 65535 bytes");
}

/// A chain of `depth` structs, each holding the one before, in a table, and a buffer holding
/// one (a struct is a fixed-size blob to the verifier), padded so that the dump's budget (per
/// input byte) does not stop it early.
fn deep_struct_schema(depth: usize) -> (String, Vec<u8>) {
    let mut text = String::from("struct S0 { a: byte; }\n");
    for i in 1..depth {
        writeln!(text, "struct S{i} {{ a: S{}; }}", i - 1).unwrap();
    }
    writeln!(text, "table T {{ s: S{}; }}\nroot_type T;", depth - 1).unwrap();
    // T with its struct (1 byte) at 4: root offset, vtable [6, 5, 4], table.
    let mut buf = vec![12, 0, 0, 0, 6, 0, 5, 0, 4, 0, 0, 0, 8, 0, 0, 0, 7, 0, 0, 0];
    buf.resize(buf.len() + 30 * depth, 0);
    (text, buf)
}

/// Structs nest at most 64 deep (the dump and the views descend once per level): 20,000 is a
/// clear error rather than a stack overflow in the dump, and 64 loads, verifies, reads and
/// dumps every level.
#[test]
fn structs_nest_64_deep_and_no_deeper() {
    let (text, _) = deep_struct_schema(20_000);
    assert_message(&refused(&text), "structs nested more than 64 deep");
    assert_message(&refused(&deep_struct_schema(65).0), "structs nested more than 64 deep");
    let (text, buf) = deep_struct_schema(64);
    let schema = loads(&text);
    let table = schema.verify(&buf, schema.root().unwrap(), &Options::default()).unwrap();
    let mut value = table.get("s");
    let mut levels = 0;
    while let Some(DynValue::Struct(s)) = value {
        levels += 1;
        value = s.get("a");
    }
    assert_eq!(levels, 64);
    assert!(matches!(value, Some(DynValue::Scalar(_))));
    let mut out = String::new();
    schema.dump(&mut out, table, &Options::default()).unwrap();
    assert_eq!(out.matches("\"a\": ").count(), 64);
}

#[test]
fn two_declarations_of_one_name_are_refused() {
    for text in [
        "table T {}\ntable T {}",
        "table T {}\nstruct T { a: int; }",
        "enum T : byte { A }\nunion T { X }\ntable X {}",
        "namespace a.b;\ntable T {}\nnamespace a;\ntable X {}\nnamespace a.b;\ntable T {}",
    ] {
        let e = refused(text);
        assert!(e.message.contains("` is declared twice"), "{text}: {e}");
    }
    // The same name in two namespaces is two types; a name resolves in the innermost first.
    let schema = loads(
        "namespace a;\ntable T { x: int; }\nnamespace a.b;\ntable T { y: int; }\ntable R { t: T; }\nroot_type R;",
    );
    assert_eq!(schema.counts(), [3, 0, 0, 0]);
    assert!(schema.table("a.T").is_some() && schema.table("a.b.T").is_some());
    assert!(schema.table("T").is_none(), "ambiguous without its namespace");
}

#[test]
fn a_repeated_field_or_value_name_is_refused() {
    assert_message(&refused("table T { a: int; b: int; a: string; }"), "field already exists: a");
    assert_message(&refused("struct S { a: int; a: int; }"), "field already exists: a");
    assert_message(&refused("enum E : byte { A, B, A }"), "enum value already exists: A");
    assert_message(&refused("table X {}\nunion U { X, X }"), "enum value already exists");
    assert_message(&refused("table X {}\nunion U { X = 3, Y: X = 3 }"), "enum value already exists: 3");
    // A union field takes two slots: its type's (`u_type`) and its value's.
    assert_message(
        &refused("table X {}\nunion U { X }\ntable T { u: U (id: 1); v: int (id: 0); }"),
        "field id 0 is set twice",
    );
}

// ---- limits of the layout ----------------------------------------------------------------------

fn union_of(n: usize) -> String {
    let mut text = String::new();
    for i in 0..n {
        writeln!(text, "table T{i} {{ x: int; }}").unwrap();
    }
    text.push_str("union U {");
    text.push_str(&(0..n).map(|i| format!("T{i}")).collect::<Vec<_>>().join(", "));
    text.push_str("}\ntable R { u: U; us: [U]; }\nroot_type R;\n");
    text
}

#[test]
fn a_union_of_300_members_is_refused() {
    // Tags are bytes, NONE is 0: the 256th member would be tag 256.
    assert_message(&refused(&union_of(300)), "union tag 256 is not in 1..=255");
    // 255 members fit a byte, but a member's table index must fit the layout's member byte too.
    let e = refused(&union_of(255));
    assert_message(&e, "beyond what flatmodel's layout holds");
    // With fewer tables it loads.
    let schema = loads(&union_of(200));
    assert_eq!(schema.counts(), [201, 0, 0, 1]);
}

fn table_of(n: usize, ty: &str) -> String {
    let mut text = String::from("table X {}\nunion U { X }\ntable T {\n");
    for i in 0..n {
        writeln!(text, "  f{i}: {ty};").unwrap();
    }
    text.push_str("}\nroot_type T;\n");
    text
}

#[test]
fn a_table_of_300_fields_is_refused() {
    // The verifier's layout holds a slot in a byte.
    assert_message(&refused(&table_of(300, "int")), "field slot 256: tables of more than 256 slots are not supported");
    // A union takes two slots: 150 of them need 300.
    assert_message(&refused(&table_of(150, "U")), "tables of more than 256 slots are not supported");
    assert_message(&refused("table T { a: int (id: 300); }"), "field slot 300");
    // 256 fields (slots 0..=255) fit the slots but not the layout's field count.
    assert_message(&refused(&table_of(256, "int")), "beyond what flatmodel's layout holds");
    // 255 fields load, and a buffer whose last field is set verifies and reads.
    let schema = loads(&table_of(255, "int"));
    // T { f254: 7 }: root offset, vtable of 255 slots (only the last set), table.
    let vt_len = 4 + 2 * 255;
    let table = (4 + vt_len + 3) & !3;
    let mut buf = vec![0u8; table + 8];
    put_u32(&mut buf, 0, table as u32);
    put_u16(&mut buf, 4, vt_len as u16);
    put_u16(&mut buf, 6, 8);
    put_u16(&mut buf, 4 + 4 + 2 * 254, 4);
    put_u32(&mut buf, table, (table - 4) as u32);
    put_u32(&mut buf, table + 4, 7);
    let t = schema.verify(&buf, schema.root().unwrap(), &Options::default()).unwrap();
    assert_eq!(t.get("f254").and_then(|v| v.as_i64()), Some(7));
    assert_eq!(t.get("f0").and_then(|v| v.as_i64()), Some(0));
    assert_eq!(t.field_names().count(), 255);
}

#[test]
fn more_than_65535_tables_are_refused() {
    let text: String = (0..70_000).map(|i| format!("table T{i} {{}}\n")).collect();
    assert_message(&refused(&text), "more than 65535 declarations of one kind");
}

// ---- deep buffers ------------------------------------------------------------------------------

#[test]
fn a_table_nested_100000_deep_is_refused_at_the_depth_limit() {
    let schema = loads("table T { child: T; }\nroot_type T;");
    let root = schema.root().unwrap();
    // Within the limit it verifies, and the view follows every level.
    let shallow = chain(60);
    let mut t = schema.verify(&shallow, root, &Options::default()).unwrap();
    let mut levels = 1;
    while let Some(DynValue::Table(child)) = t.get("child") {
        t = child;
        levels += 1;
    }
    assert_eq!(levels, 60);
    schema
        .dump(&mut Sink(0), schema.verify(&shallow, root, &Options::default()).unwrap(), &Options::default())
        .unwrap();
    // 100,000 deep: an error at the limit, not a stack overflow.
    let deep = chain(100_000);
    let e = schema.verify(&deep, root, &Options::default()).expect_err("verified");
    assert_eq!(e.kind(), ErrorKind::DepthLimit, "{}", schema.error_text(&e, root));
    // The path names the fields, however deep (it keeps the innermost segments).
    assert!(schema.error_text(&e, root).to_string().contains("child"));
}

#[test]
fn flatbuffers_nested_100000_deep_are_refused_at_the_depth_limit() {
    let schema = loads("table N { inner: [ubyte] (nested_flatbuffer: \"N\"); }\nroot_type N;");
    let root = schema.root().unwrap();
    let shallow = nested(30);
    let t = schema.verify(&shallow, root, &Options::default()).unwrap();
    let mut levels = 1;
    let mut value = t.get("inner");
    while let Some(DynValue::Table(inner)) = value {
        levels += 1;
        value = inner.get("inner");
    }
    assert_eq!(levels, 31);
    schema.dump(&mut Sink(0), t, &Options::default()).unwrap();
    let deep = nested(100_000);
    let e = schema.verify(&deep, root, &Options::default()).expect_err("verified");
    assert_eq!(e.kind(), ErrorKind::DepthLimit, "{}", schema.error_text(&e, root));
}

#[test]
fn shared_subtrees_are_bounded() {
    // 60 levels, each table's two children the same table: 2^60 tables as a tree. Verifying
    // is linear in the bytes; the dump stops at its budget.
    let schema = loads("table D { l: D; r: D; }\nroot_type D;");
    let root = schema.root().unwrap();
    let buf = diamond_chain(60);
    match schema.verify(&buf, root, &Options::default()) {
        Ok(t) => {
            let dumped = schema.dump(&mut Sink(0), t, &Options::default());
            assert_eq!(dumped, Err(DumpError::TooLarge));
        }
        Err(e) => panic!("{}", schema.error_text(&e, root)),
    }
}

// ---- deep and huge text ------------------------------------------------------------------------

#[test]
fn deep_bracket_nesting_is_refused() {
    let n = 100_000;
    let text = format!("table T {{ a: {}int{}; }}", "[".repeat(n), "]".repeat(n));
    assert_message(&refused(&text), "nested vectors and arrays are not allowed");
    let text = format!("struct S {{ a: {}int:2{}; }}", "[".repeat(n), "]".repeat(n));
    assert_message(&refused(&text), "nested vectors and arrays are not allowed");
    // Attributes, a JSON object, an rpc_service, default values: no nesting to follow.
    refused(&format!("table T {{ a: int {}; }}", "(".repeat(n)));
    refused(&format!("table T {{ a: int = {}1; }}", "-".repeat(n)));
    refused(&"{".repeat(n));
    loads(&format!("{}{}\ntable T {{}}", "{".repeat(n), "}".repeat(n)));
    refused(&format!("rpc_service S {{ {} }}", "M(".repeat(n)));
}

/// A name of a megabyte.
fn huge(c: char) -> String {
    std::iter::repeat_n(c, 1 << 20).collect()
}

#[test]
fn megabyte_names_load() {
    let name = huge('N');
    // As a table, a field, an enum value, a union alias.
    let schema = loads(&format!(
        "enum E : byte {{ {name} }}\nstruct S {{ {name}: E; }}\ntable {name} {{ {name}: S; }}\n\
         union U {{ {name}: {name} }}\ntable R {{ u: U; t: {name}; }}\nroot_type R;"
    ));
    assert_eq!(schema.counts(), [2, 1, 1, 1]);
    assert!(schema.table(&name).is_some());
    // As a namespace: read, or refused as longer than the lookups allow.
    match Schema::from_fbs_text(&format!("namespace {name};\ntable T {{ t: T; }}\nroot_type T;")) {
        Ok(schema) => assert!(schema.table(&format!("{name}.T")).is_some()),
        Err(e) => assert!(e.message.contains("namespace"), "{}", &e.message[..e.message.len().min(300)]),
    }
    // In errors.
    assert_message(&refused(&format!("table T {{ a: {name}; }}")), "type referenced but not defined");
    assert_message(&refused(&format!("{name} T {{}}")), "unknown declaration");
    // A megabyte string, comment, whitespace.
    loads(&format!("attribute \"{name}\";\ntable T ({name}) {{ a: int ({name}: \"{name}\"); }}"));
    loads(&format!("// {name}\n/* {name} */\n{}\ntable T {{}}", huge(' ')));
    // A megabyte of documentation comments above declarations, read as docs.
    let mut text = String::new();
    for i in 0..20_000 {
        writeln!(text, "/// doc {i}\ntable T{i} {{ a: int; }}").unwrap();
    }
    let parsed = fbs::parse_with("t.fbs", &mut |_: &str| Ok(text.clone())).unwrap();
    assert_eq!(parsed.decls.len(), 20_000);
}

#[test]
fn a_megabyte_number_is_refused() {
    let digits = "1".repeat(1 << 20);
    assert_message(&refused(&format!("table T {{ a: int = {digits}; }}")), "is not a valid value");
    assert_message(&refused(&format!("enum E : int {{ A = {digits} }}")), "is not an integer");
}

/// Names are looked up from the innermost enclosing namespace outwards: a namespace of 200,000
/// parts either resolves in time linear in it, or is refused as too deep.
#[test]
fn a_namespace_of_200000_parts_resolves_or_is_refused() {
    let ns = vec!["a"; 200_000].join(".");
    let text = format!("table R {{}}\nnamespace {ns};\ntable T {{ a: R; b: R; c: R; d: R; }}\nroot_type T;");
    match Schema::from_fbs_text(&text) {
        Ok(schema) => assert_eq!(schema.counts(), [2, 0, 0, 0]),
        Err(e) => assert!(e.message.contains("namespace"), "{}", &e.message[..e.message.len().min(300)]),
    }
    let e = refused(&format!("table R {{}}\nnamespace {ns};\ntable T {{ a: Missing; }}"));
    assert!(
        e.message.contains("namespace") || e.message.contains("type referenced but not defined"),
        "{}",
        &e.message[..e.message.len().min(300)]
    );
}

#[test]
fn a_struct_of_60000_fields_loads() {
    let mut text = String::from("struct S {");
    for i in 0..60_000 {
        write!(text, " f{i}: byte;").unwrap();
    }
    text.push_str(" }\ntable T { s: S; }\n");
    loads(&text);
}

#[test]
fn comments_above_a_one_line_enum_parse_in_linear_time() {
    let mut text = "//\n".repeat(20_000);
    text.push_str("enum E : int { ");
    for i in 0..20_000 {
        write!(text, "V{i},").unwrap();
    }
    text.push_str(" }\n");
    let parsed = fbs::parse_with("t.fbs", &mut |_: &str| Ok(text.clone())).unwrap();
    assert_eq!(parsed.decls.len(), 1);
}
