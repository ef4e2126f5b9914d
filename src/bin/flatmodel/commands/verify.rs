//! `flatmodel verify [--runtime R] FILE...`: one line per file (and one per warning); the exit
//! status is the worst outcome of them all, so one unreadable or invalid file never hides the
//! others. With `--runtime`, a TFLite model that runtime would refuse is invalid.

use crate::open::{self, Graph, Kind, Target};
use crate::output::Out;
use crate::summary::warnings::Warnings;
use crate::summary::package;
use crate::{Failure, Outcome};
use flatmodel::graph::{ModelView, Runtime, Warning};
use flatmodel::{circle, tflite, Format};
use std::ffi::OsString;
use std::io::Write;

/// What full verification found in a valid file.
pub struct Verdict {
    /// A short description: format, version, counts.
    pub summary: String,
    /// The advisory findings.
    pub warnings: Warnings,
}

/// Verifies each file as the format its bytes show, TFLite models also against `runtime`'s
/// checks when one is given.
pub fn run(out: &mut Out, files: &[OsString], quiet: bool, runtime: Option<Runtime>) -> Result<Outcome, Failure> {
    let mut worst = Outcome::Ok;
    for path in files {
        let outcome = match one(out, path, quiet, runtime) {
            Err(Failure::Message(message)) => {
                let name = path.to_string_lossy();
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

fn one(out: &mut Out, path: &OsString, quiet: bool, runtime: Option<Runtime>) -> Result<Outcome, Failure> {
    let name = path.to_string_lossy();
    let verdict = match (open::target(path)?, runtime) {
        (Target::Package, None) => return package::verify(out, path, quiet),
        (Target::NotModel(reason), _) => Err(reason),
        (Target::File(input), None) => check(input.bytes()),
        (Target::File(input), Some(runtime)) => match flatmodel::detect(input.bytes()) {
            Some(Format::Tflite) => check_for(input.bytes(), runtime),
            None => check(input.bytes()),
            Some(other) => return Err(not_tflite(runtime, &format!("a {other:?} file"))),
        },
        (Target::Package, Some(runtime)) => return Err(not_tflite(runtime, "an nnpackage")),
    };
    match verdict {
        Ok(verdict) => {
            if !quiet {
                writeln!(out, "{name}: ok ({})", verdict.summary)?;
            }
            verdict.warnings.print(out, &format!("{name}: warning: "))?;
            Ok(Outcome::Ok)
        }
        Err(reason) => open::report_invalid(out, &name, &reason),
    }
}

/// Verifies `bytes` fully: what they are, or why they are invalid.
pub fn check(bytes: &[u8]) -> Result<Verdict, String> {
    match flatmodel::detect(bytes) {
        Some(Format::Tflite) => {
            let model = tflite::Model::parse(bytes).map_err(|e| e.to_string())?;
            Ok(tflite_verdict(model))
        }
        Some(Format::Circle) => {
            let model = circle::Model::parse(bytes).map_err(|e| e.to_string())?;
            Ok(describe("Circle", model, |f| model.for_each_warning(f)))
        }
        _ => match open::container(bytes) {
            Some(container) => (container.check)(bytes),
            None => Err(open::unknown_format(bytes)),
        },
    }
}

/// The error of `--runtime` on a file of another format, `what`.
fn not_tflite(runtime: Runtime, what: &str) -> Failure {
    Failure::Message(format!("--runtime {} applies to TFLite models, and this is {what}", runtime.key()))
}

/// Verifies TFLite `bytes` fully and against `runtime`'s own checks: the model, or why it is
/// invalid or refused. The warnings leave out that runtime's refusals (there are none).
fn check_for(bytes: &[u8], runtime: Runtime) -> Result<Verdict, String> {
    let model = tflite::Model::parse(bytes).map_err(|e| e.to_string())?;
    if let Err(e) = model.check_runtime(runtime) {
        return Err(format!("{runtime} refuses the model: {e}{}", operator_of(model, runtime, e)));
    }
    let mut verdict = tflite_verdict(model);
    verdict.summary.push_str(&format!(", {runtime} loads it"));
    Ok(verdict)
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

/// A valid TFLite model's verdict: its warnings, and a corrupt archive of associated files.
fn tflite_verdict(model: tflite::Model<'_>) -> Verdict {
    let mut verdict = describe("TFLite", model, |f| model.for_each_warning(f));
    if let Some(w) = crate::summary::associated::warning(model.file()) {
        verdict.warnings.push(w);
    }
    verdict
}

/// The warnings of a TFLite or Circle model whose rules were already checked (a package's
/// models, which the package check verified in full): the structure is read again, the rules
/// are not run twice. None for other bytes.
pub fn warnings_of(bytes: &[u8]) -> Warnings {
    match open::kind(bytes) {
        Kind::Graph(Graph::Tflite(m)) => Warnings::collect(|f| m.for_each_warning(f)),
        Kind::Graph(Graph::Circle(m)) => Warnings::collect(|f| m.for_each_warning(f)),
        Kind::Container(_) | Kind::Invalid(_) => Warnings::default(),
    }
}

/// `<format> v<version>, N subgraph(s)`, and the model's warnings.
fn describe<'a, M: ModelView<'a>>(
    format: &str,
    model: M,
    for_each: impl FnOnce(&mut dyn FnMut(Warning)) -> Result<(), flatmodel::Error>,
) -> Verdict {
    let subgraphs = model.subgraph_list().map_or(0, |s| s.len());
    let summary = format!("{format} v{}, {subgraphs} subgraph(s)", model.schema_version());
    Verdict { summary, warnings: Warnings::collect(for_each) }
}
