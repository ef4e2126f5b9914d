//! The command line on ExecuTorch's XNNPACK delegate and `.ptd` data files: `verify` recognises
//! each from its bytes and summarises it with the counts flatc's dump gives, refuses a broken one
//! naming the field, and `dump` prints flatc's JSON.

use crate::support;

use serde_json::Value;
use std::ffi::OsStr;
use std::fs;
use support::cli::{run, shown, Scratch};

fn reference(path: &std::path::Path, ext: &str) -> Value {
    support::json_with_bare_floats(&fs::read_to_string(support::reference(path, ext).unwrap()).unwrap())
}

#[test]
fn blobs_programs_and_data_files_verify_and_dump() {
    let dir = Scratch::new("xnnpack");
    let mut checked = 0;
    for sub in ["xnnpack", "ptd"] {
        let base = support::testdata().join(sub);
        for path in support::files_with_suffix(&base, ".xh00") {
            // Named as something else, so only the bytes can say what it is.
            let file = dir.write("blob.bin", &fs::read(&path).unwrap());
            let r = run([OsStr::new("verify"), file.as_os_str()]);
            r.expect_code(0);
            let g = reference(&path, "xn.flatc.json");
            let expected = format!(
                "{}: ok (XNNPACK delegate blob (XH00), {} value(s), {} node(s), {} constant(s))",
                shown(&file),
                g["xvalues"].as_array().unwrap().len(),
                g["xnodes"].as_array().unwrap().len(),
                g["constant_data"].as_array().unwrap().len()
            );
            assert_eq!(r.stdout.trim_end(), expected);
            let r = run([OsStr::new("dump"), file.as_os_str()]);
            r.expect_code(0);
            assert_eq!(support::json_with_bare_floats(&r.stdout), g, "{}", path.display());
            checked += 1;
        }
        for path in support::files_with_suffix(&base, ".pte") {
            let r = run([OsStr::new("verify"), path.as_os_str()]);
            r.expect_code(0);
            let p = reference(&path, "flatc.json");
            let delegates: usize = p["execution_plan"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["delegates"].as_array().map_or(0, Vec::len))
                .sum();
            assert!(
                r.stdout.contains(&format!("{delegates} delegate(s) (0 Vulkan, {delegates} XNNPACK)")),
                "{}",
                r.stdout
            );
            checked += 1;
        }
        for path in support::files_with_suffix(&base, ".ptd") {
            let r = run([OsStr::new("verify"), path.as_os_str()]);
            r.expect_code(0);
            let t = reference(&path, "ptd.flatc.json");
            let named = t["named_data"].as_array().unwrap();
            let layouts = named.iter().filter(|d| d.get("tensor_layout").is_some()).count();
            let expected = format!(
                "{}: ok (ExecuTorch data file (.ptd) v0, {} segment(s), {} named datum(s) ({layouts} with a tensor layout))",
                shown(&path),
                t["segments"].as_array().unwrap().len(),
                named.len()
            );
            assert_eq!(r.stdout.trim_end(), expected);
            let r = run([OsStr::new("dump"), path.as_os_str()]);
            r.expect_code(0);
            assert_eq!(support::json_with_bare_floats(&r.stdout), t, "{}", path.display());
            checked += 1;
        }
    }
    assert!(checked >= 20, "{checked}");
}

#[test]
fn a_broken_blob_is_refused_naming_the_field() {
    let dir = Scratch::new("xnnpack-broken");
    let mut bytes = fs::read(support::testdata().join("xnnpack/xnn_mlp_inline_constants.delegate0.xh00")).unwrap();
    bytes[22..30].copy_from_slice(&u64::MAX.to_le_bytes());
    let file = dir.write("blob.xh00", &bytes);
    let r = run([OsStr::new("verify"), file.as_os_str()]);
    r.expect_code(1);
    assert!(r.stdout.contains("XH00.constant_data_size"), "{}", r.stdout);
}

