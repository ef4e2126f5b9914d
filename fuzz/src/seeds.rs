//! Seeds written by the targets' stable builds (`TARGET --seeds DIR`), which `fuzz/seeds.sh`
//! gathers and minimises into `fuzz/seeds/`: small inputs that reach what the large testdata
//! models reach, so that `max_len` can stay small and each execution fast.
//!
//! TFLite's testdata models run from 3 KB to 677 KB, almost all of it weights. [`tflite_seeds`]
//! writes each one again with every large constant tensor cut down to one element per quantized
//! channel (its shape and data shortened together, so the model still passes the rules), and a
//! few models with what no testdata model has: no subgraphs, an empty subgraph, version 0, a
//! custom operator without its code, a string tensor, a variable tensor holding data,
//! quantization without zero points, control flow calling other subgraphs, large custom options,
//! small sparse tensors (the one sparse testdata model holds 677 KB).
//! Built with planus's owned TFLite tree (`benches/peers/planus_generated.rs`), on stable only:
//! the fuzz build never compiles it.

use std::path::Path;

#[rustfmt::skip]
#[path = "../../benches/peers/planus_generated.rs"]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery, unsafe_op_in_unsafe_fn)]
mod planus_generated;

use planus::ReadAsRoot;
use planus_generated::tflite as t;

/// When the command line is `--seeds DIR`, writes `seeds(repo)` into DIR (one file each, by
/// name) and returns whether that worked; otherwise `None` (the target then replays its
/// arguments).
pub fn write_seeds_if_asked(seeds: impl FnOnce(&Path) -> Vec<(String, Vec<u8>)>) -> Option<bool> {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if args.len() != 2 || args[0] != "--seeds" {
        return None;
    }
    let dir = Path::new(&args[1]);
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let result = std::fs::create_dir_all(dir).and_then(|()| {
        let seeds = seeds(&repo);
        for (name, bytes) in &seeds {
            std::fs::write(dir.join(name), bytes)?;
        }
        println!("{} seeds written to {}", seeds.len(), dir.display());
        Ok(())
    });
    if let Err(e) = &result {
        eprintln!("{}: {e}", dir.display());
    }
    Some(result.is_ok())
}

/// Constant data at most this long is kept as it is.
const KEEP: usize = 64;

/// The TFLite seeds: each `testdata/tflite/NAME.tflite` cut down (`NAME.small.tflite`, when that
/// is smaller and still as valid as the original), and the models with what testdata lacks.
pub fn tflite_seeds(repo: &Path) -> Vec<(String, Vec<u8>)> {
    let mut seeds = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(repo.join("testdata/tflite"))
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    paths.sort();
    for path in paths.iter().filter(|p| p.extension().is_some_and(|e| e == "tflite")) {
        let Ok(bytes) = std::fs::read(path) else { continue };
        let Some(mut model) = read(&bytes) else { continue };
        cut_constants(&mut model);
        let small = write(&model);
        let valid = flatmodel::tflite::Model::parse(&bytes).is_ok();
        if small.len() < bytes.len() && flatmodel::tflite::Model::parse(&small).is_ok() == valid {
            let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            seeds.push((format!("{stem}.small.tflite"), small));
        }
    }
    let sine = std::fs::read(repo.join("testdata/tflite/sine_float.tflite")).ok().and_then(|b| read(&b));
    let int8 = std::fs::read(repo.join("testdata/tflite/tf_convnet_int8_full.tflite")).ok().and_then(|b| read(&b));
    if let (Some(sine), Some(int8)) = (sine, int8) {
        for (name, bytes) in variants(&sine, &int8) {
            seeds.push((format!("{name}.tflite"), bytes));
        }
    }
    seeds
}

/// `bytes` as planus's owned tree, or `None` when planus cannot read them.
fn read(bytes: &[u8]) -> Option<t::Model> {
    t::Model::try_from(t::ModelRef::read_as_root(bytes).ok()?).ok()
}

