//! What `scan` finds in a valid file (`docs/scan.md` lists every id): operators a runtime must
//! supply itself (custom, Flex, delegate), delegates and their backends, data outside the
//! flatbuffer and bytes after the model, nested flatbuffers, each runtime's refusals and the
//! library's other warnings. Every fact is read through the library's views, as `inspect`
//! reads it; the summary's pieces are reused where they word the same fact.

use crate::convert::to_u64;
use crate::summary::associated;
use flatmodel::bundle::Bundle;
use flatmodel::cvimodel::CviModel;
use flatmodel::graph::{ModelView, OperatorKind, OperatorView, SubGraphView, Warning};
use flatmodel::nnpackage::{AssociatedFiles, Package};
use flatmodel::pte::{KernelTypes, PteFile, TensorDataLocation};
use flatmodel::vkgraph::Blob;
use flatmodel::{circle_training, conversion_metadata, tflite_metadata, File, FileWarning};
use serde::Serialize;

/// The most findings a record lists; past it they are only counted.
pub const MAX_LISTED: usize = 1000;

/// One finding: a stable id, what it is, and where.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// Its id, from the list in `docs/scan.md` (`custom-operator`, `delegate`, ...).
    id: &'static str,
    /// What it is, for a person.
    message: String,
    /// The name it concerns: the operator's code, the backend, the metadata entry, the
    /// runtime, the section; `null` when none.
    name: Option<String>,
    /// The first byte it concerns, from the start of the file (the package member's, with
    /// `member`); `null` when it concerns no range of its own.
    offset: Option<u64>,
    /// How many bytes from `offset`; `null` when only a position is known.
    length: Option<u64>,
    /// Where in the schema (`Model.operator_codes[2]`); `null` when nowhere in particular.
    path: Option<String>,
    /// For a finding in an nnpackage or a model bundle: the model file or member it is in
    /// (`offset` counts from its start).
    #[serde(skip_serializing_if = "Option::is_none")]
    member: Option<String>,
}

impl Finding {
    fn new(id: &'static str, message: String) -> Finding {
        Finding { id, message, name: None, offset: None, length: None, path: None, member: None }
    }

    fn name(mut self, name: impl Into<String>) -> Finding {
        self.name = Some(name.into());
        self
    }

    fn at(mut self, offset: u64, length: Option<u64>) -> Finding {
        (self.offset, self.length) = (Some(offset), length);
        self
    }

    /// At `bytes`, a part of `file`.
    fn range(self, file: &[u8], bytes: &[u8]) -> Finding {
        let offset = bytes.as_ptr().addr().saturating_sub(file.as_ptr().addr());
        self.at(to_u64(offset), Some(to_u64(bytes.len())))
    }

    fn path(mut self, path: String) -> Finding {
        self.path = Some(path);
        self
    }
}

/// A file's findings: the first [`MAX_LISTED`] kept, all counted.
#[derive(Debug, Default)]
pub struct Findings {
    listed: Vec<Finding>,
    count: u64,
}

impl Findings {
    fn push(&mut self, finding: Finding) {
        self.count = self.count.saturating_add(1);
        if self.listed.len() < MAX_LISTED {
            self.listed.push(finding);
        }
    }

    /// The listed findings and how many there are.
    pub fn into_parts(self) -> (Vec<Finding>, u64) {
        (self.listed, self.count)
    }
}

/// The findings of a valid file, in a fixed order: operators, delegates, data outside the
/// flatbuffer, bytes after the model, nested flatbuffers, then runtime refusals and warnings.
pub fn of_file(file: File<'_>) -> Findings {
    let mut found = Findings::default();
    match file {
        File::Tflite(m) => {
            graph(m, &mut found);
            appended_archive(m.file(), &mut found);
            nested_metadata(m, &NESTED_TFLITE, &mut found);
        }
        File::Circle(m) => {
            graph(m, &mut found);
            nested_metadata(m, &NESTED_CIRCLE, &mut found);
        }
        File::Pte(p) => program(&p, &mut found),
        File::VkGraph(b) => blob(&b, &mut found),
        File::Cvimodel(c) => cvimodel(&c, &mut found),
        // No findings of its own yet: its TFLite sections' findings are for a later stage.
        File::LitertLm(_) => {}
        _ => {}
    }
    warnings(file, &mut found);
    found
}

