//! `pkg-inputs`, `pkg-outputs` and `model-connect` checked against the models they name: each
//! `"m:s:i"` must exist, and joined tensors must agree in element type and shape.

use super::error::{PackageError, PackageErrorKind as Kind};
use super::manifest::{IoRef, Manifest, MANIFEST};
use super::models::TensorIo;
use super::PackageModel;
use std::format;
use std::string::String;
use std::vec::Vec;

/// Which side of a subgraph an `"m:s:i"` names.
#[derive(Clone, Copy)]
enum Side {
    Input,
    Output,
}

impl Side {
    fn name(self) -> &'static str {
        match self {
            Side::Input => "input",
            Side::Output => "output",
        }
    }
}

/// The tensor `r` names, or why it names nothing. `Ok(None)` when the model is a backend's
/// opaque binary, whose inputs and outputs cannot be read.
fn resolve(models: &[PackageModel], r: IoRef, side: Side) -> Result<Option<&TensorIo>, String> {
    let model = usize::try_from(r.model).ok().and_then(|m| models.get(m));
    let Some(model) = model else {
        return Err(format!("\"{r}\": model {} does not exist (the package has {})", r.model, models.len()));
    };
    let Some(io) = &model.io else { return Ok(None) };
    let subgraph = usize::try_from(r.subgraph).ok().and_then(|s| io.subgraphs.get(s));
    let Some(subgraph) = subgraph else {
        return Err(format!(
            "\"{r}\": model {} has no subgraph {} (it has {})",
            r.model,
            r.subgraph,
            io.subgraphs.len()
        ));
    };
    let list = match side {
        Side::Input => &subgraph.inputs,
        Side::Output => &subgraph.outputs,
    };
    match usize::try_from(r.index).ok().and_then(|i| list.get(i)) {
        Some(t) => Ok(Some(t)),
        None => Err(format!(
            "\"{r}\": model {} subgraph {} has no {} {} (it has {})",
            r.model,
            r.subgraph,
            side.name(),
            r.index,
            list.len()
        )),
    }
}

fn at(key: &str) -> String {
    format!("{MANIFEST}: {key}")
}

/// A shape as the messages show it: `[1,-1,3]`, or `[?]` when unknown.
pub(crate) fn shape_text(shape: Option<&[i32]>) -> String {
    match shape {
        None => "[?]".into(),
        Some(dims) => {
            let parts: Vec<String> = dims.iter().map(|d| format!("{d}")).collect();
            format!("[{}]", parts.join(","))
        }
    }
}

/// Whether two shapes can be the same tensor: unknown shapes and -1 dimensions match anything.
fn shapes_agree(a: Option<&[i32]>, b: Option<&[i32]>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.len() == b.len() && a.iter().zip(b).all(|(&x, &y)| x == y || x == -1 || y == -1),
        _ => true,
    }
}

/// Checks every `"m:s:i"` of `manifest` against `models` (in manifest order).
pub(crate) fn check(manifest: &Manifest, models: &[PackageModel]) -> Result<(), PackageError> {
    for (key, refs, side) in
        [("pkg-inputs", &manifest.pkg_inputs, Side::Input), ("pkg-outputs", &manifest.pkg_outputs, Side::Output)]
    {
        for (i, r) in refs.iter().enumerate() {
            resolve(models, *r, side)
                .map_err(|why| PackageError::new(Kind::OutOfRange, at(&format!("\"{key}\"[{i}]")), why))?;
        }
    }
    for (i, connection) in manifest.model_connect.iter().enumerate() {
        let shown = format!("\"model-connect\"[{i}]");
        let from = resolve(models, connection.from, Side::Output)
            .map_err(|why| PackageError::new(Kind::OutOfRange, at(&format!("{shown}.from")), why))?;
        for (j, r) in connection.to.iter().enumerate() {
            let here = at(&format!("{shown}.to[{j}]"));
            let to = resolve(models, *r, Side::Input).map_err(|why| PackageError::new(Kind::OutOfRange, &here, why))?;
            let (Some(out), Some(inp)) = (from, to) else { continue };
            let (out_shape, in_shape) = (out.shape.as_deref(), inp.shape.as_deref());
            if out.element_type.code != inp.element_type.code || !shapes_agree(out_shape, in_shape) {
                return Err(PackageError::new(
                    Kind::ConnectMismatch,
                    here,
                    format!(
                        "model {} input {} is {} {} but the output \"{}\" is {} {}",
                        r.model,
                        r.index,
                        inp.element_type,
                        shape_text(in_shape),
                        connection.from,
                        out.element_type,
                        shape_text(out_shape)
                    ),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::shapes_agree;

    #[test]
    fn unknown_dimensions_match_anything() {
        assert!(shapes_agree(Some(&[-1, 4]), Some(&[1, 4])));
        assert!(shapes_agree(None, Some(&[1, 4])));
        assert!(!shapes_agree(Some(&[1, 4]), Some(&[1, 4, 1])));
        assert!(!shapes_agree(Some(&[2, 4]), Some(&[1, 4])));
    }
}
