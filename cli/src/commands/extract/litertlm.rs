//! `extract` from a LiteRT-LM file: `section:N`, the bytes of section N as they lie in the file;
//! and for `dump F.litertlm section:N`, the TFLite model such a section holds.

use crate::status::Failure;
use flatmodel::litertlm::{AnySectionDataType, LitertLmFile};
use flatmodel::tflite;
use flatmodel::verify::Options;

/// Section `n` of `what` (`section:N`), parsed; a usage error for anything else.
pub fn section_index(what: &str, takes: &str) -> Result<usize, Failure> {
    what.strip_prefix("section:")
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| Failure::new(format!("'{what}': a .litertlm file takes {takes}")))
}

/// The bytes of the section `what` names in the checked `file` (`name`), or a usage error.
pub fn bytes<'a>(name: &str, file: &LitertLmFile<'a>, what: &str) -> Result<&'a [u8], Failure> {
    let n = section_index(what, "section:N (a section's index, from 0)")?;
    let count = file.section_count();
    if n >= count {
        return Err(Failure::new(format!("{name}: no section {n}: the file has {count} section(s)")));
    }
    file.section(n).map(|s| s.bytes).map_err(|e| Failure::Invalid(e.to_string()))
}

/// The TFLite model in the section `what` names in `file` (`name`), verified (`dump
/// F.litertlm section:N`); a usage error when the section is of another type.
pub fn tflite_model<'a>(name: &str, file: &LitertLmFile<'a>, what: &str) -> Result<tflite::Model<'a>, Failure> {
    let n = section_index(what, "section:N (a TFLiteModel section's index, from 0) or no argument")?;
    let count = file.section_count();
    if n >= count {
        return Err(Failure::new(format!("{name}: no section {n}: the file has {count} section(s)")));
    }
    let section = file.section(n).map_err(|e| Failure::Invalid(e.to_string()))?;
    if section.data_type != AnySectionDataType::TFLiteModel {
        return Err(Failure::new(format!(
            "{name}: section {n} is {}, not a TFLiteModel: dump reads TFLite sections (extract {name} \
             section:{n} -o OUT writes its bytes)",
            crate::summary::litertlm::type_name(section.data_type)
        )));
    }
    file.tflite_model(n, &Options::DEFAULT).map_err(|e| Failure::Invalid(e.to_string()))
}
