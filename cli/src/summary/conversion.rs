//! The converter's record (`CONVERSION_METADATA`) in `inspect`: which TensorFlow converted the
//! model, from what, with which optimizations.

use crate::summary::facts::Named;
use flatmodel::conversion_metadata::ConversionMetadata;
use serde::Serialize;
use std::io::Write;

/// The converter's record: its environment and options (`None` where the record has none).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Conversion {
    /// The TensorFlow version (`2.11.0`).
    pub tensorflow_version: Option<String>,
    /// What the converter was given (`KERAS_MODEL`).
    pub model_type: Option<Named>,
    /// The optimizations applied (`PTQ_FULL_INTEGER`).
    pub optimizations: Vec<Named>,
    /// Whether custom operators were allowed.
    pub allow_custom_ops: Option<bool>,
    /// Whether select TensorFlow operators were enabled.
    pub enable_select_tf_ops: Option<bool>,
    /// Whether every operator was converted as a select TensorFlow operator.
    pub force_select_tf_ops: Option<bool>,
}

/// The summary of `record` (a few fields, a list of modes bounded by the file).
pub fn of(record: &ConversionMetadata<'_>) -> Conversion {
    let env = record.environment();
    let options = record.options();
    let optimizations = options
        .and_then(|o| o.model_optimization_modes())
        .into_iter()
        .flatten()
        .map(|m| Named::new(m.name(), m.0))
        .collect();
    Conversion {
        tensorflow_version: env.and_then(|e| e.tensorflow_version()).map(str::to_string),
        model_type: env.map(|e| e.model_type()).map(|t| Named::new(t.name(), t.0)),
        optimizations,
        allow_custom_ops: options.map(|o| o.allow_custom_ops()),
        enable_select_tf_ops: options.map(|o| o.enable_select_tf_ops()),
        force_select_tf_ops: options.map(|o| o.force_select_tf_ops()),
    }
}

impl Conversion {
    /// One line: `TensorFlow 2.11.0 from KERAS_MODEL; optimizations: none; ...` (`null` for
    /// what the record lacks).
    pub fn print(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let modes: Vec<String> = self.optimizations.iter().map(Named::to_string).collect();
        let mut flags = Vec::new();
        for (set, shown) in [
            (self.allow_custom_ops, "custom ops allowed"),
            (self.enable_select_tf_ops, "select TF ops"),
            (self.force_select_tf_ops, "all ops as select TF ops"),
        ] {
            if set == Some(true) {
                flags.push(shown);
            }
        }
        writeln!(
            out,
            "  converted by:        TensorFlow {} from {}; optimizations: {}{}",
            self.tensorflow_version.as_deref().unwrap_or("null"),
            self.model_type.as_ref().map_or_else(|| "null".into(), Named::to_string),
            if modes.is_empty() { "none".into() } else { modes.join(", ") },
            if flags.is_empty() { String::new() } else { format!("; {}", flags.join(", ")) }
        )
    }
}
