//! Sophgo cvimodel: the header against `.header.json`, `flatmodel inspect` against tpu-mlir's
//! `model_tool --info` (`.model_tool.txt`), sections, weights and routines resolved to the bytes
//! the references name, and crafted or mutated files rejected with the field at fault.
//! Expected values come from the reference files or from the bytes themselves, never from our
//! own output.

use crate::support;

use flatmodel::cvimodel::{self, CviModel, MemoryRegion, TensorAddress, Warning};
use flatmodel::verify::Options;
use flatmodel::{ErrorKind, Format};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::cvimodel::{
    body, crafted_body, crafted_file, lz4_file, lz4_literals, lz4_zeros, ProgramSpec, SectionSpec,
};

/// The shipped cvimodels, then the corpus's when `FLATMODEL_CORPUS` is set.
fn models() -> Vec<PathBuf> {
    let mut models = support::files_with_suffix(&support::testdata().join("cvimodel"), ".cvimodel");
    assert!(models.len() >= 2, "expected the shipped cvimodels");
    if let Some(corpus) = support::corpus() {
        models.extend(support::files_with_suffix(&corpus.join("cvimodel"), ".cvimodel"));
    }
    models
}

fn testdata_model(name: &str) -> Vec<u8> {
    std::fs::read(support::testdata().join("cvimodel").join(name)).unwrap()
}

const INT8: &str = "tpumlir_tinycnn_int8_cv181x.cvimodel";
const BF16: &str = "tpumlir_tinycnn_bf16_cv183x.cvimodel";

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

// ---------------------------------------------------------------------------------------------
// The header against `.header.json`

#[test]
fn headers_match_header_json() {
    let mut checked = 0;
    for path in models() {
        let reference = support::read_json(&support::reference(&path, "header.json").unwrap());
        let bytes = std::fs::read(&path).unwrap();
        let what = path.display();
        assert_eq!(flatmodel::detect(&bytes), Some(Format::Cvimodel), "{what}");
        let h = cvimodel::Header::parse(&bytes).unwrap();
        assert_eq!(h.magic.as_slice(), reference["magic"].as_str().unwrap().as_bytes(), "{what}");
        assert_eq!(u64::from(h.body_size), reference["body_size"].as_u64().unwrap(), "{what}");
        assert_eq!(u64::from(h.major), reference["major"].as_u64().unwrap(), "{what}");
        assert_eq!(u64::from(h.minor), reference["minor"].as_u64().unwrap(), "{what}");
        assert_eq!(hex(&h.md5), reference["md5"].as_str().unwrap(), "{what}");
        assert_eq!(h.chip_name(), reference["chip"].as_str(), "{what}");
        assert_eq!(hex(&h.padding), reference["padding"].as_str().unwrap(), "{what}");
        let file = CviModel::parse(&bytes).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(bytes.len() as u64, reference["file_size"].as_u64().unwrap(), "{what}");
        assert_eq!(file.binary().len() as u64, reference["sections_bytes"].as_u64().unwrap(), "{what}");
        assert_eq!(file.md5_check().matches(), reference["md5_ok"].as_bool().unwrap(), "{what}");
        let mut warnings = Vec::new();
        file.for_each_warning(|w| warnings.push(w)).unwrap();
        assert!(warnings.is_empty(), "{what}: {warnings:?}");
        checked += 1;
    }
    assert!(checked >= 2);
}

// ---------------------------------------------------------------------------------------------
// `model_tool --info` (tpu-mlir 1.30.2), parsed

#[derive(Default, Debug)]
struct ToolRoutine {
    kind: String,
    inputs: Vec<String>,
    outputs: Vec<String>,
    section: Option<String>,
    function: Option<String>,
}

#[derive(Default, Debug)]
struct ToolProgram {
    fields: Vec<(String, String)>,
    routines: Vec<ToolRoutine>,
    /// ID OFFSET TYPE N C H W QSCALE MEM NAME
    tensors: Vec<Vec<String>>,
}

#[derive(Default, Debug)]
struct ToolInfo {
    mlir_version: Option<String>,
    version: String,
    name: String,
    build_time: String,
    chip: Option<String>,
    ion_mb: String,
    /// ID TYPE NAME SIZE OFFSET MD5
    sections: Vec<Vec<String>>,
    /// ID OFFSET SIZE TYPE N C H W NAME
    weights: Vec<Vec<String>>,
    programs: Vec<ToolProgram>,
}

fn names(list: &str) -> Vec<String> {
    list.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect()
}

fn parse_model_tool(text: &str) -> ToolInfo {
    #[derive(PartialEq)]
    enum Mode {
        Top,
        Sections,
        Weights,
        Program,
        Routines,
        Tensors,
    }
    let mut info = ToolInfo::default();
    let mut mode = Mode::Top;
    for line in text.lines() {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if let Some(v) = t.strip_prefix("Mlir Version: ") {
            info.mlir_version = Some(v.to_string());
        } else if let Some(v) = t.strip_prefix("Cvimodel Version: ") {
            info.version = v.to_string();
        } else if let Some((name, time)) = t.split_once(" Build at ") {
            info.name = name.to_string();
            info.build_time = time.to_string();
        } else if let Some(chip) = t.strip_prefix("For ").and_then(|r| r.strip_suffix(" chip ONLY")) {
            info.chip = Some(chip.to_string());
        } else if let Some(mb) = t.strip_prefix("CviModel Need ION Memory Size: (").and_then(|r| r.strip_suffix(" MB)"))
        {
            info.ion_mb = mb.to_string();
        } else if t == "Sections:" {
            mode = Mode::Sections;
        } else if t == "WeightMap:" {
            mode = Mode::Weights;
        } else if t.starts_with("Program #") {
            info.programs.push(ToolProgram::default());
            mode = Mode::Program;
        } else if t.starts_with("ID ") {
            // a table's column header
        } else if t.starts_with("routines") {
            mode = Mode::Routines;
        } else if t.starts_with("tensor_map") {
            mode = Mode::Tensors;
        } else {
            let cols: Vec<String> = t.split_whitespace().map(str::to_string).collect();
            match mode {
                Mode::Top => panic!("unexpected line {t:?}"),
                Mode::Sections => info.sections.push(cols),
                Mode::Weights => info.weights.push(cols),
                Mode::Tensors => info.programs.last_mut().unwrap().tensors.push(cols),
                Mode::Program => {
                    let (k, v) = t.split_once(':').unwrap();
                    info.programs.last_mut().unwrap().fields.push((k.trim().to_string(), v.trim().to_string()));
                }
                Mode::Routines => {
                    let routines = &mut info.programs.last_mut().unwrap().routines;
                    if t.starts_with('#') {
                        routines.push(ToolRoutine { kind: cols[1].clone(), ..ToolRoutine::default() });
                        continue;
                    }
                    let (k, v) = t.split_once(':').unwrap();
                    let r = routines.last_mut().unwrap();
                    match k.trim() {
                        "inputs" => r.inputs = names(v),
                        "outputs" => r.outputs = names(v),
                        "section" => r.section = Some(v.trim().to_string()),
                        "function" => r.function = Some(v.trim().to_string()),
                        other => panic!("unknown routine field {other}"),
                    }
                }
            }
        }
    }
    info
}

