//! The warnings of one file, as `verify` and `inspect` list them: every one counted, the first
//! [`Warnings::SHOWN`] kept as text so a model with thousands of them stays readable and small.

use crate::convert::to_u64;
use serde::Serialize;
use std::fmt::Display;
use std::io::Write;

/// A file's warnings; as JSON `{"count": N, "shown": [...]}`.
#[derive(Debug, Default, Serialize)]
pub struct Warnings {
    #[serde(rename = "count")]
    total: u64,
    shown: Vec<String>,
}

impl Warnings {
    /// How many warnings are kept as text.
    pub const SHOWN: usize = 100;

    /// Counts `warning`, keeping its text while fewer than [`Warnings::SHOWN`] are kept.
    pub fn push(&mut self, warning: impl Display) {
        self.total = self.total.saturating_add(1);
        if self.shown.len() < Self::SHOWN {
            self.shown.push(warning.to_string());
        }
    }

    /// Prints one line per kept warning, each after `prefix`, then how many were left out.
    pub fn print(&self, out: &mut dyn Write, prefix: &str) -> std::io::Result<()> {
        for w in &self.shown {
            writeln!(out, "{prefix}{w}")?;
        }
        let left_out = self.total.saturating_sub(to_u64(self.shown.len()));
        if left_out > 0 {
            writeln!(out, "{prefix}... and {left_out} more")?;
        }
        Ok(())
    }

    /// The warnings `for_each` reports (a model's `for_each_warning`); when it stops early (its
    /// work budget ran out on a model of shared subtrees), the last entry says so.
    pub fn collect<W: Display>(for_each: impl FnOnce(&mut dyn FnMut(W)) -> Result<(), flatmodel::Error>) -> Warnings {
        let mut warnings = Warnings::default();
        if let Err(e) = for_each(&mut |w| warnings.push(w)) {
            warnings.push(format_args!("the list of warnings stops here: {e}"));
        }
        warnings
    }

    /// How many there are.
    pub fn count(&self) -> u64 {
        self.total
    }
}