/// The findings of each model of a checked package, each naming its model file.
pub fn of_package(package: &Package) -> Findings {
    let mut found = Findings::default();
    for (i, model) in package.models().iter().enumerate() {
        let Some(Ok(file)) = package.model_file(i) else { continue };
        let (listed, _) = of_file(file).into_parts();
        for mut finding in listed {
            finding.member = Some(model.path.clone());
            found.push(finding);
        }
    }
    found
}

/// The findings of each model member of a verified bundle, each naming its member.
pub fn of_bundle(bundle: &Bundle<'_>) -> Findings {
    let mut found = Findings::default();
    for (i, member) in bundle.members().iter().enumerate() {
        let Some(Ok(file)) = bundle.member_file(i) else { continue };
        let (listed, _) = of_file(file).into_parts();
        for mut finding in listed {
            finding.member = Some(member.name().to_string());
            found.push(finding);
        }
    }
    found
}

/// Custom operator codes whose operator hands its subgraph to an accelerator, and the backend.
const DELEGATE_OPERATORS: [(&str, &str); 3] = [
    ("edgetpu-custom-op", "Coral Edge TPU"),
    ("ethos-u", "Arm Ethos-U NPU (Vela)"),
    ("DISPATCH_OP", "LiteRT NPU dispatch"),
];

/// A TFLite or Circle model's operators (custom, Flex, delegate) and its data outside the
/// flatbuffer (`Buffer.offset`, large custom options).
fn graph<'a, M: ModelView<'a>>(model: M, found: &mut Findings) {
    for i in 0..model.operator_code_count() {
        let at = to_u64(model.operator_code_position(i));
        let path = format!("Model.operator_codes[{i}]");
        match model.operator_kind_at(i) {
            Some(OperatorKind::Custom { name, .. }) => {
                let message = format!("custom operator {name:?}: the runtime must register its own kernel");
                found.push(Finding::new("custom-operator", message).name(name).at(at, None).path(path.clone()));
                if name.starts_with("Flex") {
                    let message = format!(
                        "Flex operator {name:?}: a TensorFlow op run through the Select TF ops (Flex) delegate"
                    );
                    found.push(Finding::new("flex-operator", message).name(name).at(at, None).path(path.clone()));
                }
                if let Some((_, backend)) = DELEGATE_OPERATORS.iter().find(|(code, _)| *code == name) {
                    let message = format!("operator {name:?} runs its part of the model on {backend}");
                    found.push(Finding::new("delegate", message).name(*backend).at(at, None).path(path));
                }
            }
            Some(OperatorKind::Builtin { name: Some("DELEGATE"), .. }) => {
                let message = "operator DELEGATE: a part of the model handed to a delegate".to_string();
                found.push(Finding::new("delegate", message).name("DELEGATE").at(at, None).path(path));
            }
            _ => {}
        }
    }
    for i in 0..model.buffer_count().unwrap_or(0) {
        let Some(buffer) = model.buffer_ref(i) else { continue };
        if buffer.data.is_none() && buffer.offset > 1 {
            let message = format!("buffer {i}: {} bytes after the flatbuffer (Buffer.offset)", buffer.size);
            let finding = Finding::new("data-outside-flatbuffer", message).at(buffer.offset, Some(buffer.size));
            found.push(finding.path(format!("Model.buffers[{i}]")));
        }
    }
    for (s, sg) in model.subgraph_list().into_iter().flatten().enumerate() {
        for (o, op) in sg.operators().into_iter().flatten().enumerate() {
            let (offset, size) = op.large_custom_options();
            if op.custom_options().is_none() && offset > 1 {
                let message =
                    format!("operator {o} of subgraph {s}: {size} bytes of custom options after the flatbuffer");
                let finding = Finding::new("data-outside-flatbuffer", message).at(offset, Some(size));
                found.push(finding.path(format!("Model.subgraphs[{s}].operators[{o}].large_custom_options_offset")));
            }
        }
    }
}

