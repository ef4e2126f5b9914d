#!/usr/bin/env python3
"""Per-model ratios of run-time-schema to compiled-in verification, from `cargo bench -p flatmodel-benches --bench reflect`.

Usage: benches/reflect_ratios.py [CRITERION_DIR]   (default: target/criterion)

Reads each benchmark's `new/benchmark.json` and `new/estimates.json` under `schema_verify/` and
`schema_load/`, and prints a Markdown table: each model's mean times and the ratio run_time /
compiled, then the geometric mean and the worst ratio, then the schema load times.
"""
import json
import math
import pathlib
import sys


def means(root):
    out = {}
    for bench in root.glob("**/new/benchmark.json"):
        meta = json.loads(bench.read_text())
        est = json.loads((bench.parent / "estimates.json").read_text())
        out[meta["full_id"]] = est["mean"]["point_estimate"]
    return out


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "target/criterion")
    m = means(root)
    rows = []
    for full_id, compiled in sorted(m.items()):
        prefix = "schema_verify/compiled/"
        if not full_id.startswith(prefix):
            continue
        name = full_id[len(prefix):]
        run_time = m.get("schema_verify/run_time/" + name)
        if run_time is None:
            continue
        rows.append((name, compiled, run_time, run_time / compiled))
    if not rows:
        sys.exit("no schema_verify results under " + str(root))
    print("| model | compiled (µs) | run time (µs) | ratio |")
    print("|---|---:|---:|---:|")
    for name, c, r, ratio in rows:
        print(f"| {name} | {c / 1e3:.2f} | {r / 1e3:.2f} | {ratio:.3f} |")
    geo = math.exp(sum(math.log(r[3]) for r in rows) / len(rows))
    worst = max(rows, key=lambda r: r[3])
    print(f"\n{len(rows)} models: geometric mean {geo:.3f}, worst {worst[3]:.3f} ({worst[0]})")
    for full_id in ("schema_load/tflite_fbs", "schema_load/tflite_bfbs"):
        if full_id in m:
            print(f"{full_id}: {m[full_id] / 1e3:.1f} µs")


if __name__ == "__main__":
    main()
