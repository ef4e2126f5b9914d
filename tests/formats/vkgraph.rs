//! ExecuTorch's Vulkan delegate and `.pte` programs: every shipped file verifies, delegate blobs
//! come out byte-identical to the extracted `.vh00` files, constants resolve to the bytes the
//! references give, and every broken header, range and index is a clear error.

use crate::support;

use flatmodel::pte::PteFile;
use flatmodel::vkgraph::{Blob, Constant};
use flatmodel::ErrorKind;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    support::testdata().join("vkgraph")
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn files(suffix: &str) -> Vec<PathBuf> {
    let found = support::files_with_suffix(&dir(), suffix);
    assert!(!found.is_empty(), "no {suffix} files");
    found
}

fn reference(path: &Path) -> Value {
    let r = support::reference(path, "flatc.json").or_else(|| support::reference(path, "vk00.flatc.json"));
    support::read_json(&r.unwrap_or_else(|| panic!("{}: no reference", path.display())))
}

#[test]
fn every_blob_and_program_verifies() {
    for path in files(".vh00").into_iter().chain(files(".vk00.bin")) {
        let bytes = std::fs::read(&path).unwrap();
        let blob = Blob::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let r = reference(&path);
        assert_eq!(blob.graph().values().map_or(0, |v| v.len()), r["values"].as_array().unwrap().len());
        assert_eq!(blob.header().is_some(), path.to_string_lossy().ends_with(".vh00"), "{}", path.display());
        // A bare VkGraph has no raw bytes to read inline constants from.
        if blob.header().is_none() {
            assert!(blob.raw_bytes().is_empty());
        }
    }
    for path in files(".pte") {
        let bytes = std::fs::read(&path).unwrap();
        PteFile::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}

/// The `.vh00` files were extracted by ExecuTorch's own program parser: ours must give the same
/// bytes for the same delegate.
#[test]
fn delegate_blobs_are_the_extracted_files() {
    let mut checked = 0;
    for path in files(".pte") {
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let file = PteFile::parse(&bytes).unwrap();
        let r = reference(&path);
        let delegates: Vec<_> = file.delegates().collect();
        let expected: usize =
            r["execution_plan"].as_array().unwrap().iter().map(|p| p["delegates"].as_array().map_or(0, Vec::len)).sum();
        assert_eq!(delegates.len(), expected, "{stem}");
        for (n, d) in delegates.iter().enumerate() {
            assert!(d.is_vulkan(), "{stem}: delegate {n} is {:?}", d.id);
            let (_, blob) = file.delegate_blob(d).unwrap();
            let extracted = dir().join(format!("{stem}.delegate{n}.vh00"));
            assert_eq!(blob, std::fs::read(&extracted).unwrap().as_slice(), "{}", extracted.display());
            checked += 1;
        }
    }
    assert!(checked >= 6, "checked {checked}");
}

/// Constants stored in the blob's raw bytes resolve to `raw[offset..][..length]`; the
/// ExecuTorch 1.5 ones resolve to the named data segment the program's `named_data` gives.
#[test]
fn constants_resolve_inline_and_through_named_data() {
    let bytes = read("vk_mlp_inline_constants.vh00");
    let blob = Blob::parse(&bytes).unwrap();
    let r = reference(&dir().join("vk_mlp_inline_constants.vh00"));
    let header = blob.header().unwrap();
    for (i, c) in r["constants"].as_array().unwrap().iter().enumerate() {
        let (offset, length) = (c["offset"].as_u64().unwrap() as usize, c["length"].as_u64().unwrap() as usize);
        let start = header.bytes_offset as usize + offset;
        assert_eq!(blob.constant(i).unwrap(), Constant::Inline(&bytes[start..start + length]));
        assert_eq!(blob.constant_data(i, |_| None).unwrap().len(), length);
    }

    let bytes = read("vk_mlp.pte");
    let file = PteFile::parse(&bytes).unwrap();
    let r = reference(&dir().join("vk_mlp.pte"));
    let segments = r["segments"].as_array().unwrap();
    let base = file.header().unwrap().segment_base_offset as usize;
    let named: Vec<(String, usize)> = r["named_data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["key"].as_str().unwrap().to_string(), d["segment_index"].as_u64().unwrap() as usize))
        .collect();
    let delegate = file.delegate(0).unwrap();
    let blob = file.vulkan_blob(&delegate).unwrap().unwrap();
    let constants = blob.graph().constants().unwrap();
    assert!(constants.len() >= 4);
    for i in 0..constants.len() {
        let Constant::Named { key, length } = blob.constant(i).unwrap() else { panic!("constant {i} is inline") };
        let segment = named.iter().find(|(k, _)| k == key).unwrap().1;
        let (offset, size) = (
            segments[segment]["offset"].as_u64().unwrap() as usize,
            segments[segment]["size"].as_u64().unwrap() as usize,
        );
        assert_eq!(size as u64, length);
        let data = blob.constant_data(i, |k| file.named_data(k)).unwrap();
        assert_eq!(data, &bytes[base + offset..base + offset + size]);
    }
    // Without the program, a named constant has nowhere to come from.
    let e = blob.constant_data(0, |_| None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    assert_eq!(e.location().to_string(), "VkGraph.constants[0].named_key");
}

// ---- broken VH00 headers: each rule of `docs/executorch.md` §3.1, and a flatbuffer that is not VK00 ----

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
    let good = read("vk_mlp_inline_constants.vh00");
    let len = good.len() as u32;
    let rule = |s| ErrorKind::Rule(s);
    blob_error(
        &with_field(&good, 8, &29u16.to_le_bytes()),
        rule("header_size must be at least 30"),
        "VH00.header_size",
    );
    blob_error(
        &with_field(&good, 10, &20u32.to_le_bytes()),
        rule("the flatbuffer must start after the header"),
        "VH00.flatbuffer_offset",
    );
    blob_error(
        &with_field(&good, 14, &0u32.to_le_bytes()),
        rule("flatbuffer_size must not be 0"),
        "VH00.flatbuffer_size",
    );
    blob_error(&with_field(&good, 14, &len.to_le_bytes()), ErrorKind::OutOfBounds, "VH00.flatbuffer_size");
    blob_error(
        &with_field(&good, 18, &40u32.to_le_bytes()),
        rule("the raw bytes must start after the flatbuffer"),
        "VH00.bytes_offset",
    );
    // bytes_offset + bytes_size wraps a u64: the upstream reader's own check can be fooled so.
    blob_error(&with_field(&good, 22, &u64::MAX.to_le_bytes()), ErrorKind::OutOfBounds, "VH00.bytes_size");
    blob_error(&with_field(&good, 22, &(u64::from(len)).to_le_bytes()), ErrorKind::OutOfBounds, "VH00.bytes_size");
    blob_error(&good[..20], ErrorKind::Truncated, "VH00.header_size");
    blob_error(&good[..6], ErrorKind::Truncated, "VH00.magic");
    blob_error(&good[..good.len() - 1], ErrorKind::OutOfBounds, "VH00.bytes_size");
    // A VH00 whose flatbuffer is not a VkGraph: the offset is the flatbuffer's, in the blob.
    let not_vk = with_field(&good, 32 + 4, b"TFL3");
    let e = Blob::parse(&not_vk).unwrap_err();
    assert_eq!((e.kind(), e.offset()), (ErrorKind::WrongIdentifier, 36), "{e}");
    assert!(Blob::parse(b"not a blob at all").is_err());
}

#[test]
fn broken_graph_indices_are_located() {
    let good = read("vk_mlp_inline_constants.vh00");
    let blob = Blob::parse(&good).unwrap();
    // Point the second inline constant (the first has the default offset 0, not stored) past
    // the raw bytes, so that offset + length wraps.
    let c1 = blob.graph().constants().unwrap().get(1).unwrap();
    let voffset = field_offset(&good[32..], c1.raw().position(), 0);
    assert_ne!(voffset, 0);
    let bad = with_field(&good, 32 + c1.raw().position() + voffset, &u64::MAX.wrapping_sub(1).to_le_bytes());
    blob_error(&bad, ErrorKind::OutOfBounds, "VkGraph.constants[1].length");
    // An input id past the values.
    let inputs = blob.graph().input_ids().unwrap();
    let at = inputs.as_slice().as_ptr() as usize - good.as_ptr() as usize;
    let bad = with_field(&good, at, &999u32.to_le_bytes());
    blob_error(&bad, ErrorKind::IndexOutOfRange, "VkGraph.input_ids[0]");
    assert!(Blob::parse_structure(&bad).is_ok(), "the structure alone is still valid");
}

/// Where field `slot` of the table at `table` lies, from the table's start.
fn field_offset(buf: &[u8], table: usize, slot: usize) -> usize {
    let soffset = i32::from_le_bytes(buf[table..table + 4].try_into().unwrap());
    let vtable = (table as i64 - soffset as i64) as usize;
    u16::from_le_bytes(buf[vtable + 4 + 2 * slot..vtable + 6 + 2 * slot].try_into().unwrap()) as usize
}

// ---- broken programs ----

#[track_caller]
fn pte_error(bytes: &[u8], kind: ErrorKind, location: &str) {
    let e = PteFile::parse(bytes).err().unwrap_or_else(|| panic!("accepted, expected {kind:?} at {location}"));
    assert_eq!((e.kind(), e.location().to_string()), (kind, location.to_string()), "{e}");
}

#[test]
fn broken_programs_are_clear_errors() {
    let good = read("vk_mlp.pte");
    assert!(PteFile::parse(&good).is_ok());
    // Cut the file inside the segments.
    pte_error(&good[..good.len() - 100], ErrorKind::OutOfBounds, "eh00.segment_data_size");
    // Extended header sums that wrap.
    pte_error(&with_field(&good, 24, &u64::MAX.to_le_bytes()), ErrorKind::OutOfBounds, "eh00.segment_base_offset");
    pte_error(&with_field(&good, 32, &(u64::MAX - 10).to_le_bytes()), ErrorKind::OutOfBounds, "eh00.segment_data_size");
    pte_error(&with_field(&good, 16, &u64::MAX.to_le_bytes()), ErrorKind::OutOfBounds, "eh00.program_size");
    pte_error(
        &with_field(&good, 12, &8u32.to_le_bytes()),
        ErrorKind::Rule("the extended header is at least 24 bytes"),
        "eh00.length",
    );

    let file = PteFile::parse(&good).unwrap();
    let program = file.program();
    // A segment past the end.
    let seg = program.segments().unwrap().get(1).unwrap();
    let size_at = seg.raw().position() + field_offset(&good, seg.raw().position(), 1);
    pte_error(
        &with_field(&good, size_at, &(1u64 << 40).to_le_bytes()),
        ErrorKind::OutOfBounds,
        "Program.segments[1].size",
    );
    // A delegate whose segment index does not exist.
    let delegate = file.delegate(0).unwrap();
    let processed = delegate.view.processed().unwrap();
    let index_at = processed.raw().position() + field_offset(&good, processed.raw().position(), 1);
    pte_error(&with_field(&good, index_at, &77u32.to_le_bytes()), ErrorKind::IndexOutOfRange, "Program.segments[77]");
    assert!(file.delegate(99).is_none());
    // A delegate call passing a value the plan lacks (its delegate_index is the default 0,
    // not stored, so the argument list is what can be broken in place).
    let plan = program.execution_plan().unwrap().get(0).unwrap();
    let call = plan
        .chains()
        .unwrap()
        .iter()
        .flat_map(|c| c.instructions().unwrap().iter())
        .find_map(|i| match i.instr_args() {
            flatmodel::pte::InstructionArguments::DelegateCall(d) => Some(d),
            _ => None,
        })
        .unwrap();
    let args = call.args().unwrap();
    let at = args.as_slice().as_ptr() as usize - good.as_ptr() as usize;
    let e = PteFile::parse(&with_field(&good, at, &999i32.to_le_bytes())).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::IndexOutOfRange, "{e}");
    assert!(e.location().to_string().ends_with("instructions[0].instr_args.args[0]"), "{e}");
    // A named key the program lacks: the Vulkan graph's constant names nothing.
    let key = file.program().named_data().unwrap().get(0).unwrap().key().unwrap().to_string();
    let at = good.windows(key.len()).position(|w| w == key.as_bytes()).unwrap();
    let mut renamed = good.clone();
    renamed[at] = if renamed[at] == b'0' { b'1' } else { b'0' };
    let e = PteFile::parse(&renamed).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound, "{e}");
    assert!(e.location().to_string().ends_with(".named_key"), "{e}");
}