/// The zip archive of associated files appended to a TFLite model (as tflite-support packs
/// labels and vocabularies).
fn appended_archive(file: &[u8], found: &mut Findings) {
    match AssociatedFiles::read(file) {
        Ok(None) => {}
        Ok(Some(archive)) => {
            let names: Vec<&str> = archive.names().collect();
            let range = archive.range();
            let listed = names.iter().take(8).copied().collect::<Vec<_>>().join(", ");
            let message = match names.len() {
                0 => "an empty zip archive after the model".to_string(),
                n if n > 8 => format!("a zip archive of {n} associated files after the model: {listed}, ..."),
                n => format!("a zip archive of {n} associated file(s) after the model: {listed}"),
            };
            let length = to_u64(range.end.saturating_sub(range.start));
            found.push(Finding::new("appended-data", message).at(to_u64(range.start), Some(length)));
        }
        Err(e) => found.push(Finding::new("appended-data", associated::warning_text(&e.to_string()))),
    }
}

/// A metadata entry's name and what the flatbuffer it holds is.
type NestedKind = (&'static str, &'static str);

/// The metadata entries of a TFLite model that hold flatbuffers the library verifies.
const NESTED_TFLITE: [NestedKind; 2] = [
    (tflite_metadata::METADATA_NAME, "tflite-support model metadata"),
    (conversion_metadata::METADATA_NAME, "the converter's record"),
];

/// The metadata entries of a Circle model that hold flatbuffers the library verifies.
const NESTED_CIRCLE: [NestedKind; 1] = [(circle_training::METADATA_NAME, "Circle training parameters")];

/// The flatbuffers nested in `model`'s metadata entries.
fn nested_metadata<'a, M: ModelView<'a>>(model: M, kinds: &[NestedKind], found: &mut Findings) {
    use flatmodel::graph::MetadataView;
    for (i, entry) in model.metadata_list().into_iter().flatten().enumerate() {
        let Some(name) = entry.name() else { continue };
        let Some((_, what)) = kinds.iter().find(|(n, _)| *n == name) else { continue };
        let message = format!("metadata entry {name}: a nested flatbuffer ({what})");
        let mut finding = Finding::new("nested-flatbuffer", message).name(name).path(format!("Model.metadata[{i}]"));
        if let Ok(bytes) = model.buffer_data(entry.buffer()) {
            finding = finding.range(model.file(), bytes);
        }
        found.push(finding);
    }
}

/// A `.pte` program's delegates (and the flatbuffers their payloads are), segments, external
/// constants, and bytes after its segments.
fn program(file: &PteFile<'_>, found: &mut Findings) {
    let bytes = file.bytes();
    for d in file.delegates() {
        let path = format!("Program.execution_plan[{}].delegates[{}]", d.plan, d.index);
        let backend = d.id.unwrap_or("");
        let blob = file.delegate_blob(&d).ok();
        let message =
            format!("delegate to backend {backend:?}: plan {}'s operators run by that backend's payload", d.plan);
        let mut finding = Finding::new("delegate", message).name(backend).path(path.clone());
        if let Some((_, payload)) = blob {
            finding = finding.range(bytes, payload);
        }
        found.push(finding);
        let Some((_, payload)) = blob else { continue };
        let nested = match file.vulkan_blob(&d) {
            Some(Ok(_)) => Some("a Vulkan delegate blob (VH00 header, VkGraph flatbuffer), verified".to_string()),
            _ => magic(payload).map(|m| {
                format!("the payload carries {m:?} at byte 4, as a flatbuffer's identifier or a delegate header's magic; not verified")
            }),
        };
        if let Some(what) = nested {
            let message = format!("delegate {backend:?}'s payload: {what}");
            found.push(Finding::new("nested-flatbuffer", message).name(backend).range(bytes, payload).path(path));
        }
    }
    let segments = file.program().segments().map_or(0, |s| s.len());
    let mut end = 0usize;
    for i in 0..segments {
        let Ok((_, segment)) = file.segment(i) else { continue };
        let message = format!("segment {i}: {} bytes after the program flatbuffer", segment.len());
        let finding = Finding::new("data-outside-flatbuffer", message).range(bytes, segment);
        end = end.max(finding.offset.map_or(0, |o| usize::try_from(o).unwrap_or(0)).saturating_add(segment.len()));
        found.push(finding.path(format!("Program.segments[{i}]")));
    }
    for (p, plan) in file.program().execution_plan().into_iter().flatten().enumerate() {
        for (v, value) in plan.values().into_iter().flatten().enumerate() {
            let KernelTypes::Tensor(t) = value.val() else { continue };
            let Some(info) = t.extra_tensor_info().filter(|e| e.location() == TensorDataLocation::EXTERNAL) else {
                continue;
            };
            let key = info.fully_qualified_name().unwrap_or("");
            let message = format!("value {v} of plan {p}: constant data kept outside the file, under {key:?}");
            let path = format!("Program.execution_plan[{p}].values[{v}]");
            found.push(Finding::new("external-data", message).name(key).path(path));
        }
    }
    if let Some(h) = file.header() {
        let program_end = usize::try_from(h.program_size).unwrap_or(usize::MAX);
        let declared = h.segment_data_size.and_then(|size| h.segment_base_offset.checked_add(size));
        let segments_end = declared.map_or(end, |d| usize::try_from(d).unwrap_or(usize::MAX));
        let model_end = program_end.max(segments_end);
        if bytes.len() > model_end {
            let extra = bytes.get(model_end..).unwrap_or_default();
            let message = format!("{} bytes after the program and its segments (eh00 header's extent)", extra.len());
            found.push(Finding::new("appended-data", message).range(bytes, extra));
        }
    }
}

