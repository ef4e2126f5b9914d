//! ExecuTorch's XNNPACK delegate: every blob and program the corpus's runtime ran verifies, the
//! delegate blobs come out byte-identical to the extracted `.xh00` files, constants resolve to
//! the bytes the references give, and every broken header, id, constant and quantization
//! parameter is an error naming its field; no truncation panics.

use crate::support;

use flatmodel::pte::PteFile;
use flatmodel::xnnpack::{Blob, Constant, NodeIds, XNNQuantParams, XNodeUnion};
use flatmodel::ErrorKind;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn dirs() -> Vec<PathBuf> {
    let mut dirs = vec![support::testdata().join("xnnpack"), support::testdata().join("ptd")];
    if let Some(corpus) = support::corpus() {
        dirs.extend([corpus.join("xnnpack"), corpus.join("ptd")]);
    }
    dirs
}

fn read(name: &str) -> Vec<u8> {
    let path = support::testdata().join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn files(suffix: &str) -> Vec<PathBuf> {
    dirs().iter().flat_map(|d| support::files_with_suffix(d, suffix)).collect()
}

/// flatc's JSON, its bare non-finite floats read as strings (`docs/executorch.md` §3.8).
fn reference(path: &Path) -> Value {
    let r = support::reference(path, "flatc.json").or_else(|| support::reference(path, "xn.flatc.json"));
    let r = r.unwrap_or_else(|| panic!("{}: no reference", path.display()));
    support::json_with_bare_floats(&std::fs::read_to_string(&r).unwrap())
}

#[test]
fn every_blob_and_program_verifies() {
    let (mut blobs, mut programs) = (0, 0);
    for path in files(".xh00").into_iter().chain(files(".xn.bin")) {
        let bytes = std::fs::read(&path).unwrap();
        let blob = Blob::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let r = reference(&path);
        assert_eq!(blob.graph().xvalues().map_or(0, |v| v.len()), r["xvalues"].as_array().unwrap().len());
        assert_eq!(blob.graph().xnodes().map_or(0, |v| v.len()), r["xnodes"].as_array().unwrap().len());
        assert_eq!(blob.header().is_some(), path.to_string_lossy().ends_with(".xh00"), "{}", path.display());
        if blob.header().is_none() {
            assert!(blob.constant_region().is_empty());
        }
        // Every node of ExecuTorch's is one this schema names, with its ids.
        for node in blob.graph().xnodes().unwrap() {
            assert!(NodeIds::of(&node.xnode_union()).is_some(), "{}", path.display());
        }
        blobs += 1;
    }
    for path in files(".pte") {
        let bytes = std::fs::read(&path).unwrap();
        PteFile::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        programs += 1;
    }
    assert!(blobs >= 18 && programs >= 9, "{blobs} blobs, {programs} programs");
}

/// The `.xh00` files were extracted by ExecuTorch's own program parser: ours gives the same
/// bytes for the same delegate.
#[test]
fn delegate_blobs_are_the_extracted_files() {
    let mut checked = 0;
    for path in files(".pte") {
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let file = PteFile::parse(&bytes).unwrap();
        let r = reference(&path);
        let expected: usize =
            r["execution_plan"].as_array().unwrap().iter().map(|p| p["delegates"].as_array().map_or(0, Vec::len)).sum();
        let delegates: Vec<_> = file.delegates().collect();
        assert_eq!(delegates.len(), expected, "{stem}");
        for (n, d) in delegates.iter().enumerate() {
            assert!(d.is_xnnpack() && !d.is_vulkan(), "{stem}: delegate {n} is {:?}", d.id);
            let (_, blob) = file.delegate_blob(d).unwrap();
            let extracted = path.with_file_name(format!("{stem}.delegate{n}.xh00"));
            assert_eq!(blob, std::fs::read(&extracted).unwrap().as_slice(), "{}", extracted.display());
            assert!(file.xnnpack_blob(d).unwrap().is_ok());
            assert!(file.vulkan_blob(d).is_none());
            checked += 1;
        }
    }
    assert!(checked >= 9, "checked {checked}");
}

/// Inline constants are `region[offset..][..size]`; named ones are the program's named data.
#[test]
fn constants_resolve_inline_and_through_named_data() {
    let bytes = read("xnnpack/xnn_mlp_inline_constants.delegate0.xh00");
    let blob = Blob::parse(&bytes).unwrap();
    let r = reference(&support::testdata().join("xnnpack/xnn_mlp_inline_constants.delegate0.xh00"));
    let header = blob.header().unwrap();
    assert_eq!((header.constant_data_offset, header.constant_data_size), (896, 3232));
    let entries = r["constant_data"].as_array().unwrap();
    assert!(entries.len() >= 5);
    for (i, c) in entries.iter().enumerate() {
        let (offset, size) = (c["offset"].as_u64().unwrap_or(0) as usize, c["size"].as_u64().unwrap_or(0) as usize);
        let start = header.constant_data_offset as usize + offset;
        assert_eq!(blob.constant(i).unwrap(), Constant::Inline(&bytes[start..start + size]));
        assert_eq!(blob.constant_data(i, |_| None).unwrap().len(), size);
    }

    let bytes = read("xnnpack/xnn_mlp_fp32.pte");
    let file = PteFile::parse(&bytes).unwrap();
    let r = reference(&support::testdata().join("xnnpack/xnn_mlp_fp32.pte"));
    let segments = r["segments"].as_array().unwrap();
    let base = file.header().unwrap().segment_base_offset as usize;
    let blob = file.xnnpack_blob(&file.delegate(0).unwrap()).unwrap().unwrap();
    let entries = blob.graph().constant_data().unwrap();
    let mut named = 0;
    for i in 1..entries.len() {
        let Constant::Named { key, size } = blob.constant(i).unwrap() else { panic!("constant {i} is inline") };
        let d = r["named_data"].as_array().unwrap().iter().find(|d| d["key"] == key).unwrap();
        let s = &segments[d["segment_index"].as_u64().unwrap() as usize];
        let offset = s["offset"].as_u64().unwrap_or(0) as usize;
        assert!(s["size"].as_u64().unwrap() >= size);
        let data = blob.constant_data(i, |k| file.named_data(k)).unwrap();
        assert_eq!(data, &bytes[base + offset..base + offset + size as usize]);
        named += 1;
    }
    assert_eq!(named, 4);
    // Without the program, a named constant has nowhere to come from.
    let e = blob.constant_data(1, |_| None).unwrap_err();
    assert_eq!(
        (e.kind(), e.location().to_string()),
        (ErrorKind::NotFound, "XNNGraph.constant_data[1].named_key".into())
    );
    // Named data shorter than the graph reads is refused, naming the key.
    let e = blob.constant_data(1, |_| Some(&bytes[..3])).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Rule("named data shorter than its size"));
}

