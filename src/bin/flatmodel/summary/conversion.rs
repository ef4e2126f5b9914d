//! The converter's record (`CONVERSION_METADATA`) in `inspect`: which TensorFlow converted the
//! model, from what, with which optimizations.

use flatmodel::conversion_metadata::ConversionMetadata;
use serde_json::{json, Value};
use std::io::Write;

/// The summary of `record` (a few fields, a list of modes bounded by the file).
pub fn summary(record: &ConversionMetadata<'_>) -> Value {
    let env = record.environment();
    let options = record.options();
    let modes: Vec<Value> = options
        .and_then(|o| o.model_optimization_modes())
        .into_iter()
        .flat_map(|v| v.iter())
        .map(|m| m.name().map_or_else(|| json!(m.0), |n| json!(n)))
        .collect();
    json!({
        "tensorflow_version": env.and_then(|e| e.tensorflow_version()),
        "model_type": env.map(|e| e.model_type()).map(|t| t.name().map_or_else(|| json!(t.0), |n| json!(n))),
        "optimizations": modes,
        "allow_custom_ops": options.map(|o| o.allow_custom_ops()),
        "enable_select_tf_ops": options.map(|o| o.enable_select_tf_ops()),
        "force_select_tf_ops": options.map(|o| o.force_select_tf_ops()),
    })
}

/// One line: `TensorFlow 2.11.0 from KERAS_MODEL; optimizations: none; ...`.
pub fn print(out: &mut dyn Write, s: &Value) -> std::io::Result<()> {
    let text = |v: &Value| v.as_str().map_or_else(|| v.to_string(), str::to_string);
    let modes: Vec<String> = s["optimizations"].as_array().into_iter().flatten().map(text).collect();
    let mut flags = Vec::new();
    for (key, shown) in [("allow_custom_ops", "custom ops allowed"), ("enable_select_tf_ops", "select TF ops")] {
        if s[key].as_bool() == Some(true) {
            flags.push(shown);
        }
    }
    if s["force_select_tf_ops"].as_bool() == Some(true) {
        flags.push("all ops as select TF ops");
    }
    writeln!(
        out,
        "  converted by:        TensorFlow {} from {}; optimizations: {}{}",
        text(&s["tensorflow_version"]),
        text(&s["model_type"]),
        if modes.is_empty() { "none".into() } else { modes.join(", ") },
        if flags.is_empty() { String::new() } else { format!("; {}", flags.join(", ")) }
    )
}
