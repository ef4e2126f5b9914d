//! A program and its data checked together (`docs/executorch.md` §3.11): the keys each program
//! reads, with their readers and bytes, against flatc's dumps; every `.pte` + `.ptd` pair
//! resolves; a program without its data, with the wrong data, with data too short or with its
//! keys split over several files. Expected keys and sizes come from the dumps.

use crate::support;

use flatmodel::ptd::PtdFile;
use flatmodel::pte::{DataError, DataKey, DataProblem, DataReader, DataSource, PteFile, XNNPACK_BACKEND};
use flatmodel::verify::Options;
use flatmodel::ErrorKind;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The directories of `.pte` files of testdata and, when set, the corpus.
fn dirs(sub: &str) -> Vec<PathBuf> {
    let mut dirs = vec![support::testdata().join(sub)];
    if let Some(corpus) = support::corpus() {
        dirs.push(corpus.join(sub));
    }
    dirs
}

fn json(path: &Path) -> Value {
    support::json_with_bare_floats(&std::fs::read_to_string(path).unwrap())
}

/// `NAME.SUFFIX` beside `NAME.pte`.
fn beside(pte: &Path, suffix: &str) -> PathBuf {
    let name = pte.file_name().unwrap().to_string_lossy().replace(".pte", suffix);
    pte.with_file_name(name)
}

fn all_keys<'a>(program: &PteFile<'a>) -> Vec<DataKey<'a>> {
    let mut keys = Vec::new();
    program.data_keys(&Options::DEFAULT, |k| keys.push(k)).unwrap();
    keys
}

/// Bits per element of an XNNPACK datatype, by the C types of XNNPACK's documentation.
fn xnn_bits(name: &str) -> u64 {
    match name {
        "xnn_datatype_fp32" | "xnn_datatype_qint32" | "xnn_datatype_qcint32" | "xnn_datatype_int32" => 32,
        "xnn_datatype_fp16" | "xnn_datatype_bf16" => 16,
        "xnn_datatype_qint8" | "xnn_datatype_quint8" | "xnn_datatype_qcint8" | "xnn_datatype_qdint8" => 8,
        "xnn_datatype_qcint4" | "xnn_datatype_qbint4" => 4,
        other => panic!("a datatype this test does not size: {other}"),
    }
}

/// The keys an XNNPACK graph dump names, in the order its values read them (a value's data,
/// then its scales), each with the bytes its reader needs: the elements' bits rounded up to
/// bytes, the scales' count times their width, never less than the entry's `size`.
fn expected_xnn_keys(graph: &Value) -> Vec<(String, usize, u64)> {
    let constants = graph["constant_data"].as_array().unwrap();
    let named = |i: u64| -> Option<(String, u64)> {
        let c = &constants[i as usize];
        let key = c["named_key"].as_str().filter(|k| !k.is_empty())?;
        Some((key.to_string(), c["size"].as_u64().unwrap()))
    };
    let mut out = Vec::new();
    for v in graph["xvalues"].as_array().unwrap() {
        let u = &v["xvalue_union"];
        let t = if v["xvalue_union_type"] == "XNNQuantizedTensorValue" { &u["tensor_value"] } else { u };
        let idx = t["constant_buffer_idx"].as_u64().unwrap_or(0);
        if idx != 0 {
            if let Some((key, size)) = named(idx) {
                let elements: u64 = t["dims"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap()).product();
                let bytes = (elements * xnn_bits(t["datatype"].as_str().unwrap())).div_ceil(8);
                out.push((key, idx as usize, bytes.max(size)));
            }
        }
        let q = &u["quant_params"];
        let width = match u["quant_params_type"].as_str() {
            Some("PerChannelQuant") => 4,
            Some("PerChannelGroupQuant") => 2,
            _ => continue,
        };
        let inline = q["scale"].as_array().is_some_and(|s| !s.is_empty());
        let buffer = q["scale_buffer_idx"].as_u64().unwrap_or(0);
        if !inline && buffer != 0 {
            if let Some((key, size)) = named(buffer) {
                out.push((key, buffer as usize, (q["num_scales"].as_u64().unwrap() * width).max(size)));
            }
        }
    }
    out
}