/// The 4 ASCII letters or digits at bytes 4..8 of `payload`: a flatbuffer's file identifier,
/// or the magic of the headers ExecuTorch's delegates put before one (`XH00`).
fn magic(payload: &[u8]) -> Option<String> {
    let id = payload.get(4..8)?;
    id.iter().all(u8::is_ascii_alphanumeric).then(|| String::from_utf8_lossy(id).into_owned())
}

/// A Vulkan blob's constant bytes after its flatbuffer.
fn blob(blob: &Blob<'_>, found: &mut Findings) {
    if let Some(h) = blob.header() {
        if h.bytes_size > 0 {
            let message = format!("{} bytes of raw constants after the VkGraph flatbuffer", h.bytes_size);
            let finding =
                Finding::new("data-outside-flatbuffer", message).at(u64::from(h.bytes_offset), Some(h.bytes_size));
            found.push(finding.path("VH00.bytes_offset".into()));
        }
    }
}

/// A cvimodel's sections (weights, TPU command buffers), which lie after its flatbuffer.
fn cvimodel(file: &CviModel<'_>, found: &mut Findings) {
    for section in file.sections().flatten() {
        let name = section.section.name();
        let message =
            format!("section {} ({name}): {} bytes after the model flatbuffer", section.index, section.payload.len());
        let finding = Finding::new("data-outside-flatbuffer", message).name(name);
        let finding = finding.at(to_u64(section.file_offset), Some(to_u64(section.payload.len())));
        found.push(finding.path(format!("Model.sections[{}]", section.index)));
    }
}

/// The library's warnings: each runtime's refusals, then the other warnings.
fn warnings(file: File<'_>, found: &mut Findings) {
    let mut refusals = Vec::new();
    let mut others = Vec::new();
    let outcome = file.for_each_warning(|w| match w {
        FileWarning::Model(Warning::RuntimeRefuses { runtime, error, .. }) => {
            let location = error.location().to_string();
            let finding = Finding::new("runtime-refusal", w.to_string()).name(runtime.key()).at(error.offset(), None);
            refusals.push(if location.is_empty() { finding } else { finding.path(location) });
        }
        FileWarning::Model(model) => others.push(Finding::new("warning", w.to_string()).path_of(model)),
        _ => others.push(Finding::new("warning", w.to_string())),
    });
    if let Err(e) = outcome {
        others.push(Finding::new("warning", format!("the list of warnings stops here: {e}")));
    }
    for finding in refusals.into_iter().chain(others) {
        found.push(finding);
    }
}

impl Finding {
    /// The schema path a model warning names.
    fn path_of(self, warning: Warning) -> Finding {
        match warning {
            Warning::SentinelBufferNotEmpty => self.path("Model.buffers[0]".into()),
            Warning::DuplicateMetadataName => self.path("Model.metadata".into()),
            Warning::UnproducedInput { subgraph, operator, input } => {
                self.path(format!("Model.subgraphs[{subgraph}].operators[{operator}].inputs[{input}]"))
            }
            _ => self,
        }
    }
}