#[test]
fn detection_is_from_the_bytes() {
    assert_eq!(flatmodel::detect(&read("vk_mlp.pte")), Some(flatmodel::Format::Pte));
    assert_eq!(flatmodel::detect(&read("vk_mlp.delegate0.vh00")), Some(flatmodel::Format::VkGraph));
    assert_eq!(flatmodel::detect(&read("vk_mlp.delegate0.vk00.bin")), Some(flatmodel::Format::VkGraph));
}

#[test]
fn program_lookups_fail_at_the_root_table_with_their_path() {
    let good = read("vk_mlp.pte");
    let file = PteFile::parse(&good).unwrap();
    let program = file.program();
    // Every error of the program's rules is at its root table, where byte 0's offset points.
    let root = u32::from_le_bytes(good[..4].try_into().unwrap()) as u64;
    let at = |e: flatmodel::Error| (e.kind(), e.offset(), e.location().to_string());

    let segments = program.segments().unwrap().len();
    let e = file.segment(segments).unwrap_err();
    assert_eq!(at(e), (ErrorKind::IndexOutOfRange, root, format!("Program.segments[{segments}]")));
    let named = program.named_data().unwrap().len();
    let e = file.named_data_at(named).unwrap_err();
    assert_eq!(at(e), (ErrorKind::IndexOutOfRange, root, format!("Program.named_data[{named}]")));

    // A named datum whose segment does not exist.
    let entry = program.named_data().unwrap().get(0).unwrap();
    let slot = field_offset(&good, entry.raw().position(), 1);
    assert_ne!(slot, 0, "segment_index is stored");
    let bad = with_field(&good, entry.raw().position() + slot, &77u32.to_le_bytes());
    let e = PteFile::parse(&bad).unwrap_err();
    assert_eq!(at(e), (ErrorKind::IndexOutOfRange, root, "Program.named_data[0].segment_index".to_string()));

    // A delegate whose data location is unknown, then one inline at an index with no data.
    let processed = file.delegate(0).unwrap().view.processed().unwrap();
    let location_at = processed.raw().position() + field_offset(&good, processed.raw().position(), 0);
    let index_at = processed.raw().position() + field_offset(&good, processed.raw().position(), 1);
    let here = "Program.execution_plan[0].delegates[0].processed";
    let e = PteFile::parse(&with_field(&good, location_at, &[5])).unwrap_err();
    assert_eq!(at(e), (ErrorKind::Rule("unknown DataLocation"), root, here.to_string()));
    let inline = with_field(&with_field(&good, location_at, &[0]), index_at, &77u32.to_le_bytes());
    let e = PteFile::parse(&inline).unwrap_err();
    assert_eq!(at(e), (ErrorKind::IndexOutOfRange, root, format!("{here}.index")));

    // A blob's constants and shaders past their lists, at the graph's root table.
    let delegate = file.delegate(0).unwrap();
    let (_, bytes) = file.delegate_blob(&delegate).unwrap();
    let blob = Blob::parse(bytes).unwrap();
    let flatbuffer = blob.header().unwrap().flatbuffer_offset as usize;
    let graph_root =
        (flatbuffer + u32::from_le_bytes(bytes[flatbuffer..flatbuffer + 4].try_into().unwrap()) as usize) as u64;
    let constants = blob.graph().constants().map_or(0, |c| c.len());
    let e = blob.constant(constants).unwrap_err();
    assert_eq!(at(e), (ErrorKind::IndexOutOfRange, graph_root, format!("VkGraph.constants[{constants}]")));
    let e = blob.constant_data(constants, |_| None).unwrap_err();
    assert_eq!(at(e), (ErrorKind::IndexOutOfRange, graph_root, format!("VkGraph.constants[{constants}]")));
    let shaders = blob.graph().shaders().map_or(0, |s| s.len());
    let e = blob.shader(shaders).unwrap_err();
    assert_eq!(at(e), (ErrorKind::IndexOutOfRange, graph_root, format!("VkGraph.shaders[{shaders}]")));
}
