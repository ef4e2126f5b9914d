//! `flatmodel verify P.pte --data W.ptd...`: a program and its data checked together
//! (`docs/executorch.md` §3.11), and what `verify P.pte` alone says of the external data a
//! program needs.

use crate::input::{Access, Input};
use crate::open;
use crate::status::Failure;
use crate::summary::executorch::data::external_groups;
use flatmodel::ptd::PtdFile;
use flatmodel::pte::{DataError, DataSource, PteFile};
use flatmodel::verify::Options;
use flatmodel::{File, Format};
use std::ffi::OsString;

/// The lines `verify` prints after a program's summary: one per reader of external data,
/// `needs external data: N key(s) (B bytes) for READER: KEY, ...`; none when the program's own
/// data holds every key.
pub fn needs(program: &PteFile<'_>) -> Result<Vec<String>, Failure> {
    let groups = external_groups(program).map_err(|e| Failure::Invalid(e.to_string()))?;
    Ok(groups
        .iter()
        .map(|g| {
            let reader = if g.plan.is_none() { "the program".to_string() } else { g.reader.clone() };
            format!(
                "needs external data: {} key(s) ({} bytes) for {reader}: {}",
                g.keys.len(),
                g.bytes,
                g.keys.join(", ")
            )
        })
        .collect())
}

/// The `.ptd` files `--data` names, read as `access` says: a file that cannot be read, or is
/// no `.ptd` at all, is a usage error (exit 2).
pub fn read(paths: &[OsString], access: Access) -> Result<Vec<Input>, Failure> {
    let mut inputs = Vec::new();
    for path in paths {
        let input = Input::open(path, access)?;
        if flatmodel::detect(input.bytes()) != Some(Format::Ptd) {
            let what = match open::file(input.bytes()) {
                Ok(file) => format!("a {:?} file", file.format()),
                Err(Failure::Invalid(reason)) => reason,
                Err(other) => return Err(other),
            };
            return Err(Failure::new(format!(
                "--data {}: --data takes ExecuTorch data files (.ptd, FT01 at byte 4); this is {what}",
                path.to_string_lossy()
            )));
        }
        inputs.push(input);
    }
    Ok(inputs)
}

/// Checks `file` (verified) against the `.ptd` files in `data` (named by `paths`): the line
/// after its summary, `data: N key(s) resolved (M in the program's named data, K in W.ptd,
/// ...)`, or why it is invalid: a `.ptd` that does not verify, or the first key its data does
/// not resolve.
pub fn check(file: File<'_>, data: &[Input], paths: &[OsString]) -> Result<String, Failure> {
    let File::Pte(program) = file else {
        return Err(Failure::new(format!(
            "--data applies to ExecuTorch programs (.pte), and this is a {:?} file\n{}",
            file.format(),
            crate::help::usage_of("verify")
        )));
    };
    let mut files = Vec::new();
    for (input, path) in data.iter().zip(paths) {
        let ptd = PtdFile::parse(input.bytes())
            .map_err(|e| Failure::Invalid(format!("--data {}: {}", path.to_string_lossy(), e)))?;
        files.push(ptd);
    }
    let name = |i: usize| paths.get(i).map_or_else(String::new, |p| p.to_string_lossy().into_owned());
    program.check_data(&files, &Options::DEFAULT).map_err(|e| match e {
        DataError::Unresolved(u) => {
            let looked: Vec<String> =
                std::iter::once("the program's named data".to_string()).chain((0..files.len()).map(name)).collect();
            Failure::Invalid(format!("{u} (looked in {})", looked.join(", ")))
        }
        DataError::Invalid(e) => Failure::Invalid(e.to_string()),
    })?;
    let mut keys = 0usize;
    let mut found = vec![0usize; files.len().saturating_add(1)];
    program
        .data_keys(&Options::DEFAULT, |k| {
            keys += 1;
            let at = match program.find_data(&k, &files) {
                Ok((DataSource::Program, _)) => 0,
                Ok((DataSource::Ptd(i), _)) => i.saturating_add(1),
                Err(_) => return,
            };
            if let Some(n) = found.get_mut(at) {
                *n += 1;
            }
        })
        .map_err(|e| Failure::Invalid(e.to_string()))?;
    let places: Vec<String> = found
        .iter()
        .enumerate()
        .map(|(i, n)| match i {
            0 => format!("{n} in the program's named data"),
            i => format!("{n} in {}", name(i.saturating_sub(1))),
        })
        .collect();
    Ok(format!("data: {keys} key(s) resolved ({})", places.join(", ")))
}
