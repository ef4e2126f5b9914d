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

    /// A TFLite buffer whose root Model has version 3 and offsets to `subgraphs` (slot 2) and
    /// `buffers` (slot 4), to be patched in at the returned position + 8 and + 12.
    pub fn tflite_model() -> (Self, usize) {
        let mut b = Bytes::with_identifier(b"TFL3");
        let model_vt = b.vtable(&[4, 0, 8, 0, 12], 16);
        let model = b.table(model_vt, &[3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        b.patch(0, model);
        (b, model)
    }

    /// A SubGraph whose tensors, inputs, outputs and operators (slots 0..3) are all present and
    /// empty, its offset patched in at `at`.
    pub fn empty_subgraph(&mut self, at: usize) {
        self.subgraph(at, 0);
    }

    /// A SubGraph holding `n_tensors` tensor offset placeholders and empty inputs, outputs and
    /// operators, its offset patched in at `at`; returns the tensors vector's position.
    pub fn subgraph(&mut self, at: usize, n_tensors: usize) -> usize {
        let sg_vt = self.vtable(&[4, 8, 12, 16], 20);
        let sg = self.table(sg_vt, &[0; 16]);
        self.patch(at, sg);
        let tensors = self.offsets(n_tensors);
        self.patch(sg + 4, tensors);
        for slot in 1..4 {
            let v = self.offsets(0);
            self.patch(sg + 4 + 4 * slot, v);
        }
        tensors
    }

    /// A table without fields (the sentinel Buffer), its offset patched in at `at`.
    pub fn empty_table(&mut self, at: usize) {
        let vt = self.vtable(&[], 4);
        let t = self.table(vt, &[]);
        self.patch(at, t);
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

    /// A vector of 8-byte values whose element data starts `skew` bytes past an 8-byte
    /// boundary (0: as writers align it; 4: misaligned, its length still 4-aligned); returns
    /// the vector's position.
    pub fn longs(&mut self, values: &[u64], skew: usize) -> usize {
        self.pad_to(4);
        while (self.pos() + 4) % 8 != skew {
            self.u32(0);
        }
        let at = self.pos();
        self.u32(values.len() as u32);
        for v in values {
            self.buf.extend_from_slice(&v.to_le_bytes());
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

/// A model that passes every rule yet, walked as a runtime loads it, is far larger than the
/// file: Model { version: 3, operator_codes: [ADD], subgraphs: [n_subgraphs x SG], buffers:
/// [sentinel], metadata: [one per name, each pointing at buffer 0] }, SG { tensors: [T],
/// inputs: [0 x n_entries], outputs: [], operators: [n_entries x OP] }, OP { inputs: [0],
/// outputs: [] }, T { name: tensor_name }. Every subgraph offset points at one SubGraph and
/// every operator offset at one Operator (legal sharing): `n_subgraphs x n_entries` operator
/// visits. Slots: Model `version` 0, `operator_codes` 1, `subgraphs` 2, `buffers` 4,
/// `metadata` 6; Metadata `name` 0; SubGraph `tensors`..`operators` 0..3; Tensor `name` 3;
/// Operator `inputs` 1, `outputs` 2.
pub fn shared_operators(n_subgraphs: usize, n_entries: usize, metadata_names: &[&[u8]], tensor_name: &[u8]) -> Vec<u8> {
    let mut b = Bytes::with_identifier(b"TFL3");
    let model_vt = b.vtable(&[4, 8, 12, 0, 16, 0, 20], 24);
    let mut inline = 3u32.to_le_bytes().to_vec();
    inline.extend_from_slice(&[0; 16]);
    let model = b.table(model_vt, &inline);
    b.patch(0, model);
    let codes = b.offsets(1);
    b.patch(model + 8, codes);
    let empty_vt = b.vtable(&[], 4);
    let add = b.table(empty_vt, &[]);
    b.patch(codes + 4, add);
    let subgraphs = b.offsets(n_subgraphs);
    b.patch(model + 12, subgraphs);
    let sg_vt = b.vtable(&[4, 8, 12, 16], 20);
    let sg = b.table(sg_vt, &[0; 16]);
    for i in 0..n_subgraphs {
        b.patch(subgraphs + 4 + 4 * i, sg);
    }
    let tensors = b.offsets(1);
    b.patch(sg + 4, tensors);
    let t_vt = b.vtable(&[0, 0, 0, 4], 8);
    let t = b.table(t_vt, &[0; 4]);
    b.patch(tensors + 4, t);
    let name = b.string(tensor_name);
    b.patch(t + 4, name);
    let inputs = b.ints(&vec![0; n_entries]);
    b.patch(sg + 8, inputs);
    let outputs = b.ints(&[]);
    b.patch(sg + 12, outputs);
    let ops = b.offsets(n_entries);
    b.patch(sg + 16, ops);
    let op_vt = b.vtable(&[0, 4, 8], 12);
    let op = b.table(op_vt, &[0; 8]);
    for i in 0..n_entries {
        b.patch(ops + 4 + 4 * i, op);
    }
    let op_inputs = b.ints(&[0]);
    b.patch(op + 4, op_inputs);
    let op_outputs = b.ints(&[]);
    b.patch(op + 8, op_outputs);
    let buffers = b.offsets(1);
    b.patch(model + 16, buffers);
    let sentinel = b.table(empty_vt, &[]);
    b.patch(buffers + 4, sentinel);
    let metadata = b.offsets(metadata_names.len());
    b.patch(model + 20, metadata);
    let meta_vt = b.vtable(&[4], 8);
    for (i, name) in metadata_names.iter().enumerate() {
        let m = b.table(meta_vt, &[0; 4]);
        b.patch(metadata + 4 + 4 * i, m);
        let s = b.string(name);
        b.patch(m + 4, s);
    }
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
    let (mut b, model) = Bytes::tflite_model();
    let subgraphs = b.offsets(1);
    b.patch(model + 8, subgraphs);
    b.empty_subgraph(subgraphs + 4);
    let buffers = b.offsets(2);
    b.patch(model + 12, buffers);
    b.empty_table(buffers + 4);
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

/// A TFLite (`TFL3`, version 3) or Circle (`CIR0`, version 0) model that passes every rule
/// except, perhaps, the large custom options' range: one CUSTOM operator code named `X`, one
/// subgraph without tensors running one operator of that code (empty inputs and outputs) whose
/// `large_custom_options_offset/size` are `offset` (`None`: the end of the flatbuffer) and
/// `size`, buffers [sentinel]; `payload` is appended after the flatbuffer. Returns the bytes and
/// the operator's position. Slots, the same in both schemas: Model `version` 0,
/// `operator_codes` 1, `subgraphs` 2, `buffers` 4; OperatorCode slot 0 (CUSTOM is 32 in both),
/// `custom_code` 1; SubGraph `tensors`..`operators` 0..3; Operator `opcode_index` 0, `inputs`
/// 1, `outputs` 2, `large_custom_options_offset` 9 and `_size` 10 (u64).
pub fn custom_op_model(identifier: &[u8; 4], offset: Option<u64>, size: u64, payload: &[u8]) -> (Vec<u8>, usize) {
    let version: u32 = if identifier == b"TFL3" { 3 } else { 0 };
    let mut b = Bytes::with_identifier(identifier);
    let model_vt = b.vtable(&[4, 8, 12, 0, 16], 20);
    let mut inline = version.to_le_bytes().to_vec();
    inline.extend_from_slice(&[0; 12]);
    let model = b.table(model_vt, &inline);
    b.patch(0, model);
    let codes = b.offsets(1);
    b.patch(model + 8, codes);
    let code_vt = b.vtable(&[4, 8], 12);
    let code = b.table(code_vt, &[32, 0, 0, 0, 0, 0, 0, 0]);
    b.patch(codes + 4, code);
    let name = b.string(b"X");
    b.patch(code + 8, name);
    let subgraphs = b.offsets(1);
    b.patch(model + 12, subgraphs);
    let sg_vt = b.vtable(&[4, 8, 12, 16], 20);
    let sg = b.table(sg_vt, &[0; 16]);
    b.patch(subgraphs + 4, sg);
    for slot in 0..3 {
        let v = b.offsets(0);
        b.patch(sg + 4 + 4 * slot, v);
    }
    let ops = b.offsets(1);
    b.patch(sg + 16, ops);
    let op_vt = b.vtable(&[4, 8, 12, 0, 0, 0, 0, 0, 0, 16, 24], 32);
    b.pad_to(8);
    let op = b.table(op_vt, &[0; 28]);
    assert_eq!(op % 8, 0, "the u64 fields are 8-aligned");
    b.patch(ops + 4, op);
    for slot in 1..3 {
        let v = b.offsets(0);
        b.patch(op + 4 * slot + 4, v);
    }
    let buffers = b.offsets(1);
    b.patch(model + 16, buffers);
    let empty_vt = b.vtable(&[], 4);
    let sentinel = b.table(empty_vt, &[]);
    b.patch(buffers + 4, sentinel);
    let end = b.buf.len() as u64;
    b.buf[op + 16..op + 24].copy_from_slice(&offset.unwrap_or(end).to_le_bytes());
    b.buf[op + 24..op + 32].copy_from_slice(&size.to_le_bytes());
    b.buf.extend_from_slice(payload);
    (b.buf, op)
}

/// One subgraph with one tensor whose `quantization.zero_point` ([long]) holds `values`, its
/// element data `skew` bytes past an 8-byte boundary. Returns the bytes and the vector's
/// position. Slots: SubGraph `tensors` 0; Tensor `quantization` 4; QuantizationParameters
/// `zero_point` 3.
pub fn zero_point_model(values: &[i64], skew: usize) -> (Vec<u8>, usize) {
    let (mut b, subgraphs) = Bytes::tflite_with_subgraphs(1);
    let sg_vt = b.vtable(&[4], 8);
    let sg = b.table(sg_vt, &[0; 4]);
    b.patch(subgraphs + 4, sg);
    let tensors = b.offsets(1);
    b.patch(sg + 4, tensors);
    let t_vt = b.vtable(&[0, 0, 0, 0, 4], 8);
    let t = b.table(t_vt, &[0; 4]);
    b.patch(tensors + 4, t);
    let q_vt = b.vtable(&[0, 0, 0, 4], 8);
    let q = b.table(q_vt, &[0; 4]);
    b.patch(t + 4, q);
    let raw: Vec<u64> = values.iter().map(|&v| v as u64).collect();
    let v = b.longs(&raw, skew);
    b.patch(q + 4, v);
    (b.buf, v)
}

/// A bare VkGraph (`VK00`) whose one value is the list union member `tag` (6: IntList of
/// [long], 7: DoubleList of [double]) holding `bits`, its element data `skew` bytes past an
/// 8-byte boundary. Returns the bytes and the vector's position. Slots: VkGraph `values` 2;
/// VkValue `value_type` 0, `value` 1; IntList and DoubleList `items` 0.
pub fn vkgraph_list(tag: u8, bits: &[u64], skew: usize) -> (Vec<u8>, usize) {
    let mut b = Bytes::with_identifier(b"VK00");
    let graph_vt = b.vtable(&[0, 0, 4], 8);
    let graph = b.table(graph_vt, &[0; 4]);
    b.patch(0, graph);
    let values = b.offsets(1);
    b.patch(graph + 4, values);
    let value_vt = b.vtable(&[4, 8], 12);
    let value = b.table(value_vt, &[tag, 0, 0, 0, 0, 0, 0, 0]);
    b.patch(values + 4, value);
    let list_vt = b.vtable(&[4], 8);
    let list = b.table(list_vt, &[0; 4]);
    b.patch(value + 8, list);
    let v = b.longs(bits, skew);
    b.patch(list + 4, v);
    (b.buf, v)
}

/// A valid TFLite model (one empty subgraph, the sentinel buffer) whose two metadata entries
/// share the name `dup`: one warning, no error.
pub fn duplicate_metadata_model() -> Vec<u8> {
    let mut b = Bytes::with_identifier(b"TFL3");
    // Model: version (slot 0) = 3, subgraphs (slot 2), buffers (slot 4), metadata (slot 6).
    let model_vt = b.vtable(&[4, 0, 8, 0, 12, 0, 16], 20);
    let model = b.table(model_vt, &[3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    b.patch(0, model);
    let subgraphs = b.offsets(1);
    b.patch(model + 8, subgraphs);
    b.empty_subgraph(subgraphs + 4);
    let buffers = b.offsets(1);
    b.patch(model + 12, buffers);
    b.empty_table(buffers + 4);
    let metadata = b.offsets(2);
    b.patch(model + 16, metadata);
    // Metadata { name (slot 0), buffer (slot 1) = 0 }, twice.
    let meta_vt = b.vtable(&[4, 8], 12);
    for i in 0..2 {
        let entry = b.table(meta_vt, &[0; 8]);
        b.patch(metadata + 4 + 4 * i, entry);
        let name = b.string(b"dup");
        b.patch(entry + 4, name);
    }
    b.buf
}

/// The corpus directory, when `FLATMODEL_CORPUS` names one; when it does not, the calling
/// test says that it skips the corpus ([`skip`]).
pub fn corpus() -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("FLATMODEL_CORPUS").map(std::path::PathBuf::from);
    match dir {
        Some(dir) if dir.is_dir() => Some(dir),
        Some(dir) => {
            skip(&format!("the corpus: FLATMODEL_CORPUS names no directory ({})", dir.display()));
            None
        }
        None => {
            skip("the corpus: FLATMODEL_CORPUS is not set");
            None
        }
    }
}

/// Says, on the terminal, that the running test skips `what` and why (`what` names the part
/// and the reason: "the corpus: FLATMODEL_CORPUS is not set"). Written to the process's
/// standard error directly, which `cargo test` shows (it captures only `print!` and `eprint!`).
pub fn skip(what: &str) {
    use std::io::Write;
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    let _ = writeln!(std::io::stderr(), "skipping in {test}: {what}");
}

/// The repository's root: the crate's own directory for the library's tests, its parent for
/// the other crates of the workspace (`cli/`, `benches/`).
pub fn root() -> std::path::PathBuf {
    let crate_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    match crate_dir.join("testdata").is_dir() {
        true => crate_dir.to_path_buf(),
        false => crate_dir.parent().unwrap_or(crate_dir).to_path_buf(),
    }
}

/// The project's testdata directory.
pub fn testdata() -> std::path::PathBuf {
    root().join("testdata")
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

/// The model files of every format below `root` (testdata or the corpus): `tflite/`,
/// `circle/`, `circle-0.10/`, `cvimodel/`, `vkgraph/` and `xnnpack/` (programs, blobs and bare
/// graphs), `ptd/` (programs, their data files and their blobs) and `litertlm/`.
pub fn model_files(root: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut all = Vec::new();
    for (dir, suffixes) in [
        ("tflite", &[".tflite"][..]),
        ("circle", &[".circle"][..]),
        ("circle-0.10", &[".circle"][..]),
        ("cvimodel", &[".cvimodel"][..]),
        ("vkgraph", &[".pte", ".vh00", ".vk00.bin"][..]),
        ("xnnpack", &[".pte", ".xh00", ".xn.bin"][..]),
        ("ptd", &[".pte", ".ptd", ".xh00", ".xn.bin"][..]),
        ("litertlm", &[".litertlm"][..]),
    ] {
        for suffix in suffixes {
            all.extend(files_with_suffix(&root.join(dir), suffix));
        }
    }
    all
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

/// A TFLite model that passes every rule but, perhaps, the sparse data size: one subgraph
/// holding one tensor of `shape` and `tensor_type` whose sparsity traverses every dimension in
/// order as a DENSE level of the dimension's size, its data `data_len` zero bytes in buffer 1.
/// Returns the bytes and the tensor's position. Slots: Tensor `shape` 0, `type` 1, `buffer` 2,
/// `sparsity` 6; SparsityParameters `traversal_order` 0, `dim_metadata` 2; DimensionMetadata
/// `format` 0 (DENSE, the default, left out), `dense_size` 1; Buffer `data` 0.
pub fn sparse_tensor_model(shape: &[i32], tensor_type: u8, data_len: usize) -> (Vec<u8>, usize) {
    let (mut b, model) = Bytes::tflite_model();
    let subgraphs = b.offsets(1);
    b.patch(model + 8, subgraphs);
    let tensors = b.subgraph(subgraphs + 4, 1);
    let tensor_vt = b.vtable(&[4, 8, 12, 0, 0, 0, 16], 20);
    let mut inline = vec![0u8; 16];
    inline[4] = tensor_type;
    inline[8..12].copy_from_slice(&1u32.to_le_bytes());
    let tensor = b.table(tensor_vt, &inline);
    b.patch(tensors + 4, tensor);
    let shape_at = b.ints(shape);
    b.patch(tensor + 4, shape_at);
    let sparsity_vt = b.vtable(&[4, 0, 8], 12);
    let sparsity = b.table(sparsity_vt, &[0; 8]);
    b.patch(tensor + 16, sparsity);
    let order: Vec<i32> = (0..shape.len() as i32).collect();
    let order_at = b.ints(&order);
    b.patch(sparsity + 4, order_at);
    let dims = b.offsets(shape.len());
    b.patch(sparsity + 8, dims);
    let dim_vt = b.vtable(&[0, 4], 8);
    for (k, &size) in shape.iter().enumerate() {
        let dim = b.table(dim_vt, &size.to_le_bytes());
        b.patch(dims + 4 + 4 * k, dim);
    }
    let buffers = b.offsets(2);
    b.patch(model + 12, buffers);
    b.empty_table(buffers + 4);
    let buffer_vt = b.vtable(&[4], 8);
    let buffer = b.table(buffer_vt, &[0; 4]);
    b.patch(buffers + 8, buffer);
    b.pad_to(4);
    let data = b.pos();
    b.u32(data_len as u32);
    b.buf.resize(b.buf.len() + data_len, 0);
    b.patch(buffer + 4, data);
    (b.buf, tensor)
}

/// A Circle 0.10 model of one subgraph running one `RUN_MODEL` operator (slot 0 127, int32
/// code -8, options type 248) from tensor 0 to tensor 1, whose `RunModelOptions.location` is
/// `location` (absent for `None`). Slots from circle.fbs 0.10: Model `operator_codes` 1,
/// `subgraphs` 2, `buffers` 4; OperatorCode `deprecated_builtin_code` 0, `builtin_code` 3;
/// SubGraph `tensors`..`operators` 0..3; Tensor `shape` 0, `type` 1; Operator `opcode_index` 0,
/// `inputs` 1, `outputs` 2, `builtin_options_type` 3, `builtin_options` 4; RunModelOptions
/// `location` 0.
pub fn run_model_circle(location: Option<&[u8]>) -> Vec<u8> {
    circle_with_metadata(location, &[])
}

/// [`run_model_circle`] with `metadata` entries (name, bytes), each in a buffer of its own
/// after the empty sentinel (Model `metadata` is slot 6; Metadata `name` 0, `buffer` 1; Buffer
/// `data` 0, aligned to 16 as the schema's `force_align` asks).
pub fn circle_with_metadata(location: Option<&[u8]>, metadata: &[(&[u8], &[u8])]) -> Vec<u8> {
    let mut b = Bytes::with_identifier(b"CIR0");
    let model_vt = b.vtable(&[0, 4, 8, 0, 12, 0, 16], 20);
    let model = b.table(model_vt, &[0; 16]);
    b.patch(0, model);
    let codes = b.offsets(1);
    b.patch(model + 4, codes);
    let code_vt = b.vtable(&[4, 0, 0, 8], 12);
    let mut inline = vec![127, 0, 0, 0];
    inline.extend_from_slice(&(-8i32).to_le_bytes());
    let code = b.table(code_vt, &inline);
    b.patch(codes + 4, code);
    let subgraphs = b.offsets(1);
    b.patch(model + 8, subgraphs);
    let sg_vt = b.vtable(&[4, 8, 12, 16], 20);
    let sg = b.table(sg_vt, &[0; 16]);
    b.patch(subgraphs + 4, sg);
    let tensors = b.offsets(2);
    b.patch(sg + 4, tensors);
    for i in 0..2 {
        let vt = b.vtable(&[4, 8], 12);
        let t = b.table(vt, &[0; 8]);
        b.patch(tensors + 4 + 4 * i, t);
        let shape = b.ints(&[1]);
        b.patch(t + 4, shape);
    }
    let inputs = b.ints(&[0]);
    b.patch(sg + 8, inputs);
    let outputs = b.ints(&[1]);
    b.patch(sg + 12, outputs);
    let ops = b.offsets(1);
    b.patch(sg + 16, ops);
    let op_vt = b.vtable(&[4, 8, 12, 16, 20], 24);
    let mut inline = vec![0; 12];
    inline.extend_from_slice(&[248, 0, 0, 0, 0, 0, 0, 0]);
    let op = b.table(op_vt, &inline);
    b.patch(ops + 4, op);
    let ins = b.ints(&[0]);
    b.patch(op + 8, ins);
    let outs = b.ints(&[1]);
    b.patch(op + 12, outs);
    let options = match location {
        Some(location) => {
            let vt = b.vtable(&[4], 8);
            let options = b.table(vt, &[0; 4]);
            let s = b.string(location);
            b.patch(options + 4, s);
            options
        }
        None => {
            let vt = b.vtable(&[], 4);
            b.table(vt, &[])
        }
    };
    b.patch(op + 20, options);
    let buffers = b.offsets(1 + metadata.len());
    b.patch(model + 12, buffers);
    let empty_vt = b.vtable(&[], 4);
    let sentinel = b.table(empty_vt, &[]);
    b.patch(buffers + 4, sentinel);
    if metadata.is_empty() {
        return b.buf;
    }
    let entries = b.offsets(metadata.len());
    b.patch(model + 16, entries);
    for (i, (name, data)) in metadata.iter().enumerate() {
        let vt = b.vtable(&[4, 8], 12);
        let mut inline = vec![0; 4];
        inline.extend_from_slice(&(1 + i as u32).to_le_bytes());
        let entry = b.table(vt, &inline);
        b.patch(entries + 4 + 4 * i, entry);
        let s = b.string(name);
        b.patch(entry + 4, s);
        let vt = b.vtable(&[4], 8);
        let buffer = b.table(vt, &[0; 4]);
        b.patch(buffers + 8 + 4 * i, buffer);
        // The bytes start 16-aligned, after their 4-byte length.
        while !(b.pos() + 4).is_multiple_of(16) {
            b.buf.push(0);
        }
        let at = b.pos();
        b.u32(data.len() as u32);
        b.buf.extend_from_slice(data);
        b.patch(buffer + 4, at);
    }
    b.buf
}

/// The `.tflite` files directly in `dir`, sorted (none when it cannot be read).
pub fn tflite_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.is_file() && p.extension().is_some_and(|e| e == "tflite"));
    files.sort();
    files
}

/// JSON text in which flatc's bare non-finite floats (`inf`, `-inf`, `nan`, `-nan`, which JSON
/// cannot hold) stand outside strings, parsed with each of them read as the string of its
/// token: the one liberty the dump comparisons take (`docs/executorch.md` §3.8).
pub fn json_with_bare_floats(text: &str) -> serde_json::Value {
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if in_string {
            (in_string, escaped) = (escaped || c != '"', !escaped && c == '\\');
        } else if c == '"' {
            in_string = true;
        } else if let Some(token) = ["-inf", "inf", "-nan", "nan"].into_iter().find(|t| rest.starts_with(t)) {
            out.push('"');
            out.push_str(token);
            out.push('"');
            rest = &rest[token.len()..];
            continue;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}"))
}
