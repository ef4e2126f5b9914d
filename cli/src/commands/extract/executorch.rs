//! `extract` from ExecuTorch files: `delegate:N`, `segment:N` or `named:KEY` in a `.pte`,
//! `constant:N` in a Vulkan blob (`delegate:N/constant:M`, XNNPACK's constants and `.ptd` named
//! data are [`super::xnnpack`]'s).

use crate::status::Failure;
use flatmodel::pte::PteFile;
use flatmodel::vkgraph::{Blob, Constant};

/// What an extraction gives: the bytes, why the file is invalid ([`Failure::Invalid`]), or a
/// usage error.
type Extracted<'a> = Result<&'a [u8], Failure>;

/// A library error of the verified file: the file is invalid.
fn invalid(e: flatmodel::Error) -> Failure {
    Failure::Invalid(e.to_string())
}

/// The number after `kind:` in `what`.
pub(super) fn number(what: &str, n: &str) -> Result<usize, Failure> {
    n.parse::<usize>().map_err(|_| Failure::new(format!("'{what}': expected a number after ':'")))
}

/// The bytes `what` names in the verified program `file`: `delegate:N` (a delegate's
/// processed blob; `N` counts the delegates of every plan, plan by plan), `segment:N` or
/// `named:KEY`.
pub fn from_program<'a>(name: &str, file: &PteFile<'a>, what: &str) -> Extracted<'a> {
    match what.split_once(':') {
        Some(("delegate", n)) => {
            let n = number(what, n)?;
            let d = file.delegate(n).ok_or_else(|| Failure::new(format!("{name}: no delegate {n}")))?;
            file.delegate_blob(&d).map(|(_, b)| b).map_err(invalid)
        }
        Some(("segment", n)) => file.segment(number(what, n)?).map(|(_, b)| b).map_err(invalid),
        Some(("named", key)) => {
            file.named_data(key).ok_or_else(|| Failure::new(format!("{name}: no named data '{key}'")))
        }
        _ => {
            Err(Failure::new(format!("'{what}': a .pte has delegate:N, delegate:N/constant:M, segment:N or named:KEY")))
        }
    }
}

/// The data of constant `constant:N` in the verified Vulkan blob `blob` (inline constants only:
/// a named one lives in the program's named data).
pub fn from_blob<'a>(name: &str, blob: &Blob<'a>, what: &str) -> Extracted<'a> {
    let Some(("constant", n)) = what.split_once(':') else {
        return Err(Failure::new(format!("'{what}': a Vulkan blob has constant:N")));
    };
    let n = number(what, n)?;
    match blob.constant(n) {
        Ok(Constant::Inline(data)) => Ok(data),
        Ok(Constant::Named { key, .. }) => Err(Failure::new(format!(
            "{name}: constant {n} is the program's named data '{key}': extract named:{key} from the .pte"
        ))),
        Err(e) => Err(invalid(e)),
    }
}
