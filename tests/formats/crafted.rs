//! Crafted inputs: shared subtrees (linear work), corrupt structures (clear errors with paths),
//! external data offsets near `u64::MAX`. Slot numbers are those of `tflite.fbs`: Model
//! `subgraphs` = 2, `buffers` = 4; SubGraph `tensors` = 0; Tensor `name` = 3; Buffer `data` = 0,
//! `offset` = 1, `size` = 2.

use crate::support;

use flatmodel::graph::ModelView;
use flatmodel::tflite::Model;
use flatmodel::verify::Options;
use flatmodel::ErrorKind;
use support::{custom_op_model, external_buffer_model, shared_subtrees, tensors_named, Bytes};

/// Work per input byte the verifier may spend on these inputs (naive verification spends
/// hundreds of times the input length on them).
const LINEAR: u64 = 4;

#[test]
fn shared_subgraph_and_tensor_cost_linear_work() {
    let bytes = shared_subtrees(500, 1000, b"t");
    assert!(bytes.len() < 7000, "the crafted input is about 6 KB, got {}", bytes.len());
    let parsed = Model::parse_structure_with(&bytes, &Options::DEFAULT).expect("a DAG of shared tables is valid");
    let work = parsed.stats.apparent_size;
    // Naively this visits 500 x 1000 tensors.
    assert!(work <= LINEAR * bytes.len() as u64, "work {work} for {} bytes", bytes.len());
    assert!(parsed.stats.memo_hits > 0);
    // The views still see the whole logical tree.
    let subgraphs = parsed.value.subgraphs().unwrap();
    assert_eq!(subgraphs.len(), 500);
    assert_eq!(subgraphs.get(499).unwrap().tensors().unwrap().len(), 1000);
}

#[test]
fn shared_long_string_is_validated_once() {
    let name = vec![b'a'; 64 * 1024];
    let bytes = shared_subtrees(1, 30_000, &name);
    assert!(bytes.len() > 180_000 && bytes.len() < 190_000, "about 186 KB, got {}", bytes.len());
    let parsed = Model::parse_structure_with(&bytes, &Options::DEFAULT).expect("valid");
    let work = parsed.stats.apparent_size;
    // Naively this validates 30,000 x 64 KiB of UTF-8.
    assert!(work <= LINEAR * bytes.len() as u64, "work {work} for {} bytes", bytes.len());
}

#[test]
fn a_shared_long_string_is_read_in_place_without_a_second_check() {
    // Reading a name is O(1) in its length: the accessor hands out the verified bytes as they
    // lie in the buffer and checks nothing again (release builds; debug builds re-check as an
    // assertion). Its time is measured by the bench `attack/flatmodel_read_names/*`; here, that
    // each of the 30,000 references reads the one copy in the buffer.
    let name = vec![b'a'; 64 * 1024];
    let bytes = shared_subtrees(1, 30_000, &name);
    let in_buffer = &bytes[bytes.len() - 1 - name.len()..bytes.len() - 1];
    let model = Model::parse_structure(&bytes).expect("valid");
    let tensors = model.subgraphs().unwrap().get(0).unwrap().tensors().unwrap();
    let mut read = 0;
    for t in tensors.iter() {
        let name = t.name().expect("every tensor is named");
        assert!(std::ptr::eq(name.as_bytes(), in_buffer), "tensor {read}: the name is not the buffer's bytes");
        read += 1;
    }
    assert_eq!(read, 30_000);
}

#[test]
fn model_rules_on_amplified_models_stop_at_the_budget() {
    // The model rules walk the model as a runtime would load it: 500,000 tensors here. That
    // walk is charged to the same budget, so it ends in an error instead of running on.
    let bytes = shared_subtrees(500, 1000, b"t");
    let err = Model::parse(&bytes).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::ApparentSizeLimit | ErrorKind::Rule(_)), "unexpected {err}");
}

#[test]
fn a_tight_budget_rejects_what_the_default_accepts() {
    let bytes = shared_subtrees(1, 30_000, b"t");
    let options = Options { apparent_size_per_byte: 0, max_apparent_size: 1000, ..Options::DEFAULT };
    let err = Model::parse_structure_with(&bytes, &options).map(|_| ()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ApparentSizeLimit);
}

