//! The summary of a Sophgo cvimodel: what tpu-mlir's `model_tool --info` shows (header,
//! sections, weights, programs, routines, tensors), and more.

mod text;

use crate::budget::{Budget, OverBudget};
use crate::convert::{round_to_i64, to_f64};
use crate::summary::facts::Quant;
use crate::summary::io::{Entry, Found, Port, PortTensor, Runs};
use crate::summary::needs::Need;
use crate::summary::warnings::Warnings;
use crate::summary::weights::Weights;
use flatmodel::cvimodel::{self, CviModel, DType, MemoryRegion, SectionType};
use flatmodel::verify::Options;
use serde::Serialize;
use std::collections::HashMap;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The section type as `model_tool` names it.
pub fn section_type_name(t: SectionType) -> String {
    match t {
        SectionType::WEIGHT => "weight".into(),
        SectionType::CMDBUF => "cmdbuf".into(),
        SectionType::DMABUF => "dmabuf".into(),
        SectionType::FUNC_X86 => "x86_64".into(),
        SectionType::FUNC_AARCH64 => "aarch64".into(),
        other => format!("SectionType({})", other.0),
    }
}

/// The element type as `model_tool` names it.
fn dtype_name(t: DType) -> String {
    t.name().map_or_else(|| format!("DType({})", t.0), |n| if n == "FP32" { "fp32".into() } else { n.to_lowercase() })
}

fn region_name(r: MemoryRegion) -> &'static str {
    match r {
        MemoryRegion::Shared => "shared",
        MemoryRegion::Weight => "weight",
        MemoryRegion::Private => "private",
        MemoryRegion::Io(_) => "io_mem",
    }
}

/// What `inspect` says of a cvimodel: what `model_tool --info` prints, and more.
#[derive(Debug, Serialize)]
pub struct CvimodelSummary {
    /// Always `cvimodel`.
    pub format: &'static str,
    /// The file's size in bytes.
    pub file_bytes: usize,
    /// What the model needs of a runtime: its version, chip and the tpu-mlir that built it.
    pub needs: Vec<Need>,
    /// Each program's inputs and outputs, in the layout every format shares.
    pub io: Vec<Entry>,
    /// The file header.
    pub header: HeaderSummary,
    /// The version of tpu-mlir that built the model.
    pub mlir_version: Option<String>,
    /// `Model.version` as `major.minor.sub_minor`.
    pub version: Option<String>,
    /// `Model.name`.
    pub name: String,
    /// When the model was built.
    pub build_time: Option<String>,
    /// The chip the model is for (`Model.target`).
    pub target: Option<String>,
    /// The ION memory the runtime allocates.
    pub memory: MemorySummary,
    /// Every section, in file order.
    pub sections: Vec<SectionSummary>,
    /// The weights in the layout every format shares.
    pub weights: Weights,
    /// Every entry of `Model.weight_map`.
    pub weight_list: Vec<WeightSummary>,
    /// Every program.
    pub programs: Vec<ProgramSummary>,
    /// `ok`, or the first of the model's rules the file breaks.
    pub model_rules: String,
    /// The file's warnings.
    pub warnings: Warnings,
}

/// The file header.
#[derive(Debug, Serialize)]
pub struct HeaderSummary {
    /// The magic bytes, as text.
    pub magic: String,
    /// The header's size in bytes (it depends on the version).
    pub header_bytes: usize,
    /// The flatbuffer body's size in bytes.
    pub body_size: u32,
    /// The header's major version.
    pub major: u8,
    /// The header's minor version.
    pub minor: u8,
    /// The stored MD5, in hex.
    pub md5: String,
    /// The MD5 of the file after the header, in hex.
    pub md5_computed: String,
    /// Whether the two match.
    pub md5_ok: bool,
    /// The chip the header names (absent from version 1.0 headers).
    pub chip: Option<String>,
    /// The padding bytes, in hex.
    pub padding: String,
    /// The bytes after the body: the section area.
    pub sections_bytes: usize,
}

