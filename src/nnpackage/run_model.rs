//! Circle's `RUN_MODEL` operators name other model files, relative to the directory of the
//! model that holds them: in a package, each named file must lie inside the package (the
//! MANIFEST's path rules) and exist there.

use super::error::{PackageError, PackageErrorKind as Kind};
use super::manifest::ModelType;
use super::path::RelPath;
use super::source::Source;
use super::PackageModel;
use crate::circle;
use std::format;
use std::string::String;

/// Checks every `RUN_MODEL` reference of the package's Circle `models` against `source`.
pub(crate) fn check(source: &Source, models: &[PackageModel]) -> Result<(), PackageError> {
    for m in models.iter().filter(|m| m.model_type == ModelType::Circle) {
        // Verified when it was read; a model that is not (a type mismatch) was refused then.
        let Ok(model) = circle::Model::parse_structure(m.bytes.as_bytes()) else { continue };
        let mut first = None;
        model.for_each_run_model(|r| {
            if first.is_none() {
                first = check_one(source, &m.path, r).err();
            }
        });
        if let Some(e) = first {
            return Err(e);
        }
    }
    Ok(())
}

/// Checks the reference `r` of the model at `path` in the package.
fn check_one(source: &Source, path: &str, r: circle::RunModelRef<'_>) -> Result<(), PackageError> {
    let at = format!(
        "{path}: Model.subgraphs[{}].operators[{}].builtin_options(RunModelOptions).location",
        r.subgraph, r.operator
    );
    let Some(location) = r.location.filter(|l| !l.is_empty()) else {
        return Err(PackageError::new(Kind::Model, at, "RUN_MODEL names no model file"));
    };
    let rel = match path.rsplit_once('/') {
        Some((dir, _)) => RelPath::under(dir, location),
        None => RelPath::parse(location),
    };
    let rel = rel.map_err(|why| PackageError::new(Kind::PathEscapes, at.as_str(), format!("{location:?}: {why}")))?;
    source.check_file(&rel).map_err(|p| {
        let reason: String = format!("RUN_MODEL runs {location:?}: {}", p.reason);
        PackageError::new(p.kind, at.as_str(), reason)
    })
}