#[test]
fn the_model_tool_parser_reads_the_reference() {
    // The parser must see what the reference text holds (checked by eye against the file).
    let path = support::testdata().join("cvimodel/tpumlir_tinycnn_int8_cv181x.model_tool.txt");
    let info = parse_model_tool(&std::fs::read_to_string(path).unwrap());
    assert_eq!(info.version, "1.4.0");
    assert_eq!(info.chip.as_deref(), Some("cv181x"));
    assert_eq!(info.sections.len(), 2);
    assert_eq!(info.weights.len(), 6);
    assert_eq!(info.programs.len(), 1);
    let p = &info.programs[0];
    assert_eq!(p.routines.len(), 2);
    assert_eq!(p.routines[0].function.as_deref(), Some("quant"));
    assert_eq!(p.routines[1].section.as_deref(), Some("subfunc_1"));
    assert_eq!(p.tensors.len(), 6);
}

fn run(args: &[&std::ffi::OsStr]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_flatmodel")).args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned(), stderr)
}

fn inspect_json(path: &Path) -> Value {
    let (code, stdout, stderr) = run(&["inspect".as_ref(), path.as_os_str(), "--json".as_ref()]);
    assert_eq!(code, Some(0), "{stderr}");
    serde_json::from_str(&stdout).unwrap()
}

fn str_list(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect()
}

/// How `model_tool` prints a tensor's memory: region 1 (weight) falls in its "shared" branch.
fn tool_mem(region: &Value) -> &str {
    match region.as_str() {
        None => "-",
        Some("weight") => "shared",
        Some(r) => r,
    }
}

/// How `model_tool` prints a qscale: `-` when at most 1e-6 or over 400, else `%f` of the float.
fn tool_qscale(q: &Value) -> String {
    let q = q.as_f64().unwrap_or(0.0) as f32;
    if q <= 0.000001 || q > 400.0 {
        "-".into()
    } else {
        format!("{:.6}", f64::from(q))
    }
}

#[test]
fn inspect_agrees_with_model_tool() {
    let mut checked = 0;
    for path in models() {
        let what = path.display().to_string();
        let tool =
            parse_model_tool(&std::fs::read_to_string(support::reference(&path, "model_tool.txt").unwrap()).unwrap());
        let s = inspect_json(&path);
        assert_eq!(s["model_rules"], "ok", "{what}");
        assert_eq!(s["mlir_version"].as_str(), tool.mlir_version.as_deref(), "{what}");
        assert_eq!(s["version"].as_str(), Some(tool.version.as_str()), "{what}");
        assert_eq!(s["name"].as_str(), Some(tool.name.as_str()), "{what}");
        assert_eq!(s["build_time"].as_str(), Some(tool.build_time.as_str()), "{what}");
        assert_eq!(s["target"].as_str(), tool.chip.as_deref(), "{what}");
        assert_eq!(s["memory"]["total_mb"].as_str(), Some(tool.ion_mb.as_str()), "{what}: ION memory");

        let sections = s["sections"].as_array().unwrap();
        assert_eq!(sections.len(), tool.sections.len(), "{what}");
        for (ours, theirs) in sections.iter().zip(&tool.sections) {
            let row = [&ours["type"], &ours["name"], &ours["size"], &ours["offset"], &ours["md5"]]
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string));
            assert_eq!(row.as_slice(), &theirs[1..], "{what}: section {}", theirs[0]);
        }

        let weights = s["weight_list"].as_array().unwrap();
        assert_eq!(weights.len(), tool.weights.len(), "{what}");
        for (ours, theirs) in weights.iter().zip(&tool.weights) {
            let shape: Vec<String> = ours["shape"].as_array().unwrap().iter().take(4).map(Value::to_string).collect();
            let mut row =
                vec![ours["offset"].to_string(), ours["size"].to_string(), ours["type"].as_str().unwrap().into()];
            row.extend(shape);
            row.push(ours["name"].as_str().unwrap().into());
            assert_eq!(row.as_slice(), &theirs[1..], "{what}: weight {}", theirs[0]);
        }

        let programs = s["programs"].as_array().unwrap();
        assert_eq!(programs.len(), tool.programs.len(), "{what}");
        for (ours, theirs) in programs.iter().zip(&tool.programs) {
            for (k, v) in &theirs.fields {
                let mine = match k.as_str() {
                    "batch_num" => ours["batch_num"].to_string(),
                    "neuron_size" => ours["neuron_size"].to_string(),
                    "private_gmem_size" => ours["private_gmem"].to_string(),
                    "shared_gmem_size" => ours["shared_gmem"].to_string(),
                    "inputs" => str_list(&ours["inputs"]).join(","),
                    "outputs" => str_list(&ours["outputs"]).join(","),
                    other => panic!("{what}: unknown program field {other}"),
                };
                assert_eq!(&mine, v, "{what}: program field {k}");
            }
            // Every input and output tensor resolves to a tensor_map entry.
            for key in ["input_tensors", "output_tensors"] {
                for t in ours[key].as_array().unwrap() {
                    assert!(t.get("missing").is_none(), "{what}: {key} {t}");
                }
            }
            let routines = ours["routines"].as_array().unwrap();
            assert_eq!(routines.len(), theirs.routines.len(), "{what}");
            for (r, tr) in routines.iter().zip(&theirs.routines) {
                assert_eq!(r["type"].as_str(), Some(tr.kind.as_str()), "{what}");
                assert_eq!(str_list(&r["inputs"]), tr.inputs, "{what}");
                assert_eq!(str_list(&r["outputs"]), tr.outputs, "{what}");
                assert_eq!(r.get("section").and_then(Value::as_str), tr.section.as_deref(), "{what}");
                assert_eq!(r.get("function").and_then(Value::as_str), tr.function.as_deref(), "{what}");
                if tr.section.is_some() {
                    let i = r["section_index"].as_u64().unwrap() as usize;
                    assert_eq!(sections[i]["name"].as_str(), tr.section.as_deref(), "{what}: resolved section");
                }
            }
            let tensors = ours["tensors"].as_array().unwrap();
            assert_eq!(tensors.len(), theirs.tensors.len(), "{what}");
            for (t, row) in tensors.iter().zip(&theirs.tensors) {
                let shape: Vec<String> = t["shape"].as_array().unwrap().iter().take(4).map(Value::to_string).collect();
                let offset = t["offset"].as_i64().unwrap_or(-1).to_string();
                let mut mine = vec![offset, t["dtype"].as_str().unwrap().to_string()];
                mine.extend(shape);
                mine.push(tool_qscale(&t["qscale"]));
                mine.push(tool_mem(&t["region"]).to_string());
                mine.push(t["name"].as_str().unwrap().to_string());
                assert_eq!(mine.as_slice(), &row[1..], "{what}: tensor {}", row[0]);
            }
        }
        checked += 1;
    }
    let expected = if support::corpus().is_some() { 10 } else { 2 };
    assert!(checked >= expected, "checked {checked}");
}

