//! `flatmodel extract FILE WHAT -o OUT`: write the exact bytes WHAT names, to a file or (`-o -`)
//! to standard output.

use crate::budget::Budget;
use crate::summary::facts::TensorFacts;
use crate::open::{self, Graph, Kind};
use crate::output::Out;
use crate::{Failure, Outcome};
use flatmodel::graph::{MetadataView, ModelView, SubGraphView, TensorView};
use std::borrow::Cow;
use std::ffi::OsString;
use std::io::Write;

/// Writes the bytes `what` names in `path` to `to` (`-`: standard output).
/// `raw` writes a tensor's data as stored rather than as a `.npy` file.
pub fn run(out: &mut Out, path: &OsString, what: &str, to: &OsString, raw: bool) -> Result<Outcome, Failure> {
    let name = path.to_string_lossy();
    let input = match open::model_file(out, path, "extract from")? {
        Ok(input) => input,
        Err(outcome) => return Ok(outcome),
    };
    let data = match open::kind(input.bytes()) {
        Kind::Graph(Graph::Tflite(_)) if what.starts_with("associated:") => associated(&name, input.bytes(), what)?,
        Kind::Graph(model) if what.starts_with("tensor:") => Ok(match model {
            Graph::Tflite(m) => tensor(&name, m, what, raw)?,
            Graph::Circle(m) => tensor(&name, m, what, raw)?,
        }),
        Kind::Graph(model) => Ok(graph_bytes(&name, model, what)?),
        Kind::Container(container) => (container.extract)(&name, input.bytes(), what)?,
        Kind::Invalid(reason) => Err(reason),
    };
    match data {
        Ok(data) if to == "-" => {
            out.write_all(&data)?;
            out.flush()?;
            Ok(Outcome::Ok)
        }
        Ok(data) => write_replacing(std::path::Path::new(to), &data).map(|()| Outcome::Ok),
        Err(reason) => open::report_invalid(out, &name, &reason),
    }
}

/// The bytes `what` names in a TFLite or Circle model: `buffer:N` or `metadata:NAME`
/// (`associated:NAME` is [`associated`]'s).
fn graph_bytes<'a>(name: &str, model: Graph<'a>, what: &str) -> Result<Cow<'a, [u8]>, Failure> {
    let data = match (what.split_once(':'), model) {
        (Some(("buffer", n)), model) => {
            let index: u32 = n.parse().map_err(|_| Failure::new(format!("'{what}': buffer index must be a number")))?;
            let data = match model {
                Graph::Tflite(m) => m.buffer_data(index),
                Graph::Circle(m) => m.buffer_data(index),
            };
            data.map_err(|e| Failure::new(format!("{name}: {what}: {e}")))?
        }
        (Some(("metadata", key)), model) => {
            let data = match model {
                Graph::Tflite(m) => ModelView::metadata_bytes(&m, key),
                Graph::Circle(m) => m.metadata_bytes(key),
            };
            data.ok_or_else(|| {
                let names: Vec<&str> = match model {
                    Graph::Tflite(m) => metadata_names(m),
                    Graph::Circle(m) => metadata_names(m),
                };
                let hint = crate::suggest::hint(key, names);
                Failure::new(format!("{name}: no metadata entry named '{key}'{hint}"))
            })?
        }
        _ => {
            let kind = what.split_once(':').map_or(what, |(kind, _)| kind);
            let hint = crate::suggest::hint(kind, ["tensor", "buffer", "metadata", "associated"]);
            return Err(Failure::new(format!(
                "'{what}': expected tensor:NAME|INDEX, buffer:N, metadata:NAME or associated:NAME{hint}"
            )));
        }
    };
    Ok(Cow::Borrowed(data))
}