/// A program whose XNNPACK weights live in a `.ptd` verifies alone: its keys are external.
#[test]
fn a_program_without_its_data_file_still_verifies() {
    let bytes = read("ptd/ptd_xnnpack_mlp_fp32.pte");
    let file = PteFile::parse(&bytes).unwrap();
    assert!(file.program().named_data().is_none_or(|d| d.is_empty()));
    let blob = file.xnnpack_blob(&file.delegate(0).unwrap()).unwrap().unwrap();
    let keys = (0..blob.graph().constant_data().unwrap().len())
        .filter(|&i| matches!(blob.constant(i), Ok(Constant::Named { .. })))
        .count();
    assert_eq!(keys, 4);
}

#[test]
fn detection_is_from_the_bytes() {
    use flatmodel::Format;
    assert_eq!(flatmodel::detect(&read("xnnpack/xnn_mlp_fp32.pte")), Some(Format::Pte));
    assert_eq!(flatmodel::detect(&read("xnnpack/xnn_mlp_fp32.delegate0.xh00")), Some(Format::Xnnpack));
    assert_eq!(flatmodel::detect(&read("xnnpack/xnn_mlp_fp32.delegate0.xn.bin")), Some(Format::Xnnpack));
    let bytes = read("xnnpack/xnn_mlp_fp32.delegate0.xh00");
    let file = flatmodel::File::parse(&bytes).unwrap();
    assert_eq!(file.format(), Format::Xnnpack);
}

