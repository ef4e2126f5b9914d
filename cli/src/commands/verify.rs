//! `flatmodel verify [--runtime R] FILE...`: one line per file (and one per warning); the exit
//! status is the worst outcome of them all, so one unreadable or invalid file never hides the
//! others. With `--runtime`, a TFLite model that runtime would refuse is invalid. With
//! `--schema`, each file is verified as a flatbuffer of that schema instead.

use crate::input::Access;
use crate::open::{self, Opened};
use crate::output::Out;
use crate::status::{Failure, Outcome};
use crate::summary::warnings::Warnings;
use flatmodel::bundle::Bundle;
use flatmodel::cvimodel::CviModel;
use flatmodel::graph::{ModelView, Runtime, Warning};
use flatmodel::nnpackage::Package;
use flatmodel::pte::PteFile;
use flatmodel::reflect::{Schema, TableId};
use flatmodel::verify::Options;
use flatmodel::vkgraph::Blob;
use flatmodel::{tflite, File, Format};
use std::ffi::OsString;
use std::io::Write;

/// What full verification found in a valid file.
#[derive(Debug)]
pub struct Verdict {
    /// A short description: format, version, counts.
    pub summary: String,
    /// The advisory findings.
    pub warnings: Warnings,
    /// Lines printed after the summary's: the external data a program needs, by reader.
    pub details: Vec<String>,
}

/// Verifies each file as the format its bytes show, TFLite models also against `runtime`'s
/// checks when one is given.
pub fn run(
    out: &mut Out,
    files: &[OsString],
    quiet: bool,
    runtime: Option<Runtime>,
    access: Access,
) -> Result<Outcome, Failure> {
    batch(out, files, |out, path| one(out, path, quiet, runtime, access))
}

/// Verifies the program `files` names (exactly one) and checks it against the `.ptd` files
/// `data` names (`--data`): `PATH: ok (SUMMARY)` then `PATH: data: N key(s) resolved (...)`,
/// or `PATH: invalid: REASON` naming the first key missing or short. Usage errors (exit 2):
/// several files, a file that is no program, a `--data` file that is no `.ptd`.
pub fn run_with_data(
    out: &mut Out,
    files: &[OsString],
    data: &[OsString],
    quiet: bool,
    access: Access,
) -> Result<Outcome, Failure> {
    let [path] = files else {
        return Err(Failure::new(format!("verify --data takes exactly one FILE\n{}", crate::help::usage_of("verify"))));
    };
    let name = path.to_string_lossy();
    let input = open::model_file(path, "verify --data", access)?;
    let inputs = super::verify_data::read(data, access)?;
    let file = match open::file(input.bytes()) {
        Ok(file) if file.format() != Format::Pte => {
            return Err(Failure::new(format!(
                "--data applies to ExecuTorch programs (.pte), and {name} is a {:?} file\n{}",
                file.format(),
                crate::help::usage_of("verify")
            )))
        }
        other => other,
    };
    open::reporting(out, &name, |out| {
        let file = file?;
        let verdict = check(file, None)?;
        let line = super::verify_data::check(file, &inputs, data)?;
        if !quiet {
            writeln!(out, "{name}: ok ({})", verdict.summary)?;
            writeln!(out, "{name}: {line}")?;
        }
        verdict.warnings.print(out, &format!("{name}: warning: "))?;
        Ok(Outcome::Ok)
    })
}

/// Verifies each file as a flatbuffer of `schema` whose root is a `root` table (`--schema`):
/// `PATH: ok (ROOT, N table(s), N vector(s), N string(s))`, or the error located by field names.
pub fn run_schema(
    out: &mut Out,
    files: &[OsString],
    quiet: bool,
    schema: &Schema,
    root: TableId,
    access: Access,
) -> Result<Outcome, Failure> {
    batch(out, files, |out, path| {
        let name = path.to_string_lossy();
        let input = open::flatbuffer(path, access)?;
        let (_, stats) = open::verify_as(schema, root, input.bytes())?;
        if !quiet {
            let checked = open::identifier_of(schema, root)
                .map(|id| format!(", identifier {}", String::from_utf8_lossy(&id)))
                .unwrap_or_default();
            writeln!(
                out,
                "{name}: ok ({}{checked}, {} table(s), {} vector(s), {} string(s))",
                schema.table_name(root),
                stats.tables,
                stats.vectors,
                stats.strings
            )?;
        }
        Ok(Outcome::Ok)
    })
}