/// The blobs, bare graphs, programs and data files of testdata and (when `FLATMODEL_CORPUS` is
/// set) the corpus.
fn executorch_files(suffixes: &[&str]) -> Vec<std::path::PathBuf> {
    let mut roots = vec![support::testdata()];
    roots.extend(support::corpus());
    let mut all = Vec::new();
    for root in roots {
        for sub in ["xnnpack", "ptd"] {
            for suffix in suffixes {
                all.extend(support::files_with_suffix(&root.join(sub), suffix));
            }
        }
    }
    all
}

/// `inspect --json` of `path`, which must succeed.
fn inspect_json(path: &std::path::Path, extra: &[&str]) -> Value {
    let mut args = vec![OsStr::new("inspect"), OsStr::new("--json")];
    args.extend(extra.iter().map(OsStr::new));
    args.push(path.as_os_str());
    let r = run(args);
    r.expect_code(0);
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Node counts by type, as flatc's dump of an XNNGraph lists its nodes.
fn node_counts(graph: &Value) -> std::collections::BTreeMap<String, u64> {
    let mut counts = std::collections::BTreeMap::new();
    for node in graph["xnodes"].as_array().unwrap() {
        *counts.entry(node["xnode_union_type"].as_str().unwrap().to_string()).or_default() += 1;
    }
    counts
}

/// A summary's graph counts against flatc's dump `g` of the same XNNGraph.
fn assert_graph_counts(summary: &Value, g: &Value, what: &str) {
    let nodes: std::collections::BTreeMap<String, u64> = summary["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["name"].as_str().unwrap().to_string(), n["count"].as_u64().unwrap()))
        .collect();
    assert_eq!(nodes, node_counts(g), "{what}");
    assert_eq!(summary["node_count"], g["xnodes"].as_array().unwrap().len(), "{what}");
    let values = g["xvalues"].as_array().unwrap();
    assert_eq!(summary["value_count"], values.len(), "{what}");
    let quantized = values.iter().filter(|v| v["xvalue_union_type"] == "XNNQuantizedTensorValue").count();
    let by_kind = &summary["values"]["by_kind"];
    assert_eq!(by_kind.get("XNNQuantizedTensorValue").and_then(Value::as_u64).unwrap_or(0), quantized as u64, "{what}");
    let constants = g["constant_data"].as_array().unwrap();
    assert_eq!(summary["constant_count"], constants.len(), "{what}");
    let listed = summary["constants"].as_array().unwrap();
    assert_eq!(listed.len(), constants.len(), "{what}");
    for (c, expected) in listed.iter().zip(constants) {
        assert_eq!(c["bytes"], expected["size"], "{what}");
        match expected["named_key"].as_str().filter(|k| !k.is_empty()) {
            Some(key) => assert_eq!((c["stored"].as_str(), c["key"].as_str()), (Some("named"), Some(key)), "{what}"),
            None => assert_eq!(c["offset"], expected["offset"], "{what}"),
        }
    }
    let ids = |key: &str| -> Vec<u64> { g[key].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect() };
    let got = |key: &str| -> Vec<u64> {
        summary[key].as_array().unwrap().iter().map(|v| v["id"].as_u64().unwrap()).collect()
    };
    assert_eq!(got("inputs"), ids("input_ids"), "{what}");
    assert_eq!(got("outputs"), ids("output_ids"), "{what}");
    // Each value's dtype and shape, with --tensors, are flatc's.
    if let Some(rows) = summary.get("tensor_list").and_then(Value::as_array) {
        assert_eq!(rows.len(), values.len(), "{what}");
        for (row, v) in rows.iter().zip(values) {
            let u = &v["xvalue_union"];
            let t = if v["xvalue_union_type"] == "XNNQuantizedTensorValue" { &u["tensor_value"] } else { u };
            let dtype = t["datatype"].as_str().unwrap().trim_start_matches("xnn_datatype_");
            assert_eq!(row["dtype"], dtype, "{what}");
            assert_eq!(row["shape"], t["dims"], "{what}");
            if let Some(q) = u.get("quant_params") {
                let scheme = row["quantization"]["scheme"].as_str().unwrap();
                match u["quant_params_type"].as_str().unwrap() {
                    "PerChannelGroupQuant" => {
                        assert_eq!(scheme, "per_channel_group", "{what}");
                        assert_eq!(row["quantization"]["group_size"], q["group_size"], "{what}");
                        assert_eq!(row["quantization"]["axis"], q["channel_dim"], "{what}");
                    }
                    "PerChannelQuant" => {
                        assert_eq!(scheme, "per_channel", "{what}");
                        assert_eq!(row["quantization"]["axis"], q["channel_dim"], "{what}");
                    }
                    "PerTokenDynamicQuant" => assert_eq!(scheme, "dynamic_per_token", "{what}"),
                    "PerTensorQuant" => assert_eq!(scheme, "per_tensor", "{what}"),
                    other => panic!("{what}: {other}"),
                }
            }
        }
    }
}

#[test]
fn inspect_of_blobs_and_bare_graphs_counts_what_flatc_dumps() {
    let mut checked = 0;
    for path in executorch_files(&[".xh00", ".xn.bin"]) {
        // `X.delegateN.xh00` and `X.delegateN.xn.bin` share `X.delegateN.xn.flatc.json`.
        let name = path.to_string_lossy();
        let dump = format!("{}.xn.flatc.json", name.trim_end_matches(".xh00").trim_end_matches(".xn.bin"));
        let g = support::json_with_bare_floats(&fs::read_to_string(dump).unwrap());
        for extra in [&[][..], &["--tensors"][..]] {
            let s = inspect_json(&path, extra);
            assert_graph_counts(&s, &g, &path.display().to_string());
        }
        let text = run([OsStr::new("inspect"), path.as_os_str()]);
        text.expect_code(0);
        assert!(
            text.stdout.contains(&format!("nodes:      {}", g["xnodes"].as_array().unwrap().len())),
            "{}",
            text.stdout
        );
        checked += 1;
    }
    assert!(checked >= 16, "{checked}");
}

#[test]
fn inspect_of_a_blob_shows_its_header_and_regions() {
    let path = support::testdata().join("xnnpack/xnn_mlp_inline_constants.delegate0.xh00");
    let bytes = fs::read(&path).unwrap();
    let u32_at = |at: usize| u64::from(u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()));
    let s = inspect_json(&path, &[]);
    assert_eq!(s["header"]["flatbuffer_offset"], u32_at(10));
    assert_eq!(s["header"]["flatbuffer_size"], u32_at(14));
    assert_eq!(s["header"]["constant_data_offset"], u32_at(18));
    assert_eq!(s["header"]["constant_data_size"], u64::from_le_bytes(bytes[22..30].try_into().unwrap()));
    // Inline constants sit in the region, at its offset plus theirs.
    let c = &s["constants"][1];
    assert_eq!(c["stored"], "inline");
    assert_eq!(c["blob_offset"].as_u64().unwrap(), u32_at(18) + c["offset"].as_u64().unwrap());
}

#[test]
fn inspect_of_a_program_shows_each_xnnpack_delegate() {
    let mut checked = 0;
    for path in executorch_files(&[".pte"]) {
        let stem = path.to_string_lossy().trim_end_matches(".pte").to_string();
        let s = inspect_json(&path, &[]);
        let delegates = s["delegates"].as_array().unwrap();
        for (i, d) in delegates.iter().enumerate() {
            let dump = std::path::PathBuf::from(format!("{stem}.delegate{i}.xn.flatc.json"));
            let g = support::json_with_bare_floats(&fs::read_to_string(&dump).unwrap());
            assert_graph_counts(&d["xnnpack"], &g, &format!("{} delegate {i}", path.display()));
            // Named constants say whether the program holds their key, as flatc's dump lists it.
            let p = reference(&path, "flatc.json");
            let keys: Vec<&str> =
                p["named_data"].as_array().map_or(vec![], |l| l.iter().map(|n| n["key"].as_str().unwrap()).collect());
            for c in d["xnnpack"]["constants"].as_array().unwrap().iter().filter(|c| c["stored"] == "named") {
                assert_eq!(c["found"], keys.contains(&c["key"].as_str().unwrap()), "{}", path.display());
            }
        }
        checked += 1;
    }
    assert!(checked >= 9, "{checked}");
}

#[test]
fn inspect_of_a_data_file_lists_its_segments_and_named_data() {
    let mut checked = 0;
    for path in executorch_files(&[".ptd"]) {
        let t = reference(&path, "ptd.flatc.json");
        let bytes = fs::read(&path).unwrap();
        let base = u64::from_le_bytes(bytes[32..40].try_into().unwrap());
        for extra in [&[][..], &["--tensors"][..]] {
            let s = inspect_json(&path, extra);
            assert_eq!(s["header"]["segment_base_offset"], base);
            let segments = t["segments"].as_array().unwrap();
            assert_eq!(s["segments"].as_array().unwrap().len(), segments.len());
            for (got, want) in s["segments"].as_array().unwrap().iter().zip(segments) {
                assert_eq!((&got["offset"], &got["size"]), (&want["offset"], &want["size"]));
                assert_eq!(got["file_offset"].as_u64().unwrap(), base + want["offset"].as_u64().unwrap());
            }
            let named = t["named_data"].as_array().unwrap();
            let got = s["named_data"].as_array().unwrap();
            assert_eq!(got.len(), named.len());
            for (got, want) in got.iter().zip(named) {
                assert_eq!(got["key"], want["key"]);
                assert_eq!(got["segment"], want["segment_index"]);
                match want.get("tensor_layout") {
                    Some(l) => {
                        assert_eq!(got["layout"]["shape"], l["sizes"]);
                        assert_eq!(got["layout"]["dim_order"], l["dim_order"]);
                    }
                    None => assert!(got["layout"].is_null()),
                }
            }
        }
        checked += 1;
    }
    assert!(checked >= 2, "{checked}");
}

/// A `.npy` file's header dict and data.
fn npy(bytes: &[u8]) -> (String, &[u8]) {
    assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00");
    let len = usize::from(u16::from_le_bytes([bytes[8], bytes[9]]));
    (String::from_utf8(bytes[10..10 + len].to_vec()).unwrap(), &bytes[10 + len..])
}

#[test]
fn extract_writes_delegates_constants_and_named_data() {
    let dir = Scratch::new("xnnpack-extract");
    let out = dir.path("out.bin");
    let extract = |file: &std::path::Path, what: &str| {
        let r = run([OsStr::new("extract"), file.as_os_str(), OsStr::new(what), OsStr::new("-o"), out.as_os_str()]);
        r.expect_code(0);
        fs::read(&out).unwrap()
    };
    // Every delegate of every program is the corpus's extracted blob, byte for byte.
    let mut blobs = 0;
    for path in executorch_files(&[".pte"]) {
        let stem = path.to_string_lossy().trim_end_matches(".pte").to_string();
        for i in 0.. {
            let expected = std::path::PathBuf::from(format!("{stem}.delegate{i}.xh00"));
            if !expected.exists() {
                break;
            }
            assert_eq!(
                extract(&path, &format!("delegate:{i}")),
                fs::read(&expected).unwrap(),
                "{}",
                expected.display()
            );
            blobs += 1;
        }
    }
    assert!(blobs >= 9, "{blobs}");

    // An inline constant is the bytes at constant_data_offset + offset, as .npy of its value.
    let blob = support::testdata().join("xnnpack/xnn_mlp_inline_constants.delegate0.xh00");
    let bytes = fs::read(&blob).unwrap();
    let region = u32::from_le_bytes(bytes[18..22].try_into().unwrap()) as usize;
    let g = reference(&blob, "xn.flatc.json");
    let constants = g["constant_data"].as_array().unwrap();
    for (i, c) in constants.iter().enumerate().skip(1) {
        let (offset, size) = (c["offset"].as_u64().unwrap() as usize, c["size"].as_u64().unwrap() as usize);
        let value = g["xvalues"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| &v["xvalue_union"])
            .find(|t| t["constant_buffer_idx"] == i)
            .unwrap();
        let dims: Vec<String> = value["dims"].as_array().unwrap().iter().map(|d| d.to_string()).collect();
        let shape = if dims.len() == 1 { format!("({},)", dims[0]) } else { format!("({})", dims.join(", ")) };
        for file in [&blob, &support::testdata().join("xnnpack/xnn_mlp_inline_constants.pte")] {
            let what = if file.extension().unwrap() == "pte" {
                format!("delegate:0/constant:{i}")
            } else {
                format!("constant:{i}")
            };
            let written = extract(file, &what);
            let (header, data) = npy(&written);
            assert!(header.contains("'descr': '<f4'") && header.contains(&format!("'shape': {shape}")), "{header}");
            assert_eq!(data, &bytes[region + offset..region + offset + size], "{what}");
        }
    }

    // A named constant of a program is its named data; of a blob alone, an error naming the key.
    let pte = support::testdata().join("xnnpack/xnn_mlp_fp32.pte");
    let g = reference(&support::testdata().join("xnnpack/xnn_mlp_fp32.delegate0.xh00"), "xn.flatc.json");
    let key = g["constant_data"][1]["named_key"].as_str().unwrap();
    let r = run([
        OsStr::new("extract"),
        pte.as_os_str(),
        OsStr::new(&format!("named:{key}")),
        OsStr::new("-o"),
        out.as_os_str(),
    ]);
    r.expect_code(0);
    let named = fs::read(&out).unwrap();
    let written = extract(&pte, "delegate:0/constant:1");
    let (_, data) = npy(&written);
    assert_eq!(data, &named[..data.len()]);
    let bare = support::testdata().join("xnnpack/xnn_mlp_fp32.delegate0.xh00");
    let r = run([OsStr::new("extract"), bare.as_os_str(), OsStr::new("constant:1"), OsStr::new("-o"), out.as_os_str()]);
    r.expect_code(2);
    assert!(r.stderr.contains(key), "{}", r.stderr);

    // A packed int4 weight is written as stored, and says so.
    let int4 = support::testdata().join("xnnpack/xnn_linear_dq_int4_group32.pte");
    let r = run([
        OsStr::new("extract"),
        int4.as_os_str(),
        OsStr::new("delegate:0/constant:1"),
        OsStr::new("-o"),
        out.as_os_str(),
    ]);
    r.expect_code(0);
    assert!(r.stderr.contains("NumPy has no dtype") && r.stderr.contains("qbint4"), "{}", r.stderr);
    assert_eq!(
        fs::read(&out).unwrap().len() as u64,
        reference(&int4.with_file_name("xnn_linear_dq_int4_group32.delegate0.xh00"), "xn.flatc.json")["constant_data"]
            [1]["size"]
            .as_u64()
            .unwrap()
    );
}

#[test]
fn extract_of_a_data_files_named_datum_is_its_segments_bytes() {
    let dir = Scratch::new("ptd-extract");
    let out = dir.path("out.npy");
    let mut checked = 0;
    for path in executorch_files(&[".ptd"]) {
        let bytes = fs::read(&path).unwrap();
        // The header fields as the corpus README documents them.
        let base = u64::from_le_bytes(bytes[32..40].try_into().unwrap()) as usize;
        let t = reference(&path, "ptd.flatc.json");
        for d in t["named_data"].as_array().unwrap() {
            let key = d["key"].as_str().unwrap();
            let segment = &t["segments"][d["segment_index"].as_u64().unwrap() as usize];
            let start = base + segment["offset"].as_u64().unwrap() as usize;
            let size = segment["size"].as_u64().unwrap() as usize;
            let what = format!("named:{key}");
            let r =
                run([OsStr::new("extract"), path.as_os_str(), OsStr::new(&what), OsStr::new("-o"), out.as_os_str()]);
            r.expect_code(0);
            let written = fs::read(&out).unwrap();
            match d.get("tensor_layout") {
                Some(l) if l["scalar_type"] == "FLOAT" => {
                    let (header, data) = npy(&written);
                    let dims: Vec<String> = l["sizes"].as_array().unwrap().iter().map(|d| d.to_string()).collect();
                    let shape =
                        if dims.len() == 1 { format!("({},)", dims[0]) } else { format!("({})", dims.join(", ")) };
                    assert!(
                        header.contains("'descr': '<f4'") && header.contains(&format!("'shape': {shape}")),
                        "{header}"
                    );
                    assert_eq!(data, &bytes[start..start + data.len()], "{what}");
                    assert!(data.len() <= size);
                    checked += 1;
                }
                Some(_) => {}
                None => {
                    assert_eq!(written, &bytes[start..start + size], "{what}");
                    assert!(r.stderr.contains("no tensor layout"), "{}", r.stderr);
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 8, "{checked}");
}

/// A node of a type this schema does not name (a newer writer's) is counted by its number.
#[test]
fn inspect_counts_an_unknown_node_type_by_its_number() {
    // XNNGraph { xnodes: [XNode { xnode_union_type: 200, xnode_union: {} }] }, bare (XN01).
    let mut b = support::Bytes::with_identifier(b"XN01");
    let graph_vt = b.vtable(&[0, 4], 8);
    let graph = b.table(graph_vt, &[0; 4]);
    b.patch(0, graph);
    let nodes = b.offsets(1);
    b.patch(graph + 4, nodes);
    let node_vt = b.vtable(&[4, 8], 12);
    let node = b.table(node_vt, &[200, 0, 0, 0, 0, 0, 0, 0]);
    b.patch(nodes + 4, node);
    b.empty_table(node + 8);
    let dir = Scratch::new("xnnpack-unknown-node");
    let file = dir.write("graph.bin", &b.buf);
    let s = inspect_json(&file, &[]);
    assert_eq!(s["format"], "XNNGraph (XN01)");
    assert_eq!(s["nodes"], serde_json::json!([{ "name": "XNodeUnion(200)", "count": 1 }]));
    let r = run([OsStr::new("inspect"), file.as_os_str()]);
    r.expect_code(0);
    assert!(r.stdout.contains("1  XNodeUnion(200)"), "{}", r.stdout);
}

/// The text lists the first 10 constants and counts the rest; `--tensors` and the JSON list
/// every one.
#[test]
fn inspect_bounds_its_constant_listing() {
    // XNNGraph { constant_data: [ConstantDataOffset {}; 25] }, bare (XN01).
    let mut b = support::Bytes::with_identifier(b"XN01");
    let graph_vt = b.vtable(&[0, 0, 0, 0, 0, 0, 0, 0, 4], 8);
    let graph = b.table(graph_vt, &[0; 4]);
    b.patch(0, graph);
    let constants = b.offsets(25);
    b.patch(graph + 4, constants);
    for i in 0..25 {
        b.empty_table(constants + 4 + 4 * i);
    }
    let dir = Scratch::new("xnnpack-many-constants");
    let file = dir.write("graph.bin", &b.buf);
    assert_eq!(inspect_json(&file, &[])["constants"].as_array().unwrap().len(), 25);
    let r = run([OsStr::new("inspect"), file.as_os_str()]);
    r.expect_code(0);
    let rows = |text: &str| text.lines().filter(|l| l.trim_start().starts_with('[')).count();
    assert_eq!(rows(&r.stdout), 10, "{}", r.stdout);
    assert!(r.stdout.contains("... 15 more"), "{}", r.stdout);
    let r = run([OsStr::new("inspect"), OsStr::new("--tensors"), file.as_os_str()]);
    r.expect_code(0);
    assert_eq!(rows(&r.stdout), 25, "{}", r.stdout);
}