#[test]
fn errors_name_the_schema_path_and_byte() {
    let bytes = tensors_named(20, 12, b"\xff\xfe");
    let err = Model::parse_structure(&bytes).map(|_| ()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidUtf8);
    assert_eq!(err.location().to_string(), "Model.subgraphs[0].tensors[12].name");
    // The offset is the first bad byte, which holds 0xff.
    assert_eq!(bytes[err.offset() as usize], 0xff);
    let shown = err.to_string();
    assert!(shown.contains("Model.subgraphs[0].tensors[12].name") && shown.contains(&err.offset().to_string()));
}

#[test]
fn unterminated_string_is_rejected() {
    let mut bytes = tensors_named(3, 1, b"abc");
    // Find the bad name "abc\0" and overwrite its terminator.
    let at = bytes.windows(4).position(|w| w == b"abc\0").unwrap();
    bytes[at + 3] = b'!';
    let err = Model::parse_structure(&bytes).map(|_| ()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UnterminatedString);
    assert_eq!(err.location().to_string(), "Model.subgraphs[0].tensors[1].name");
}

#[test]
fn field_past_the_tables_inline_size_is_rejected() {
    let mut b = Bytes::with_identifier(b"TFL3");
    // Model.version (slot 0, 4 bytes) at voffset 4 of a table whose inline size is only 6.
    let vt = b.vtable(&[4], 6);
    let model = b.table(vt, &[3, 0, 0, 0]);
    b.patch(0, model);
    let err = Model::parse_structure(&b.buf).map(|_| ()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::FieldOutsideTable);
    assert_eq!(err.location().to_string(), "Model.version");
}

#[test]
fn corrupt_vtables_and_offsets_are_rejected() {
    let good = tensors_named(2, 0, b"x");
    // Root offset far past the end.
    let mut bad = good.clone();
    bad[0..4].copy_from_slice(&u32::MAX.to_le_bytes());
    assert_eq!(Model::parse_structure(&bad).map(|_| ()).unwrap_err().kind(), ErrorKind::OutOfBounds);
    // An odd vtable size.
    let mut bad = good.clone();
    bad[8] = 5;
    assert_eq!(Model::parse_structure(&bad).map(|_| ()).unwrap_err().kind(), ErrorKind::BadVtable);
    // A soffset pointing before the start of the buffer.
    let root = u32::from_le_bytes(good[0..4].try_into().unwrap()) as usize;
    let mut bad = good.clone();
    bad[root..root + 4].copy_from_slice(&i32::MAX.to_le_bytes());
    assert!(Model::parse_structure(&bad).is_err());
    // A soffset pointing past the end.
    let mut bad = good;
    bad[root..root + 4].copy_from_slice(&i32::MIN.to_le_bytes());
    assert!(Model::parse_structure(&bad).is_err());
}

#[test]
fn wrong_identifier_and_tiny_inputs_are_rejected() {
    for (bytes, kind) in [
        (&b""[..], ErrorKind::Truncated),
        (&b"TFL"[..], ErrorKind::Truncated),
        (&b"\x08\0\0\0TFL"[..], ErrorKind::Truncated),
        (&b"This is an invalid model."[..], ErrorKind::WrongIdentifier),
        (&b"\x0c\0\0\0CIR0\0\0\0\0"[..], ErrorKind::WrongIdentifier),
    ] {
        let err = Model::parse(bytes).map(|_| ()).unwrap_err();
        assert_eq!(err.kind(), kind, "{bytes:?}");
    }
}

#[test]
fn external_buffer_offsets_near_u64_max_are_errors() {
    for (offset, size) in [(u64::MAX - 5, 10), (u64::MAX, u64::MAX), (2, u64::MAX), (1 << 40, 16)] {
        let bytes = external_buffer_model(offset, size);
        let err = Model::parse(&bytes).map(|_| ()).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::OutOfBounds, "offset {offset} size {size}");
        assert_eq!(err.location().to_string(), "Model.buffers[1].offset");
        let model = Model::parse_structure(&bytes).unwrap();
        assert_eq!(model.buffer_data(1).unwrap_err().kind(), ErrorKind::OutOfBounds);
    }
}