// ---- broken XH00 headers: each rule of `docs/executorch.md` §3.7 ----

fn with_field(bytes: &[u8], at: usize, value: &[u8]) -> Vec<u8> {
    let mut b = bytes.to_vec();
    b[at..at + value.len()].copy_from_slice(value);
    b
}

#[track_caller]
fn blob_error(bytes: &[u8], kind: ErrorKind, field: &str) {
    let e = Blob::parse(bytes).err().unwrap_or_else(|| panic!("accepted, expected {kind:?} at {field}"));
    assert_eq!((e.kind(), e.location().to_string()), (kind, field.to_string()), "{e}");
}

#[test]
fn broken_headers_name_the_field() {
    let good = read("xnnpack/xnn_mlp_inline_constants.delegate0.xh00");
    let len = good.len() as u32;
    let rule = ErrorKind::Rule;
    blob_error(
        &with_field(&good, 8, &29u16.to_le_bytes()),
        rule("header_size must be at least 30"),
        "XH00.header_size",
    );
    blob_error(
        &with_field(&good, 10, &20u32.to_le_bytes()),
        rule("the flatbuffer must start after the header"),
        "XH00.flatbuffer_offset",
    );
    blob_error(
        &with_field(&good, 14, &0u32.to_le_bytes()),
        rule("flatbuffer_size must not be 0"),
        "XH00.flatbuffer_size",
    );
    blob_error(&with_field(&good, 14, &len.to_le_bytes()), ErrorKind::OutOfBounds, "XH00.flatbuffer_size");
    blob_error(
        &with_field(&good, 18, &40u32.to_le_bytes()),
        rule("the constant region must start after the flatbuffer"),
        "XH00.constant_data_offset",
    );
    // constant_data_offset + constant_data_size wraps a u64.
    blob_error(&with_field(&good, 22, &u64::MAX.to_le_bytes()), ErrorKind::OutOfBounds, "XH00.constant_data_size");
    blob_error(
        &with_field(&good, 22, &u64::from(len).to_le_bytes()),
        ErrorKind::OutOfBounds,
        "XH00.constant_data_size",
    );
    blob_error(&good[..20], ErrorKind::Truncated, "XH00.header_size");
    blob_error(&good[..6], ErrorKind::Truncated, "XH00.magic");
    blob_error(&good[..good.len() - 1], ErrorKind::OutOfBounds, "XH00.constant_data_size");
    // An XH00 whose flatbuffer is not an XNNGraph: located at the flatbuffer's identifier.
    let e = Blob::parse(&with_field(&good, 32 + 4, b"VK00")).unwrap_err();
    assert_eq!((e.kind(), e.offset()), (ErrorKind::WrongIdentifier, 36), "{e}");
    assert!(Blob::parse(b"not a blob at all").is_err());
}

/// Every prefix and every single-byte flip of the header of each blob is an error or a blob,
/// never a panic; every strict prefix of a headered blob is an error.
#[test]
fn truncations_and_header_flips_never_panic() {
    let mut checked = 0;
    for path in files(".xh00").into_iter().chain(files(".xn.bin")) {
        let bytes = std::fs::read(&path).unwrap();
        for end in 0..bytes.len() {
            let r = Blob::parse(&bytes[..end]);
            if path.to_string_lossy().ends_with(".xh00") {
                assert!(r.is_err(), "{}: prefix {end} accepted", path.display());
            }
            checked += 1;
        }
        for at in 0..32.min(bytes.len()) {
            let mut b = bytes.clone();
            b[at] ^= 0xff;
            let _ = Blob::parse(&b);
        }
    }
    assert!(checked > 10_000, "{checked}");
}

// ---- broken graphs: the rules of `docs/executorch.md` §3.8 ----

