//! What a model needs of a runtime: the schema features and versions it actually uses, so a
//! user can see why an older runtime refuses it.

use crate::budget::{Budget, OverBudget};
use crate::summary::facts::{Quant, TensorFacts};
use flatmodel::graph::{ModelView, OperatorKind, OperatorView, SubGraphView};
use serde::Serialize;
use std::collections::BTreeSet;

/// One feature the model uses, and what of it.
#[derive(Debug, Serialize)]
pub struct Need {
    /// A stable key (`buffer_offset`, `builtin_options_2`, ...).
    pub feature: &'static str,
    /// For a person: what it is and where.
    pub detail: String,
}

/// The features `model` uses that not every runtime reads, in a fixed order; `facts` are its
/// subgraphs' tensors as the summary listed them.
pub fn of<'a, M: ModelView<'a>>(
    model: M,
    facts: &[Vec<TensorFacts>],
    budget: &mut Budget,
) -> Result<Vec<Need>, OverBudget> {
    let mut needs = Vec::new();
    let mut push = |feature, detail: String| needs.push(Need { feature, detail });
    let codes: Vec<OperatorKind<'a>> =
        (0..model.operator_code_count()).filter_map(|i| model.operator_kind_at(i)).collect();
    budget.charge(codes.len())?;
    // The last code of the newest version (its name copied once, however many codes share it).
    let newest = codes.iter().fold(None, |best: Option<&OperatorKind<'a>>, k| match best {
        Some(b) if b.version() > k.version() => Some(b),
        _ => Some(k),
    });
    if let Some(k) = newest.filter(|k| k.version() > 1) {
        let (version, name) = (k.version(), k.to_string());
        budget.charge(name.len())?;
        push("operator_versions", format!("operator versions up to {version} ({name} v{version})"));
    }
    let extended: BTreeSet<String> = codes
        .iter()
        .filter(|k| matches!(k, OperatorKind::Builtin { code, .. } if *code > 127))
        .map(|k| k.to_string())
        .collect();
    if !extended.is_empty() {
        push(
            "extended_builtin_codes",
            format!("builtin codes past 127 (OperatorCode.builtin_code): {}", list(&extended)),
        );
    }
    let negative: BTreeSet<String> = codes
        .iter()
        .filter(|k| matches!(k, OperatorKind::Builtin { code, .. } if *code < 0))
        .map(|k| k.to_string())
        .collect();
    if !negative.is_empty() {
        push("negative_builtin_codes", format!("Circle's own operators (negative codes): {}", list(&negative)));
    }
    // Custom names borrowed from the file: copied only for the eight the line shows.
    let custom: BTreeSet<&str> = codes
        .iter()
        .filter_map(|k| match k {
            OperatorKind::Custom { name, .. } => Some(*name),
            _ => None,
        })
        .collect();
    budget.charge(custom.iter().take(8).map(|n| n.len()).sum())?;
    if !custom.is_empty() {
        push("custom_operators", format!("custom operators the runtime must register: {}", list(&custom)));
    }
    let (mut options_2, mut large_custom, mut control_flow) = (false, false, false);
    let (mut types, mut sparse, mut blockwise, mut dynamic, mut variable) =
        (BTreeSet::new(), false, false, false, false);
    for sg in model.subgraph_list().unwrap_or_default() {
        for op in sg.operators().unwrap_or_default() {
            budget.charge(1)?;
            options_2 |= op.options_types()[1] != 0;
            large_custom |= op.large_custom_options().0 > 1;
            op.for_each_called_subgraph(&mut |_| control_flow = true);
        }
    }
    for t in facts.iter().flatten() {
        let element = t.element;
        // INT4 (17) and the types after it, Circle's own (negative) and unnamed codes.
        if element.code < 0 || element.code >= 17 || element.name.is_none() {
            types.insert(element.to_string());
        }
        sparse |= t.sparse;
        blockwise |= matches!(t.quant, Some(Quant::Blockwise { .. }));
        dynamic |= t.shape_signature.as_ref().is_some_and(|s| s.iter().any(|&d| d < 0));
        variable |= t.is_variable;
    }
    if model.buffer_bytes().1 > 0 {
        push("buffer_offset", "weights after the flatbuffer (Buffer.offset/size)".into());
    }
    if large_custom {
        push(
            "large_custom_options",
            "custom options after the flatbuffer (Operator.large_custom_options_offset)".into(),
        );
    }
    if options_2 {
        push("builtin_options_2", "operators with builtin_options_2 (StableHLO and newer options)".into());
    }
    if control_flow {
        push("control_flow", "control-flow operators calling other subgraphs".into());
    }
    if !types.is_empty() {
        push("element_types", format!("element types from INT4 on: {}", list(&types)));
    }
    for (used, feature, detail) in [
        (sparse, "sparsity", "sparse tensors (Tensor.sparsity)"),
        (blockwise, "blockwise_quantization", "block-wise quantization"),
        (dynamic, "dynamic_shapes", "dynamic dimensions (-1 in shape_signature)"),
        (variable, "variable_tensors", "variable tensors (state kept across runs)"),
    ] {
        if used {
            push(feature, detail.into());
        }
    }
    Ok(needs)
}

/// `a, b, c`, at most eight named.
fn list<S: AsRef<str>>(names: &BTreeSet<S>) -> String {
    let shown: Vec<&str> = names.iter().take(8).map(AsRef::as_ref).collect();
    match names.len() {
        n if n > 8 => format!("{} and {} more", shown.join(", "), n - 8),
        _ => shown.join(", "),
    }
}

/// The `needs:` line: every need's detail, `; `-separated (nothing when there are none).
pub fn print(out: &mut dyn std::io::Write, label: &str, needs: &[Need]) -> std::io::Result<()> {
    if needs.is_empty() {
        return Ok(());
    }
    let details: Vec<&str> = needs.iter().map(|n| n.detail.as_str()).collect();
    writeln!(out, "{label}{}", details.join("; "))
}