/// Runs `one` on each file, an invalid one reported as `PATH: invalid: REASON` and an
/// unreadable one as `PATH: error: REASON`: the worst outcome of them all.
fn batch(
    out: &mut Out,
    files: &[OsString],
    mut one: impl FnMut(&mut Out, &OsString) -> Result<Outcome, Failure>,
) -> Result<Outcome, Failure> {
    let mut worst = Outcome::Ok;
    for path in files {
        let name = path.to_string_lossy();
        let outcome = match open::reporting(out, &name, |out| one(out, path)) {
            Err(Failure::Message(message)) => {
                let reason = message.strip_prefix(&format!("{name}: ")).unwrap_or(&message);
                writeln!(out, "{name}: error: {reason}")?;
                Outcome::Unreadable
            }
            other => other?,
        };
        worst = worst.max(outcome);
    }
    Ok(worst)
}

fn one(
    out: &mut Out,
    path: &OsString,
    quiet: bool,
    runtime: Option<Runtime>,
    access: Access,
) -> Result<Outcome, Failure> {
    let name = path.to_string_lossy();
    let verdict = match open::open(path, access)? {
        Opened::Package(_) if runtime.is_some() => return Err(not_tflite(runtime, "an nnpackage")),
        Opened::Package(package) => return verify_package(out, &name, &package, quiet),
        Opened::Bundle(_) if runtime.is_some() => return Err(not_tflite(runtime, "a model bundle")),
        Opened::Bundle(input) => return verify_bundle(out, &name, &open::bundle(input.bytes())?, quiet),
        Opened::File(input) => check(open::file(input.bytes())?, runtime)?,
    };
    if !quiet {
        writeln!(out, "{name}: ok ({})", verdict.summary)?;
        for line in &verdict.details {
            writeln!(out, "{name}: {line}")?;
        }
    }
    verdict.warnings.print(out, &format!("{name}: warning: "))?;
    Ok(Outcome::Ok)
}

/// Checks the rules of `file` (structurally verified), and with `runtime` that runtime's own
/// checks of a TFLite model: what it is, or why it is invalid ([`Failure::Invalid`]); a usage
/// error when `--runtime` is given for another format.
fn check(file: File<'_>, runtime: Option<Runtime>) -> Result<Verdict, Failure> {
    if file.format() != Format::Tflite && runtime.is_some() {
        return Err(not_tflite(runtime, &format!("a {:?} file", file.format())));
    }
    if let Err(e) = file.check_rules(&Options::DEFAULT) {
        return Err(Failure::Invalid(e.to_string()));
    }
    let summary = match (file, runtime) {
        (File::Tflite(model), Some(runtime)) => check_for(model, runtime)?,
        _ => summary_of(file)?,
    };
    let mut warnings = Warnings::collect(|f| file.for_each_warning(f));
    if let Some(w) = associated_warning(file) {
        warnings.push(w);
    }
    let details = match file {
        File::Pte(program) => super::verify_data::needs(&program)?,
        _ => Vec::new(),
    };
    Ok(Verdict { summary, warnings, details })
}

/// What a valid file is, in a few words: format, version, counts.
fn summary_of(file: File<'_>) -> Result<String, Failure> {
    Ok(match file {
        File::Tflite(model) => describe("TFLite", model),
        File::Circle(model) => describe("Circle", model),
        File::Pte(program) => program_summary(&program),
        File::VkGraph(blob) => blob_summary(&blob),
        File::Xnnpack(blob) => xnnpack_summary(&blob),
        File::Ptd(file) => ptd_summary(&file),
        File::LitertLm(file) => litertlm_summary(&file),
        File::Cvimodel(cvimodel) => cvimodel_summary(&cvimodel),
        other => return Err(Failure::Invalid(format!("verify does not read {:?} files", other.format()))),
    })
}

/// The warning of a corrupt archive of associated files appended to a TFLite model.
fn associated_warning(file: File<'_>) -> Option<String> {
    (file.format() == Format::Tflite).then(|| crate::summary::associated::warning(file.bytes())).flatten()
}