/// The bytes of `model`, with TFLite's identifier at bytes 4..8. (planus writes none: 8 bytes
/// are put in after the root offset, which moves the root by 8 and keeps every alignment.)
fn write(model: &t::Model) -> Vec<u8> {
    let plain = planus::Builder::new().finish(model, None).to_vec();
    let root = plain.get(..4).and_then(|b| b.try_into().ok()).map_or(0, u32::from_le_bytes);
    let mut out = (root + 8).to_le_bytes().to_vec();
    out.extend_from_slice(b"TFL3\0\0\0\0");
    out.extend_from_slice(plain.get(4..).unwrap_or_default());
    out
}

/// Bits per element of a tensor type whose data is a plain array (`None` for strings,
/// resources, variants and unknown types).
fn element_bits(kind: t::TensorType) -> Option<usize> {
    use t::TensorType as T;
    Some(match kind {
        T::Int2 => 2,
        T::Int4 => 4,
        T::Uint8 | T::Int8 | T::Bool => 8,
        T::Float16 | T::Int16 | T::Uint16 | T::Bfloat16 => 16,
        T::Float32 | T::Int32 | T::Uint32 => 32,
        T::Int64 | T::Uint64 | T::Float64 | T::Complex64 => 64,
        T::Complex128 => 128,
        _ => return None,
    })
}

/// Cuts every constant tensor holding more than [`KEEP`] bytes of its own (a buffer no other
/// tensor shares, inside the flatbuffer) down to one element per quantized channel: each
/// dimension becomes 1 but the quantized one, and the data its first bytes. A sparse tensor is
/// made dense first.
fn cut_constants(model: &mut t::Model) {
    let mut users = vec![0u32; model.buffers.as_ref().map_or(0, Vec::len)];
    for tensor in model.subgraphs.iter().flatten().flat_map(|s| s.tensors.iter().flatten()) {
        if let Some(n) = users.get_mut(tensor.buffer as usize) {
            *n += 1;
        }
    }
    let Some(buffers) = model.buffers.as_mut() else { return };
    for tensor in model.subgraphs.iter_mut().flatten().flat_map(|s| s.tensors.iter_mut().flatten()) {
        let index = tensor.buffer as usize;
        let (Some(1), Some(buffer), Some(bits)) =
            (users.get(index), buffers.get_mut(index), element_bits(tensor.type_))
        else {
            continue;
        };
        let (Some(data), Some(shape)) = (buffer.data.as_mut(), tensor.shape.as_mut()) else { continue };
        if data.len() <= KEEP || buffer.offset > 1 {
            continue;
        }
        // Sparse data is cut by making it dense (the sparse seeds are written whole).
        tensor.sparsity = None;
        let channels = tensor.quantization.as_ref().and_then(|q| q.scale.as_ref()).map_or(1, Vec::len);
        let axis = tensor.quantization.as_ref().map_or(0, |q| q.quantized_dimension) as usize;
        for (i, dim) in shape.iter_mut().enumerate() {
            *dim = if channels > 1 && i == axis { channels as i32 } else { 1 };
        }
        let elements: usize = shape.iter().map(|&d| d.max(0) as usize).product();
        data.truncate((elements * bits).div_ceil(8));
        if let Some(signature) = tensor.shape_signature.as_mut() {
            if signature.len() == shape.len() {
                signature.clone_from(shape);
            }
        }
    }
}

