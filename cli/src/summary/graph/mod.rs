//! The summary of a TFLite or Circle model: one type for both (through `flatmodel::graph`:
//! subgraphs, operators, tensors, signatures, metadata), with what only one format has
//! ([`TfliteOwn`], [`CircleOwn`]).
//!
//! Building it is charged against a [`Budget`] linear in the file size, row by row and list
//! element by list element, so a file whose tables are shared many times over is refused
//! rather than expanded.

mod text;

use crate::budget::{Budget, OverBudget};
use crate::convert::to_u64;
use crate::summary::arena::{Arena, Uses};
use crate::summary::associated::{self, Appended};
use crate::summary::conversion::{self, Conversion};
use crate::summary::facts::{dtype, operator_name, Named, TensorFacts};
use crate::summary::io::Entry;
use crate::summary::needs::Need;
use crate::summary::support_metadata::{self, SupportMetadata};
use crate::summary::training::{self, Training};
use crate::summary::warnings::Warnings;
use crate::summary::weights::Weights;
use flatmodel::graph::{MetadataView, ModelView, OperatorView, SignatureView, SubGraphView, TensorMapView};
use flatmodel::verify::Options;
use flatmodel::wire::{TableVector, Vector};
use flatmodel::{circle, tflite};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use std::collections::BTreeMap;

/// What `inspect` says of a TFLite or Circle model.
#[derive(Debug, Serialize)]
pub struct GraphSummary {
    /// `TFLite` or `Circle`.
    format: &'static str,
    /// `Model.version`.
    schema_version: u32,
    /// The file's size.
    file_bytes: usize,
    /// `Model.description`.
    description: Option<String>,
    /// What each signature (else the primary subgraph) takes and gives.
    io: Vec<Entry>,
    /// The constant data.
    weights: Weights,
    /// The schema features the model uses that not every runtime reads.
    needs: Vec<Need>,
    /// Each subgraph.
    subgraphs: Vec<Subgraph>,
    /// Operators by name.
    operator_histogram: BTreeMap<String, u64>,
    /// Operators by name and version.
    operators: Vec<OperatorCount>,
    /// `Model.buffers` entries.
    buffers: usize,
    /// Buffer bytes inside the flatbuffer.
    buffer_bytes_inside: u64,
    /// Buffer bytes after it (`Buffer.offset`).
    buffer_bytes_outside: u64,
    /// Each signature's key, subgraph and tensor names.
    signatures: Vec<Signature>,
    /// `Model.metadata` entries.
    metadata: Vec<Metadata>,
    /// The model rules' verdict over the verified structure: `ok` or the error.
    model_rules: String,
    /// The advisory findings.
    warnings: Warnings,
    /// What only the model's format has.
    #[serde(flatten)]
    own: FormatOwn,
}

/// One subgraph.
#[derive(Debug, Serialize)]
struct Subgraph {
    /// Its index.
    index: usize,
    /// `SubGraph.name`.
    name: Option<String>,
    /// How many tensors.
    tensors: usize,
    /// How many operators.
    operators: usize,
    /// `SubGraph.inputs`.
    inputs: Vec<i32>,
    /// `SubGraph.outputs`.
    outputs: Vec<i32>,
    /// Its control-flow operators and the subgraphs they call.
    calls: Vec<Call>,
    /// The activation arena estimate.
    arena: Arena,
    /// Revision 0 Circle's `data_format` (later revisions deprecate it).
    #[serde(skip_serializing_if = "Option::is_none")]
    data_format: Option<Named>,
    /// Every tensor, with `--tensors`.
    #[serde(rename = "tensor_list", skip_serializing_if = "Option::is_none")]
    tensor_list: Option<Vec<TensorRow>>,
}

/// A control-flow operator and the subgraphs it calls.
#[derive(Debug, Serialize)]
struct Call {
    /// The operator's index.
    operator: usize,
    /// Its name.
    name: String,
    /// The subgraphs it calls.
    subgraphs: Vec<i64>,
}

/// How many operators of one name and version.
#[derive(Debug, Serialize)]
struct OperatorCount {
    /// `CONV_2D`, or a custom operator's name.
    name: String,
    /// `OperatorCode.version`.
    version: i32,
    /// How many.
    count: u64,
}

/// A signature's key, subgraph and the tensors it names.
#[derive(Debug, Serialize)]
struct Signature {
    /// `signature_key`.
    key: Option<String>,
    /// `subgraph_index`.
    subgraph: u32,
    /// Its inputs.
    inputs: Vec<TensorName>,
    /// Its outputs.
    outputs: Vec<TensorName>,
}

/// A signature's name for a tensor.
#[derive(Debug, Serialize)]
struct TensorName {
    /// The name.
    name: Option<String>,
    /// The tensor index.
    tensor: u32,
}

