//! `flatmodel extract FILE WHAT -o OUT`: write a buffer's (or metadata entry's) exact bytes.

use crate::open::{with_model, Opened};
use crate::{Failure, Outcome};
use std::ffi::OsString;

/// Writes the bytes `what` names in `path` to `out`.
pub fn run(path: &OsString, what: &str, out: &OsString) -> Result<Outcome, Failure> {
    with_model(path, |name, model| {
        let Opened::Tflite(model) = model;
        let data = match what.split_once(':') {
            Some(("buffer", n)) => {
                let index: u32 = n.parse().map_err(|_| Failure(format!("'{what}': buffer index must be a number")))?;
                model.buffer_data(index).map_err(|e| Failure(format!("{name}: {what}: {e}")))?
            }
            Some(("metadata", key)) => {
                model.metadata_bytes(key).ok_or_else(|| Failure(format!("{name}: no metadata entry named '{key}'")))?
            }
            _ => return Err(Failure(format!("'{what}': expected buffer:N or metadata:NAME"))),
        };
        write_replacing(std::path::Path::new(out), data)?;
        Ok(Outcome::Ok)
    })
}

/// Writes `data` to a temporary file beside `out`, then renames it over `out`: `data` may be
/// a slice of the mapped input, and `out` may name that very file, which must not be
/// truncated while it is mapped.
fn write_replacing(out: &std::path::Path, data: &[u8]) -> Result<(), Failure> {
    let shown = out.to_string_lossy();
    let dir = out.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    let name = out.file_name().ok_or_else(|| Failure(format!("{shown}: not a file name")))?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".flatmodel-{}.tmp", std::process::id()));
    let tmp = dir.join(tmp_name);
    let written = std::fs::write(&tmp, data).and_then(|()| std::fs::rename(&tmp, out));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(Failure(format!("{shown}: {e}")));
    }
    Ok(())
}
