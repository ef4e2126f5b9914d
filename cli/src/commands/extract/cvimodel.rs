//! `extract` from a cvimodel: `section:NAME` (the stored payload), `section-data:NAME`
//! (decompressed when LZ4) or `weight:NAME`.

use crate::status::Failure;
use flatmodel::cvimodel::CviModel;
use std::borrow::Cow;

/// The bytes `what` names in the verified cvimodel `file`, why the file is invalid
/// ([`Failure::Invalid`]), or a usage error.
pub fn bytes<'a>(name: &str, file: &CviModel<'a>, what: &str) -> Result<Cow<'a, [u8]>, Failure> {
    let section_index = |key: &str| -> Result<usize, Failure> {
        file.find_section(key).map(|(i, _)| i).ok_or_else(|| Failure::new(format!("{name}: no section named '{key}'")))
    };
    let invalid = |e: flatmodel::Error| Failure::Invalid(e.to_string());
    match what.split_once(':') {
        Some(("section", key)) => {
            let i = section_index(key)?;
            file.section_at(i).map(|r| Cow::Borrowed(r.payload)).map_err(invalid)
        }
        Some(("section-data", key)) => {
            let i = section_index(key)?;
            file.decompress_section(i).map_err(invalid)
        }
        Some(("weight", key)) => {
            let w = file.weight(key).ok_or_else(|| Failure::new(format!("{name}: no weight named '{key}'")))?;
            match file.weight_section() {
                Some((i, s)) if s.is_lz4() => {
                    let data = file.decompress_section(i).map_err(|e| Failure::new(format!("{name}: {e}")))?;
                    let start = usize::try_from(w.address().offset).unwrap_or(usize::MAX);
                    let size = usize::try_from(w.size()).unwrap_or(usize::MAX);
                    let slice = data.get(start..).and_then(|d| d.get(..size));
                    slice
                        .map(|d| Cow::Owned(d.to_vec()))
                        .ok_or_else(|| Failure::Invalid(format!("weight '{key}' lies outside the WEIGHT section")))
                }
                _ => file.weight_data(&w).map(Cow::Borrowed).map_err(invalid),
            }
        }
        _ => Err(Failure::new(format!("'{what}': a cvimodel takes section:NAME, section-data:NAME or weight:NAME"))),
    }
}
