//! `flatmodel extract FILE WHAT -o OUT`: write a buffer's (or metadata entry's) exact bytes.

use crate::open::{with_model, Opened};
use crate::{Failure, Outcome};
use flatmodel::graph::ModelView;
use std::ffi::OsString;

/// Writes the bytes `what` names in `path` to `out`.
pub fn run(path: &OsString, what: &str, out: &OsString) -> Result<Outcome, Failure> {
    {
        let input = crate::input::Input::open(path)?;
        if let Some(container) = crate::open::container(input.bytes()) {
            let name = path.to_string_lossy();
            return match (container.extract)(&name, input.bytes(), what)? {
                Ok(data) => write_replacing(std::path::Path::new(out), &data).map(|()| Outcome::Ok),
                Err(reason) => {
                    println!("{name}: invalid: {reason}");
                    Ok(Outcome::Invalid)
                }
            };
        }
    }
    with_model(path, |name, model| {
        let data = match (what.split_once(':'), model) {
            (Some(("buffer", n)), model) => {
                let index: u32 = n.parse().map_err(|_| Failure(format!("'{what}': buffer index must be a number")))?;
                let data = match model {
                    Opened::Tflite(m) => m.buffer_data(index),
                    Opened::Circle(m) => m.buffer_data(index),
                };
                data.map_err(|e| Failure(format!("{name}: {what}: {e}")))?
            }
            (Some(("metadata", key)), Opened::Tflite(model)) => {
                model.metadata_bytes(key).ok_or_else(|| Failure(format!("{name}: no metadata entry named '{key}'")))?
            }
            (Some(("metadata", _)), Opened::Circle(_)) => {
                return Err(Failure(format!("{name}: Circle revision 0 has no named metadata; use buffer:N")))
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
