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