/// The external tensors of a program dump: each value whose `extra_tensor_info.location` is
/// `EXTERNAL`, its fully qualified name and bytes (FLOAT: 4 bytes an element).
fn expected_program_keys(program: &Value) -> Vec<(String, usize, u64)> {
    let mut out = Vec::new();
    for plan in program["execution_plan"].as_array().unwrap() {
        for (i, v) in plan["values"].as_array().unwrap().iter().enumerate() {
            let t = &v["val"];
            if v["val_type"] != "Tensor" || t["extra_tensor_info"]["location"] != "EXTERNAL" {
                continue;
            }
            assert_eq!(t["scalar_type"], "FLOAT", "this test sizes FLOAT tensors");
            let elements: u64 = t["sizes"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap()).product();
            let key = t["extra_tensor_info"]["fully_qualified_name"].as_str().unwrap().to_string();
            out.push((key, i, elements * 4));
        }
    }
    out
}

/// What each key of `keys` says, as `expected_*_keys` list it.
fn listed(keys: &[DataKey<'_>]) -> Vec<(String, usize, u64)> {
    keys.iter()
        .map(|k| {
            let at = match k.reader {
                DataReader::Program { value, .. } => value,
                DataReader::Delegate { constant, .. } => constant,
            };
            (k.key.to_string(), at, k.bytes)
        })
        .collect()
}

#[test]
fn every_xnnpack_program_lists_the_keys_its_graphs_name() {
    let mut checked = 0;
    for dir in dirs("xnnpack").into_iter().chain(dirs("ptd")) {
        for path in support::files_with_suffix(&dir, ".pte") {
            let bytes = std::fs::read(&path).unwrap();
            let program = PteFile::parse(&bytes).unwrap();
            let keys = all_keys(&program);
            let mut expected = expected_program_keys(&json(&beside(&path, ".flatc.json")));
            let delegates: Vec<_> = program.delegates().collect();
            for (n, d) in delegates.iter().enumerate() {
                let graph = json(&beside(&path, &format!(".delegate{n}.xn.flatc.json")));
                expected.extend(expected_xnn_keys(&graph));
                assert_eq!(d.id, Some(XNNPACK_BACKEND));
            }
            assert_eq!(listed(&keys), expected, "{}", path.display());
            for k in &keys {
                if let DataReader::Delegate { plan, index, backend, .. } = k.reader {
                    assert_eq!((plan, backend), (0, XNNPACK_BACKEND));
                    assert!(index < delegates.len());
                }
            }
            // A program with its weights in its own named data needs nothing from outside.
            let own = program.program().named_data().is_some_and(|n| !n.is_empty());
            let mut external = Vec::new();
            program.external_keys(&Options::DEFAULT, |k| external.push(k)).unwrap();
            if own {
                assert!(external.is_empty(), "{}: {external:?}", path.display());
                assert_eq!(program.check_data(&[], &Options::DEFAULT), Ok(()));
            } else {
                assert_eq!(external, keys, "{}", path.display());
            }
            checked += 1;
        }
    }
    assert!(checked >= 9, "{checked}");
}

#[test]
fn every_program_and_its_data_file_resolve_together() {
    let mut pairs = 0;
    for dir in dirs("ptd") {
        for path in support::files_with_suffix(&dir, ".pte") {
            let (pte, ptd) = (std::fs::read(&path).unwrap(), std::fs::read(beside(&path, ".ptd")).unwrap());
            let program = PteFile::parse(&pte).unwrap();
            let data = PtdFile::parse(&ptd).unwrap();
            assert_eq!(program.check_data(&[data], &Options::DEFAULT), Ok(()), "{}", path.display());
            // Every key is in the data file, under the key the data file's dump gives, with a
            // segment at least as long as its reader needs.
            let dump = json(&beside(&path, ".ptd.flatc.json"));
            let segments = dump["segments"].as_array().unwrap();
            for k in all_keys(&program) {
                let entry = dump["named_data"].as_array().unwrap().iter().find(|d| d["key"] == k.key).unwrap();
                let size = segments[entry["segment_index"].as_u64().unwrap() as usize]["size"].as_u64().unwrap();
                assert!(size >= k.bytes, "{}: {}", path.display(), k.key);
                let (source, found) = program.find_data(&k, &[data]).unwrap();
                assert_eq!((source, found.len() as u64), (DataSource::Ptd(0), size));
            }
            pairs += 1;
        }
    }
    assert!(pairs >= 2, "{pairs}");
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(support::testdata().join("ptd").join(name)).unwrap()
}

/// The first named key of the XNNPACK data file's program, as its graph's dump gives it, and
/// its `size`.
fn first_xnn_key() -> (String, u64) {
    let graph = json(&support::testdata().join("ptd/ptd_xnnpack_mlp_fp32.delegate0.xn.flatc.json"));
    let c = graph["constant_data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["named_key"].as_str().is_some_and(|k| !k.is_empty()))
        .unwrap();
    (c["named_key"].as_str().unwrap().to_string(), c["size"].as_u64().unwrap())
}

#[test]
fn a_program_without_its_data_names_its_first_missing_key() {
    let pte = read("ptd_xnnpack_mlp_fp32.pte");
    let program = PteFile::parse(&pte).unwrap();
    let (key, size) = first_xnn_key();
    let Err(DataError::Unresolved(u)) = program.check_data(&[], &Options::DEFAULT) else { panic!("resolved") };
    assert_eq!((u.need.key, u.problem, u.found, u.need.bytes), (key.as_str(), DataProblem::Missing, None, size));
    assert!(matches!(
        u.need.reader,
        DataReader::Delegate { plan: 0, index: 0, backend: "XnnpackBackend", constant: 1 }
    ));
    let e = flatmodel::Error::from(u);
    assert_eq!(
        (e.kind(), e.location().to_string()),
        (ErrorKind::NotFound, "XNNGraph.constant_data[1].named_key".into())
    );
    assert_eq!(e.offset(), u.need.at);
    assert!(u.to_string().contains(&key), "{u}");
    // The wrong data file (the portable program's) holds none of its keys.
    let portable = read("ptd_mlp_portable.ptd");
    let wrong = PtdFile::parse(&portable).unwrap();
    let Err(DataError::Unresolved(u)) = program.check_data(&[wrong], &Options::DEFAULT) else { panic!("resolved") };
    assert_eq!((u.need.key, u.problem), (key.as_str(), DataProblem::Missing));
}

#[test]
fn a_portable_program_with_the_wrong_data_names_its_first_tensor() {
    let pte = read("ptd_mlp_portable.pte");
    let program = PteFile::parse(&pte).unwrap();
    let dump = json(&support::testdata().join("ptd/ptd_mlp_portable.flatc.json"));
    let (key, value, bytes) = expected_program_keys(&dump).remove(0);
    let xnn = read("ptd_xnnpack_mlp_fp32.ptd");
    for data in [vec![], vec![PtdFile::parse(&xnn).unwrap()]] {
        let Err(DataError::Unresolved(u)) = program.check_data(&data, &Options::DEFAULT) else { panic!("resolved") };
        assert_eq!((u.need.key, u.need.bytes, u.problem), (key.as_str(), bytes, DataProblem::Missing));
        assert_eq!(u.need.reader, DataReader::Program { plan: 0, value });
        let e = flatmodel::Error::from(DataError::Unresolved(u));
        let path = format!("Program.execution_plan[0].values[{value}].val.extra_tensor_info.fully_qualified_name");
        assert_eq!((e.kind(), e.location().to_string()), (ErrorKind::NotFound, path));
    }
}

/// The file offset of the only 8-aligned little-endian `value` in `bytes[..end]`.
fn only_u64(bytes: &[u8], end: usize, value: u64) -> usize {
    let at: Vec<usize> = (0..end - 8).step_by(4).filter(|&i| bytes[i..i + 8] == value.to_le_bytes()).collect();
    assert_eq!(at.len(), 1, "{value} at {at:?}");
    at[0]
}

#[test]
fn data_shorter_than_its_reader_needs_is_short_with_both_sizes() {
    let pte = read("ptd_xnnpack_mlp_fp32.pte");
    let program = PteFile::parse(&pte).unwrap();
    let mut ptd = read("ptd_xnnpack_mlp_fp32.ptd");
    let dump = json(&support::testdata().join("ptd/ptd_xnnpack_mlp_fp32.ptd.flatc.json"));
    // The last segment, shortened by half: still inside the data, so the file verifies.
    let last = dump["segments"].as_array().unwrap().len() - 1;
    let size = dump["segments"][last]["size"].as_u64().unwrap();
    let key = dump["named_data"].as_array().unwrap().iter().find(|d| d["segment_index"] == last).unwrap()["key"]
        .as_str()
        .unwrap()
        .to_string();
    let end = u64::from_le_bytes(ptd[32..40].try_into().unwrap()) as usize;
    let at = only_u64(&ptd, end, size);
    ptd[at..at + 8].copy_from_slice(&(size / 2).to_le_bytes());
    let data = PtdFile::parse(&ptd).unwrap();
    let Err(DataError::Unresolved(u)) = program.check_data(&[data], &Options::DEFAULT) else { panic!("resolved") };
    assert_eq!((u.need.key, u.problem), (key.as_str(), DataProblem::Short));
    assert_eq!((u.need.bytes, u.found), (size, Some(size / 2)));
    let e = flatmodel::Error::from(u);
    assert_eq!(e.kind(), ErrorKind::Rule("named data shorter than its reader needs"));
    assert!(u.to_string().contains(&format!("{size} bytes) is short: {} bytes found", size / 2)), "{u}");
}

/// `bytes` with the first occurrence of each key of `keys` given another first letter.
fn renamed(bytes: &[u8], keys: &[&str]) -> Vec<u8> {
    let mut b = bytes.to_vec();
    for key in keys {
        let at = b.windows(key.len()).position(|w| w == key.as_bytes()).unwrap();
        b[at] = b'x';
    }
    b
}

#[test]
fn keys_split_over_several_data_files_resolve() {
    let pte = read("ptd_xnnpack_mlp_fp32.pte");
    let program = PteFile::parse(&pte).unwrap();
    let dump = json(&support::testdata().join("ptd/ptd_xnnpack_mlp_fp32.ptd.flatc.json"));
    let keys: Vec<&str> = dump["named_data"].as_array().unwrap().iter().map(|d| d["key"].as_str().unwrap()).collect();
    assert_eq!(keys.len(), 4);
    let ptd = read("ptd_xnnpack_mlp_fp32.ptd");
    // Each file keeps half the keys (the others renamed away).
    let (first, second) = (renamed(&ptd, &keys[2..]), renamed(&ptd, &keys[..2]));
    let (a, b) = (PtdFile::parse(&first).unwrap(), PtdFile::parse(&second).unwrap());
    assert_eq!(program.check_data(&[a, b], &Options::DEFAULT), Ok(()));
    assert_eq!(program.check_data(&[b, a], &Options::DEFAULT), Ok(()));
    // One half alone misses the other's first key (in the order the graph names them).
    let order: Vec<String> = all_keys(&program).iter().map(|k| k.key.to_string()).collect();
    for (alone, missing) in [(a, &keys[2..]), (b, &keys[..2])] {
        let Err(DataError::Unresolved(u)) = program.check_data(&[alone], &Options::DEFAULT) else { panic!() };
        let first_missing = order.iter().find(|k| missing.contains(&k.as_str())).unwrap();
        assert_eq!((u.need.key, u.problem), (first_missing.as_str(), DataProblem::Missing));
    }
    let k = all_keys(&program).into_iter().find(|k| k.key == keys[3]).unwrap();
    assert_eq!(program.find_data(&k, &[a, b]).unwrap().0, DataSource::Ptd(1));
}

#[test]
fn each_lookup_is_charged_to_the_budget() {
    let pte = read("ptd_xnnpack_mlp_fp32.pte");
    let program = PteFile::parse(&pte).unwrap();
    let ptd = read("ptd_xnnpack_mlp_fp32.ptd");
    let data = vec![PtdFile::parse(&ptd).unwrap(); 300];
    assert_eq!(program.check_data(&data, &Options::DEFAULT), Ok(()));
    // Without the per-byte budget only the slack is left: four lookups, each a step per named
    // datum of 300 files, pass it.
    let tiny = Options { apparent_size_per_byte: 0, ..Options::DEFAULT };
    const { assert!(4 * 300 * 4 > Options::APPARENT_SIZE_SLACK) };
    let Err(DataError::Invalid(e)) = program.check_data(&data, &tiny) else { panic!("not refused") };
    assert_eq!(e.kind(), ErrorKind::ApparentSizeLimit);
    assert_eq!(program.check_data(&data[..1], &tiny), Ok(()));
}

#[test]
fn vulkan_programs_list_their_named_constants_and_hold_them() {
    let mut checked = 0;
    for dir in dirs("vkgraph") {
        for path in support::files_with_suffix(&dir, ".pte") {
            let bytes = std::fs::read(&path).unwrap();
            let program = PteFile::parse(&bytes).unwrap();
            let mut expected = Vec::new();
            for (n, d) in program.delegates().enumerate() {
                assert_eq!(d.id, Some(flatmodel::pte::VULKAN_BACKEND));
                let graph = json(&beside(&path, &format!(".delegate{n}.vk00.flatc.json")));
                for (i, c) in graph["constants"].as_array().into_iter().flatten().enumerate() {
                    if let Some(key) = c["named_key"].as_str().filter(|k| !k.is_empty()) {
                        expected.push((key.to_string(), i, c["length"].as_u64().unwrap()));
                    }
                }
            }
            let keys = all_keys(&program);
            assert_eq!(listed(&keys), expected, "{}", path.display());
            assert_eq!(program.check_data(&[], &Options::DEFAULT), Ok(()), "{}", path.display());
            let mut external = 0;
            program.external_keys(&Options::DEFAULT, |_| external += 1).unwrap();
            assert_eq!(external, 0);
            checked += 1;
        }
    }
    assert!(checked >= 6, "{checked}");
}

#[test]
fn a_program_tensor_needs_a_datum_with_a_tensor_layout() {
    let pte = read("ptd_mlp_portable.pte");
    let program = PteFile::parse(&pte).unwrap();
    let dump = json(&support::testdata().join("ptd/ptd_mlp_portable.flatc.json"));
    let (name, _, bytes) = expected_program_keys(&dump).remove(0);
    // The XNNPACK data file (no tensor layouts), its first key renamed to the tensor's name:
    // the string's length shortened and a NUL after the new name.
    let mut ptd = read("ptd_xnnpack_mlp_fp32.ptd");
    let xdump = json(&support::testdata().join("ptd/ptd_xnnpack_mlp_fp32.ptd.flatc.json"));
    let key = xdump["named_data"][0]["key"].as_str().unwrap();
    let at = ptd.windows(key.len()).position(|w| w == key.as_bytes()).unwrap();
    assert_eq!(u32::from_le_bytes(ptd[at - 4..at].try_into().unwrap()) as usize, key.len());
    ptd[at - 4..at].copy_from_slice(&(name.len() as u32).to_le_bytes());
    ptd[at..at + name.len()].copy_from_slice(name.as_bytes());
    ptd[at + name.len()] = 0;
    let data = PtdFile::parse(&ptd).unwrap();
    assert!(data.named_data(&name).is_some_and(|(entry, _)| entry.tensor_layout().is_none()));
    let Err(DataError::Unresolved(u)) = program.check_data(&[data], &Options::DEFAULT) else { panic!("resolved") };
    assert_eq!((u.need.key, u.need.bytes, u.problem, u.found), (name.as_str(), bytes, DataProblem::NoLayout, None));
    let e = flatmodel::Error::from(u);
    assert_eq!(e.kind(), ErrorKind::Rule("a program tensor's data needs a tensor_layout"));
    assert!(u.to_string().ends_with("has no tensor layout"), "{u}");
}