// ---------------------------------------------------------------------------------------------
// Sections, weights, routines and tagged offsets

/// The bytes at `section_offset + at..+len` of the section area, found from the header alone.
fn section_area(bytes: &[u8]) -> &[u8] {
    let body_size = u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize;
    &bytes[48 + body_size..]
}

#[test]
fn weights_and_routines_resolve_to_their_bytes() {
    for name in [INT8, BF16] {
        let bytes = testdata_model(name);
        let flatc =
            support::read_json(&support::testdata().join("cvimodel").join(name.replace(".cvimodel", ".flatc.json")));
        let file = CviModel::parse(&bytes).unwrap();
        let area = section_area(&bytes);
        let weight_section = flatc["sections"].as_array().unwrap().iter().find(|s| s["type"] == "WEIGHT").unwrap();
        let base = weight_section["offset"].as_u64().unwrap() as usize;
        for w in flatc["weight_map"].as_array().unwrap() {
            let raw = w["offset"].as_u64().unwrap();
            assert_ne!(raw & (1 << 40), 0, "writers tag weight offsets with bit 40");
            let at = base + (raw & ((1 << 40) - 1)) as usize;
            let size = w["size"].as_u64().unwrap() as usize;
            let view = file.weight(w["name"].as_str().unwrap()).unwrap();
            assert!(view.address().tagged);
            assert_eq!(file.weight_data(&view).unwrap(), &area[at..at + size], "{name}: {}", w["name"]);
        }
        for (i, s) in flatc["sections"].as_array().unwrap().iter().enumerate() {
            let (offset, size) = (s["offset"].as_u64().unwrap() as usize, s["size"].as_u64().unwrap() as usize);
            let r = file.section(s["name"].as_str().unwrap()).unwrap().unwrap();
            assert_eq!(r.index, i);
            assert_eq!(r.payload, &area[offset..offset + size]);
            assert_eq!(r.file_offset, bytes.len() - area.len() + offset);
            // Not compressed: "decompressing" hands back the stored bytes.
            assert_eq!(&*file.decompress_section(i).unwrap(), r.payload);
        }
        let program = file.model().programs().unwrap().get(0).unwrap();
        let flatc_routines = flatc["programs"][0]["routines"].as_array().unwrap();
        for (routine, theirs) in program.routines().unwrap().iter().zip(flatc_routines) {
            let resolved = file.routine_section(&routine).unwrap();
            match theirs["tpu_routine"]["cmdbuf_section"].as_str() {
                Some(section) => assert_eq!(resolved.unwrap().1.name(), section),
                None => {
                    assert!(resolved.is_none());
                    // A CPU routine's arguments: the nested cpu_op flatbuffer, as bytes.
                    let args: Vec<u8> = theirs["cpu_routine"]["function_args"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|b| b.as_u64().unwrap() as u8)
                        .collect();
                    let cpu = routine.cpu_routine().unwrap();
                    assert_eq!(cpu.function_args().unwrap().as_slice(), args.as_slice());
                }
            }
        }
    }
}

