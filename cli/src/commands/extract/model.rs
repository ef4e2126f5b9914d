//! `extract` from a TFLite or Circle model: a tensor's data (`.npy` or as stored), a buffer,
//! a metadata entry, or a file of the zip archive appended to a TFLite model.

use crate::budget::Budget;
use crate::status::Failure;
use crate::summary::facts::TensorFacts;
use flatmodel::graph::{MetadataView, ModelView, SubGraphView, TensorView};
use std::borrow::Cow;

/// The bytes `what` names in a TFLite or Circle model: `tensor:NAME|INDEX` (a `.npy` file,
/// or as stored when `raw`), `buffer:N` or `metadata:NAME` (`associated:NAME` is
/// [`associated`]'s).
pub fn bytes<'a, M: ModelView<'a>>(name: &str, model: M, what: &str, raw: bool) -> Result<Cow<'a, [u8]>, Failure> {
    let data = match what.split_once(':') {
        Some(("tensor", _)) => return tensor(name, model, what, raw),
        Some(("buffer", n)) => {
            let index: u32 = n.parse().map_err(|_| Failure::new(format!("'{what}': buffer index must be a number")))?;
            model.buffer_data(index).map_err(|e| Failure::new(format!("{name}: {what}: {e}")))?
        }
        Some(("metadata", key)) => ModelView::metadata_bytes(&model, key).ok_or_else(|| {
            let hint = crate::suggest::hint(key, metadata_names(model));
            Failure::new(format!("{name}: no metadata entry named '{key}'{hint}"))
        })?,
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
            .flatten()
            .find_map(|sg| sg.tensors()?.iter().enumerate().find(|(_, t)| t.name() == Some(key))),
    };
    let Some((index, t)) = found else {
        let place = if key.parse::<usize>().is_ok() { "in subgraph 0" } else { "named so in any subgraph" };
        let names = model
            .subgraph_list()
            .into_iter()
            .flatten()
            .flat_map(|sg| sg.tensors().into_iter().flatten().filter_map(|t| t.name()));
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
    super::npy::encode(&facts, data, t.sparsity().is_some())
        .map(Cow::Owned)
        .map_err(|reason| Failure::new(format!("{name}: tensor '{key}' cannot be written as .npy: {reason}")))
}

/// The names of `model`'s metadata entries.
fn metadata_names<'a, M: ModelView<'a>>(model: M) -> Vec<&'a str> {
    model.metadata_list().into_iter().flatten().filter_map(|m| m.name()).collect()
}

/// The associated file `what` (`associated:NAME`) names in the archive appended to a TFLite
/// model: its bytes, why the archive is corrupt ([`Failure::Invalid`]), or that there is no
/// such file (a usage error).
pub fn associated<'a>(name: &str, bytes: &'a [u8], what: &str) -> Result<Cow<'a, [u8]>, Failure> {
    let file = what.strip_prefix("associated:").unwrap_or(what);
    let archive = match flatmodel::nnpackage::AssociatedFiles::read(bytes) {
        Ok(Some(archive)) => archive,
        Ok(None) => return Err(Failure::new(format!("{name}: no associated files (no zip archive after the model)"))),
        Err(e) => return Err(Failure::Invalid(e.to_string())),
    };
    let limit = flatmodel::verify::Options::DEFAULT.max_inflated_size;
    match archive.extract(file, limit) {
        Ok(Some(data)) => Ok(data),
        Ok(None) => {
            let names: Vec<&str> = archive.names().collect();
            Err(Failure::new(format!("{name}: no associated file '{file}' (it has: {})", names.join(", "))))
        }
        Err(e) => Err(Failure::Invalid(e.to_string())),
    }
}