/// The blob position of field `slot` of the table at flatbuffer position `table` (the blob's
/// flatbuffer starts at 32), which must be stored.
fn field_at(blob: &[u8], table: usize, slot: usize) -> usize {
    let buf = &blob[32..];
    let soffset = i32::from_le_bytes(buf[table..table + 4].try_into().unwrap());
    let vtable = (table as i64 - soffset as i64) as usize;
    let voffset = u16::from_le_bytes(buf[vtable + 4 + 2 * slot..vtable + 6 + 2 * slot].try_into().unwrap()) as usize;
    assert_ne!(voffset, 0, "field {slot} is not stored");
    32 + table + voffset
}

#[test]
fn broken_ids_and_shapes_are_located() {
    let good = read("xnnpack/xnn_mlp_inline_constants.delegate0.xh00");
    let blob = Blob::parse(&good).unwrap();
    let g = blob.graph();
    // Value 2's id_out (slot 6) and num_dims (slot 1).
    let t = g.xvalues().unwrap().get(2).unwrap().tensor().unwrap();
    let at = field_at(&good, t.raw().position(), 6);
    blob_error(
        &with_field(&good, at, &5u32.to_le_bytes()),
        ErrorKind::Rule("id_out must be the value's index"),
        "XNNGraph.xvalues[2].xvalue_union.id_out",
    );
    let at = field_at(&good, t.raw().position(), 1);
    blob_error(
        &with_field(&good, at, &3u32.to_le_bytes()),
        ErrorKind::Rule("num_dims differs from the length of dims"),
        "XNNGraph.xvalues[2].xvalue_union.num_dims",
    );
    let at = field_at(&good, t.raw().position(), 3);
    blob_error(
        &with_field(&good, at, &99u32.to_le_bytes()),
        ErrorKind::IndexOutOfRange,
        "XNNGraph.xvalues[2].xvalue_union.constant_buffer_idx",
    );
    // An output id past the values.
    let outputs = g.output_ids().unwrap();
    let at = outputs.as_slice().as_ptr() as usize - good.as_ptr() as usize;
    blob_error(&with_field(&good, at, &99u32.to_le_bytes()), ErrorKind::IndexOutOfRange, "XNNGraph.output_ids[0]");
    // The first node's filter (slot 1 of XNNFullyConnected) past the values, then naming the
    // graph's output (value 6), which no earlier node writes.
    let node = g.xnodes().unwrap().get(0).unwrap();
    let XNodeUnion::XNNFullyConnected(fc) = node.xnode_union() else { panic!("{:?}", node.xnode_union()) };
    let at = field_at(&good, fc.raw().position(), 1);
    let here = "XNNGraph.xnodes[0].xnode_union.filter_id";
    blob_error(&with_field(&good, at, &99u32.to_le_bytes()), ErrorKind::IndexOutOfRange, here);
    blob_error(
        &with_field(&good, at, &6u32.to_le_bytes()),
        ErrorKind::Rule("a node reads a value no input, constant or earlier node defines"),
        here,
    );
    // A node writing a constant (value 1 is the first weight).
    let at = field_at(&good, fc.raw().position(), 3);
    blob_error(
        &with_field(&good, at, &1u32.to_le_bytes()),
        ErrorKind::Rule("a node writes a constant value"),
        "XNNGraph.xnodes[0].xnode_union.output_id",
    );
    // A constant past the region; a wrapping size.
    let c = g.constant_data().unwrap().get(2).unwrap();
    let at = field_at(&good, c.raw().position(), 1);
    blob_error(
        &with_field(&good, at, &4000u64.to_le_bytes()),
        ErrorKind::OutOfBounds,
        "XNNGraph.constant_data[2].size",
    );
    blob_error(
        &with_field(&good, at, &u64::MAX.to_le_bytes()),
        ErrorKind::OutOfBounds,
        "XNNGraph.constant_data[2].size",
    );
    assert!(Blob::parse_structure(&with_field(&good, at, &u64::MAX.to_le_bytes())).is_ok());
    // A bare graph carries no region: its inline ranges are not checked.
    let bare = &with_field(&good, at, &4000u64.to_le_bytes())[32..32 + blob.header().unwrap().flatbuffer_size as usize];
    assert!(Blob::parse(bare).is_ok());
}