/// The ION memory the runtime allocates, in bytes.
#[derive(Debug, Serialize)]
pub struct MemorySummary {
    /// For the sections.
    pub sections: u64,
    /// For the neurons.
    pub neuron: u64,
    /// For the private regions.
    pub private: u64,
    /// For the shared region.
    pub shared: u64,
    /// For the inputs and outputs.
    pub io: u64,
    /// In all.
    pub total: u64,
    /// In all, in MB with two decimals.
    pub total_mb: String,
}

/// One section.
#[derive(Debug, Serialize)]
pub struct SectionSummary {
    /// Its position in `Model.sections`.
    pub index: usize,
    /// Its type as `model_tool` names it.
    #[serde(rename = "type")]
    pub kind: String,
    /// Its name.
    pub name: String,
    /// Its stored size in bytes.
    pub size: u32,
    /// Its offset in the section area.
    pub offset: u32,
    /// Its offset in the file, when it lies inside it.
    pub file_offset: Option<usize>,
    /// Whether it is encrypted.
    pub encrypt: bool,
    /// Whether it is LZ4-compressed.
    pub compress: bool,
    /// Its size once decompressed.
    pub decompressed_size: u32,
    /// The MD5 of its stored bytes, in hex, when it lies inside the file.
    pub md5: Option<String>,
    /// Why it cannot be read, when it cannot.
    pub error: Option<String>,
}

/// One entry of `Model.weight_map`.
#[derive(Debug, Serialize)]
pub struct WeightSummary {
    /// Its position in the map.
    pub index: usize,
    /// Its name.
    pub name: Option<String>,
    /// Its offset in the WEIGHT section.
    pub offset: u64,
    /// Whether the offset carries the bit-40 tag.
    pub tagged: bool,
    /// Its size in bytes.
    pub size: u32,
    /// Its element type as `model_tool` names it.
    #[serde(rename = "type")]
    pub dtype: String,
    /// Its dimensions.
    pub shape: Vec<i64>,
}

/// One program.
#[derive(Debug, Serialize)]
pub struct ProgramSummary {
    /// Its position in `Model.programs`.
    pub index: usize,
    /// Its batch size.
    pub batch_num: u32,
    /// Its neuron memory in bytes.
    pub neuron_size: u32,
    /// Its private memory in bytes.
    pub private_gmem: u32,
    /// Its shared memory in bytes.
    pub shared_gmem: u32,
    /// The tensors its inputs name.
    pub input_tensors: Vec<ListedTensor>,
    /// The tensors its outputs name.
    pub output_tensors: Vec<ListedTensor>,
    /// The names of its inputs.
    pub inputs: Vec<String>,
    /// The names of its outputs.
    pub outputs: Vec<String>,
    /// Its routines, in order.
    pub routines: Vec<RoutineSummary>,
    /// Its `tensor_map`.
    pub tensors: Vec<TensorSummary>,
}

/// One routine of a program.
#[derive(Debug, Serialize)]
pub struct RoutineSummary {
    /// Its position in the program's routines.
    pub index: usize,
    /// `tpu`, `cpu` or the type's number.
    #[serde(rename = "type")]
    pub kind: String,
    /// The tensors it reads.
    pub inputs: Vec<String>,
    /// The tensors it writes.
    pub outputs: Vec<String>,
    /// What it runs on the TPU, when it has a `tpu_routine`.
    #[serde(flatten)]
    pub tpu: Option<TpuRoutineSummary>,
    /// What it runs on the CPU, when it has a `cpu_routine`.
    #[serde(flatten)]
    pub cpu: Option<CpuRoutineSummary>,
}

/// The section a TPU routine runs.
#[derive(Debug, Serialize)]
pub struct TpuRoutineSummary {
    /// The name of its cmdbuf section, else of its dmabuf section.
    pub section: Option<String>,
    /// The index of the first section of that name, for a routine of type TPU.
    pub section_index: Option<usize>,
}

/// The function a CPU routine calls.
#[derive(Debug, Serialize)]
pub struct CpuRoutineSummary {
    /// The name of the function (its section).
    pub function: String,
    /// The size of its arguments in bytes.
    pub function_args_bytes: usize,
}

/// A tensor a program's input or output names.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum ListedTensor {
    /// The first tensor of the name in the program's `tensor_map`.
    Found(TensorSummary),
    /// No tensor of the program has the name.
    Missing {
        /// The name.
        name: String,
        /// Always true: marks the entry as missing.
        missing: bool,
    },
}