/// `PATH: ok (nnpackage 1.3, N model(s))` and each model's warnings, read from the views the
/// package check verified.
fn verify_package(out: &mut Out, name: &str, package: &Package, quiet: bool) -> Result<Outcome, Failure> {
    if !quiet {
        let v = package.version();
        writeln!(out, "{name}: ok (nnpackage {}.{}, {} model(s))", v.major, v.minor, package.models().len())?;
    }
    for (i, model) in package.models().iter().enumerate() {
        let warnings = match package.model_file(i) {
            Some(Ok(file)) => Warnings::collect(|f| file.for_each_warning(f)),
            _ => Warnings::default(),
        };
        warnings.print(out, &format!("{name}: warning: model {i} ({}): ", model.path))?;
    }
    Ok(Outcome::Ok)
}

/// `PATH: ok (model bundle, N member(s): M model(s), K other)`, then each member's verdict
/// (`PATH: MEMBER: ok (...)` as `verify` words a model file's, or `other, N bytes, not
/// verified`) and each model member's warnings.
fn verify_bundle(out: &mut Out, name: &str, bundle: &Bundle<'_>, quiet: bool) -> Result<Outcome, Failure> {
    let members = bundle.members();
    let models = members.iter().filter(|m| m.format().is_some()).count();
    if !quiet {
        let (n, other) = (members.len(), members.len() - models);
        writeln!(out, "{name}: ok (model bundle, {n} member(s): {models} model(s), {other} other)")?;
    }
    for (i, member) in members.iter().enumerate() {
        let m = member.name();
        let file = match bundle.member_file(i) {
            Some(Ok(file)) => file,
            Some(Err(e)) => return Err(Failure::Invalid(format!("{m}: {e}"))),
            None => {
                if !quiet {
                    writeln!(out, "{name}: {m}: other, {} bytes, not verified", member.size())?;
                }
                continue;
            }
        };
        if !quiet {
            writeln!(out, "{name}: {m}: ok ({})", summary_of(file)?)?;
        }
        let mut warnings = Warnings::collect(|f| file.for_each_warning(f));
        if let Some(w) = associated_warning(file) {
            warnings.push(w);
        }
        warnings.print(out, &format!("{name}: warning: {m}: "))?;
    }
    Ok(Outcome::Ok)
}

/// A valid program's summary: its version, plans and delegates.
fn program_summary(file: &PteFile<'_>) -> String {
    let delegates: Vec<_> = file.delegates().collect();
    let vulkan = delegates.iter().filter(|d| d.is_vulkan()).count();
    let xnnpack = delegates.iter().filter(|d| d.is_xnnpack()).count();
    let plans = file.program().execution_plan().map_or(0, |p| p.len());
    format!(
        "ExecuTorch program v{}, {plans} execution plan(s), {} delegate(s) ({vulkan} Vulkan, {xnnpack} XNNPACK)",
        file.program().version(),
        delegates.len()
    )
}

/// A valid `.ptd` data file's summary: its segments and named data.
fn ptd_summary(file: &flatmodel::ptd::PtdFile<'_>) -> String {
    let t = file.flat_tensor();
    let named = t.named_data();
    let layouts = named.into_iter().flatten().filter(|d| d.tensor_layout().is_some()).count();
    format!(
        "ExecuTorch data file (.ptd) v{}, {} segment(s), {} named datum(s) ({layouts} with a tensor layout)",
        t.version(),
        t.segments().map_or(0, |s| s.len()),
        named.map_or(0, |n| n.len())
    )
}

/// A valid `.litertlm` file's summary: its version and its sections counted by type, in the
/// order each type first appears.
fn litertlm_summary(file: &flatmodel::litertlm::LitertLmFile<'_>) -> String {
    let h = file.header();
    let mut types: Vec<(String, usize)> = Vec::new();
    for section in (0..file.section_count()).filter_map(|i| file.section(i).ok()) {
        let t = section.data_type;
        let name = t.name().map_or_else(|| format!("type {}", t.0), str::to_string);
        match types.iter_mut().find(|(n, _)| *n == name) {
            Some((_, count)) => *count += 1,
            None => types.push((name, 1)),
        }
    }
    let by_type: Vec<String> = types.iter().map(|(name, count)| format!("{count} {name}")).collect();
    let sections = file.section_count();
    let listed = if by_type.is_empty() { String::new() } else { format!(" ({})", by_type.join(", ")) };
    format!("LiteRT-LM v{}.{}.{}, {sections} section(s){listed}", h.major, h.minor, h.patch)
}