#[test]
fn external_buffer_inside_the_file_resolves_from_the_file_start() {
    let mut bytes = external_buffer_model(0, 0);
    let start = bytes.len();
    bytes.extend_from_slice(b"WEIGHTS!");
    let patched = external_buffer_model(start as u64, 8);
    assert_eq!(patched.len(), start);
    let mut file = patched;
    file.extend_from_slice(b"WEIGHTS!");
    let model = Model::parse(&file).unwrap();
    assert_eq!(model.buffer_data(1).unwrap(), b"WEIGHTS!");
    assert_eq!(model.buffer_bytes(), (0, 8));
}

#[test]
fn depth_and_table_limits_are_enforced() {
    let bytes = tensors_named(5, 0, b"x");
    let shallow = Options { max_depth: 2, ..Options::DEFAULT };
    assert_eq!(Model::parse_structure_with(&bytes, &shallow).map(|_| ()).unwrap_err().kind(), ErrorKind::DepthLimit);
    let few = Options { max_tables: 4, ..Options::DEFAULT };
    assert_eq!(Model::parse_structure_with(&bytes, &few).map(|_| ()).unwrap_err().kind(), ErrorKind::TableLimit);
    assert!(Model::parse_structure_with(&bytes, &Options::DEFAULT).is_ok());
}

/// One subgraph with one tensor of type `tensor_type` and one operator whose
/// `builtin_options_type` is `union_type` (with an empty options table when `with_value`).
/// Slots: SubGraph `tensors` = 0, `operators` = 3; Tensor `type` = 1; Operator
/// `builtin_options_type` = 3, `builtin_options` = 4.
fn newer_writer_model(tensor_type: i8, union_type: u8, with_value: bool) -> Vec<u8> {
    let (mut b, subgraphs) = Bytes::tflite_with_subgraphs(1);
    let sg_vt = b.vtable(&[4, 0, 0, 8], 12);
    let sg = b.table(sg_vt, &[0; 8]);
    b.patch(subgraphs + 4, sg);
    let tensors = b.offsets(1);
    b.patch(sg + 4, tensors);
    let t_vt = b.vtable(&[0, 4], 5);
    let t = b.table(t_vt, &[tensor_type as u8]);
    b.patch(tensors + 4, t);
    let ops = b.offsets(1);
    b.patch(sg + 8, ops);
    let value_voffset = if with_value { 8 } else { 0 };
    let op_vt = b.vtable(&[0, 0, 0, 4, value_voffset], 12);
    let op = b.table(op_vt, &[union_type, 0, 0, 0, 0, 0, 0, 0]);
    b.patch(ops + 4, op);
    if with_value {
        let empty_vt = b.vtable(&[], 4);
        let options = b.table(empty_vt, &[]);
        b.patch(op + 8, options);
    }
    b.buf
}

#[test]
fn values_from_newer_writers_read_as_raw_numbers() {
    use flatmodel::tflite::{BuiltinOptions, TensorType};
    let bytes = newer_writer_model(99, 250, true);
    let model = Model::parse_structure(&bytes).expect("unknown enum values and union types are not errors");
    let sg = model.subgraph(0).unwrap();
    let tensor = sg.tensors().unwrap().get(0).unwrap();
    assert_eq!(tensor.type_(), TensorType(99));
    assert_eq!(tensor.type_().name(), None);
    let op = sg.operators().unwrap().get(0).unwrap();
    assert!(matches!(op.builtin_options(), BuiltinOptions::Unknown(250)));
    // The dump shows them as numbers, as flatc does.
    let mut text = String::new();
    flatmodel::dump::dump_table(&mut text, flatmodel::dump::Dumpable::new(model), &Options::DEFAULT).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["subgraphs"][0]["tensors"][0]["type"], 99);
    assert_eq!(json["subgraphs"][0]["operators"][0]["builtin_options_type"], 250);
    // A known member is read as its table.
    let bytes = newer_writer_model(0, 1, true);
    let model = Model::parse_structure(&bytes).unwrap();
    let op = model.subgraph(0).unwrap().operators().unwrap().get(0).unwrap();
    assert!(matches!(op.builtin_options(), BuiltinOptions::Conv2DOptions(_)));
}