/// Models with what no testdata model has, each one edit of `sine` (float) or `int8` (fully
/// quantized): they need not pass the rules, only reach them.
fn variants(sine: &t::Model, int8: &t::Model) -> Vec<(&'static str, Vec<u8>)> {
    let mut out = Vec::new();
    let mut edit = |name, base: &t::Model, change: &dyn Fn(&mut t::Model)| {
        let mut model = base.clone();
        change(&mut model);
        out.push((name, write(&model)));
    };
    edit("no-subgraphs", sine, &|m| m.subgraphs = None);
    edit("no-buffers", sine, &|m| m.buffers = None);
    edit("no-operators", sine, &|m| m.subgraphs.iter_mut().flatten().for_each(|s| s.operators = None));
    edit("empty-subgraph", sine, &|m| {
        m.subgraphs.get_or_insert_with(Vec::new).push(t::SubGraph::default());
    });
    edit("version-0", sine, &|m| m.version = 0);
    edit("custom-without-code", sine, &|m| {
        if let Some(code) = m.operator_codes.iter_mut().flatten().next() {
            code.builtin_code = t::BuiltinOperator::Custom;
            code.deprecated_builtin_code = 32;
            code.custom_code = None;
        }
    });
    edit("string-tensor", sine, &|m| {
        // One string, "fm": the count, the two offsets (start of each string and the end),
        // then the bytes.
        let mut data = Vec::new();
        for word in [1u32, 12, 14] {
            data.extend_from_slice(&word.to_le_bytes());
        }
        data.extend_from_slice(b"fm");
        let buffers = m.buffers.get_or_insert_with(Vec::new);
        buffers.push(t::Buffer { data: Some(data), ..Default::default() });
        let buffer = (buffers.len() - 1) as u32;
        if let Some(sg) = m.subgraphs.iter_mut().flatten().next() {
            let tensors = sg.tensors.get_or_insert_with(Vec::new);
            tensors.push(t::Tensor {
                shape: Some(vec![1]),
                type_: t::TensorType::String,
                buffer,
                name: Some("strings".into()),
                ..Default::default()
            });
        }
    });
    edit("variable-with-data", sine, &|m| {
        let buffers = m.buffers.clone().unwrap_or_default();
        let constant = |t: &&mut t::Tensor| buffers.get(t.buffer as usize).is_some_and(|b| b.data.is_some());
        if let Some(tensor) =
            m.subgraphs.iter_mut().flatten().flat_map(|s| s.tensors.iter_mut().flatten()).find(constant)
        {
            tensor.is_variable = true;
        }
    });
    edit("quantized-without-zero-points", int8, &|m| {
        for tensor in m.subgraphs.iter_mut().flatten().flat_map(|s| s.tensors.iter_mut().flatten()) {
            if let Some(q) = tensor.quantization.as_mut() {
                q.zero_point = None;
            }
        }
    });
    // A 4×4 float constant stored sparse (row 0 dense, columns CSR: one value per row), its
    // index vectors in each of the three widths; and the same in 2×2 blocks (a block map).
    for (name, width) in [("sparse-int32", 4), ("sparse-uint16", 2), ("sparse-uint8", 1)] {
        edit(name, sine, &|m| add_sparse(m, width, false));
    }
    edit("sparse-blocks", sine, &|m| add_sparse(m, 1, true));
    for (name, kind, options) in [
        (
            "while-calls",
            t::BuiltinOperator::While,
            t::BuiltinOptions::WhileOptions(Box::new(t::WhileOptions {
                cond_subgraph_index: 1,
                body_subgraph_index: 2,
            })),
        ),
        (
            "if-calls",
            t::BuiltinOperator::If,
            t::BuiltinOptions::IfOptions(Box::new(t::IfOptions { then_subgraph_index: 1, else_subgraph_index: 2 })),
        ),
        (
            "while-calls-itself",
            t::BuiltinOperator::While,
            t::BuiltinOptions::WhileOptions(Box::new(t::WhileOptions {
                cond_subgraph_index: 0,
                body_subgraph_index: 0,
            })),
        ),
    ] {
        edit(name, sine, &|m| control_flow(m, kind, options.clone()));
    }
    // Large custom options: 16 bytes after the flatbuffer, 16-aligned as converters write
    // them, then the same offset past the end.
    let point = |model: &mut t::Model, offset: u64| {
        if let Some(op) = model.subgraphs.iter_mut().flatten().flat_map(|s| s.operators.iter_mut().flatten()).next() {
            op.large_custom_options_offset = offset;
            op.large_custom_options_size = 16;
        }
    };
    let mut model = sine.clone();
    point(&mut model, u64::MAX);
    let end = write(&model).len().next_multiple_of(16);
    point(&mut model, end as u64);
    let mut bytes = write(&model);
    bytes.resize(end + 16, 0x5a);
    out.push(("large-custom-options", bytes.clone()));
    bytes.truncate(end + 8);
    out.push(("large-custom-options-cut", bytes));
    out
}