#[test]
fn tagged_tensor_offsets_decode() {
    // `docs/cvimodel.md` §4.2: -1 none; bits 40..42 region (0 shared, 1 weight, 2 private,
    // >= 3 io).
    assert_eq!(cvimodel::decode_tensor_offset(-1), None);
    let at = |region, offset| Some(TensorAddress { region, offset });
    assert_eq!(cvimodel::decode_tensor_offset(0x10), at(MemoryRegion::Shared, 0x10));
    assert_eq!(cvimodel::decode_tensor_offset((1 << 40) | 5), at(MemoryRegion::Weight, 5));
    assert_eq!(cvimodel::decode_tensor_offset((2 << 40) | 0xFF_FFFF_FFFF), at(MemoryRegion::Private, 0xFF_FFFF_FFFF));
    assert_eq!(cvimodel::decode_tensor_offset(3 << 40), at(MemoryRegion::Io(3), 0));
    assert_eq!(cvimodel::decode_tensor_offset(4 << 40), at(MemoryRegion::Io(4), 0));
    let w = cvimodel::decode_weight_offset((1 << 40) | 1584);
    assert_eq!((w.offset, w.tagged), (1584, true));
    assert!(!cvimodel::decode_weight_offset(7).tagged);
    // The shipped int8 model: its tensor_map's raw offsets (flatc) decode to model_tool's MEM column.
    let bytes = testdata_model(INT8);
    let file = CviModel::parse(&bytes).unwrap();
    let tensors = file.model().programs().unwrap().get(0).unwrap().tensor_map().unwrap();
    let regions: Vec<_> = tensors.iter().map(|t| t.address().unwrap().region).collect();
    use MemoryRegion::*;
    assert_eq!(regions, [Io(3), Private, Shared, Shared, Shared, Io(4)]);
}

#[test]
fn a_version_1_0_header_is_32_bytes_without_chip() {
    let bytes = testdata_model(INT8);
    let body_size = u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize;
    let mut old = bytes[..14].to_vec();
    old[13] = 0; // minor 0
    old.extend_from_slice(&bytes[14..30]); // md5
    old.extend_from_slice(b"AA");
    old.extend_from_slice(&bytes[48..]);
    let file = CviModel::parse(&old).unwrap();
    assert_eq!(file.header().size(), 32);
    assert_eq!(file.header().chip, None);
    assert_eq!(file.body_offset(), 32);
    assert_eq!(file.binary_offset(), 32 + body_size);
    // The same sections, found 16 bytes earlier; the md5 still covers everything after the header.
    let area = section_area(&bytes);
    assert_eq!(file.binary(), area);
    assert!(file.md5_check().matches());
    let mut warnings = Vec::new();
    file.for_each_warning(|w| warnings.push(w)).unwrap();
    assert_eq!(warnings, [Warning::VersionMismatch], "the body says 1.4");
}

// ---------------------------------------------------------------------------------------------
// Bad input: each a clear error naming the field at fault

fn location(e: &flatmodel::Error) -> String {
    e.location().to_string()
}

#[test]
fn header_errors_name_the_field() {
    let good = testdata_model(INT8);

    let mut bad = good.clone();
    bad[0] = b'X';
    let e = CviModel::parse(&bad).unwrap_err();
    assert_eq!((e.kind(), e.offset(), location(&e).as_str()), (ErrorKind::BadHeader, 0, "CviModel.magic"));
    assert_eq!(flatmodel::detect(&bad), None);

    for len in [0, 5, 8, 20, 31, 40, 47] {
        let e = CviModel::parse(&good[..len]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Truncated, "{len} bytes");
        assert_eq!(e.offset(), len as u64);
    }

    for body_size in [good.len() as u32 - 47, u32::MAX] {
        let mut bad = good.clone();
        bad[8..12].copy_from_slice(&body_size.to_le_bytes());
        let e = CviModel::parse(&bad).unwrap_err();
        assert_eq!((e.kind(), e.offset(), location(&e).as_str()), (ErrorKind::OutOfBounds, 8, "CviModel.body_size"));
    }

    let mut bad = good.clone();
    bad[12] = 2;
    let e = CviModel::parse(&bad).unwrap_err();
    assert_eq!((e.kind(), e.offset(), location(&e).as_str()), (ErrorKind::BadHeader, 12, "CviModel.major"));

    // A body error is reported at its file offset: the root offset is the body's first word.
    let mut bad = good.clone();
    bad[48..52].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = CviModel::parse_structure(&bad).unwrap_err();
    assert_eq!(e.offset(), 48, "{e}");
    assert_eq!(e.location().root(), "Model");
}

/// Where in `bytes` the u32 of field `slot` of `table` lies (the field must be present).
fn field_at(file: &CviModel<'_>, table: flatmodel::wire::Table<'_>, slot: u16) -> usize {
    file.body_offset() + table.field(slot).expect("field present")
}

fn set_u32(bytes: &mut [u8], at: usize, v: u32) {
    bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

#[test]
fn sections_outside_the_file_are_errors() {
    let good = testdata_model(INT8);
    let file = CviModel::parse(&good).unwrap();
    let cmdbuf = file.model().sections().unwrap().get(1).unwrap();
    let (size_at, offset_at) = (field_at(&file, cmdbuf.raw(), 2), field_at(&file, cmdbuf.raw(), 3));
    let area = file.binary().len() as u32;
    let cases: [(u32, u32, &str); 4] = [
        (1872, area - 1871, "Model.sections[1].size"),
        (area + 1, 0, "Model.sections[1].offset"),
        (u32::MAX, u32::MAX, "Model.sections[1].offset"),
        (1872, u32::MAX, "Model.sections[1].size"),
    ];
    for (offset, size, field) in cases {
        let mut bad = good.clone();
        set_u32(&mut bad, offset_at, offset);
        set_u32(&mut bad, size_at, size);
        // The structure is intact; the section rule catches it.
        let file = CviModel::parse_structure(&bad).unwrap();
        assert!(file.section_at(1).is_err());
        let e = CviModel::parse(&bad).unwrap_err();
        assert_eq!((e.kind(), location(&e).as_str()), (ErrorKind::OutOfBounds, field), "offset {offset} size {size}");
    }
}

#[test]
fn a_weight_outside_the_weight_section_is_an_error() {
    let good = testdata_model(INT8);
    let file = CviModel::parse(&good).unwrap();
    let w = file.model().weight_map().unwrap().get(0).unwrap();
    let size_at = field_at(&file, w.raw(), 2);
    let mut bad = good.clone();
    set_u32(&mut bad, size_at, 1872); // offset 1584 + 1872 passes the 1872-byte WEIGHT section
    let e = CviModel::parse(&bad).unwrap_err();
    assert_eq!((e.kind(), location(&e).as_str()), (ErrorKind::OutOfBounds, "Model.weight_map[0].offset"));
    let file = CviModel::parse_structure(&bad).unwrap();
    assert!(file.weight_data(&file.model().weight_map().unwrap().get(0).unwrap()).is_err());
}

#[test]
fn a_routine_naming_a_missing_section_is_an_error() {
    let good = testdata_model(INT8);
    let file = CviModel::parse(&good).unwrap();
    let routine = file.model().programs().unwrap().get(0).unwrap().routines().unwrap().get(1).unwrap();
    let name = routine.tpu_routine().unwrap().cmdbuf_section().unwrap();
    assert_eq!(name, "subfunc_1");
    let at = name.as_ptr() as usize - good.as_ptr() as usize;
    let mut bad = good.clone();
    bad[at + name.len() - 1] = b'9'; // subfunc_9
    let file = CviModel::parse_structure(&bad).unwrap();
    let routine = file.model().programs().unwrap().get(0).unwrap().routines().unwrap().get(1).unwrap();
    assert!(file.routine_section(&routine).is_err());
    let e = CviModel::parse(&bad).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Rule(_)), "{e}");
    assert_eq!(location(&e), "Model.programs[0].routines[1].tpu_routine.cmdbuf_section");
    assert!(e.to_string().contains("section"), "{e}");
}

