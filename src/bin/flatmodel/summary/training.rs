//! Circle's training parameters (`CIRCLE_TRAINING`) in `inspect`: the optimizer, the loss, the
//! epochs and batch size, and how many operators are trainable.

use flatmodel::circle_training::{LossFnOptions, ModelTraining, OptimizerOptions};
use serde_json::{json, Value};
use std::io::Write;

/// An enum value by its name, or its number when the schema does not name it.
fn named(name: Option<&str>, number: i8) -> Value {
    name.map_or_else(|| json!(number), |n| json!(n))
}

/// The summary of `training` (a few fields; the trainable operators counted, not listed).
pub fn summary(training: &ModelTraining<'_>) -> Value {
    let learning_rate = match training.optimizer_opt() {
        OptimizerOptions::SGDOptions(o) => Some(o.learning_rate()),
        OptimizerOptions::AdamOptions(o) => Some(o.learning_rate()),
        _ => None,
    };
    let from_logits = match training.lossfn_opt() {
        LossFnOptions::SparseCategoricalCrossentropyOptions(o) => Some(o.from_logits()),
        LossFnOptions::CategoricalCrossentropyOptions(o) => Some(o.from_logits()),
        _ => None,
    };
    let (optimizer, loss, reduction) = (training.optimizer(), training.lossfn(), training.loss_reduction_type());
    json!({
        "version": training.version(),
        "optimizer": named(optimizer.name(), optimizer.0),
        "learning_rate": learning_rate,
        "loss": named(loss.name(), loss.0),
        "from_logits": from_logits,
        "loss_reduction": named(reduction.name(), reduction.0),
        "epochs": training.epochs(),
        "batch_size": training.batch_size(),
        "trainable_operators": training.trainable_ops().map_or(0, |v| v.len()),
    })
}

/// One line: `training: ADAM (learning rate 0.001), MEAN_SQUARED_ERROR (Sum), 5 epochs of 32, ...`.
pub fn print(out: &mut dyn Write, s: &Value) -> std::io::Result<()> {
    let text = |v: &Value| v.as_str().map_or_else(|| v.to_string(), str::to_string);
    // Stored as an f32: shown in its shortest form.
    let rate = s["learning_rate"].as_f64().map(|r| format!(" (learning rate {})", r as f32)).unwrap_or_default();
    let logits = if s["from_logits"].as_bool() == Some(true) { ", from logits" } else { "" };
    writeln!(
        out,
        "  training:            {}{rate}, loss {} ({}{logits}), {} epochs, batch size {}, {} trainable operators",
        text(&s["optimizer"]),
        text(&s["loss"]),
        text(&s["loss_reduction"]),
        s["epochs"],
        s["batch_size"],
        s["trainable_operators"]
    )
}
