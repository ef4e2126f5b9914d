//! ExecuTorch's `.ptd` data files: every corpus file verifies, its named data resolve to the
//! segments flatc's dump gives, each broken header field and FlatTensor rule is an error naming
//! its field, and no truncation panics.

use crate::support;

use flatmodel::ptd::PtdFile;
use flatmodel::ErrorKind;
use serde_json::Value;
use std::path::PathBuf;

fn files() -> Vec<PathBuf> {
    let mut dirs = vec![support::testdata().join("ptd")];
    if let Some(corpus) = support::corpus() {
        dirs.push(corpus.join("ptd"));
    }
    let found: Vec<_> = dirs.iter().flat_map(|d| support::files_with_suffix(d, ".ptd")).collect();
    assert!(found.len() >= 2, "{found:?}");
    found
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(support::testdata().join("ptd").join(name)).unwrap()
}

fn reference(path: &std::path::Path) -> Value {
    support::json_with_bare_floats(&std::fs::read_to_string(path.with_extension("ptd.flatc.json")).unwrap())
}

#[test]
fn every_file_verifies_and_its_named_data_resolve() {
    for path in files() {
        let bytes = std::fs::read(&path).unwrap();
        let file = PtdFile::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let r = reference(&path);
        let header = file.header();
        assert_eq!((header.length, header.flatbuffer_offset), (40, 48));
        assert_eq!(header.segment_base_offset + header.segment_data_size, bytes.len() as u64);
        let segments = r["segments"].as_array().unwrap();
        let named = r["named_data"].as_array().unwrap();
        assert_eq!(named.len(), 4);
        for d in named {
            let key = d["key"].as_str().unwrap();
            let (entry, data) = file.named_data(key).unwrap();
            let s = &segments[d["segment_index"].as_u64().unwrap() as usize];
            let start = header.segment_base_offset as usize + s["offset"].as_u64().unwrap_or(0) as usize;
            assert_eq!(data, &bytes[start..start + s["size"].as_u64().unwrap() as usize], "{key}");
            assert_eq!(entry.tensor_layout().is_some(), d.get("tensor_layout").is_some());
        }
        assert!(file.named_data("no such key").is_none());
        assert_eq!(flatmodel::detect(&bytes), Some(flatmodel::Format::Ptd));
        assert_eq!(flatmodel::File::parse(&bytes).unwrap().format(), flatmodel::Format::Ptd);
    }
}

fn with_field(bytes: &[u8], at: usize, value: &[u8]) -> Vec<u8> {
    let mut b = bytes.to_vec();
    b[at..at + value.len()].copy_from_slice(value);
    b
}

#[track_caller]
fn ptd_error(bytes: &[u8], kind: ErrorKind, field: &str) {
    let e = PtdFile::parse(bytes).err().unwrap_or_else(|| panic!("accepted, expected {kind:?} at {field}"));
    assert_eq!((e.kind(), e.location().to_string()), (kind, field.to_string()), "{e}");
}

#[test]
fn broken_headers_name_the_field() {
    let good = read("ptd_mlp_portable.ptd");
    let len = good.len() as u64;
    let rule = ErrorKind::Rule;
    ptd_error(&with_field(&good, 8, b"FH02"), ErrorKind::WrongIdentifier, "FH01.magic");
    ptd_error(&with_field(&good, 12, &32u32.to_le_bytes()), rule("the header is at least 40 bytes"), "FH01.length");
    ptd_error(
        &with_field(&good, 16, &40u64.to_le_bytes()),
        rule("the flatbuffer's tables must start after the header"),
        "FH01.flatbuffer_offset",
    );
    ptd_error(&with_field(&good, 24, &len.to_le_bytes()), ErrorKind::OutOfBounds, "FH01.flatbuffer_size");
    ptd_error(&with_field(&good, 24, &u64::MAX.to_le_bytes()), ErrorKind::OutOfBounds, "FH01.flatbuffer_size");
    ptd_error(
        &with_field(&good, 32, &256u64.to_le_bytes()),
        rule("the segments must start after the flatbuffer"),
        "FH01.segment_base_offset",
    );
    ptd_error(&with_field(&good, 40, &u64::MAX.to_le_bytes()), ErrorKind::OutOfBounds, "FH01.segment_data_size");
    ptd_error(&good[..good.len() - 1], ErrorKind::OutOfBounds, "FH01.segment_data_size");
    ptd_error(&good[..40], ErrorKind::Truncated, "FH01.length");
    ptd_error(&good[..6], ErrorKind::Truncated, "FH01.magic");
    ptd_error(&with_field(&good, 4, b"FT02"), ErrorKind::WrongIdentifier, "FH01.magic");
}