#[test]
fn a_changed_byte_is_an_md5_warning_not_an_error() {
    let mut bytes = testdata_model(BF16);
    let last = bytes.len() - 1;
    bytes[last] ^= 0x55;
    let file = CviModel::parse(&bytes).unwrap();
    assert!(!file.md5_check().matches());
    let mut warnings = Vec::new();
    file.for_each_warning(|w| warnings.push(w)).unwrap();
    assert!(matches!(warnings.as_slice(), [Warning::Md5Mismatch { .. }]), "{warnings:?}");
}

// ---------------------------------------------------------------------------------------------
// Crafted files: LZ4 sections

#[test]
fn a_crafted_file_verifies() {
    let bytes = lz4_file(&lz4_literals(b"hello world"), 11);
    let file = CviModel::parse(&bytes).unwrap();
    assert_eq!(file.model().name(), "crafted");
    assert_eq!(file.header().chip_name(), Some("cv181x"));
    assert_eq!(file.section("subfunc_0").unwrap().unwrap().payload, &[0xC0; 8]);
    let routine = file.model().programs().unwrap().get(0).unwrap().routines().unwrap().get(0).unwrap();
    assert_eq!(file.routine_section(&routine).unwrap().map(|(i, _)| i), Some(0));
    let mut warnings = Vec::new();
    file.for_each_warning(|w| warnings.push(w)).unwrap();
    assert!(matches!(warnings.as_slice(), [Warning::Md5Mismatch { stored, .. }] if *stored == [0; 16]), "{warnings:?}");
}

/// Where the LZ4 payload of an [`lz4_file`] starts: it ends the file.
fn payload_offset(bytes: &[u8], payload: &[u8]) -> u64 {
    (bytes.len() - payload.len()) as u64
}

#[test]
fn lz4_sections_decompress_to_exactly_decompressed_size() {
    let block = lz4_literals(b"hello world");
    let file_bytes = lz4_file(&block, 11);
    let file = CviModel::parse(&file_bytes).unwrap();
    assert!(file.model().sections().unwrap().get(1).unwrap().is_lz4());
    assert_eq!(&*file.decompress_section(1).unwrap(), b"hello world");
    // The stored payload is the compressed block.
    assert_eq!(file.section_at(1).unwrap().payload, block.as_slice());

    // Verification walks the block: a wrong size fails it, and decompressing fails the same way.
    for wrong in [10, 12, 40] {
        let bytes = lz4_file(&block, wrong);
        let e = CviModel::parse(&bytes).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::Rule(_)), "{wrong}: {e}");
        assert_eq!(location(&e), "Model.sections[1].decompressed_size", "{wrong}");
        assert!(e.to_string().contains("decompressed_size"), "{e}");
        let e2 = CviModel::parse_structure(&bytes).unwrap().decompress_section(1).unwrap_err();
        assert_eq!(e2, e, "{wrong}");
    }

    // A literal run whose length byte is missing: malformed, not a panic.
    let bytes = lz4_file(&[0xF0], 100);
    let e = CviModel::parse(&bytes).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Rule(_)), "{e}");
    assert_eq!(location(&e), "Model.sections[1].compress");
    assert!(CviModel::parse_structure(&bytes).unwrap().decompress_section(1).is_err());

    // A size LZ4 cannot reach from 12 bytes is refused before anything is allocated.
    let bytes = lz4_file(&block, 12 * 255 + 17);
    let e = CviModel::parse(&bytes).unwrap_err();
    assert_eq!(location(&e), "Model.sections[1].decompressed_size");
    let file = CviModel::parse_structure(&bytes).unwrap();
    assert!(file.decompress_section(1).is_err());
}

#[test]
fn a_block_one_byte_longer_or_shorter_than_claimed_is_rejected() {
    // 1000 zeros; a copy of 8 literals and a match: 8 + 4 + 15 + 17 = 44 bytes.
    let zeros = lz4_zeros(1000);
    let mut mixed = vec![0x8F];
    mixed.extend_from_slice(b"abcdefgh");
    mixed.extend_from_slice(&[8, 0, 17, 0]);
    for (block, size) in [(zeros, 1000u32), (mixed, 44)] {
        let bytes = lz4_file(&block, size);
        let file = CviModel::parse(&bytes).unwrap_or_else(|e| panic!("{size}: {e}"));
        assert_eq!(file.decompress_section(1).unwrap().len(), size as usize);
        for claim in [size - 1, size + 1] {
            let bytes = lz4_file(&block, claim);
            let e = CviModel::parse(&bytes).unwrap_err();
            assert!(matches!(e.kind(), ErrorKind::Rule(_)), "{claim}: {e}");
            assert_eq!(location(&e), "Model.sections[1].decompressed_size", "{claim}");
            // The error points into the payload, not at the table.
            let start = payload_offset(&bytes, &block);
            assert!((start..=start + block.len() as u64).contains(&e.offset()), "{claim}: {e}");
        }
    }
    // lz4_flex, an independent decoder, agrees on what the hand-written blocks hold.
    let mut out = vec![0xAA; 1000];
    assert_eq!(lz4_flex::block::decompress_into(&lz4_zeros(1000), &mut out).ok(), Some(1000));
    assert!(out.iter().all(|&b| b == 0));
}

