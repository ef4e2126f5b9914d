//! `flatmodel inspect --tflm-resolver MODEL`: the C++ lines that register a TFLite model's
//! operators with TensorFlow Lite Micro's `MicroMutableOpResolver`.
//!
//! The set and the names follow TFLM's own generator
//! (`generate_micro_mutable_op_resolver_from_model.py`): each operator code's builtin name, or
//! its custom code for a custom operator (the bare `CUSTOM` left out once a custom code is
//! found), sorted by that name; a name becomes a method by dropping `TFLite`, splitting at `_`
//! and `-`, capitalising each word (`CONV_2D` -> `AddConv2D`), then spelling `LSTM` and
//! `BatchMatMul` as TFLM does.

use flatmodel::graph::{ModelView, OperatorKind};
use std::collections::BTreeSet;
use std::io::Write;

/// The names TFLM's generator collects from `model`'s operator codes, sorted, and the codes it
/// cannot name (builtin codes this schema does not know).
pub fn operator_names<'a, M: ModelView<'a>>(model: M) -> (BTreeSet<String>, Vec<i32>) {
    // Borrowed from the file while collecting, so that codes sharing one name copy it once.
    let mut names: BTreeSet<&str> = BTreeSet::new();
    let mut unnamed = Vec::new();
    let mut custom_found = false;
    for kind in (0..model.operator_code_count()).filter_map(|i| model.operator_kind_at(i)) {
        match kind {
            OperatorKind::Custom { name, .. } if !name.is_empty() => {
                custom_found = true;
                names.insert(name);
            }
            OperatorKind::Custom { .. } => {
                names.insert("CUSTOM");
            }
            OperatorKind::Builtin { name: Some(name), .. } => {
                names.insert(name);
            }
            OperatorKind::Builtin { code, name: None, .. } => unnamed.push(code),
        }
    }
    if custom_found {
        names.remove("CUSTOM");
    }
    (names.into_iter().map(str::to_string).collect(), unnamed)
}

/// The resolver method that registers operator `name`: `CONV_2D` -> `AddConv2D`.
pub fn method(name: &str) -> String {
    let mut out = String::from("Add");
    for part in name.replace("TFLite", "").split(['_', '-']) {
        let mut chars = part.chars();
        match chars.next() {
            Some(first) if first.is_alphabetic() && part.chars().count() > 1 => {
                out.extend(first.to_uppercase());
                out.push_str(&chars.as_str().to_lowercase());
            }
            _ => out.push_str(&part.to_uppercase()),
        }
    }
    out.replace("Lstm", "LSTM").replace("BatchMatmul", "BatchMatMul")
}

/// Prints the resolver's declaration and one `Add` call per operator of `model`.
pub fn print<'a, M: ModelView<'a>>(out: &mut dyn Write, model: M) -> std::io::Result<()> {
    let (names, unnamed) = operator_names(model);
    for code in unnamed {
        writeln!(out, "// BuiltinOperator({code}) is not named by the schema flatmodel reads: register it by hand")?;
    }
    writeln!(out, "tflite::MicroMutableOpResolver<{}> resolver;", names.len())?;
    for name in &names {
        writeln!(out, "resolver.{}();", method(name))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::method;

    #[test]
    fn names_become_tflms_method_names() {
        // Examples from TFLM's generator and its resolver's declarations.
        assert_eq!(method("CONV_2D"), "AddConv2D");
        assert_eq!(method("DEPTHWISE_CONV_2D"), "AddDepthwiseConv2D");
        assert_eq!(method("TFLite_Detection_PostProcess"), "AddDetectionPostprocess");
        assert_eq!(method("BATCH_MATMUL"), "AddBatchMatMul");
        assert_eq!(method("UNIDIRECTIONAL_SEQUENCE_LSTM"), "AddUnidirectionalSequenceLSTM");
        assert_eq!(method("L2_NORMALIZATION"), "AddL2Normalization");
        assert_eq!(method("ADD"), "AddAdd");
    }
}