/// A `Model.metadata` entry.
#[derive(Debug, Serialize)]
struct Metadata {
    /// Its name.
    name: Option<String>,
    /// The buffer holding it.
    buffer: u32,
}

/// One tensor's row with `--tensors`: the listed facts, serialized as `inspect.schema.json`
/// names them.
#[derive(Debug)]
struct TensorRow(TensorFacts);

impl Serialize for TensorRow {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let t = &self.0;
        let mut m = serializer.serialize_map(None)?;
        m.serialize_entry("index", &t.index)?;
        m.serialize_entry("name", &t.name)?;
        m.serialize_entry("type", &t.element.to_string())?;
        m.serialize_entry("dtype", &dtype(t.element))?;
        m.serialize_entry("shape", &t.shape)?;
        m.serialize_entry("buffer", &t.buffer)?;
        m.serialize_entry("data_bytes", &t.data_bytes)?;
        m.serialize_entry("is_variable", &t.is_variable)?;
        if let Some(signature) = t.shape_signature.as_ref().filter(|s| **s != t.shape) {
            m.serialize_entry("shape_signature", signature)?;
        }
        if let Some(q) = &t.quant {
            m.serialize_entry("quantization", q)?;
        }
        m.end()
    }
}

/// What only one of the two formats has.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum FormatOwn {
    /// TFLite's readings of its metadata.
    Tflite(TfliteOwn),
    /// Circle's own fields.
    Circle(CircleOwn),
}

/// TFLite's readings of its metadata: the minimum runtime version, the support metadata,
/// associated files and the conversion record.
#[derive(Debug, Serialize)]
pub struct TfliteOwn {
    /// The `min_runtime_version` metadata entry.
    min_runtime_version: Option<String>,
    /// tflite-support's model metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    support_metadata: Option<Nested<SupportMetadata>>,
    /// The zip archive of associated files appended to the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    associated_files: Option<Appended>,
    /// The converter's record.
    #[serde(skip_serializing_if = "Option::is_none")]
    conversion_metadata: Option<Nested<Conversion>>,
}

/// Circle's own fields: the metadata buffer indices, the schema revision the content shows,
/// the model files `RUN_MODEL` operators run and the training parameters.
#[derive(Debug, Serialize)]
pub struct CircleOwn {
    /// `Model.metadata_buffer`.
    metadata_buffer: Vec<i32>,
    /// `0`, `0.4+` or `undetermined` ([`circle::Revision`]).
    circle_revision: &'static str,
    /// Each `RUN_MODEL` operator.
    run_model: Vec<RunModel>,
    /// The training parameters.
    #[serde(skip_serializing_if = "Option::is_none")]
    training: Option<Nested<Training>>,
}

/// A `RUN_MODEL` operator and the model it runs.
#[derive(Debug, Serialize)]
struct RunModel {
    /// The subgraph holding it.
    subgraph: usize,
    /// Its index there.
    operator: usize,
    /// The model file.
    location: Option<String>,
    /// The entry signature.
    signature: Option<String>,
}

/// A flatbuffer nested in a file (model metadata, a training record): its summary, or why it
/// is invalid (`{"error": ...}`).
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Nested<T> {
    /// It verified: its summary.
    Read(T),
    /// It did not.
    Invalid {
        /// The verifier's error.
        error: String,
    },
}

impl<T> Nested<T> {
    /// Prints, after a blank line, a file held by a container (a package's model, a bundle's
    /// member): `print(summary, out, title)` when it was read, else `TITLE: ERROR`.
    pub fn print_under(
        &self,
        out: &mut dyn std::io::Write,
        title: &str,
        print: impl FnOnce(&T, &mut dyn std::io::Write, &str) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        writeln!(out)?;
        match self {
            Nested::Invalid { error } => writeln!(out, "{title}: {error}"),
            Nested::Read(summary) => print(summary, out, title),
        }
    }
}

/// Whether a summary checks the model rules.
#[derive(Clone, Copy, Debug)]
pub enum Rules {
    /// Check them over the verified structure.
    Check,
    /// They passed already (a package's model, which the package check verified in full).
    Passed,
}

impl Rules {
    /// The rules' error, `check`ing them unless they passed already.
    fn check(self, check: impl FnOnce() -> Result<(), flatmodel::Error>) -> Option<flatmodel::Error> {
        match self {
            Rules::Check => check().err(),
            Rules::Passed => None,
        }
    }
}

impl GraphSummary {
    /// The model's weights.
    pub fn weights(&self) -> &Weights {
        &self.weights
    }

