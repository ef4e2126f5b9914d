//! Timing one stage: repeated runs of a closure, each measured alone with [`Instant`], summed up
//! as the fastest run and the median.

use serde::Serialize;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// How many runs each stage gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runs {
    /// Exactly this many timed runs (`--runs N`).
    Exactly(u32),
    /// Runs until they took [`TARGET`] in all, from [`MIN_RUNS`] to [`AUTO_MAX_RUNS`].
    Auto,
}

/// The time [`Runs::Auto`] aims to spend on one stage.
pub const TARGET: Duration = Duration::from_millis(300);
/// The fewest runs [`Runs::Auto`] makes.
pub const MIN_RUNS: u32 = 5;
/// The most runs [`Runs::Auto`] makes (a stage of a microsecond would otherwise run 300,000
/// times).
pub const AUTO_MAX_RUNS: u32 = 10_000;

/// What the runs of a stage measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Timing {
    /// The timed runs (a warm-up is not counted).
    pub runs: u32,
    /// The fastest run, in nanoseconds.
    pub min_ns: u64,
    /// The median run, in nanoseconds (the mean of the two middle runs of an even count).
    pub median_ns: u64,
}

/// Times `stage`: with `warm_up`, one untimed run first; then each run calls `before`
/// (untimed: `--cold` evicts the file there) and times `stage` alone. Returns what was measured
/// and the last run's value (each run's value is kept from the optimiser by [`black_box`]).
pub fn time<R>(runs: Runs, warm_up: bool, mut before: impl FnMut(), mut stage: impl FnMut() -> R) -> (Timing, R) {
    let mut once = || {
        before();
        let start = Instant::now();
        let value = black_box(stage());
        (start.elapsed(), value)
    };
    let (first, mut last) = once();
    let mut times = Vec::new();
    if !warm_up {
        times.push(first);
    }
    let mut spent = Duration::ZERO;
    while more(runs, times.len(), spent) {
        // The last run's value goes first: a file read into memory is not held twice.
        drop(last);
        let (took, value) = once();
        times.push(took);
        spent = spent.saturating_add(took);
        last = value;
    }
    (summary(&mut times), last)
}

/// Whether a stage that made `done` timed runs, which took `spent` in all, runs again.
fn more(runs: Runs, done: usize, spent: Duration) -> bool {
    let done = u32::try_from(done).unwrap_or(u32::MAX);
    match runs {
        Runs::Exactly(n) => done < n,
        Runs::Auto => done < MIN_RUNS || (spent < TARGET && done < AUTO_MAX_RUNS),
    }
}

/// The count, fastest and median of `times` (sorted in place).
fn summary(times: &mut [Duration]) -> Timing {
    times.sort_unstable();
    let ns = |d: Option<&Duration>| d.map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
    let mid = times.len() / 2;
    let median = if times.len() % 2 == 1 {
        ns(times.get(mid))
    } else {
        let (a, b) = (ns(mid.checked_sub(1).and_then(|i| times.get(i))), ns(times.get(mid)));
        // The mean of two u64 without overflow.
        a / 2 + b / 2 + (a % 2 + b % 2) / 2
    };
    Timing { runs: u32::try_from(times.len()).unwrap_or(u32::MAX), min_ns: ns(times.first()), median_ns: median }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_is_the_middle_run_or_the_mean_of_the_two_middle_ones() {
        let ms = |v: &[u64]| v.iter().map(|&n| Duration::from_nanos(n)).collect::<Vec<_>>();
        assert_eq!(summary(&mut ms(&[30, 10, 20])), Timing { runs: 3, min_ns: 10, median_ns: 20 });
        assert_eq!(summary(&mut ms(&[40, 10, 30, 20])), Timing { runs: 4, min_ns: 10, median_ns: 25 });
        assert_eq!(summary(&mut ms(&[u64::MAX, u64::MAX])).median_ns, u64::MAX);
        assert_eq!(summary(&mut ms(&[7])), Timing { runs: 1, min_ns: 7, median_ns: 7 });
    }

    #[test]
    fn automatic_runs_fill_the_target_within_their_bounds() {
        let ms = Duration::from_millis;
        assert!(more(Runs::Auto, 0, Duration::ZERO));
        assert!(more(Runs::Auto, 4, ms(2000)), "at least {MIN_RUNS} runs");
        assert!(!more(Runs::Auto, 5, ms(2000)));
        assert!(more(Runs::Auto, 300, ms(299)));
        assert!(!more(Runs::Auto, 300, ms(300)));
        assert!(!more(Runs::Auto, 10_000, ms(1)), "at most {AUTO_MAX_RUNS} runs");
        assert!(more(Runs::Exactly(3), 2, ms(10_000)));
        assert!(!more(Runs::Exactly(3), 3, Duration::ZERO));
    }

    #[test]
    fn exact_runs_are_counted_without_the_warm_up() {
        let mut calls = 0;
        let mut befores = 0;
        let (timing, last) = time(
            Runs::Exactly(3),
            true,
            || befores += 1,
            || {
                calls += 1;
                calls
            },
        );
        assert_eq!((timing.runs, calls, befores, last), (3, 4, 4, 4));
        assert!(timing.min_ns <= timing.median_ns);
        let (timing, _) = time(Runs::Exactly(2), false, || {}, || ());
        assert_eq!(timing.runs, 2);
    }
}
