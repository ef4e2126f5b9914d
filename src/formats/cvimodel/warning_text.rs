//! How a cvimodel [`Warning`] reads to a person: what is odd and where, by the schema's names.

use super::Warning;
use core::fmt;

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Warning::Md5Mismatch { stored, computed } => {
                f.write_str("header md5 ")?;
                hex(f, &stored)?;
                f.write_str(" is not the md5 of the file after the header (")?;
                hex(f, &computed)?;
                f.write_str(")")
            }
            Warning::UntaggedWeightOffset { weight } => write!(f, "weight_map[{weight}].offset lacks the bit-40 tag"),
            Warning::VersionMismatch => f.write_str("the header's version is not Model.version"),
            Warning::ChipMismatch => f.write_str("the header's chip is not Model.target"),
            Warning::RoutineSectionType { program, routine } => {
                write!(f, "programs[{program}].routines[{routine}] names a section of another type")
            }
            Warning::EncryptedSection { section } => write!(f, "sections[{section}] is encrypted (not interpreted)"),
        }
    }
}

/// Writes `bytes` as lowercase hexadecimal, two digits a byte.
fn hex(f: &mut fmt::Formatter<'_>, bytes: &[u8]) -> fmt::Result {
    bytes.iter().try_for_each(|b| write!(f, "{b:02x}"))
}