/// Adds to `model` a 4×4 float constant stored sparse, with index vectors `width` bytes wide:
/// dense rows, CSR columns holding one value per row; or, `blocks`, a 2×2 grid of 2×2 blocks
/// (traversal order 0, 1, 2, 3 with a block map 0, 1), one block per block row.
fn add_sparse(model: &mut t::Model, width: usize, blocks: bool) {
    let index = |values: &[u8]| -> t::SparseIndexVector {
        match width {
            1 => t::SparseIndexVector::Uint8Vector(Box::new(t::Uint8Vector { values: Some(values.to_vec()) })),
            2 => t::SparseIndexVector::Uint16Vector(Box::new(t::Uint16Vector {
                values: Some(values.iter().map(|&v| u16::from(v)).collect()),
            })),
            _ => t::SparseIndexVector::Int32Vector(Box::new(t::Int32Vector {
                values: Some(values.iter().map(|&v| i32::from(v)).collect()),
            })),
        }
    };
    let dense = |size| t::DimensionMetadata { format: t::DimensionType::Dense, dense_size: size, ..Default::default() };
    let csr = |segments: &[u8], indices: &[u8]| t::DimensionMetadata {
        format: t::DimensionType::SparseCsr,
        array_segments: Some(index(segments)),
        array_indices: Some(index(indices)),
        ..Default::default()
    };
    let (sparsity, values) = if blocks {
        let sparsity = t::SparsityParameters {
            traversal_order: Some(vec![0, 1, 2, 3]),
            block_map: Some(vec![0, 1]),
            dim_metadata: Some(vec![dense(2), csr(&[0, 1, 2], &[0, 1]), dense(2), dense(2)]),
        };
        (sparsity, 8)
    } else {
        let sparsity = t::SparsityParameters {
            traversal_order: Some(vec![0, 1]),
            block_map: None,
            dim_metadata: Some(vec![dense(4), csr(&[0, 1, 2, 3, 4], &[0, 1, 2, 3])]),
        };
        (sparsity, 4)
    };
    let data = (0..values).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let buffers = model.buffers.get_or_insert_with(Vec::new);
    buffers.push(t::Buffer { data: Some(data), ..Default::default() });
    let buffer = (buffers.len() - 1) as u32;
    if let Some(sg) = model.subgraphs.iter_mut().flatten().next() {
        sg.tensors.get_or_insert_with(Vec::new).push(t::Tensor {
            shape: Some(vec![4, 4]),
            type_: t::TensorType::Float32,
            buffer,
            name: Some("sparse".into()),
            sparsity: Some(Box::new(sparsity)),
            ..Default::default()
        });
    }
}

/// Makes `model`'s first subgraph end with a control-flow operator of `kind` and appends two
/// copies of that subgraph for it to call.
fn control_flow(model: &mut t::Model, kind: t::BuiltinOperator, options: t::BuiltinOptions) {
    let codes = model.operator_codes.get_or_insert_with(Vec::new);
    codes.push(t::OperatorCode { builtin_code: kind, deprecated_builtin_code: 127, version: 1, ..Default::default() });
    let opcode_index = (codes.len() - 1) as u32;
    let subgraphs = model.subgraphs.get_or_insert_with(Vec::new);
    let Some(main) = subgraphs.first().cloned() else { return };
    subgraphs.push(main.clone());
    subgraphs.push(main.clone());
    let Some(first) = subgraphs.first_mut() else { return };
    // It reads the subgraph's outputs and writes copies of them, the subgraph's new outputs.
    let tensors = first.tensors.get_or_insert_with(Vec::new);
    let mut outputs = Vec::new();
    for &output in main.outputs.iter().flatten() {
        let Some(tensor) = tensors.get(output as usize) else { continue };
        let copy = t::Tensor { buffer: 0, name: Some(format!("called_{output}")), ..tensor.clone() };
        tensors.push(copy);
        outputs.push((tensors.len() - 1) as i32);
    }
    let operator = t::Operator {
        opcode_index,
        inputs: main.outputs.clone(),
        outputs: Some(outputs.clone()),
        builtin_options: Some(options),
        ..Default::default()
    };
    first.operators.get_or_insert_with(Vec::new).push(operator);
    first.outputs = Some(outputs);
}
