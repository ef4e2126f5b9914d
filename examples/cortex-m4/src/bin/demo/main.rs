//! flatmodel on a Cortex-M4, under QEMU (`mps2-an386`): verify the models in flash (structure,
//! then the model rules), print a short summary of each, reject corrupted copies, measure the
//! stack every call used by painting it, and exit with the status semihosting hands to the host
//! (0 when every verdict was the expected one).
#![no_std]
#![no_main]

mod stack;

use cortex_m_rt::entry;
use cortex_m_semihosting::{debug, hprintln};
use flatmodel::graph::{ModelView, SubGraphView};
use flatmodel::{circle, cvimodel, tflite, vkgraph};

static SINE: &[u8] = include_bytes!("../../../../../testdata/tflite/sine_float.tflite");
static CONVNET_INT8: &[u8] = include_bytes!("../../../../../testdata/tflite/tf_convnet_int8_full.tflite");
/// Sparse tensors: the deepest path the TFLite schema has (Model, subgraphs, tensors,
/// sparsity, dim_metadata, the array_segments union, its vector).
static SPARSE: &[u8] = include_bytes!("../../../../../testdata/tflite/mp_face_detection_full_range_sparse.tflite");
static SINE_CIRCLE: &[u8] = include_bytes!("../../../../../testdata/circle/sine_float.circle");
/// Circle revision 0.10: signatures, metadata and shape signatures.
static SINE_CIRCLE_0_10: &[u8] = include_bytes!("../../../../../testdata/circle/c010_sine_float.circle");
static VULKAN: &[u8] = include_bytes!("../../../../../testdata/vkgraph/vk_mlp_inline_constants.vh00");
static CVIMODEL: &[u8] = include_bytes!("../../../../../testdata/cvimodel/tpumlir_tinycnn_int8_cv181x.cvimodel");

/// The deepest stack any call used, and whether every verdict was the expected one.
struct Run {
    deepest: usize,
    ok: bool,
}

impl Run {
    fn stack(&mut self, used: usize) -> usize {
        self.deepest = self.deepest.max(used);
        used
    }

    /// Verifies a TFLite-family model twice (structure only, then structure and rules) and
    /// prints its counts and operators.
    fn graph<'a, M: ModelView<'a>>(
        &mut self,
        name: &str,
        structure: impl FnOnce() -> Result<M, flatmodel::Error>,
        full: impl FnOnce() -> Result<M, flatmodel::Error>,
    ) {
        let (checked, structure_stack) = stack::measure(structure);
        let (parsed, full_stack) = stack::measure(full);
        let (s, f) = (self.stack(structure_stack), self.stack(full_stack));
        let model = match (checked, parsed) {
            (Ok(_), Ok(model)) => model,
            (Err(e), _) | (_, Err(e)) => {
                hprintln!("{}: unexpected error: {}", name, e);
                self.ok = false;
                return;
            }
        };
        let (mut tensors, mut operators) = (0, 0);
        for sg in model.subgraph_list().unwrap_or_default() {
            tensors += sg.tensors().map_or(0, |t| t.len());
            operators += sg.operators().map_or(0, |o| o.len());
        }
        hprintln!(
            "{}: ok, {} bytes, {} subgraph(s), {} tensors, {} operators; stack {} B (structure), {} B (with rules)",
            name,
            model.file().len(),
            model.subgraph_list().map_or(0, |s| s.len()),
            tensors,
            operators,
            s,
            f
        );
        for code in 0..model.operator_code_count() {
            let uses = model
                .subgraph_list()
                .into_iter()
                .flatten()
                .flat_map(|sg| sg.operators().into_iter().flatten())
                .filter(|op| flatmodel::graph::OperatorView::opcode_index(op) as usize == code)
                .count();
            if let Some(kind) = model.operator_kind_at(code) {
                hprintln!("    {} x{}", kind, uses);
            }
        }
    }

    /// A verdict on a container that is not a graph: `Ok(description)` or the error.
    fn other(&mut self, name: &str, verdict: (Result<(usize, usize), flatmodel::Error>, usize)) {
        let used = self.stack(verdict.1);
        match verdict.0 {
            Ok((a, b)) => hprintln!("{}: ok, {} values/programs, {} operators/sections; stack {} B", name, a, b, used),
            Err(e) => {
                hprintln!("{}: unexpected error: {}", name, e);
                self.ok = false;
            }
        }
    }

    /// A corrupted copy must be rejected.
    fn corrupted(&mut self, name: &str, bytes: &[u8]) {
        let (verdict, used) = stack::measure(|| tflite::Model::parse(bytes));
        self.stack(used);
        match verdict {
            Err(e) => hprintln!("{}: rejected as expected: {}; stack {} B", name, e, used),
            Ok(_) => {
                hprintln!("{}: accepted, but it is corrupt", name);
                self.ok = false;
            }
        }
    }
}

#[entry]
fn main() -> ! {
    let mut run = Run { deepest: 0, ok: true };
    for (name, bytes) in [
        ("sine_float.tflite", SINE),
        ("tf_convnet_int8_full.tflite", CONVNET_INT8),
        ("mp_face_detection_full_range_sparse.tflite", SPARSE),
    ] {
        run.graph(name, || tflite::Model::parse_structure(bytes), || tflite::Model::parse(bytes));
    }
    for (name, bytes) in [("sine_float.circle", SINE_CIRCLE), ("c010_sine_float.circle", SINE_CIRCLE_0_10)] {
        run.graph(name, || circle::Model::parse_structure(bytes), || circle::Model::parse(bytes));
    }
    let vulkan = stack::measure(|| {
        vkgraph::Blob::parse(VULKAN).map(|b| {
            let g = b.graph();
            (g.values().map_or(0, |v| v.len()), g.chain().map_or(0, |c| c.len()))
        })
    });
    run.other("vk_mlp_inline_constants.vh00", vulkan);
    let cvi = stack::measure(|| {
        cvimodel::CviModel::parse(CVIMODEL).map(|f| {
            let m = f.model();
            (m.programs().map_or(0, |p| p.len()), m.sections().map_or(0, |s| s.len()))
        })
    });
    run.other("tpumlir_tinycnn_int8_cv181x.cvimodel", cvi);

    // Corrupted copies in RAM: a root offset past the end, and a file cut in half.
    let mut copy = [0u8; 3200];
    let copy = &mut copy[..SINE.len()];
    copy.copy_from_slice(SINE);
    copy[..4].copy_from_slice(&0x7fff_fff0u32.to_le_bytes());
    run.corrupted("sine_float.tflite, root offset past the end", copy);
    run.corrupted("sine_float.tflite, cut in half", &SINE[..SINE.len() / 2]);

    hprintln!("deepest stack of any verification: {} bytes", run.deepest);
    hprintln!("{}", if run.ok { "all verdicts as expected" } else { "UNEXPECTED VERDICTS" });
    debug::exit(if run.ok { debug::EXIT_SUCCESS } else { debug::EXIT_FAILURE });
    loop {
        cortex_m::asm::wfi();
    }
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    hprintln!("panic: {}", info);
    debug::exit(debug::EXIT_FAILURE);
    loop {
        cortex_m::asm::wfi();
    }
}
