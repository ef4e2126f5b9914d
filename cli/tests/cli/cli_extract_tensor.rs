//! `flatmodel extract FILE tensor:NAME|INDEX -o OUT.npy`: the `.npy` files are read back with
//! NumPy where it imports (else with this test's own reader of the header) and compared with
//! flatc's JSON of the model: dtype from the tensor's type, shape, and the buffer's bytes
//! (unpacked by this test for int4). `--raw` writes the buffer as stored.

use crate::support;

use serde_json::Value;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::cli::{run, Scratch};

fn arr(v: &Value) -> &[Value] {
    v.as_array().map_or(&[], |a| a.as_slice())
}

/// NumPy's `descr` for a TFLite type name, and the bytes each stored element takes (0: packed
/// 4-bit, written one byte each).
fn descr(ty: &str) -> Option<(&'static str, usize)> {
    Some(match ty {
        "FLOAT32" => ("<f4", 4),
        "FLOAT16" => ("<f2", 2),
        "INT32" => ("<i4", 4),
        "INT64" => ("<i8", 8),
        "INT16" => ("<i2", 2),
        "INT8" => ("|i1", 1),
        "UINT8" => ("|u1", 1),
        "BOOL" => ("|b1", 1),
        "INT4" => ("|i1", 0),
        _ => return None,
    })
}

/// What a `.npy` file holds: descr, shape, data.
#[derive(Debug, PartialEq)]
struct Npy {
    descr: String,
    shape: Vec<u64>,
    data: Vec<u8>,
}

/// This test's reader of the `.npy` 1.0 header (NumPy's format description).
fn read_npy(bytes: &[u8]) -> Npy {
    assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00", "magic and version 1.0");
    let len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    assert_eq!((10 + len) % 64, 0, "header padded to 64 bytes");
    let dict = std::str::from_utf8(&bytes[10..10 + len]).unwrap();
    let field = |key: &str| {
        let start = dict.find(&format!("'{key}': ")).unwrap() + key.len() + 4;
        &dict[start..]
    };
    let descr = field("descr")[1..].split('\'').next().unwrap().to_string();
    assert!(field("fortran_order").starts_with("False"));
    let shape = field("shape");
    let shape = &shape[1..shape.find(')').unwrap()];
    let shape = shape.split(',').map(str::trim).filter(|d| !d.is_empty()).map(|d| d.parse().unwrap()).collect();
    Npy { descr, shape, data: bytes[10 + len..].to_vec() }
}

/// Each file read with NumPy (`np.load`): its `dtype.str`, shape and C-order bytes, or `None`
/// when NumPy does not import.
fn numpy_reads(files: &[PathBuf], dir: &Scratch) -> Option<Vec<Npy>> {
    let script = "import sys, json, numpy as np\n\
                  for f in sys.argv[1:]:\n\
                  \x20   a = np.load(f)\n\
                  \x20   open(f + '.bin', 'wb').write(np.ascontiguousarray(a).tobytes())\n\
                  \x20   print(json.dumps([a.dtype.str, list(a.shape)]))\n";
    let py = dir.write("read.py", script.as_bytes());
    let out = Command::new("python3")
        .arg(&py)
        .args(files)
        .output()
        .map_err(|e| support::skip(&format!("NumPy's reading: python3 does not run ({e})")))
        .ok()?;
    if !out.status.success() {
        let why = String::from_utf8_lossy(&out.stderr);
        let why = why.trim().lines().last().unwrap_or_default();
        support::skip(&format!("NumPy's reading, the test's own reader checks alone ({why})"));
        return None;
    }
    let lines = String::from_utf8(out.stdout).unwrap();
    let read = lines
        .lines()
        .zip(files)
        .map(|(line, f)| {
            let v: Value = serde_json::from_str(line).unwrap();
            let mut bin = f.clone().into_os_string();
            bin.push(".bin");
            Npy {
                descr: v[0].as_str().unwrap().to_string(),
                shape: arr(&v[1]).iter().map(|d| d.as_u64().unwrap()).collect(),
                data: fs::read(bin).unwrap(),
            }
        })
        .collect::<Vec<_>>();
    assert_eq!(read.len(), files.len());
    Some(read)
}

/// The `.npy` contents flatc's JSON implies for tensor `t`: its dtype, shape and buffer bytes
/// (4-bit values unpacked low nibble first, sign-extended).
fn expected(flatc: &Value, t: &Value) -> Option<Npy> {
    let (descr, size) = descr(t["type"].as_str().unwrap_or("FLOAT32"))?;
    let buffer = &arr(&flatc["buffers"])[t["buffer"].as_u64()? as usize];
    let stored: Vec<u8> = arr(buffer.get("data")?).iter().map(|b| b.as_u64().unwrap() as u8).collect();
    let shape: Vec<u64> = arr(&t["shape"]).iter().map(|d| d.as_u64().unwrap()).collect();
    let elements: u64 = shape.iter().product();
    let data = match size {
        0 => stored
            .iter()
            .flat_map(|&b| [((b << 4) as i8 >> 4) as u8, (b as i8 >> 4) as u8])
            .take(elements as usize)
            .collect(),
        _ => stored,
    };
    Some(Npy { descr: descr.to_string(), shape, data })
}

