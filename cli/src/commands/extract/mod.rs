//! `flatmodel extract FILE WHAT -o OUT`: write the exact bytes WHAT names, to a file or (`-o -`)
//! to standard output. What each format can name is its own module's.

mod cvimodel;
mod executorch;
pub mod litertlm;
mod model;
pub mod npy;
mod xnnpack;

use crate::input::Access;
use crate::open;
use crate::output::Out;
use crate::status::{Failure, Outcome};
use flatmodel::verify::Options;
use flatmodel::{File, Format};
use std::borrow::Cow;
use std::ffi::OsString;
use std::io::Write;

/// Writes the bytes `what` names in `path` to `to` (`-`: standard output).
/// `raw` writes a tensor's data as stored rather than as a `.npy` file.
pub fn run(
    out: &mut Out,
    path: &OsString,
    what: &str,
    to: &OsString,
    raw: bool,
    access: Access,
) -> Result<Outcome, Failure> {
    let name = path.to_string_lossy();
    open::reporting(out, &name, |out| {
        if let Some(member) = what.strip_prefix("member:") {
            if let open::Opened::Bundle(input) = open::open(path, access)? {
                let bundle = open::bundle(input.bytes())?;
                let found = bundle.members().iter().find(|m| m.name() == member);
                let Some(found) = found else {
                    let names: Vec<&str> = bundle.members().iter().map(|m| m.name()).collect();
                    return Err(Failure::new(format!(
                        "{name} has no member {member:?}; its members: {}",
                        names.join(", ")
                    )));
                };
                return emit(out, found.bytes(), to);
            }
        }
        let input = open::model_file(path, "extract from", access)?;
        let (data, note) = bytes(&name, open::file(input.bytes())?, what, raw)?;
        if let Some(note) = note {
            // The bytes are not the .npy file asked for: say so beside them.
            let _ = writeln!(std::io::stderr(), "flatmodel: note: {note}");
        }
        emit(out, &data, to)
    })
}

/// Writes `data` to `to` (`-`: standard output).
fn emit(out: &mut Out, data: &[u8], to: &OsString) -> Result<Outcome, Failure> {
    if to == "-" {
        out.write_all(data)?;
        out.flush()?;
        return Ok(Outcome::Ok);
    }
    write_replacing(std::path::Path::new(to), data).map(|()| Outcome::Ok)
}

/// The bytes `what` names in `file` (structurally verified), why the file is invalid
/// ([`Failure::Invalid`]), or a usage error. The container formats' rules are checked first,
/// as their sections are located through them; a TFLite or Circle model's data is reached
/// through its verified structure alone.
fn bytes<'a>(name: &str, file: File<'a>, what: &str, raw: bool) -> xnnpack::Extracted<'a> {
    if !matches!(file.format(), Format::Tflite | Format::Circle) {
        if let Err(e) = file.check_rules(&Options::DEFAULT) {
            return Err(Failure::Invalid(e.to_string()));
        }
    }
    let data = match file {
        File::Tflite(_) if what.starts_with("associated:") => model::associated(name, file.bytes(), what),
        File::Tflite(m) => model::bytes(name, m, what, raw),
        File::Circle(m) => model::bytes(name, m, what, raw),
        File::Pte(p) => match what.strip_prefix("delegate:").and_then(|rest| rest.split_once('/')) {
            Some((n, inner)) => return xnnpack::from_program(name, &p, executorch::number(what, n)?, inner, raw),
            None => executorch::from_program(name, &p, what).map(Cow::Borrowed),
        },
        File::VkGraph(b) => executorch::from_blob(name, &b, what).map(Cow::Borrowed),
        File::Xnnpack(b) => return xnnpack::from_blob(name, &b, what, raw),
        File::Ptd(f) => return xnnpack::from_ptd(name, &f, what, raw),
        File::Cvimodel(c) => cvimodel::bytes(name, &c, what),
        File::LitertLm(f) => litertlm::bytes(name, &f, what).map(Cow::Borrowed),
        other => Err(Failure::Invalid(format!("extract does not read {:?} files", other.format()))),
    };
    data.map(|d| (d, None))
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
