//! Builders for nnpackage tests: scratch package directories, MANIFESTs, and a tiny zip writer
//! (stored and deflated entries, with fields that can be made to lie).
#![allow(dead_code)]

use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The project's testdata models.
pub fn model_bytes(name: &str) -> Vec<u8> {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    // The repository's root: this crate's directory, or its parent for `cli/`.
    let root = if crate_dir.join("testdata").is_dir() { crate_dir } else { crate_dir.parent().unwrap() };
    let p = root.join("testdata/tflite").join(format!("{name}.tflite"));
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// `sine_float`: input and output FLOAT32 with shape signature [-1, 1], so it connects to itself.
pub fn sine() -> Vec<u8> {
    model_bytes("sine_float")
}

/// A fresh directory for one test, removed when dropped.
pub struct Scratch(pub PathBuf);

static COUNTER: AtomicUsize = AtomicUsize::new(0);

impl Scratch {
    pub fn new(test: &str) -> Self {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("flatmodel-nnpkg-{}-{test}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.0.join(rel)
    }

    /// Writes `bytes` at `rel`, creating parent directories.
    pub fn write(&self, rel: &str, bytes: &[u8]) -> PathBuf {
        let p = self.0.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, bytes).unwrap();
        p
    }

    /// A package directory `name` inside the scratch directory holding `files` and `manifest`.
    pub fn package(&self, name: &str, manifest: &[u8], files: &[(&str, &[u8])]) -> PathBuf {
        let root = self.0.join(name);
        std::fs::create_dir_all(root.join("metadata")).unwrap();
        std::fs::write(root.join("metadata/MANIFEST"), manifest).unwrap();
        for (rel, bytes) in files {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, bytes).unwrap();
        }
        root
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A MANIFEST of version `minor` (1.minor.0) with `models` and `extra` keys merged in.
pub fn manifest(minor: u32, models: &[&str], extra: Value) -> Vec<u8> {
    let mut m = json!({
        "major-version": "1",
        "minor-version": minor.to_string(),
        "patch-version": "0",
        "models": models,
    });
    if let (Some(m), Value::Object(extra)) = (m.as_object_mut(), extra) {
        m.extend(extra);
    }
    serde_json::to_vec_pretty(&m).unwrap()
}

/// The 1.3 package of two sine models, the first's output feeding the second's input; the
/// second model's type comes from its extension; a config file with comments.
pub fn two_sines_manifest() -> Vec<u8> {
    manifest(
        3,
        &["first.tflite", "models/second.tflite"],
        json!({
            "configs": ["run.cfg", "ignored.cfg"],
            "model-types": ["tflite"],
            "pkg-inputs": ["0:0:0"],
            "pkg-outputs": ["1:0:0"],
            "model-connect": [{"from": "0:0:0", "to": ["1:0:0"]}],
        }),
    )
}

pub const CONFIG: &[u8] = b"# runtime settings\nBACKENDS = cpu   # the only one here\n\n EXECUTOR=Linear\n";

/// The files of the two-sines package, MANIFEST included, as (path, bytes).
pub fn two_sines_files() -> Vec<(String, Vec<u8>)> {
    vec![
        ("metadata/MANIFEST".into(), two_sines_manifest()),
        ("metadata/run.cfg".into(), CONFIG.to_vec()),
        ("first.tflite".into(), sine()),
        ("models/second.tflite".into(), sine()),
    ]
}

// ---- zip writer ----------------------------------------------------------------------------

/// One entry of a zip under construction; the `Option` fields override what is written.
#[derive(Clone)]
pub struct ZipEntry {
    pub name: String,
    pub data: Vec<u8>,
    pub deflate: bool,
    pub crc: Option<u32>,
    pub size: Option<u32>,
    pub flags: u16,
    pub method: Option<u16>,
}

impl ZipEntry {
    pub fn stored(name: &str, data: &[u8]) -> Self {
        ZipEntry {
            name: name.into(),
            data: data.to_vec(),
            deflate: false,
            crc: None,
            size: None,
            flags: 0,
            method: None,
        }
    }

    pub fn deflated(name: &str, data: &[u8]) -> Self {
        ZipEntry { deflate: true, ..ZipEntry::stored(name, data) }
    }
}

pub fn crc32(data: &[u8]) -> u32 {
    let mut c = flate2::Crc::new();
    c.update(data);
    c.sum()
}

fn raw_deflate(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// A zip archive of `entries`: local headers and data, the central directory, its end record.
pub fn zip(entries: &[ZipEntry]) -> Vec<u8> {
    zip_after(&[], entries)
}

/// `prefix` followed by a zip archive of `entries` whose offsets count from the start of
/// `prefix` (as Python's `zipfile` appends to a file, and tflite-support to a model).
pub fn zip_after(prefix: &[u8], entries: &[ZipEntry]) -> Vec<u8> {
    let mut out = prefix.to_vec();
    let mut central = Vec::new();
    for e in entries {
        let body = if e.deflate { raw_deflate(&e.data) } else { e.data.clone() };
        let method = e.method.unwrap_or(if e.deflate { 8 } else { 0 });
        let crc = e.crc.unwrap_or_else(|| crc32(&e.data));
        let size = e.size.unwrap_or(e.data.len() as u32);
        let local = out.len() as u32;
        let common = |v: &mut Vec<u8>| {
            v.extend_from_slice(&20u16.to_le_bytes()); // version needed
            v.extend_from_slice(&e.flags.to_le_bytes());
            v.extend_from_slice(&method.to_le_bytes());
            v.extend_from_slice(&[0; 4]); // time, date
            v.extend_from_slice(&crc.to_le_bytes());
            v.extend_from_slice(&(body.len() as u32).to_le_bytes());
            v.extend_from_slice(&size.to_le_bytes());
            v.extend_from_slice(&(e.name.len() as u16).to_le_bytes());
            v.extend_from_slice(&0u16.to_le_bytes()); // extra length
        };
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        common(&mut out);
        out.extend_from_slice(e.name.as_bytes());
        out.extend_from_slice(&body);
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&20u16.to_le_bytes()); // version made by
        common(&mut central);
        central.extend_from_slice(&[0; 10]); // comment length, disk, internal and external attributes
        central.extend_from_slice(&local.to_le_bytes());
        central.extend_from_slice(e.name.as_bytes());
    }
    let cd_offset = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]); // disk numbers
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&cd_offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes()); // comment length
    out
}

/// The two-sines package as a zip: `folder` prefixes every entry (as zipping the package's
/// folder does); models stored, metadata deflated.
pub fn two_sines_zip(folder: &str) -> Vec<u8> {
    let entries: Vec<ZipEntry> = two_sines_files()
        .iter()
        .map(|(name, data)| {
            let name = format!("{folder}{name}");
            if name.ends_with(".tflite") {
                ZipEntry::stored(&name, data)
            } else {
                ZipEntry::deflated(&name, data)
            }
        })
        .collect();
    zip(&entries)
}
