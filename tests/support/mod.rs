//! A byte-level FlatBuffers writer for crafting test inputs (valid, shared or broken) that no
//! real writer would produce. Objects are laid out front to back: a parent is written before
//! its children and its offsets are patched once they exist, as unsigned offsets point forward.
#![allow(dead_code)]

pub mod cvimodel;

/// A buffer under construction.
#[derive(Default)]
pub struct Bytes {
    pub buf: Vec<u8>,
}

impl Bytes {
    /// A buffer that starts with a root-offset placeholder and `identifier`.
    pub fn with_identifier(identifier: &[u8; 4]) -> Self {
        let mut b = Bytes::default();
        b.buf.extend_from_slice(&[0; 4]);
        b.buf.extend_from_slice(identifier);
        b
    }

    /// A TFLite buffer whose root Model holds only `subgraphs` (slot 2): a vector of `n` offset
    /// placeholders, whose position is returned with the builder.
    pub fn tflite_with_subgraphs(n: usize) -> (Self, usize) {
        let mut b = Bytes::with_identifier(b"TFL3");
        let model_vt = b.vtable(&[0, 0, 4], 8);
        let model = b.table(model_vt, &[0; 4]);
        b.patch(0, model);
        let subgraphs = b.offsets(n);
        b.patch(model + 4, subgraphs);
        (b, subgraphs)
    }

    pub fn pad_to(&mut self, align: usize) {
        while !self.buf.len().is_multiple_of(align) {
            self.buf.push(0);
        }
    }

    pub fn pos(&self) -> usize {
        self.buf.len()
    }

    /// A vtable for a table of `inline_size` bytes whose fields sit at `voffsets`.
    pub fn vtable(&mut self, voffsets: &[u16], inline_size: u16) -> usize {
        self.pad_to(2);
        let at = self.pos();
        let len = 4 + 2 * voffsets.len() as u16;
        self.u16(len);
        self.u16(inline_size);
        for &v in voffsets {
            self.u16(v);
        }
        at
    }

    /// A table using `vtable`, with `inline` bytes after its soffset (4-aligned).
    pub fn table(&mut self, vtable: usize, inline: &[u8]) -> usize {
        self.pad_to(4);
        let at = self.pos();
        self.i32((at as i64 - vtable as i64) as i32);
        self.buf.extend_from_slice(inline);
        at
    }

    /// Sets the uoffset stored at `at` to point at `target`.
    pub fn patch(&mut self, at: usize, target: usize) {
        let off = (target - at) as u32;
        self.buf[at..at + 4].copy_from_slice(&off.to_le_bytes());
    }

    /// A vector of `n` uoffset placeholders; returns the vector's position.
    pub fn offsets(&mut self, n: usize) -> usize {
        self.pad_to(4);
        let at = self.pos();
        self.u32(n as u32);
        self.buf.resize(self.buf.len() + 4 * n, 0);
        at
    }

    /// A string; returns its position.
    pub fn string(&mut self, s: &[u8]) -> usize {
        self.pad_to(4);
        let at = self.pos();
        self.u32(s.len() as u32);
        self.buf.extend_from_slice(s);
        self.buf.push(0);
        at
    }

    /// A vector of i32; returns its position.
    pub fn ints(&mut self, values: &[i32]) -> usize {
        self.pad_to(4);
        let at = self.pos();
        self.u32(values.len() as u32);
        for v in values {
            self.i32(*v);
        }
        at
    }