    /// The summary of a structurally verified TFLite model, every tensor listed when `tensors`.
    /// The listing is charged first, so a refused file costs no more than its budget; the model
    /// rules (over the structure already verified) and warnings then run under the library's
    /// own budget.
    pub fn of_tflite(m: tflite::Model<'_>, tensors: bool, rules: Rules) -> Result<GraphSummary, OverBudget> {
        let mut budget = Budget::for_file(m.file().len());
        let support_metadata = nested(m.support_metadata(), |meta| support_metadata::of(meta, &mut budget))?;
        let associated_files = associated::of(m.file(), &mut budget)?;
        let conversion_metadata = nested(m.conversion_metadata(), |c| Ok(conversion::of(c)))?;
        let appended_warning = associated_files.as_ref().and_then(Appended::warning);
        let own = FormatOwn::Tflite(TfliteOwn {
            min_runtime_version: m.min_runtime_version().map(str::to_string),
            support_metadata,
            associated_files,
            conversion_metadata,
        });
        Self::of(
            "TFLite",
            m,
            tensors,
            &mut budget,
            |_| None,
            own,
            || {
                let mut warnings = Warnings::collect(|f| m.for_each_warning(f));
                if let Some(text) = appended_warning {
                    warnings.push(text);
                }
                (rules.check(|| m.check_rules(&Options::DEFAULT)), warnings)
            },
        )
    }

    /// [`GraphSummary::of_tflite`] for a Circle model.
    pub fn of_circle(m: circle::Model<'_>, tensors: bool, rules: Rules) -> Result<GraphSummary, OverBudget> {
        let mut budget = Budget::for_file(m.file().len());
        let revision = m.revision();
        let metadata_buffer = listed(m.metadata_buffer(), &mut budget)?;
        let mut run_model = Vec::new();
        let mut listed_all = Ok(());
        m.for_each_run_model(|r| {
            let copy = |budget: &mut Budget| -> Result<RunModel, OverBudget> {
                budget.charge(1)?;
                Ok(RunModel {
                    subgraph: r.subgraph,
                    operator: r.operator,
                    location: budget.text_of(r.location)?,
                    signature: budget.text_of(r.signature)?,
                })
            };
            if listed_all.is_ok() {
                listed_all = copy(&mut budget).map(|run| run_model.push(run));
            }
        });
        listed_all?;
        let own = FormatOwn::Circle(CircleOwn {
            metadata_buffer,
            circle_revision: match revision {
                circle::Revision::Zero => "0",
                circle::Revision::Later => "0.4+",
                circle::Revision::Undetermined => "undetermined",
            },
            run_model,
            training: nested(m.training(), |t| Ok(training::of(t)))?,
        });
        // Revision 0's `data_format`, which later revisions deprecate (so not shown for them).
        let data_format = |i: usize| {
            let f = m.subgraphs().and_then(|s| s.get(i))?.data_format();
            (revision != circle::Revision::Later).then(|| Named::new(f.name(), f.0))
        };
        Self::of("Circle", m, tensors, &mut budget, data_format, own, || {
            (rules.check(|| m.check_rules(&Options::DEFAULT)), Warnings::collect(|f| m.for_each_warning(f)))
        })
    }