/// One tensor of a program's `tensor_map`.
#[derive(Debug, Serialize)]
pub struct TensorSummary {
    /// Its position in the `tensor_map`.
    pub index: usize,
    /// Its `tensor_id`.
    pub tensor_id: u32,
    /// Its name.
    pub name: String,
    /// Its element type as `model_tool` names it.
    pub dtype: String,
    /// Its dimensions.
    pub shape: Vec<i64>,
    /// Its offset in its memory region, when the offset decodes.
    pub offset: Option<u64>,
    /// Its memory region, when the offset decodes.
    pub region: Option<&'static str>,
    /// Its memory region's number, when the offset decodes.
    pub region_number: Option<u8>,
    /// Its quantization scale, when it has a `quant`.
    pub qscale: Option<f32>,
    /// Its quantization zero point, when it has a `quant`.
    pub zero_point: Option<f32>,
    /// Its size in bytes.
    pub size: u32,
    /// Whether it overwrites another tensor's memory.
    pub overwrote: bool,
}

impl TensorSummary {
    /// Tensor `index` of a program's `tensor_map`, its name's copy charged to `budget`.
    fn of(index: usize, t: &cvimodel::Tensor<'_>, budget: &mut Budget) -> Result<TensorSummary, OverBudget> {
        let address = t.address();
        Ok(TensorSummary {
            index,
            tensor_id: t.tensor_id(),
            name: budget.text(t.name())?,
            dtype: dtype_name(t.dtype()),
            shape: t.shape().and_then(|s| s.dim()).map(|d| d.iter().collect()).unwrap_or_default(),
            offset: address.map(|a| a.offset),
            region: address.map(|a| region_name(a.region)),
            region_number: address.map(|a| a.region.number()),
            qscale: t.quant().map(|q| q.qscale()),
            zero_point: t.quant().map(|q| q.zero_point()),
            size: t.size(),
            overwrote: t.overwrote(),
        })
    }

    /// The tensor as an input or output in the layout every format's `io` shares, its
    /// elements being `element`: an integer tensor's `qscale` and `zero_point` as its
    /// per-tensor quantization.
    fn port(&self, element: DType) -> Port {
        let integer =
            [DType::INT8, DType::UINT8, DType::INT16, DType::UINT16, DType::INT32, DType::UINT32].contains(&element);
        // The zero point is stored as a float: rounded to the nearest i64, saturating.
        let quantization = self.qscale.filter(|_| integer).map(|scale| Quant::PerTensor {
            scale,
            zero_point: round_to_i64(f64::from(self.zero_point.unwrap_or(0.0))),
        });
        let tensor = PortTensor {
            tensor_name: None,
            dtype: numpy_dtype(&self.dtype),
            type_code: None,
            shape: Some(self.shape.clone()),
            quantization,
        };
        Port {
            name: Some(self.name.clone()),
            tensor: i64::try_from(self.index).unwrap_or(i64::MAX),
            found: Found::Tensor(tensor),
        }
    }
}

/// NumPy's name for an element type `model_tool` names `name`, as the other formats use it.
fn numpy_dtype(name: &str) -> String {
    match name {
        "fp32" => "float32".into(),
        "fp16" => "float16".into(),
        "bf16" => "bfloat16".into(),
        other => other.into(),
    }
}