    pub fn u16(&mut self, v: u16) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    pub fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    pub fn i32(&mut self, v: i32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
}

// ---- crafted TFLite models (slots from tflite.fbs: Model `version` 0, `subgraphs` 2,
// `buffers` 4; SubGraph `tensors`..`operators` 0..3; Tensor `name` 3; Buffer `data` 0,
// `offset` 1, `size` 2) ---------------------------------------------------------------------

/// Model { subgraphs: [n_subgraphs x SG] }, SG { tensors: [n_tensors x T] }, T { name }.
/// Every subgraph offset points at one SubGraph and every tensor offset at one Tensor.
pub fn shared_subtrees(n_subgraphs: usize, n_tensors: usize, name: &[u8]) -> Vec<u8> {
    let (mut b, subgraphs) = Bytes::tflite_with_subgraphs(n_subgraphs);
    let sg_vt = b.vtable(&[4], 8);
    let sg = b.table(sg_vt, &[0; 4]);
    for i in 0..n_subgraphs {
        b.patch(subgraphs + 4 + 4 * i, sg);
    }
    let tensors = b.offsets(n_tensors);
    b.patch(sg + 4, tensors);
    let t_vt = b.vtable(&[0, 0, 0, 4], 8);
    let t = b.table(t_vt, &[0; 4]);
    for i in 0..n_tensors {
        b.patch(tensors + 4 + 4 * i, t);
    }
    let s = b.string(name);
    b.patch(t + 4, s);
    b.buf
}

/// One subgraph holding `n` distinct tensors, tensor `bad` named with `bad_name`.
pub fn tensors_named(n: usize, bad: usize, bad_name: &[u8]) -> Vec<u8> {
    let (mut b, subgraphs) = Bytes::tflite_with_subgraphs(1);
    let sg_vt = b.vtable(&[4], 8);
    let sg = b.table(sg_vt, &[0; 4]);
    b.patch(subgraphs + 4, sg);
    let tensors = b.offsets(n);
    b.patch(sg + 4, tensors);
    let t_vt = b.vtable(&[0, 0, 0, 4], 8);
    for i in 0..n {
        let t = b.table(t_vt, &[0; 4]);
        b.patch(tensors + 4 + 4 * i, t);
        let s = b.string(if i == bad { bad_name } else { b"ok" });
        b.patch(t + 4, s);
    }
    b.buf
}

/// A model that passes every rule: one empty subgraph and buffers [sentinel, external].
pub fn external_buffer_model(offset: u64, size: u64) -> Vec<u8> {
    let mut b = Bytes::with_identifier(b"TFL3");
    // Model: version (slot 0) = 3, subgraphs (slot 2), buffers (slot 4).
    let model_vt = b.vtable(&[4, 0, 8, 0, 12], 16);
    let model = b.table(model_vt, &[3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    b.patch(0, model);
    let subgraphs = b.offsets(1);
    b.patch(model + 8, subgraphs);
    // SubGraph: tensors, inputs, outputs, operators all present and empty.
    let sg_vt = b.vtable(&[4, 8, 12, 16], 20);
    let sg = b.table(sg_vt, &[0; 16]);
    b.patch(subgraphs + 4, sg);
    for slot in 0..4 {
        let v = b.offsets(0);
        b.patch(sg + 4 + 4 * slot, v);
    }
    let buffers = b.offsets(2);
    b.patch(model + 12, buffers);
    let empty_vt = b.vtable(&[], 4);
    let b0 = b.table(empty_vt, &[]);
    b.patch(buffers + 4, b0);
    let ext_vt = b.vtable(&[0, 8, 16], 24);
    b.pad_to(8);
    let mut inline = vec![0u8; 4];
    inline.extend_from_slice(&offset.to_le_bytes());
    inline.extend_from_slice(&size.to_le_bytes());
    let b1 = b.table(ext_vt, &inline);
    assert_eq!(b1 % 8, 0);
    b.patch(buffers + 8, b1);
    b.buf
}

/// The corpus directory, when `FLATMODEL_CORPUS` names one.
pub fn corpus() -> Option<std::path::PathBuf> {
    let dir = std::path::PathBuf::from(std::env::var_os("FLATMODEL_CORPUS")?);
    dir.is_dir().then_some(dir)
}

/// The project's testdata directory.
pub fn testdata() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata")
}

/// Files under `dir` (recursively) whose names end with `suffix`, sorted.
pub fn files_with_suffix(dir: &std::path::Path, suffix: &str) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(suffix) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Reads a JSON reference file, gunzipping `.gz` ones.
pub fn read_json(path: &std::path::Path) -> serde_json::Value {
    use std::io::Read;
    let raw = std::fs::read(path).unwrap();
    let text = if path.extension().is_some_and(|e| e == "gz") {
        let mut s = String::new();
        flate2::read::GzDecoder::new(&raw[..]).read_to_string(&mut s).unwrap();
        s
    } else {
        String::from_utf8(raw).unwrap()
    };
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The reference file beside `model` with extension `ext` (also as `.gz`).
pub fn reference(model: &std::path::Path, ext: &str) -> Option<std::path::PathBuf> {
    let stem = model.file_stem()?.to_string_lossy().to_string();
    let dir = model.parent()?;
    let plain = dir.join(format!("{stem}.{ext}"));
    let gz = dir.join(format!("{stem}.{ext}.gz"));
    [plain, gz].into_iter().find(|p| p.exists())
}