#[test]
fn union_type_without_value_is_an_error() {
    let bytes = newer_writer_model(0, 1, false);
    let err = Model::parse_structure(&bytes).map(|_| ()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UnionMismatch);
    assert_eq!(err.location().to_string(), "Model.subgraphs[0].operators[0].builtin_options");
    // A value without a type is one too.
    let mut bytes = newer_writer_model(0, 1, true);
    let model = Model::parse_structure(&bytes).unwrap();
    let op_type_at = model.subgraph(0).unwrap().operators().unwrap().get(0).unwrap().raw().position() + 4;
    assert_eq!(bytes[op_type_at], 1);
    bytes[op_type_at] = 0;
    let err = Model::parse_structure(&bytes).map(|_| ()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UnionMismatch);
}

/// A model whose subgraph `i` holds one CALL operator calling subgraph `calls[i]`, or no
/// operator for `None`; it passes every other rule. Slots: Model `version` 0,
/// `operator_codes` 1, `subgraphs` 2, `buffers` 4; OperatorCode `deprecated_builtin_code` 0;
/// SubGraph `tensors`..`operators` 0..3; Operator `inputs` 1, `outputs` 2,
/// `builtin_options_type` 3, `builtin_options` 4; CallOptions `subgraph` 0. CallOptions is
/// member 16 of BuiltinOptions; CALL is operator 31.
fn calling_model(calls: &[Option<u32>]) -> Vec<u8> {
    let mut b = Bytes::with_identifier(b"TFL3");
    let model_vt = b.vtable(&[4, 8, 12, 0, 16], 20);
    let model = b.table(model_vt, &[3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    b.patch(0, model);
    let codes = b.offsets(1);
    b.patch(model + 8, codes);
    let code_vt = b.vtable(&[4], 5);
    let code = b.table(code_vt, &[31]);
    b.patch(codes + 4, code);
    let subgraphs = b.offsets(calls.len());
    b.patch(model + 12, subgraphs);
    for (i, call) in calls.iter().enumerate() {
        let sg_vt = b.vtable(&[4, 8, 12, 16], 20);
        let sg = b.table(sg_vt, &[0; 16]);
        b.patch(subgraphs + 4 + 4 * i, sg);
        for slot in 0..3 {
            let v = b.offsets(0);
            b.patch(sg + 4 + 4 * slot, v);
        }
        let ops = b.offsets(usize::from(call.is_some()));
        b.patch(sg + 16, ops);
        let Some(callee) = call else { continue };
        let op_vt = b.vtable(&[0, 4, 8, 16, 12], 20);
        let op = b.table(op_vt, &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0]);
        b.patch(ops + 4, op);
        for slot in 0..2 {
            let v = b.offsets(0);
            b.patch(op + 4 + 4 * slot, v);
        }
        let call_vt = b.vtable(&[4], 8);
        let call = b.table(call_vt, &callee.to_le_bytes());
        b.patch(op + 12, call);
    }
    let buffers = b.offsets(1);
    b.patch(model + 16, buffers);
    let empty_vt = b.vtable(&[], 4);
    let b0 = b.table(empty_vt, &[]);
    b.patch(buffers + 4, b0);
    b.buf
}

#[test]
fn subgraphs_calling_each_other_in_a_cycle_are_rejected() {
    let is_cycle = |calls: &[Option<u32>]| match Model::parse(&calling_model(calls)) {
        Ok(_) => false,
        Err(e) => matches!(e.kind(), ErrorKind::Rule(r) if r.contains("cycle")) || panic!("unexpected {e}"),
    };
    // Chains and shared callees are fine.
    assert!(!is_cycle(&[Some(1), Some(2), None]));
    assert!(!is_cycle(&[Some(2), Some(2), None]));
    // A runtime would recurse forever into these (CVE-2021-29591).
    assert!(is_cycle(&[Some(0)]));
    assert!(is_cycle(&[Some(1), Some(2), Some(1)]));
    assert!(is_cycle(&[None, Some(2), Some(1)]));
    // A callee that does not exist is an index error, located.
    let err = Model::parse(&calling_model(&[Some(1), Some(5)])).map(|_| ()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::IndexOutOfRange);
    assert_eq!(err.location().to_string(), "Model.subgraphs[1].operators[0].builtin_options");
}

/// The operator of a model from [`custom_op_model`].
fn only_operator<'a>(model: &Model<'a>) -> flatmodel::tflite::Operator<'a> {
    model.subgraph(0).unwrap().operators().unwrap().get(0).unwrap()
}

