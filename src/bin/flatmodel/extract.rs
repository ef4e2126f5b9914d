//! `flatmodel extract FILE WHAT -o OUT`: write the exact bytes WHAT names, to a file or (`-o -`)
//! to standard output.

use crate::open::{self, Graph, Kind};
use crate::output::Out;
use crate::{Failure, Outcome};
use flatmodel::graph::ModelView;
use std::borrow::Cow;
use std::ffi::OsString;
use std::io::Write;

/// Writes the bytes `what` names in `path` to `to` (`-`: standard output).
pub fn run(out: &mut Out, path: &OsString, what: &str, to: &OsString) -> Result<Outcome, Failure> {
    let name = path.to_string_lossy();
    let input = match open::model_file(out, path, "extract from")? {
        Ok(input) => input,
        Err(outcome) => return Ok(outcome),
    };
    let data = match open::kind(input.bytes()) {
        Kind::Graph(Graph::Tflite(_)) if what.starts_with("associated:") => associated(&name, input.bytes(), what)?,
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
            data.ok_or_else(|| Failure::new(format!("{name}: no metadata entry named '{key}'")))?
        }
        _ => return Err(Failure::new(format!("'{what}': expected buffer:N, metadata:NAME or associated:NAME"))),
    };
    Ok(Cow::Borrowed(data))
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
