//! A byte-level FlatBuffers writer for crafting test inputs (valid, shared or broken) that no
//! real writer would produce. Objects are laid out front to back: a parent is written before
//! its children and its offsets are patched once they exist, as unsigned offsets point forward.
#![allow(dead_code)]

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
