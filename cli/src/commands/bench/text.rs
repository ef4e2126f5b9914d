//! `bench`'s text: a line naming the file, then a table of its stages (runs, fastest, median,
//! throughput at the fastest), then what the walk and dump counted, the error and the notes.

use super::cold::Cold;
use super::measure::{FileBench, Verdict};
use super::timing::Timing;
use crate::convert::to_f64;
use crate::summary::weights::grouped;
use std::io::{self, Write};

/// What a stage without a timing shows.
const NONE: &str = "—";

/// Prints `bench`, whose files were opened as `access` (`read` or `map`) says.
pub fn print(out: &mut dyn Write, bench: &FileBench, access: &str) -> io::Result<()> {
    let path = &bench.path;
    let message = bench.error.as_ref().map(|e| e.error.text());
    match bench.verdict {
        Verdict::Unreadable => return writeln!(out, "{path}: error: {}", message.unwrap_or_default()),
        Verdict::Unsupported => return writeln!(out, "{path}: not timed: {}", message.unwrap_or_default()),
        _ => {}
    }
    let format = bench.format.unwrap_or("unknown format");
    let verdict = match bench.verdict {
        Verdict::Valid => "valid",
        Verdict::UnknownFormat => "no format flatmodel reads",
        _ => "invalid",
    };
    let cold = match bench.cold {
        None => "",
        Some(Cold::Evicted) => ", cold (evicted from the page cache before each open)",
        Some(Cold::Unsupported) => ", cold requested but unsupported here (the page cache was not evicted)",
    };
    let bytes = bench.bytes.unwrap_or_default();
    writeln!(out, "{path}: {format}, {} bytes, {verdict}{cold}", grouped(bytes))?;
    writeln!(out, "  {:<12} {:>8} {:>10} {:>10} {:>10}", "stage", "runs", "min", "median", "MB/s")?;
    let s = &bench.stages;
    let open = format!("open ({access})");
    let rows =
        [(open.as_str(), s.open), ("structure", s.structure), ("rules", s.rules), ("walk", s.walk), ("dump", s.dump)];
    for (stage, timing) in rows {
        match timing {
            Some(Timing { runs, min_ns, median_ns }) => writeln!(
                out,
                "  {stage:<12} {runs:>8} {:>10} {:>10} {:>10}",
                duration(min_ns),
                duration(median_ns),
                throughput(bytes, min_ns)
            )?,
            None => writeln!(out, "  {stage:<12} {NONE:>8} {NONE:>10} {NONE:>10} {NONE:>10}")?,
        }
    }
    let mut counted = Vec::new();
    if let Some(objects) = bench.walk_objects {
        counted.push(format!("the walk visits {} tables, vectors and strings", grouped(objects)));
    }
    if let Some(written) = bench.dump_bytes {
        counted.push(format!("the dump writes {} bytes of JSON", grouped(written)));
    }
    if !counted.is_empty() {
        writeln!(out, "  {}", counted.join("; "))?;
    }
    if let Some(error) = &bench.error {
        let stage = error.stage.unwrap_or("open");
        writeln!(out, "  invalid ({stage}): {}", error.error.text())?;
    }
    for note in &bench.notes {
        writeln!(out, "  note: {note}")?;
    }
    Ok(())
}

/// `ns` nanoseconds for a reader: `850 ns`, `12.3 µs`, `4.56 ms`, `1.23 s` (three significant
/// digits).
fn duration(ns: u64) -> String {
    let x = to_f64(ns);
    let (value, unit) = match ns {
        0..1_000 => return format!("{ns} ns"),
        1_000..1_000_000 => (x / 1e3, "µs"),
        1_000_000..1_000_000_000 => (x / 1e6, "ms"),
        _ => (x / 1e9, "s"),
    };
    let decimals = match value {
        v if v < 10.0 => 2,
        v if v < 100.0 => 1,
        _ => 0,
    };
    format!("{value:.decimals$} {unit}")
}

/// `bytes` read in `ns` nanoseconds, in megabytes (10^6) per second.
fn throughput(bytes: u64, ns: u64) -> String {
    if ns == 0 {
        return NONE.into();
    }
    let rate = to_f64(bytes) / to_f64(ns) * 1e3;
    match rate {
        r if r < 10.0 => format!("{r:.2}"),
        r if r < 100.0 => format!("{r:.1}"),
        r => format!("{r:.0}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_in_their_unit_with_three_digits() {
        assert_eq!(duration(0), "0 ns");
        assert_eq!(duration(999), "999 ns");
        assert_eq!(duration(1_000), "1.00 µs");
        assert_eq!(duration(12_345), "12.3 µs");
        assert_eq!(duration(456_000), "456 µs");
        assert_eq!(duration(4_560_000), "4.56 ms");
        assert_eq!(duration(1_234_000_000), "1.23 s");
        assert_eq!(duration(u64::MAX), "18446744074 s");
    }

    #[test]
    fn throughput_is_megabytes_per_second_at_the_fastest_run() {
        assert_eq!(throughput(1_000_000, 1_000_000), "1000");
        assert_eq!(throughput(3_164, 1_000), "3164");
        assert_eq!(throughput(1_000, 200_000), "5.00");
        assert_eq!(throughput(5, 0), "—");
    }
}