/// Extracts every constant, dense tensor of subgraph 0 of `model` that NumPy has a dtype for,
/// by index, and checks each against flatc's JSON; returns how many were checked.
fn check_model(model: &Path, dir: &Scratch) -> usize {
    let flatc = support::read_json(&support::reference(model, "flatc.json").unwrap());
    let tensors = arr(&flatc["subgraphs"][0]["tensors"]);
    let mut files = Vec::new();
    let mut wanted = Vec::new();
    for (i, t) in tensors.iter().enumerate() {
        if t.get("sparsity").is_some() {
            continue;
        }
        let Some(expect) = expected(&flatc, t) else { continue };
        if expect.data.is_empty() {
            continue;
        }
        let stem = model.file_stem().unwrap().to_string_lossy();
        let out = dir.path(&format!("{stem}-{i}.npy"));
        let r = run([
            OsStr::new("extract"),
            model.as_os_str(),
            OsStr::new(&format!("tensor:{i}")),
            OsStr::new("-o"),
            out.as_os_str(),
        ]);
        r.expect_code(0);
        let ours = read_npy(&fs::read(&out).unwrap());
        assert_eq!(ours, expect, "{}: tensor {i}", model.display());
        files.push(out);
        wanted.push(expect);
    }
    if let Some(read) = numpy_reads(&files, dir) {
        for ((np, expect), f) in read.iter().zip(&wanted).zip(&files) {
            assert_eq!(np, expect, "NumPy's reading of {}", f.display());
        }
    }
    files.len()
}

#[test]
fn tensors_come_out_as_npy_files_numpy_reads() {
    let dir = Scratch::new("npy");
    let mut checked = 0;
    for name in ["tf_convnet_int8_full", "tf_convnet_fp16", "sine_float", "tf_convnet_buffer_offset"] {
        let model = support::testdata().join("tflite").join(format!("{name}.tflite"));
        if support::reference(&model, "flatc.json").and_then(|r| fs::read(r).ok()).is_none() {
            continue;
        }
        checked += check_model(&model, &dir);
    }
    assert!(checked >= 10, "checked {checked} tensors");
}

#[test]
fn int4_tensors_unpack_to_int8() {
    let Some(corpus) = support::corpus() else {
        return;
    };
    let model = corpus.join("tflite").join("litert_qwen_fc_blockwise_quantized.tflite");
    let dir = Scratch::new("npy-int4");
    assert!(check_model(&model, &dir) >= 1, "the INT4 weights and their FLOAT16 scales");
}

#[test]
fn raw_names_and_refusals() {
    let dir = Scratch::new("npy-raw");
    let model = support::testdata().join("tflite").join("tf_convnet_int8_full.tflite");
    let flatc = support::read_json(&support::reference(&model, "flatc.json").unwrap());
    let (index, t) = arr(&flatc["subgraphs"][0]["tensors"])
        .iter()
        .enumerate()
        .find(|(_, t)| t["type"] == "INT8" && expected(&flatc, t).is_some_and(|e| !e.data.is_empty()))
        .unwrap();
    let name = t["name"].as_str().unwrap();
    // --raw: the buffer as stored; by name: the same tensor as by index.
    let raw = dir.path("raw.bin");
    let by_name = dir.path("by-name.npy");
    let by_index = dir.path("by-index.npy");
    let extract = |what: String, out: &Path, extra: &[&str]| {
        let mut args =
            vec![OsStr::new("extract"), model.as_os_str(), OsStr::new(&what), OsStr::new("-o"), out.as_os_str()];
        args.extend(extra.iter().map(OsStr::new));
        run(args)
    };
    extract(format!("tensor:{index}"), &raw, &["--raw"]).expect_code(0);
    assert_eq!(fs::read(&raw).unwrap(), expected(&flatc, t).unwrap().data);
    extract(format!("tensor:{name}"), &by_name, &[]).expect_code(0);
    extract(format!("tensor:{index}"), &by_index, &[]).expect_code(0);
    assert_eq!(fs::read(&by_name).unwrap(), fs::read(&by_index).unwrap());
    // An activation has no data; a name no tensor has; a sparse tensor is refused as .npy.
    let input = arr(&flatc["subgraphs"][0]["inputs"])[0].as_u64().unwrap();
    let r = extract(format!("tensor:{input}"), &dir.path("input.npy"), &[]);
    r.expect_code(2);
    assert!(r.stderr.contains("holds no constant data"), "{}", r.stderr);
    let r = extract("tensor:no such tensor".into(), &dir.path("none.npy"), &[]);
    r.expect_code(2);
    assert!(r.stderr.contains("no tensor 'no such tensor'"), "{}", r.stderr);
    let sparse_model = support::testdata().join("tflite").join("mp_face_detection_full_range_sparse.tflite");
    let sparse_ref = support::read_json(&support::reference(&sparse_model, "flatc.json").unwrap());
    let sparse = arr(&sparse_ref["subgraphs"][0]["tensors"]).iter().position(|t| t.get("sparsity").is_some()).unwrap();
    let what = format!("tensor:{sparse}");
    let r = run([
        OsStr::new("extract"),
        sparse_model.as_os_str(),
        OsStr::new(&what),
        OsStr::new("-o"),
        dir.path("s.npy").as_os_str(),
    ]);
    r.expect_code(2);
    assert!(r.stderr.contains("sparse"), "{}", r.stderr);
    let raw = dir.path("s.bin");
    run([
        OsStr::new("extract"),
        sparse_model.as_os_str(),
        OsStr::new(&what),
        OsStr::new("-o"),
        raw.as_os_str(),
        OsStr::new("--raw"),
    ])
    .expect_code(0);
    assert!(!fs::read(&raw).unwrap().is_empty());
}