#[test]
fn large_custom_options_are_read_from_the_file_start() {
    let (bytes, _) = custom_op_model(b"TFL3", None, 5, b"HELLO");
    let model = Model::parse(&bytes).unwrap();
    assert_eq!(model.custom_options(&only_operator(&model)).unwrap(), Some(&b"HELLO"[..]));
    // Offsets 0 and 1 are writers' placeholders: no options, whatever the size.
    for placeholder in [0, 1] {
        let (bytes, _) = custom_op_model(b"TFL3", Some(placeholder), u64::MAX, b"");
        let model = Model::parse(&bytes).unwrap();
        assert_eq!(model.custom_options(&only_operator(&model)).unwrap(), None);
    }
}

#[test]
fn large_custom_options_outside_the_file_are_rejected_by_the_rules() {
    let (good, _) = custom_op_model(b"TFL3", None, 5, b"HELLO");
    let end = good.len() as u64;
    // One byte past the end, far past it, and `offset + size` wrapping around u64.
    for (offset, size) in [(end - 5, 6), (end, 1), (1 << 40, 1), (u64::MAX - 2, 5), (2, u64::MAX)] {
        let (bytes, op) = custom_op_model(b"TFL3", Some(offset), size, b"HELLO");
        assert_eq!(bytes.len() as u64, end);
        let err = Model::parse(&bytes).map(|_| ()).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::OutOfBounds, "offset {offset} size {size}");
        assert_eq!(err.location().to_string(), "Model.subgraphs[0].operators[0].large_custom_options_offset");
        assert_eq!(err.offset(), op as u64);
        // Read without the rules, the options are an error naming the operator by its offset.
        let model = Model::parse_structure(&bytes).unwrap();
        let err = model.custom_options(&only_operator(&model)).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::OutOfBounds);
        assert_eq!(err.location().to_string(), "Model.subgraphs.operators.large_custom_options_offset");
        assert_eq!(err.offset(), op as u64);
    }
}

/// A sparse tensor's data must be exactly its stored elements times the element size: checked
/// against sizes worked out by hand, and against a shape whose element count times the element
/// size passes `u64` (no data length can match it, so no data is accepted).
#[test]
fn sparse_tensor_data_must_match_its_element_count() {
    const INT32: u8 = 2;
    let rule = ErrorKind::Rule("sparse tensor data size does not match its sparsity");
    // 2 x 3 dense elements of 4 bytes: 24 bytes.
    let (ok, _) = support::sparse_tensor_model(&[2, 3], INT32, 24);
    assert!(Model::parse(&ok).is_ok(), "{:?}", Model::parse(&ok).err());
    let (short, tensor) = support::sparse_tensor_model(&[2, 3], INT32, 20);
    let e = Model::parse(&short).map(|_| ()).expect_err("20 bytes for 24");
    assert_eq!((e.kind(), e.offset()), (rule, tensor as u64));
    // (2^31 - 1)^2 x 8 elements of 4 bytes is past u64: no data length matches.
    let (huge, tensor) = support::sparse_tensor_model(&[i32::MAX, i32::MAX, 8], INT32, 4);
    let e = Model::parse(&huge).map(|_| ()).expect_err("4 bytes for over 2^64");
    assert_eq!((e.kind(), e.offset()), (rule, tensor as u64));
}