    /// What both formats share: what the model takes and gives, subgraphs (with their
    /// control-flow calls and activation arena), operators by name and version, weights,
    /// buffers; `data_format` gives a subgraph's, where the format has one. `verdict` (the model
    /// rules' error and the warnings) runs last, once the listing has passed its budget.
    #[allow(clippy::too_many_arguments)]
    fn of<'a, M: ModelView<'a>>(
        format: &'static str,
        model: M,
        with_tensors: bool,
        budget: &mut Budget,
        data_format: impl Fn(usize) -> Option<Named>,
        own: FormatOwn,
        verdict: impl FnOnce() -> (Option<flatmodel::Error>, Warnings),
    ) -> Result<GraphSummary, OverBudget> {
        let mut histogram: BTreeMap<String, u64> = BTreeMap::new();
        let mut versions: BTreeMap<(String, i32), u64> = BTreeMap::new();
        let mut subgraphs = Vec::new();
        let mut all_facts = Vec::new();
        // The arena planner's comparisons, for all subgraphs together: 16 per byte of the file.
        let mut plan_steps = to_u64(model.file().len()).saturating_mul(16).saturating_add(4096);
        for (i, sg) in model.subgraph_list().into_iter().flatten().enumerate() {
            budget.charge(1)?;
            let mut facts = Vec::new();
            for (t, tensor) in sg.tensors().into_iter().flatten().enumerate() {
                facts.push(TensorFacts::of(model, t, &tensor, budget)?);
            }
            let mut uses = Vec::new();
            let mut calls = Vec::new();
            for (o, op) in sg.operators().into_iter().flatten().enumerate() {
                budget.charge(1)?;
                let kind = model.operator_kind(&op);
                let name = operator_name(model, &op, budget)?;
                // The histogram's and the versions' copies.
                budget.charge(name.len().saturating_mul(2))?;
                *histogram.entry(name.clone()).or_default() += 1;
                *versions.entry((name.clone(), kind.map_or(0, |k| k.version()))).or_default() += 1;
                let mut called = Vec::new();
                op.for_each_called_subgraph(&mut |s| called.push(s));
                budget.charge(called.len())?;
                if !called.is_empty() {
                    calls.push(Call { operator: o, name, subgraphs: called });
                }
                let tensors: Vec<i32> = [op.inputs(), op.outputs(), op.intermediates()]
                    .into_iter()
                    .flat_map(Option::unwrap_or_default)
                    .collect();
                budget.charge(tensors.len())?;
                uses.push(tensors);
            }
            let (inputs, outputs) = (listed(sg.inputs(), budget)?, listed(sg.outputs(), budget)?);
            let uses = Uses { tensors: &facts, operators: &uses, inputs: &inputs, outputs: &outputs };
            let arena = Arena::of(&uses, &mut plan_steps);
            subgraphs.push(Subgraph {
                index: i,
                name: budget.text_of(sg.name())?,
                tensors: facts.len(),
                operators: uses.operators.len(),
                inputs,
                outputs,
                calls,
                arena,
                data_format: data_format(i),
                tensor_list: None,
            });
            all_facts.push(facts);
        }
        let signatures = signatures(model, budget)?;
        let mut metadata = Vec::new();
        for m in model.metadata_list().unwrap_or_default() {
            budget.charge(1)?;
            metadata.push(Metadata { name: budget.text_of(m.name())?, buffer: m.buffer() });
        }
        let io = crate::summary::io::entries(model, &all_facts, budget)?;
        let weights = Weights::of(model, &all_facts, budget)?;
        let needs = crate::summary::needs::of(model, &all_facts, budget)?;
        if with_tensors {
            for (sg, facts) in subgraphs.iter_mut().zip(all_facts) {
                sg.tensor_list = Some(facts.into_iter().map(TensorRow).collect());
            }
        }
        let operators =
            versions.into_iter().map(|((name, version), count)| OperatorCount { name, version, count }).collect();
        let (inside, outside) = model.buffer_bytes();
        let (rules, warnings) = verdict();
        Ok(GraphSummary {
            format,
            schema_version: model.schema_version(),
            file_bytes: model.file().len(),
            description: budget.text_of(model.description())?,
            io,
            weights,
            needs,
            subgraphs,
            operator_histogram: histogram,
            operators,
            buffers: model.buffer_count().unwrap_or(0),
            buffer_bytes_inside: inside,
            buffer_bytes_outside: outside,
            signatures,
            metadata,
            model_rules: rules.map_or_else(|| "ok".into(), |e| e.to_string()),
            warnings,
            own,
        })
    }
}

/// A flatbuffer nested in the model's metadata: its summary by `read`, or the error verifying it
/// gave; `None` when the model has none.
fn nested<T, U>(
    found: Option<Result<T, flatmodel::Error>>,
    read: impl FnOnce(&T) -> Result<U, OverBudget>,
) -> Result<Option<Nested<U>>, OverBudget> {
    Ok(match found {
        None => None,
        Some(Ok(root)) => Some(Nested::Read(read(&root)?)),
        Some(Err(e)) => Some(Nested::Invalid { error: e.to_string() }),
    })
}

/// The elements of `v`, charged one unit each.
fn listed<T: flatmodel::wire::Scalar>(v: Option<Vector<'_, T>>, budget: &mut Budget) -> Result<Vec<T>, OverBudget> {
    let Some(v) = v else { return Ok(Vec::new()) };
    budget.charge(v.len())?;
    Ok(v.iter().collect())
}

/// Each signature: its key, subgraph, and the names of its inputs and outputs.
fn signatures<'a, M: ModelView<'a>>(model: M, budget: &mut Budget) -> Result<Vec<Signature>, OverBudget> {
    let mut signatures = Vec::new();
    for sig in model.signature_list().unwrap_or_default() {
        budget.charge(1)?;
        let mut maps = |m: Option<TableVector<'a, <M::Signature as SignatureView<'a>>::TensorMap>>| {
            let m: Vec<_> = m.into_iter().flatten().collect();
            budget.charge(m.len())?;
            let mut names = Vec::new();
            for t in &m {
                names.push(TensorName { name: budget.text_of(t.name())?, tensor: t.tensor_index() });
            }
            Ok::<_, OverBudget>(names)
        };
        let (inputs, outputs) = (maps(sig.inputs())?, maps(sig.outputs())?);
        signatures.push(Signature { key: budget.text_of(sig.key())?, subgraph: sig.subgraph_index(), inputs, outputs });
    }
    Ok(signatures)
}