/// Where field `slot` of the table at `table` lies in the file (it must be stored).
fn field_at(buf: &[u8], table: usize, slot: usize) -> usize {
    let soffset = i32::from_le_bytes(buf[table..table + 4].try_into().unwrap());
    let vtable = (table as i64 - soffset as i64) as usize;
    let voffset = u16::from_le_bytes(buf[vtable + 4 + 2 * slot..vtable + 6 + 2 * slot].try_into().unwrap()) as usize;
    assert_ne!(voffset, 0, "field {slot} is not stored");
    table + voffset
}

#[test]
fn broken_tensors_are_located() {
    let good = read("ptd_mlp_portable.ptd");
    let file = PtdFile::parse(&good).unwrap();
    let t = file.flat_tensor();
    // Segment 1 (offset 2048) past the segment data.
    let s = t.segments().unwrap().get(1).unwrap();
    let at = field_at(&good, s.raw().position(), 1);
    ptd_error(&with_field(&good, at, &4096u64.to_le_bytes()), ErrorKind::OutOfBounds, "FlatTensor.segments[1].size");
    let at = field_at(&good, s.raw().position(), 0);
    ptd_error(&with_field(&good, at, &u64::MAX.to_le_bytes()), ErrorKind::OutOfBounds, "FlatTensor.segments[1].size");
    // A segment index that does not exist.
    let d = t.named_data().unwrap().get(1).unwrap();
    let at = field_at(&good, d.raw().position(), 1);
    ptd_error(
        &with_field(&good, at, &9u32.to_le_bytes()),
        ErrorKind::IndexOutOfRange,
        "FlatTensor.named_data[1].segment_index",
    );
    // fc1.bias (32 floats, 128 bytes) pointed at fc2.bias's segment (32 bytes).
    ptd_error(
        &with_field(&good, at, &3u32.to_le_bytes()),
        ErrorKind::Rule("the tensor's bytes exceed its segment"),
        "FlatTensor.named_data[1].tensor_layout.sizes",
    );
    // A duplicate key: fc1.bias renamed fc1.weigh… (same length) is not enough; "fc2.bias" is.
    let key = good.windows(8).position(|w| w == b"fc1.bias").unwrap();
    ptd_error(
        &with_field(&good, key, b"fc2.bias"),
        ErrorKind::Rule("keys must be unique"),
        "FlatTensor.named_data[3].key",
    );
    // A negative size, and a dim_order naming a dimension twice.
    let layout = t.named_data().unwrap().get(0).unwrap().tensor_layout().unwrap();
    let sizes = layout.sizes().unwrap().as_slice().as_ptr() as usize - good.as_ptr() as usize;
    ptd_error(
        &with_field(&good, sizes, &(-1i32).to_le_bytes()),
        ErrorKind::Rule("tensor sizes must not be negative"),
        "FlatTensor.named_data[0].tensor_layout.sizes",
    );
    let order = layout.dim_order().unwrap().as_slice().as_ptr() as usize - good.as_ptr() as usize;
    ptd_error(
        &with_field(&good, order, &[1, 1]),
        ErrorKind::Rule("dim_order must order each dimension once"),
        "FlatTensor.named_data[0].tensor_layout.dim_order",
    );
    // A segment moved off its float alignment (offset 2048 + 2: inside the data, misaligned).
    let s = t.segments().unwrap().get(1).unwrap();
    let at = field_at(&good, s.raw().position(), 0);
    ptd_error(
        &with_field(&good, at, &2050u64.to_le_bytes()),
        ErrorKind::Misaligned,
        "FlatTensor.named_data[1].tensor_layout.scalar_type",
    );
    assert!(PtdFile::parse_structure(&with_field(&good, at, &2050u64.to_le_bytes())).is_ok());
}

#[test]
fn truncations_and_header_flips_never_panic() {
    for path in files() {
        let bytes = std::fs::read(&path).unwrap();
        for end in 0..bytes.len() {
            assert!(PtdFile::parse(&bytes[..end]).is_err(), "{}: prefix {end} accepted", path.display());
        }
        for at in 0..64 {
            let mut b = bytes.clone();
            b[at] ^= 0xff;
            let _ = PtdFile::parse(&b);
        }
    }
}
