//! Crafted cvimodel files (slots from `cvimodel.fbs`): a body with one program, its tensors,
//! inputs, outputs and TPU routines, the sections; the 48-byte header; LZ4 blocks written by
//! hand from the block format (token, literals, 2-byte offset, length extensions).

use super::Bytes;

/// A section of a crafted file.
pub struct SectionSpec<'a> {
    pub kind: u8,
    pub name: &'a str,
    pub size: u32,
    pub offset: u32,
    pub compress: bool,
    pub decompressed_size: u32,
}

/// What the one program of a crafted body holds. Tensor `i` of `tensors` gets `tensor_id` `i`
/// and shape [1, 3, 8, 8]; each routine is a TPU routine running the section it names.
#[derive(Default)]
pub struct ProgramSpec<'a> {
    pub tensors: &'a [String],
    pub inputs: &'a [String],
    pub outputs: &'a [String],
    pub routines: &'a [String],
}

/// A cvimodel body: Model { version 1.4.0, name "crafted", programs: [one program as
/// `program` says], sections }.
pub fn body(sections: &[SectionSpec<'_>], program: &ProgramSpec<'_>) -> Vec<u8> {
    let mut b = Bytes::default();
    b.buf.extend_from_slice(&[0; 4]);
    // Model: version (slot 0, struct of 3 bytes) @4, name (1) @8, programs (6) @12, sections (7) @16.
    let vt = b.vtable(&[4, 8, 0, 0, 0, 0, 12, 16], 20);
    let model = b.table(vt, &[1, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    b.patch(0, model);
    let name = b.string(b"crafted");
    b.patch(model + 8, name);
    let programs = b.offsets(1);
    b.patch(model + 12, programs);
    // Program: input_tensors (2) @4, output_tensors (3) @8, tensor_map (4) @12, routines (5) @16.
    let pvt = b.vtable(&[0, 0, 4, 8, 12, 16], 20);
    let p = b.table(pvt, &[0; 16]);
    b.patch(programs + 4, p);
    for (at, names) in [(p + 4, program.inputs), (p + 8, program.outputs)] {
        let list = b.offsets(names.len());
        b.patch(at, list);
        for (k, n) in names.iter().enumerate() {
            let s = b.string(n.as_bytes());
            b.patch(list + 4 + 4 * k, s);
        }
    }
    // Tensor: tensor_id (0) @4, name (1) @8, dtype (3) @16 = INT8, shape (4) @12;
    // Shape: dim (0) @4, a vector of int64.
    let tensors = b.offsets(program.tensors.len());
    b.patch(p + 12, tensors);
    let tvt = b.vtable(&[4, 8, 0, 16, 12], 20);
    let shape_vt = b.vtable(&[4], 8);
    for (i, n) in program.tensors.iter().enumerate() {
        let mut inline = (i as u32).to_le_bytes().to_vec();
        inline.extend_from_slice(&[0; 8]);
        inline.extend_from_slice(&[6, 0, 0, 0]);
        let t = b.table(tvt, &inline);
        b.patch(tensors + 4 + 4 * i, t);
        let s = b.string(n.as_bytes());
        b.patch(t + 8, s);
        let shape = b.table(shape_vt, &[0; 4]);
        b.patch(t + 12, shape);
        while (b.pos() + 4) % 8 != 0 {
            b.buf.push(0);
        }
        let dims = b.pos();
        b.u32(4);
        for d in [1i64, 3, 8, 8] {
            b.buf.extend_from_slice(&d.to_le_bytes());
        }
        b.patch(shape + 4, dims);
    }
    // Routine: type (0) @8 = TPU, tpu_routine (3) @4; TpuRoutine: cmdbuf_section (0) @4.
    let routines = b.offsets(program.routines.len());
    b.patch(p + 16, routines);
    let rvt = b.vtable(&[8, 0, 0, 4], 12);
    let tvt = b.vtable(&[4], 8);
    for (r, section) in program.routines.iter().enumerate() {
        let routine = b.table(rvt, &[0; 8]);
        b.patch(routines + 4 + 4 * r, routine);
        let tpu = b.table(tvt, &[0; 4]);
        b.patch(routine + 4, tpu);
        let s = b.string(section.as_bytes());
        b.patch(tpu + 4, s);
    }
    // Section: type (0) @20, name (1) @4, size (2) @8, offset (3) @12, encrypt (4) @21,
    // compress (5) @22, decompressed_size (6) @16.
    let list = b.offsets(sections.len());
    b.patch(model + 16, list);
    let svt = b.vtable(&[20, 4, 8, 12, 21, 22, 16], 24);
    for (i, spec) in sections.iter().enumerate() {
        let mut inline = vec![0u8; 4];
        inline.extend_from_slice(&spec.size.to_le_bytes());
        inline.extend_from_slice(&spec.offset.to_le_bytes());
        inline.extend_from_slice(&spec.decompressed_size.to_le_bytes());
        inline.extend_from_slice(&[spec.kind, 0, spec.compress as u8, 0]);
        let t = b.table(svt, &inline);
        b.patch(list + 4 + 4 * i, t);
        let n = b.string(spec.name.as_bytes());
        b.patch(t + 4, n);
    }
    b.buf
}

/// A body whose one program has no tensors and one TPU routine running section `cmdbuf`.
pub fn crafted_body(sections: &[SectionSpec<'_>], cmdbuf: &str) -> Vec<u8> {
    body(sections, &ProgramSpec { routines: &[cmdbuf.to_string()], ..ProgramSpec::default() })
}

/// A 48-byte header (md5 left zero, chip cv181x), the body, then the section area.
pub fn crafted_file(body: &[u8], area: &[u8]) -> Vec<u8> {
    let mut f = b"CviModel".to_vec();
    f.extend_from_slice(&(body.len() as u32).to_le_bytes());
    f.extend_from_slice(&[1, 4]);
    f.extend_from_slice(&[0; 16]);
    f.extend_from_slice(b"cv181x\0\0\0\0\0\0\0\0\0\0");
    f.extend_from_slice(b"AA");
    f.extend_from_slice(body);
    f.extend_from_slice(area);
    f
}

/// An LZ4 block of literals only: a token with the literal count, then the literals.
pub fn lz4_literals(text: &[u8]) -> Vec<u8> {
    assert!(text.len() < 15);
    let mut v = vec![(text.len() as u8) << 4];
    v.extend_from_slice(text);
    v
}

/// An LZ4 block of `n` (at least 20) zero bytes: one literal zero, one match of `n - 1` bytes at
/// offset 1, then the empty literal run that ends a block. About `n / 255` bytes.
pub fn lz4_zeros(n: usize) -> Vec<u8> {
    assert!(n >= 20);
    let mut v = vec![0x1F, 0x00, 0x01, 0x00]; // 1 literal, match length 4 + 15 + extension
    let mut rest = n - 1 - 4 - 15;
    while rest >= 255 {
        v.push(0xFF);
        rest -= 255;
    }
    v.push(rest as u8);
    v.push(0x00);
    v
}

/// A file of an 8-byte command buffer `subfunc_0` then the LZ4 section `weight` holding
/// `payload`, which claims `decompressed_size`.
pub fn lz4_file(payload: &[u8], decompressed_size: u32) -> Vec<u8> {
    let mut area = vec![0xC0; 8];
    area.extend_from_slice(payload);
    let sections = [
        SectionSpec { kind: 1, name: "subfunc_0", size: 8, offset: 0, compress: false, decompressed_size: 0 },
        SectionSpec {
            kind: 0,
            name: "weight",
            size: payload.len() as u32,
            offset: 8,
            compress: true,
            decompressed_size,
        },
    ];
    crafted_file(&crafted_body(&sections, "subfunc_0"), &area)
}