/// The constant data of the tensor `what` (`tensor:INDEX` in the primary subgraph, else
/// `tensor:NAME`, the first tensor of that name in subgraph order) as a `.npy` file, or as
/// stored when `raw`.
fn tensor<'a, M: ModelView<'a>>(name: &str, model: M, what: &str, raw: bool) -> Result<Cow<'a, [u8]>, Failure> {
    let key = what.strip_prefix("tensor:").unwrap_or(what);
    let found = match key.parse::<usize>() {
        Ok(index) => model.subgraph(0).and_then(|sg| Some((index, sg.tensors()?.get(index)?))),
        Err(_) => model
            .subgraph_list()
            .into_iter()
            .flat_map(|l| l.iter())
            .find_map(|sg| sg.tensors()?.iter().enumerate().find(|(_, t)| t.name() == Some(key))),
    };
    let Some((index, t)) = found else {
        let place = if key.parse::<usize>().is_ok() { "in subgraph 0" } else { "named so in any subgraph" };
        let names = model
            .subgraph_list()
            .into_iter()
            .flat_map(|l| l.iter())
            .flat_map(|sg| sg.tensors().into_iter().flat_map(|t| t.iter()).filter_map(|t| t.name()));
        let hint = crate::suggest::hint(key, names);
        return Err(Failure::new(format!("{name}: no tensor '{key}' {place}{hint}")));
    };
    let data = model.tensor_data(&t).map_err(|e| Failure::new(format!("{name}: {what}: {e}")))?;
    if data.is_empty() {
        return Err(Failure::new(format!(
            "{name}: tensor '{key}' holds no constant data (an activation, input or output: the file stores none)"
        )));
    }
    if raw {
        return Ok(Cow::Borrowed(data));
    }
    let facts = TensorFacts::of(model, index, &t, &mut Budget::for_file(model.file().len()))
        .map_err(|e| Failure::new(format!("{name}: {e}")))?;
    crate::commands::npy::encode(&facts, data, t.sparsity().is_some())
        .map(Cow::Owned)
        .map_err(|reason| Failure::new(format!("{name}: tensor '{key}' cannot be written as .npy: {reason}")))
}

/// The names of `model`'s metadata entries.
fn metadata_names<'a, M: ModelView<'a>>(model: M) -> Vec<&'a str> {
    model.metadata_list().into_iter().flat_map(|l| l.iter()).filter_map(|m| m.name()).collect()
}

/// The associated file `what` (`associated:NAME`) names in the archive appended to a TFLite
/// model: its bytes, why the archive is corrupt (the inner error), or that there is no such
/// file (the outer one).
fn associated<'a>(name: &str, bytes: &'a [u8], what: &str) -> Result<Result<Cow<'a, [u8]>, String>, Failure> {
    let file = what.strip_prefix("associated:").unwrap_or(what);
    let archive = match flatmodel::nnpackage::AssociatedFiles::read(bytes) {
        Ok(Some(archive)) => archive,
        Ok(None) => return Err(Failure::new(format!("{name}: no associated files (no zip archive after the model)"))),
        Err(e) => return Ok(Err(e.to_string())),
    };
    let limit = flatmodel::verify::Options::DEFAULT.max_inflated_size;
    match archive.extract(file, limit) {
        Ok(Some(data)) => Ok(Ok(data)),
        Ok(None) => {
            let names: Vec<&str> = archive.names().collect();
            Err(Failure::new(format!("{name}: no associated file '{file}' (it has: {})", names.join(", "))))
        }
        Err(e) => Ok(Err(e.to_string())),
    }
}

/// Writes `data` to a temporary file beside `out`, then renames it over `out`: `data` may be
/// a slice of the mapped input, and `out` may name that very file, which must not be
/// truncated while it is mapped.
fn write_replacing(out: &std::path::Path, data: &[u8]) -> Result<(), Failure> {
    let shown = out.to_string_lossy();
    let dir = out.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    let name = out.file_name().ok_or_else(|| Failure::new(format!("{shown}: not a file name")))?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".flatmodel-{}.tmp", std::process::id()));
    let tmp = dir.join(tmp_name);
    let written = std::fs::write(&tmp, data).and_then(|()| std::fs::rename(&tmp, out));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(Failure::new(format!("{shown}: {e}")));
    }
    Ok(())
}