#[test]
fn quantization_must_fit_its_tensor() {
    let good = read("xnnpack/xnn_linear_dq_int4_group32.delegate0.xh00");
    let blob = Blob::parse(&good).unwrap();
    let value = blob.graph().xvalues().unwrap().get(2).unwrap();
    let XNNQuantParams::PerChannelGroupQuant(q) = value.quantized().unwrap().quant_params() else { panic!() };
    let here = "XNNGraph.xvalues[2].xvalue_union.quant_params";
    // group_size (slot 2): 32 divides the 64 inputs; 48 does not, 0 is no group.
    let at = field_at(&good, q.raw().position(), 2);
    blob_error(
        &with_field(&good, at, &48i32.to_le_bytes()),
        ErrorKind::Rule("group_size must divide a channel"),
        &format!("{here}.group_size"),
    );
    blob_error(
        &with_field(&good, at, &0i32.to_le_bytes()),
        ErrorKind::Rule("group_size must be positive"),
        &format!("{here}.group_size"),
    );
    // 64 groups of 16 per channel would need 512 scales, not the 256 there are.
    blob_error(
        &with_field(&good, at, &16i32.to_le_bytes()),
        ErrorKind::Rule("groupwise scales must number the groups"),
        &format!("{here}.num_scales"),
    );
    // num_scales (slot 5) and the scales' constant (slot 4).
    let at = field_at(&good, q.raw().position(), 5);
    blob_error(
        &with_field(&good, at, &255u32.to_le_bytes()),
        ErrorKind::Rule("groupwise scales must number the groups"),
        &format!("{here}.num_scales"),
    );
    let at = field_at(&good, q.raw().position(), 4);
    blob_error(
        &with_field(&good, at, &99u32.to_le_bytes()),
        ErrorKind::IndexOutOfRange,
        &format!("{here}.scale_buffer_idx"),
    );
    blob_error(
        &with_field(&good, at, &1u32.to_le_bytes()),
        ErrorKind::Rule("the scales' constant is not num_scales scales long"),
        &format!("{here}.scale_buffer_idx"),
    );

    let good = read("xnnpack/xnn_linear_dq_int8_pc.delegate0.xh00");
    let blob = Blob::parse(&good).unwrap();
    let value = blob.graph().xvalues().unwrap().get(2).unwrap();
    let XNNQuantParams::PerChannelQuant(q) = value.quantized().unwrap().quant_params() else { panic!() };
    let at = field_at(&good, q.raw().position(), 3);
    blob_error(
        &with_field(&good, at, &64u32.to_le_bytes()),
        ErrorKind::Rule("per-channel scales must number the channels"),
        &format!("{here}.num_scales"),
    );
    // channel_dim 0 is the default, not stored: the per-token parameters of value 1 instead.
    let value = blob.graph().xvalues().unwrap().get(1).unwrap();
    let XNNQuantParams::PerTokenDynamicQuant(t) = value.quantized().unwrap().quant_params() else { panic!() };
    let at = field_at(&good, t.raw().position(), 0);
    blob_error(
        &with_field(&good, at, &3i32.to_le_bytes()),
        ErrorKind::Rule("num_nonbatch_dims must be within the tensor's rank"),
        "XNNGraph.xvalues[1].xvalue_union.quant_params.num_nonbatch_dims",
    );
}

/// A node type from a newer writer reads as its number, and its ids are not checked.
#[test]
fn unknown_node_types_read_as_numbers() {
    let good = read("xnnpack/xnn_mlp_fp32.delegate0.xh00");
    let blob = Blob::parse(&good).unwrap();
    let node = blob.graph().xnodes().unwrap().get(1).unwrap();
    let at = field_at(&good, node.raw().position(), 0);
    let newer = with_field(&good, at, &[200]);
    let blob = Blob::parse(&newer).unwrap();
    let node = blob.graph().xnodes().unwrap().get(1).unwrap();
    assert_eq!(node.xnode_union_type(), 200);
    assert!(matches!(node.xnode_union(), XNodeUnion::Unknown(200)));
    assert!(NodeIds::of(&node.xnode_union()).is_none());
}
