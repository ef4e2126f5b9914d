//! The memory a runtime needs for a subgraph's activations, estimated two ways: the sum of its
//! non-constant tensors' bytes, and a greedy plan over their lifetimes in the manner of TFLite
//! Micro's `GreedyMemoryPlanner`.
//!
//! The plan: each non-constant tensor with a fixed-size element type lives from the first
//! operator that reads or writes it to the last (a subgraph input from the start, a subgraph
//! output to the end, a variable tensor throughout); sizes are rounded up to 16 bytes (TFLM's
//! buffer alignment); tensors are placed largest first (ties by index), each at the lowest
//! offset where it overlaps no placed tensor whose lifetime it shares. The arena is the highest
//! end. The stored shape is used, so a dynamic dimension counts as its stored size.

use crate::convert::to_u64;
use crate::summary::facts::TensorFacts;
use serde::Serialize;

/// Bytes each buffer is aligned to, as TFLM's planner aligns them.
const ALIGN: u64 = 16;

/// One subgraph's estimate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Arena {
    /// Bytes of every non-constant tensor with a fixed-size element type.
    #[serde(rename = "non_constant_bytes")]
    pub sum: u64,
    /// The greedy plan's size, `None` when planning would cost more than its budget.
    #[serde(rename = "greedy_plan_bytes")]
    pub planned: Option<u64>,
    /// Non-constant tensors left out: element types without a fixed size (strings, resources).
    #[serde(rename = "unsized_tensors")]
    pub without_size: usize,
}

/// A tensor to place: its aligned size and the first and last operator that use it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lifetime {
    /// Bytes, aligned.
    pub size: u64,
    /// First operator index.
    pub first: usize,
    /// Last operator index.
    pub last: usize,
}

/// The subgraph's uses of each tensor: for each operator, the tensor indices it reads, writes
/// or keeps as intermediates.
#[derive(Debug)]
pub struct Uses<'s> {
    /// The subgraph's tensors.
    pub tensors: &'s [TensorFacts],
    /// Each operator's tensor indices.
    pub operators: &'s [Vec<i32>],
    /// The subgraph's inputs.
    pub inputs: &'s [i32],
    /// The subgraph's outputs.
    pub outputs: &'s [i32],
}

impl Arena {
    /// The estimate for one subgraph. The plan spends comparisons from `steps_left`, shared by
    /// every subgraph of a model so that planning stays linear in the file, and gives up when
    /// they run out.
    pub fn of(uses: &Uses<'_>, steps_left: &mut u64) -> Arena {
        let n = uses.tensors.len();
        let mut span: Vec<Option<(usize, usize)>> = vec![None; n];
        let mut touch = |t: i32, at: usize| {
            if let Some(s) = usize::try_from(t).ok().and_then(|t| span.get_mut(t)) {
                *s = Some(s.map_or((at, at), |(a, b)| (a.min(at), b.max(at))));
            }
        };
        let end = uses.operators.len().saturating_sub(1);
        for &t in uses.inputs {
            touch(t, 0);
        }
        for (i, op) in uses.operators.iter().enumerate() {
            for &t in op {
                touch(t, i);
            }
        }
        for &t in uses.outputs {
            touch(t, end);
        }
        let mut sum = 0u64;
        let mut without_size = 0;
        let mut lifetimes = Vec::new();
        for (t, s) in uses.tensors.iter().zip(&span) {
            if t.data_bytes > 0 && !t.is_variable {
                continue;
            }
            let Some(bytes) = t.runtime_bytes() else {
                without_size += 1;
                continue;
            };
            sum = sum.saturating_add(bytes);
            let (first, last) = match (t.is_variable, s) {
                (true, _) => (0, end),
                (false, Some(s)) => *s,
                (false, None) => continue,
            };
            let size = bytes.div_ceil(ALIGN).saturating_mul(ALIGN);
            lifetimes.push(Lifetime { size, first, last });
        }
        Arena { sum, planned: plan(&mut lifetimes, steps_left), without_size }
    }

    /// The `arena:` line: the sum of the non-constant tensors and the greedy plan.
    pub fn print(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        use crate::summary::weights::grouped;
        let plan =
            self.planned.map_or_else(|| "not planned (too many tensors)".into(), |b| format!("{} bytes", grouped(b)));
        let left_out = match self.without_size {
            0 => String::new(),
            n => format!(" ({n} tensors of types without a fixed size left out)"),
        };
        writeln!(
            out,
            "      arena: {} bytes of non-constant tensors, {plan} planned greedily by lifetime{left_out}",
            grouped(self.sum)
        )
    }
}

/// The greedy plan's arena size for `tensors`, or `None` when its comparisons (one per placed
/// tensor for each tensor placed) would pass `steps_left`, which it spends.
pub fn plan(tensors: &mut [Lifetime], steps_left: &mut u64) -> Option<u64> {
    tensors.sort_by_key(|t| core::cmp::Reverse(t.size));
    let mut placed: Vec<(u64, Lifetime)> = Vec::with_capacity(tensors.len());
    let mut arena = 0u64;
    for &t in tensors.iter() {
        *steps_left = steps_left.checked_sub(to_u64(placed.len()))?;
        // The placed tensors whose lifetimes meet this one's, by offset.
        let mut live: Vec<(u64, u64)> = placed
            .iter()
            .filter(|(_, p)| p.first <= t.last && t.first <= p.last)
            .map(|&(offset, p)| (offset, offset.saturating_add(p.size)))
            .collect();
        live.sort_unstable();
        let mut offset = 0u64;
        for (start, end) in live {
            if start >= offset.saturating_add(t.size) {
                break;
            }
            offset = offset.max(end);
        }
        arena = arena.max(offset.saturating_add(t.size));
        placed.push((offset, t));
    }
    Some(arena)
}

#[cfg(test)]
mod tests {
    use super::{plan, Lifetime};

    fn t(size: u64, first: usize, last: usize) -> Lifetime {
        Lifetime { size, first, last }
    }

    #[test]
    fn tensors_whose_lifetimes_do_not_meet_share_memory() {
        // A and C never live together, so C reuses A's bytes; B meets both, so it goes above.
        let mut tensors = [t(32, 0, 1), t(16, 1, 2), t(32, 2, 3)];
        assert_eq!(plan(&mut tensors, &mut 100), Some(48));
    }

    #[test]
    fn a_gap_between_placed_tensors_is_used() {
        // Placed largest first: 64 at 0..64 and 48 at 64..112 (both ops 0-4); 32 (op 5 only)
        // reuses offset 0; 16 (ops 4-5) meets all three, and the gap above the 32 (32..64) is
        // still taken by the 64 at op 4, so it goes to 112: the arena is 128.
        let mut tensors = [t(16, 4, 5), t(32, 5, 5), t(48, 0, 4), t(64, 0, 4)];
        assert_eq!(plan(&mut tensors, &mut 100), Some(128));
        // Disjoint in time, all four share offset 0: the arena is the largest.
        let mut disjoint = [t(16, 0, 0), t(32, 1, 1), t(48, 2, 2), t(64, 3, 3)];
        assert_eq!(plan(&mut disjoint, &mut 100), Some(64));
    }

    #[test]
    fn planning_past_its_budget_gives_up() {
        // Three tensors: 0 + 1 + 2 comparisons.
        let mut tensors = [t(16, 0, 1), t(16, 0, 1), t(16, 0, 1)];
        assert_eq!(plan(&mut tensors, &mut 2), None);
        let mut left = 5;
        assert_eq!(plan(&mut tensors, &mut left), Some(48));
        assert_eq!(left, 2, "what is left serves the next subgraph");
    }
}