#[test]
fn a_match_reaching_before_the_start_is_located() {
    // One literal, then a match at offset 2 (only 1 byte precedes it), then an empty last run.
    let block = [0x10, b'a', 0x02, 0x00, 0x00];
    let bytes = lz4_file(&block, 5);
    CviModel::parse_structure(&bytes).unwrap();
    let e = CviModel::parse(&bytes).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Rule(_)), "{e}");
    assert!(e.to_string().contains("before the start"), "{e}");
    assert_eq!(location(&e), "Model.sections[1].compress");
    assert_eq!(e.offset(), payload_offset(&bytes, &block) + 2, "the offset's first byte: {e}");
    // Offset 1 is within the output: the same block is then valid.
    let good = [0x10, b'a', 0x01, 0x00, 0x00];
    let bytes = lz4_file(&good, 5);
    assert_eq!(&*CviModel::parse(&bytes).unwrap().decompress_section(1).unwrap(), b"aaaaa");
    // Offset 0 is malformed too.
    let bytes = lz4_file(&[0x10, b'a', 0x00, 0x00, 0x00], 5);
    assert_eq!(location(&CviModel::parse(&bytes).unwrap_err()), "Model.sections[1].compress");
}

#[test]
fn a_section_of_zeros_verifies_without_inflating_it() {
    // 64 MiB of zeros in about 256 KiB: verification, the CLI's included, only walks the block.
    let size = 64 << 20;
    let block = lz4_zeros(size);
    assert!(size / block.len() > 250, "ratio {}", size / block.len());
    let bytes = lz4_file(&block, size as u32);
    CviModel::parse(&bytes).unwrap();
    let dir = std::env::temp_dir().join(format!("flatmodel-cvimodel-zeros-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("zeros.cvimodel");
    std::fs::write(&path, &bytes).unwrap();
    let (code, stdout, _) = run(&["verify".as_ref(), path.as_os_str()]);
    assert_eq!(code, Some(0), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
    // (the library's tests/no_alloc.rs checks that verifying such a file allocates nothing.)
}

#[test]
fn lz4_claims_together_are_bounded_by_the_inflated_size_limit() {
    // Two sections over the same 12-byte block, each valid, together claiming 22 bytes.
    let block = lz4_literals(b"hello world");
    let mut area = vec![0xC0; 8];
    area.extend_from_slice(&block);
    let size = block.len() as u32;
    let sections = [
        SectionSpec { kind: 1, name: "subfunc_0", size: 8, offset: 0, compress: false, decompressed_size: 0 },
        SectionSpec { kind: 0, name: "a", size, offset: 8, compress: true, decompressed_size: 11 },
        SectionSpec { kind: 0, name: "b", size, offset: 8, compress: true, decompressed_size: 11 },
    ];
    let bytes = crafted_file(&crafted_body(&sections, "subfunc_0"), &area);
    CviModel::parse(&bytes).unwrap();
    let limit = |max_inflated_size| Options { max_inflated_size, ..Options::DEFAULT };
    CviModel::parse_with(&bytes, &limit(22)).unwrap();
    let e = CviModel::parse_with(&bytes, &limit(21)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InflatedSizeLimit, "{e}");
    assert_eq!(location(&e), "Model.sections[2].decompressed_size");
    // The limit the file was parsed with also bounds what one section may be inflated to.
    let file = CviModel::parse_structure_with(&bytes, &limit(10)).unwrap().value;
    assert_eq!(file.max_inflated_size(), 10);
    assert_eq!(file.decompress_section(1).unwrap_err().kind(), ErrorKind::InflatedSizeLimit);
    let file = CviModel::parse_structure_with(&bytes, &limit(11)).unwrap().value;
    assert_eq!(&*file.decompress_section(2).unwrap(), b"hello world");
    // The default is an absolute 1 GiB: a valid claim of 1 GiB + 1 is refused.
    assert_eq!(Options::DEFAULT.max_inflated_size, 1 << 30);
    let zeros = lz4_zeros((1 << 30) + 1);
    let bytes = lz4_file(&zeros, (1 << 30) + 1);
    assert_eq!(CviModel::parse(&bytes).unwrap_err().kind(), ErrorKind::InflatedSizeLimit);
    CviModel::parse_with(&bytes, &limit(u64::MAX)).unwrap();
}

#[test]
fn a_crafted_routine_naming_no_section_is_an_error() {
    let sections =
        [SectionSpec { kind: 1, name: "subfunc_0", size: 0, offset: 0, compress: false, decompressed_size: 0 }];
    let bytes = crafted_file(&crafted_body(&sections, "subfunc_1"), &[]);
    CviModel::parse_structure(&bytes).unwrap();
    let e = CviModel::parse(&bytes).unwrap_err();
    assert_eq!(location(&e), "Model.programs[0].routines[0].tpu_routine.cmdbuf_section");
}

// ---------------------------------------------------------------------------------------------
// Crafted files: large and valid, every name resolved

/// A file whose program has `n` tensors, `n` inputs naming them in a scrambled order (and
/// one output), and `n / 4` routines over `n / 4` sections whose `n / 8` names are listed twice
/// in a row each (the first of a name must win). Returns the file,
/// the tensor index each input names, and the section index each routine must resolve to.
fn large_model(n: usize) -> (Vec<u8>, Vec<usize>, Vec<usize>) {
    let tensors: Vec<String> = (0..n).map(|i| format!("t{i:05}_{}", i * 7919 % 1000)).collect();
    let order: Vec<usize> = (0..n).map(|k| k * 7 % n).collect();
    let inputs: Vec<String> = order.iter().map(|&i| tensors[i].clone()).collect();
    let outputs = vec![tensors[n - 1].clone()];
    let n_names = n / 8;
    // Names in an order unrelated to their sort order; section 2k and 2k + 1 share a name.
    let names: Vec<String> = (0..n_names).map(|k| format!("subfunc_{}", (k * 37 + 11) % (n_names * 3))).collect();
    let sections: Vec<SectionSpec<'_>> = (0..2 * n_names)
        .map(|i| SectionSpec {
            // The second of a name is a DMABUF: resolving a routine to it would be warned about.
            kind: if i % 2 == 0 { 1 } else { 4 },
            name: &names[i / 2],
            size: 4,
            offset: 4 * i as u32,
            compress: false,
            decompressed_size: 0,
        })
        .collect();
    let routine_names: Vec<usize> = (0..2 * n_names).map(|r| r * 5 % n_names).collect();
    let routines: Vec<String> = routine_names.iter().map(|&k| names[k].clone()).collect();
    let program = ProgramSpec { tensors: &tensors, inputs: &inputs, outputs: &outputs, routines: &routines };
    let bytes = crafted_file(&body(&sections, &program), &vec![0xC0; 8 * n_names]);
    let expected_sections = routine_names.iter().map(|&k| 2 * k).collect();
    (bytes, order, expected_sections)
}

#[test]
fn a_large_valid_model_resolves_every_name() {
    let n = 6000;
    let (bytes, inputs, routines) = large_model(n);
    assert!(routines.len() > 1000, "more sections than the library's stack index holds");
    let file = CviModel::parse(&bytes).unwrap_or_else(|e| panic!("{e}"));
    let program = file.model().programs().unwrap().get(0).unwrap();
    assert_eq!(program.tensor_map().unwrap().len(), n);
    for (r, routine) in program.routines().unwrap().iter().enumerate() {
        assert_eq!(file.routine_section(&routine).unwrap().map(|(i, _)| i), Some(routines[r]), "routine {r}");
    }
    let mut warnings = Vec::new();
    file.for_each_warning(|w| warnings.push(w)).unwrap();
    assert!(matches!(warnings.as_slice(), [Warning::Md5Mismatch { .. }]), "{warnings:?}");

    let dir = std::env::temp_dir().join(format!("flatmodel-cvimodel-large-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("large.cvimodel");
    std::fs::write(&path, &bytes).unwrap();
    let s = inspect_json(&path);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(s["model_rules"], "ok");
    let p = &s["programs"][0];
    let resolved = p["input_tensors"].as_array().unwrap();
    assert_eq!(resolved.len(), n);
    for (k, t) in resolved.iter().enumerate() {
        assert_eq!(t["index"].as_u64(), Some(inputs[k] as u64), "input {k}: {t}");
        assert_eq!(t["tensor_id"].as_u64(), Some(inputs[k] as u64), "input {k}");
    }
    assert_eq!(p["output_tensors"][0]["index"].as_u64(), Some(n as u64 - 1));
    let listed = p["routines"].as_array().unwrap();
    assert_eq!(listed.len(), routines.len());
    for (r, routine) in listed.iter().enumerate() {
        assert_eq!(routine["section_index"].as_u64(), Some(routines[r] as u64), "routine {r}");
    }
}

#[test]
fn a_large_model_with_one_unknown_section_name_is_located() {
    let (good, _, _) = large_model(2400);
    let file = CviModel::parse(&good).unwrap();
    let program = file.model().programs().unwrap().get(0).unwrap();
    let last = program.routines().unwrap().len() - 1;
    let name = program.routines().unwrap().get(last).unwrap().tpu_routine().unwrap().cmdbuf_section().unwrap();
    let at = name.as_ptr() as usize - good.as_ptr() as usize;
    let mut bad = good.clone();
    bad[at] = b'X'; // "Xubfunc_…", which no section is named
    let e = CviModel::parse(&bad).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Rule(_)), "{e}");
    assert_eq!(location(&e), format!("Model.programs[0].routines[{last}].tpu_routine.cmdbuf_section"));
}

#[test]
fn the_walks_after_parsing_charge_the_caller_s_budget() {
    let bytes = testdata_model(INT8);
    let file = CviModel::parse_structure(&bytes).unwrap();
    // No work allowed at all: the first unit charged is over the budget.
    let none = Options { apparent_size_per_byte: 0, max_apparent_size: 0, ..Options::DEFAULT };
    let kind = |r: flatmodel::Result<()>| r.map_err(|e| e.kind());
    assert_eq!(kind(file.check(&Options::DEFAULT)), Ok(()));
    assert_eq!(kind(file.check(&none)), Err(ErrorKind::ApparentSizeLimit));
    assert_eq!(kind(file.check_rules(&none)), Err(ErrorKind::ApparentSizeLimit));
    assert_eq!(kind(file.for_each_warning(|_| {})), Ok(()));
    assert_eq!(kind(file.for_each_warning_with(&Options::DEFAULT, |_| {})), Ok(()));
    let e = file.for_each_warning_with(&none, |_| {}).unwrap_err();
    assert_eq!((e.kind(), location(&e)), (ErrorKind::ApparentSizeLimit, "Model".to_string()));
    let full = file.memory_usage();
    assert_eq!(file.memory_usage_with(&Options::DEFAULT), full);
    let starved = file.memory_usage_with(&none);
    assert!(full.io > 0, "{full:?}");
    assert_eq!(starved, cvimodel::MemoryUsage { io: 0, ..full }, "no tensor counted");
}

// ---------------------------------------------------------------------------------------------
// The command line

#[test]
fn cli_verify_dump_and_extract() {
    let dir = std::env::temp_dir().join(format!("flatmodel-cvimodel-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in [INT8, BF16] {
        let path = support::testdata().join("cvimodel").join(name);
        let (code, stdout, _) = run(&["verify".as_ref(), path.as_os_str()]);
        assert_eq!(code, Some(0), "{stdout}");
        assert!(stdout.contains(": ok (cvimodel"), "{stdout}");

        let (code, stdout, _) = run(&["dump".as_ref(), path.as_os_str()]);
        assert_eq!(code, Some(0));
        let ours: Value = serde_json::from_str(&stdout).unwrap();
        let theirs = support::read_json(&support::reference(&path, "flatc.json").unwrap());
        assert_eq!(ours["name"], theirs["name"]);
        assert_eq!(ours["sections"], theirs["sections"]);
        assert_eq!(ours["weight_map"].as_array().unwrap().len(), theirs["weight_map"].as_array().unwrap().len());

        let bytes = std::fs::read(&path).unwrap();
        let area = section_area(&bytes);
        let tool =
            parse_model_tool(&std::fs::read_to_string(support::reference(&path, "model_tool.txt").unwrap()).unwrap());
        for row in &tool.sections {
            for what in ["section", "section-data"] {
                let out = dir.join(format!("{name}.{what}.{}", row[2]));
                let arg = format!("{what}:{}", row[2]);
                let (code, stdout, stderr) =
                    run(&["extract".as_ref(), path.as_os_str(), arg.as_ref(), "-o".as_ref(), out.as_os_str()]);
                assert_eq!(code, Some(0), "{stdout}{stderr}");
                let data = std::fs::read(&out).unwrap();
                let (offset, size): (usize, usize) = (row[4].parse().unwrap(), row[3].parse().unwrap());
                assert_eq!(data, &area[offset..offset + size], "{name} {arg}");
                assert_eq!(format!("{:x}", md5_of(&data)), row[5], "{name} {arg}: model_tool's md5");
            }
        }
        let weight_offset: usize = tool.sections.iter().find(|r| r[1] == "weight").unwrap()[4].parse().unwrap();
        for row in &tool.weights {
            let out = dir.join(format!("{name}.weight.{}", row[8]));
            let arg = format!("weight:{}", row[8]);
            let (code, _, stderr) =
                run(&["extract".as_ref(), path.as_os_str(), arg.as_ref(), "-o".as_ref(), out.as_os_str()]);
            assert_eq!(code, Some(0), "{stderr}");
            let (at, size): (usize, usize) = (row[1].parse().unwrap(), row[2].parse().unwrap());
            assert_eq!(std::fs::read(&out).unwrap(), &area[weight_offset + at..weight_offset + at + size], "{arg}");
        }
        let out = dir.join("none");
        let (code, _, stderr) =
            run(&["extract".as_ref(), path.as_os_str(), "section:nope".as_ref(), "-o".as_ref(), out.as_os_str()]);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stderr.contains("no section named 'nope'"), "{stderr}");
    }
    // A broken file: verify says why, with the field; exit 1.
    let mut bad = testdata_model(INT8);
    bad[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
    let path = dir.join("bad.cvimodel");
    std::fs::write(&path, &bad).unwrap();
    let (code, stdout, _) = run(&["verify".as_ref(), path.as_os_str()]);
    assert_eq!(code, Some(1));
    assert!(stdout.contains("CviModel.body_size"), "{stdout}");
    let (code, stdout, _) = run(&["inspect".as_ref(), path.as_os_str()]);
    assert_eq!(code, Some(1));
    assert!(stdout.contains("invalid"), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// MD5 (RFC 1321), for checking `model_tool`'s per-section digests independently of the crate.
fn md5_of(data: &[u8]) -> Md5Hex {
    const S: [u32; 64] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14,
        20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6,
        10, 15, 21,
    ];
    let k: Vec<u32> = (0..64).map(|i| ((i as f64 + 1.0).sin().abs() * 4294967296.0) as u32).collect();
    let (mut a0, mut b0, mut c0, mut d0) = (0x67452301u32, 0xefcdab89u32, 0x98badcfeu32, 0x10325476u32);
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&((data.len() as u64).wrapping_mul(8)).to_le_bytes());
    for chunk in msg.chunks(64) {
        let m: Vec<u32> = chunk.chunks(4).map(|w| u32::from_le_bytes(w.try_into().unwrap())).collect();
        let (mut a, mut b, mut c, mut d) = (a0, b0, c0, d0);
        for i in 0..64 {
            let (f, g) = match i / 16 {
                0 => ((b & c) | (!b & d), i),
                1 => ((d & b) | (!d & c), (5 * i + 1) % 16),
                2 => (b ^ c ^ d, (3 * i + 5) % 16),
                _ => (c ^ (b | !d), (7 * i) % 16),
            };
            let f = f.wrapping_add(a).wrapping_add(k[i]).wrapping_add(m[g]);
            a = d;
            d = c;
            c = b;
            b = b.wrapping_add(f.rotate_left(S[i]));
        }
        a0 = a0.wrapping_add(a);
        b0 = b0.wrapping_add(b);
        c0 = c0.wrapping_add(c);
        d0 = d0.wrapping_add(d);
    }
    let mut out = [0u8; 16];
    for (i, v) in [a0, b0, c0, d0].iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
    }
    Md5Hex(out)
}

struct Md5Hex([u8; 16]);

impl std::fmt::LowerHex for Md5Hex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&hex(&self.0))
    }
}

#[test]
fn the_test_md5_is_md5() {
    // RFC 1321's test suite.
    assert_eq!(format!("{:x}", md5_of(b"")), "d41d8cd98f00b204e9800998ecf8427e");
    assert_eq!(format!("{:x}", md5_of(b"abc")), "900150983cd24fb0d6963f7d28e17f72");
    assert_eq!(
        format!("{:x}", md5_of(b"12345678901234567890123456789012345678901234567890123456789012345678901234567890")),
        "57edf4a22be3c955ac49da2e2107b67a"
    );
}
