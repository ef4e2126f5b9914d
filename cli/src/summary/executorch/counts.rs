//! Operator counts, most frequent first: as the JSON every format's `operators` shares
//! (`{name, count}`) and as aligned lines.

use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;

/// An operator and how often the graph calls it.
#[derive(Debug, Serialize)]
pub struct OperatorCount {
    /// Its name.
    pub name: String,
    /// How many calls.
    pub count: u64,
}

/// Operator counts in the layout every format's `operators` shares: `{name, count}`, most
/// frequent first (a Vulkan graph's operators have no version).
pub fn operator_list(counts: BTreeMap<String, u64>) -> Vec<OperatorCount> {
    let mut rows: Vec<OperatorCount> = counts.into_iter().map(|(name, count)| OperatorCount { name, count }).collect();
    rows.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.name.cmp(&b.name)));
    rows
}

/// Operator counts, one aligned line each, most frequent first.
pub fn print_histogram<'s>(
    out: &mut dyn Write,
    counts: impl Iterator<Item = (&'s str, u64)>,
    indent: &str,
) -> std::io::Result<()> {
    let mut rows: Vec<(&str, u64)> = counts.collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    for (name, n) in rows {
        writeln!(out, "{indent}{n:>6}  {name}")?;
    }
    Ok(())
}
