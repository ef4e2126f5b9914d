//! Circle's training parameters (`CIRCLE_TRAINING`) in `inspect`: the optimizer, the loss, the
//! epochs and batch size, and how many operators are trainable.

use crate::summary::facts::Named;
use flatmodel::circle_training::{LossFnOptions, ModelTraining, OptimizerOptions};
use serde::Serialize;
use std::io::Write;

/// Circle's training parameters (the trainable operators counted, not listed).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Training {
    /// The version of the training schema.
    pub version: u32,
    /// The optimizer (`ADAM`).
    pub optimizer: Named,
    /// The optimizer's learning rate, where its options give one.
    pub learning_rate: Option<f32>,
    /// The loss function (`MEAN_SQUARED_ERROR`).
    pub loss: Named,
    /// Whether the loss takes logits, where its options say.
    pub from_logits: Option<bool>,
    /// How the loss is reduced over the batch (`Sum`).
    pub loss_reduction: Named,
    /// The number of epochs.
    pub epochs: i32,
    /// The batch size.
    pub batch_size: i32,
    /// How many operators are trainable.
    pub trainable_operators: usize,
}

/// The summary of `training`.
pub fn of(training: &ModelTraining<'_>) -> Training {
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
    Training {
        version: training.version(),
        optimizer: Named::new(optimizer.name(), optimizer.0),
        learning_rate,
        loss: Named::new(loss.name(), loss.0),
        from_logits,
        loss_reduction: Named::new(reduction.name(), reduction.0),
        epochs: training.epochs(),
        batch_size: training.batch_size(),
        trainable_operators: training.trainable_ops().map_or(0, |v| v.len()),
    }
}

impl Training {
    /// One line: `training: ADAM (learning rate 0.001), loss MEAN_SQUARED_ERROR (Sum), 5 epochs, ...`.
    pub fn print(&self, out: &mut dyn Write) -> std::io::Result<()> {
        // In its shortest form; a rate that is not finite (`null` as JSON) is not shown.
        let rate =
            self.learning_rate.filter(|r| r.is_finite()).map(|r| format!(" (learning rate {r})")).unwrap_or_default();
        let logits = if self.from_logits == Some(true) { ", from logits" } else { "" };
        writeln!(
            out,
            "  training:            {}{rate}, loss {} ({}{logits}), {} epochs, batch size {}, {} trainable operators",
            self.optimizer, self.loss, self.loss_reduction, self.epochs, self.batch_size, self.trainable_operators
        )
    }
}
