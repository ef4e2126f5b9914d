//! `flatmodel path FORMAT TEXT`: error paths of a `numeric-paths` build (`Model.#3[0].#41[12]`)
//! with their field numbers turned back into names, from this build's own schema layouts.

use crate::output::Out;
use crate::status::{Failure, Outcome};
use flatmodel::verify::{FieldNames, VerifyTable};
use std::io::Write;

/// The field names of each format's schema, by the name the command takes.
fn names_of(format: &str) -> Option<&'static FieldNames> {
    Some(match format {
        "tflite" => <flatmodel::tflite::Root as VerifyTable>::schema().names,
        "circle" => <flatmodel::circle::Root as VerifyTable>::schema().names,
        "vkgraph" => <flatmodel::vkgraph::Root as VerifyTable>::schema().names,
        "pte" => <flatmodel::pte::Root as VerifyTable>::schema().names,
        "cvimodel" => <flatmodel::cvimodel::Root as VerifyTable>::schema().names,
        "litertlm" => <flatmodel::litertlm::Root as VerifyTable>::schema().names,
        _ => return None,
    })
}

/// `text` with every `#N` (a field number) replaced by the field's name in `names`.
pub fn resolve(names: &FieldNames, text: &str) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('#') {
        out.push_str(&rest[..at]);
        let digits = &rest[at + 1..];
        let len = digits.bytes().take_while(u8::is_ascii_digit).count();
        let number = &digits[..len];
        match number.parse::<usize>().ok().and_then(|n| names.get(n)) {
            Some(name) => out.push_str(name),
            None if number.is_empty() => out.push('#'),
            None => return Err(format!("#{number}: no such field in this schema")),
        }
        rest = &digits[len..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Prints `text` with its field numbers named for `format`.
pub fn run(out: &mut Out, format: &str, text: &str) -> Result<Outcome, Failure> {
    let names = names_of(format).ok_or_else(|| {
        Failure::new(format!("unknown format '{format}': tflite, circle, vkgraph, pte, cvimodel or litertlm"))
    })?;
    match resolve(names, text) {
        Ok(named) => {
            writeln!(out, "{named}")?;
            Ok(Outcome::Ok)
        }
        Err(message) => Err(Failure::new(message)),
    }
}
