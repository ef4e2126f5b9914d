//! `flatmodel verify FILE...`: one line per file, exit 1 if any is invalid.

use crate::input::Input;
use crate::{Failure, Outcome};
use flatmodel::graph::{ModelView, Warning};
use flatmodel::{circle, tflite, Format};
use std::ffi::OsString;

/// Verifies each file as the format its bytes show.
pub fn run(files: &[OsString], quiet: bool) -> Result<Outcome, Failure> {
    let mut outcome = Outcome::Ok;
    for path in files {
        if crate::package::is_package(path) {
            if matches!(crate::package::verify(path, quiet)?, Outcome::Invalid) {
                outcome = Outcome::Invalid;
            }
            continue;
        }
        let input = Input::open(path)?;
        let name = path.to_string_lossy();
        match check(input.bytes()) {
            Ok(summary) => {
                if !quiet {
                    println!("{name}: ok ({summary})");
                }
            }
            Err(reason) => {
                println!("{name}: invalid: {reason}");
                outcome = Outcome::Invalid;
            }
        }
    }
    Ok(outcome)
}

/// Verifies `bytes` fully; a short description, or why they are invalid.
pub fn check(bytes: &[u8]) -> Result<String, String> {
    match flatmodel::detect(bytes) {
        Some(Format::Tflite) => {
            let model = tflite::Model::parse(bytes).map_err(|e| e.to_string())?;
            Ok(describe("TFLite", model, |f| {
                let _ = model.for_each_warning(f);
            }))
        }
        Some(Format::Circle) => {
            let model = circle::Model::parse(bytes).map_err(|e| e.to_string())?;
            Ok(describe("Circle", model, |f| {
                let _ = model.for_each_warning(f);
            }))
        }
        Some(Format::Pte | Format::VkGraph) => crate::executorch::check(bytes),
        Some(Format::Cvimodel) => crate::cvimodel::check(bytes),
        _ => Err(crate::open::unknown_format(bytes)),
    }
}

/// `<format> v<version>, N subgraph(s), W warning(s)`.
fn describe<'a, M: ModelView<'a>>(format: &str, model: M, warnings: impl FnOnce(&mut dyn FnMut(Warning))) -> String {
    let subgraphs = model.subgraph_list().map_or(0, |s| s.len());
    let mut count = 0usize;
    warnings(&mut |_| count += 1);
    format!("{format} v{}, {subgraphs} subgraph(s), {count} warning(s)", model.schema_version())
}