/// A valid XNNPACK blob's summary: its values, nodes and constants.
fn xnnpack_summary(blob: &flatmodel::xnnpack::Blob<'_>) -> String {
    let what = if blob.header().is_some() { "XNNPACK delegate blob (XH00)" } else { "bare XNNGraph (XN01)" };
    let g = blob.graph();
    format!(
        "{what}, {} value(s), {} node(s), {} constant(s)",
        g.xvalues().map_or(0, |v| v.len()),
        g.xnodes().map_or(0, |c| c.len()),
        g.constant_data().map_or(0, |c| c.len())
    )
}

/// A valid Vulkan blob's summary: its values, operators and constants.
fn blob_summary(blob: &Blob<'_>) -> String {
    let what = if blob.header().is_some() { "Vulkan delegate blob (VH00)" } else { "bare VkGraph (VK00)" };
    let g = blob.graph();
    format!(
        "{what}, {} value(s), {} operator(s), {} constant(s)",
        g.values().map_or(0, |v| v.len()),
        g.chain().map_or(0, |c| c.len()),
        g.constants().map_or(0, |c| c.len())
    )
}

/// A valid cvimodel's summary (header, body, rules and every LZ4 section checked without
/// inflating it): version, chip, programs, sections, the MD5 check.
fn cvimodel_summary(file: &CviModel<'_>) -> String {
    let h = file.header();
    format!(
        "cvimodel v{}.{}, chip {}, {} program(s), {} section(s), md5 {}",
        h.major,
        h.minor,
        h.chip_name().unwrap_or("-"),
        file.model().programs().map_or(0, |p| p.len()),
        file.model().sections().map_or(0, |s| s.len()),
        if file.md5_check().matches() { "ok" } else { "mismatch" },
    )
}

/// The error of `--runtime` on a file of another format, `what`.
fn not_tflite(runtime: Option<Runtime>, what: &str) -> Failure {
    let key = runtime.map_or("", Runtime::key);
    Failure::Message(format!("--runtime {key} applies to TFLite models, and this is {what}"))
}

/// Checks a valid TFLite model against `runtime`'s own checks: its summary, or why that
/// runtime refuses it ([`Failure::Invalid`]). The warnings leave out that runtime's refusals
/// (there are none).
fn check_for(model: tflite::Model<'_>, runtime: Runtime) -> Result<String, Failure> {
    if let Err(e) = model.check_runtime(runtime) {
        return Err(Failure::Invalid(refusal(model, runtime, e)));
    }
    Ok(format!("{}, {runtime} loads it", describe("TFLite", model)))
}

/// Why `runtime` refuses `model`, as `verify --runtime` says it: `RUNTIME refuses the model:
/// ERROR`, then `: NAME` for the operator the refusal `error` is about, if it is about one.
pub fn refusal(model: tflite::Model<'_>, runtime: Runtime, error: flatmodel::Error) -> String {
    format!("{runtime} refuses the model: {error}{}", operator_of(model, runtime, error))
}

/// `: NAME` for the operator `runtime`'s refusal `error` of `model` is about, if it is about one.
fn operator_of(model: tflite::Model<'_>, runtime: Runtime, error: flatmodel::Error) -> String {
    let mut name = None;
    let _ = model.for_each_warning(|w| match w {
        Warning::RuntimeRefuses { runtime: r, error: e, operator } if r == runtime && e == error && name.is_none() => {
            name = operator;
        }
        _ => {}
    });
    name.map(|n| format!(": {n}")).unwrap_or_default()
}

/// `<format> v<version>, N subgraph(s)`.
fn describe<'a, M: ModelView<'a>>(format: &str, model: M) -> String {
    let subgraphs = model.subgraph_list().map_or(0, |s| s.len());
    format!("{format} v{}, {subgraphs} subgraph(s)", model.schema_version())
}