impl CvimodelSummary {
    /// The summary of a structurally valid cvimodel. Every section, weight, program, tensor and
    /// name it lists is charged to `budget`, as programs and routines may share their lists.
    pub fn of(file: &CviModel<'_>, budget: &mut Budget) -> Result<Self, OverBudget> {
        let model = file.model();
        let h = file.header();
        let version = model.version().map(|v| format!("{}.{}.{}", v.major_(), v.minor_(), v.sub_minor()));
        let md5 = file.md5_check();
        let sections_by_name = first_by_name(model.sections().into_iter().flatten().map(|s| s.name()));
        let mut sections = Vec::new();
        for (i, s) in model.sections().into_iter().flatten().enumerate() {
            let resolved = file.section_at(i);
            // Sections may overlap: the MD5 of each is charged by its length.
            budget.charge(1usize.saturating_add(resolved.as_ref().map_or(0, |r| r.payload.len() / 16)))?;
            sections.push(SectionSummary {
                index: i,
                kind: section_type_name(s.type_()),
                name: budget.text(s.name())?,
                size: s.size(),
                offset: s.offset(),
                file_offset: resolved.as_ref().ok().map(|r| r.file_offset),
                encrypt: s.encrypt(),
                compress: s.compress(),
                decompressed_size: s.decompressed_size(),
                md5: resolved.as_ref().ok().map(|r| format!("{:x}", md5_of(r.payload))),
                error: resolved.err().map(|e| e.to_string()),
            });
        }
        let mut weight_list = Vec::new();
        for (i, w) in model.weight_map().into_iter().flatten().enumerate() {
            let dims = w.shape().and_then(|s| s.dim());
            budget.charge(1usize.saturating_add(dims.map_or(0, |d| d.len())))?;
            weight_list.push(WeightSummary {
                index: i,
                name: budget.text_of(w.name())?,
                offset: w.address().offset,
                tagged: w.address().tagged,
                size: w.size(),
                dtype: dtype_name(w.type_()),
                shape: dims.map(|d| d.iter().collect()).unwrap_or_default(),
            });
        }
        let mut programs = Vec::new();
        let mut io = Vec::new();
        for (p, program) in model.programs().into_iter().flatten().enumerate() {
            budget.charge(1)?;
            let mut tensors: Vec<cvimodel::Tensor<'_>> = Vec::new();
            for t in program.tensor_map().unwrap_or_default() {
                budget.charge(1usize.saturating_add(t.shape().and_then(|s| s.dim()).map_or(0, |d| d.len())))?;
                tensors.push(t);
            }
            let by_name = first_by_name(tensors.iter().map(|t| t.name()));
            let names =
                |v: Option<flatmodel::wire::StrVector<'_>>, budget: &mut Budget| -> Result<Vec<String>, OverBudget> {
                    let mut listed = Vec::new();
                    for name in v.unwrap_or_default() {
                        budget.charge(1)?;
                        listed.push(budget.text(name)?);
                    }
                    Ok(listed)
                };
            let mut routines = Vec::new();
            for (r, routine) in program.routines().into_iter().flatten().enumerate() {
                let kind = routine.type_().name().map_or_else(|| routine.type_().0.to_string(), str::to_lowercase);
                let (inputs, outputs) = (names(routine.in_tensors(), budget)?, names(routine.out_tensors(), budget)?);
                // What `routine_section` resolves, through the index of section names.
                let mut tpu = None;
                if let Some(routine_tpu) = routine.tpu_routine() {
                    let section = routine_tpu.cmdbuf_section().or(routine_tpu.dmabuf_section());
                    let is_tpu = routine.type_() == cvimodel::RoutineType::TPU;
                    tpu = Some(TpuRoutineSummary {
                        section: budget.text_of(section)?,
                        section_index: section.filter(|_| is_tpu).and_then(|n| sections_by_name.get(n)).copied(),
                    });
                }
                let mut cpu = None;
                if let Some(routine_cpu) = routine.cpu_routine() {
                    cpu = Some(CpuRoutineSummary {
                        function: budget.text(routine_cpu.function_section())?,
                        function_args_bytes: routine_cpu.function_args().map_or(0, |a| a.len()),
                    });
                }
                routines.push(RoutineSummary { index: r, kind, inputs, outputs, tpu, cpu });
            }
            let inputs = names(program.input_tensors(), budget)?;
            let outputs = names(program.output_tensors(), budget)?;
            // Each name's tensor as the program lists it and as a port.
            let mut listed = |names: &[String]| -> Result<(Vec<ListedTensor>, Vec<Port>), OverBudget> {
                let (mut listed, mut ports) = (Vec::new(), Vec::new());
                for name in names {
                    let found = by_name.get(name.as_str()).and_then(|&i| Some((i, tensors.get(i)?)));
                    budget.charge(found.and_then(|(_, t)| t.shape()?.dim()).map_or(0, |d| d.len()))?;
                    match found {
                        Some((i, t)) => {
                            let tensor = TensorSummary::of(i, t, budget)?;
                            // The port's copy of the name.
                            budget.charge(tensor.name.len())?;
                            ports.push(tensor.port(t.dtype()));
                            listed.push(ListedTensor::Found(tensor));
                        }
                        None => {
                            budget.charge(name.len().saturating_mul(2))?;
                            ports.push(Port::missing(Some(name.clone()), -1, "no such tensor"));
                            listed.push(ListedTensor::Missing { name: name.clone(), missing: true });
                        }
                    }
                }
                Ok((listed, ports))
            };
            let (input_tensors, input_ports) = listed(&inputs)?;
            let (output_tensors, output_ports) = listed(&outputs)?;
            io.push(Entry { runs: Runs::Program { program: p }, inputs: input_ports, outputs: output_ports });
            programs.push(ProgramSummary {
                index: p,
                batch_num: program.batch_num(),
                neuron_size: program.neuron_size(),
                private_gmem: program.private_gmem(),
                shared_gmem: program.shared_gmem(),
                input_tensors,
                output_tensors,
                inputs,
                outputs,
                routines,
                tensors: tensors
                    .iter()
                    .enumerate()
                    .map(|(i, t)| TensorSummary::of(i, t, budget))
                    .collect::<Result<_, _>>()?,
            });
        }
        let memory = file.memory_usage();
        let detail = format!(
            "cvimodel {} (header {}.{}), chip {}, built by tpu-mlir {}",
            version.as_deref().unwrap_or("-"),
            h.major,
            h.minor,
            model.target().unwrap_or("-"),
            model.mlir_version().unwrap_or("-")
        );
        Ok(CvimodelSummary {
            format: "cvimodel",
            file_bytes: file.file().len(),
            needs: vec![Need { feature: "cvimodel_version", detail }],
            io,
            header: HeaderSummary {
                magic: String::from_utf8_lossy(&h.magic).into_owned(),
                header_bytes: h.size(),
                body_size: h.body_size,
                major: h.major,
                minor: h.minor,
                md5: hex(&h.md5),
                md5_computed: hex(&md5.computed),
                md5_ok: md5.matches(),
                chip: h.chip_name().map(str::to_string),
                padding: hex(&h.padding),
                sections_bytes: file.binary().len(),
            },
            mlir_version: model.mlir_version().map(str::to_string),
            version,
            name: model.name().to_string(),
            build_time: model.build_time().map(str::to_string),
            target: model.target().map(str::to_string),
            memory: MemorySummary {
                sections: memory.sections,
                neuron: memory.neuron,
                private: memory.private,
                shared: memory.shared,
                io: memory.io,
                total: memory.total(),
                total_mb: format!("{:.2}", to_f64(memory.total()) / (1024.0 * 1024.0)),
            },
            sections,
            weights: weights_summary(&weight_list),
            weight_list,
            programs,
            model_rules: file.check(&Options::DEFAULT).err().map_or_else(|| "ok".to_string(), |e| e.to_string()),
            warnings: Warnings::collect(|f| file.for_each_warning(f)),
        })
    }
}

/// The weights in the layout every format's `weights` shares: the WEIGHT section's entries
/// (the file's `weight_list`), their bytes by NumPy's dtype names and their elements. They are all
/// inside the file; cvimodel does not link a weight to the routine that reads it.
fn weights_summary(list: &[WeightSummary]) -> Weights {
    let mut w = Weights::default();
    for entry in list {
        let size = u64::from(entry.size);
        w.inside = w.inside.saturating_add(size);
        let elements = crate::summary::facts::elements(entry.shape.iter().copied());
        w.parameters = w.parameters.saturating_add(elements);
        let e = w.by_dtype.entry(numpy_dtype(&entry.dtype)).or_default();
        *e = e.saturating_add(size);
    }
    w
}

/// Each name's first position among `names` (the runtime's lookups take the first match).
fn first_by_name<'a>(names: impl Iterator<Item = &'a str>) -> HashMap<&'a str, usize> {
    let mut map = HashMap::new();
    for (i, name) in names.enumerate() {
        map.entry(name).or_insert(i);
    }
    map
}

fn md5_of(bytes: &[u8]) -> md5::Digest {
    md5::compute(bytes)
}
