#!/usr/bin/env python3
"""Turns one benches/run.sh run into issue 9's per-file ratio table (markdown).

Usage: python3 benches/results.py [RUN_DIR] > table.md
(RUN_DIR defaults to target/bench-run/latest.)

RUN_DIR holds, as benches/run.sh writes them:
  criterion/<group>/<model>/new/{estimates.json,benchmark.json}   criterion's results (CRITERION_HOME)
  cpp.tsv     the C++ harness's lines: file, bytes, median_ns, result, samples, iterations ('#': comments)
  files.tsv   file, bytes, path of each model measured (optional: without it, sizes come from cpp.tsv or
              testdata/tflite and $FLATMODEL_CORPUS/tflite)

Every time is a median time per iteration in ns (criterion's `median` estimate; the C++ harness
computes the same statistic the same way). Per model:
  r1 = verify / peer_flatbuffers_verify                       flatmodel verify / the flatbuffers crate's verifier
  r2 = verify / C++ VerifyModelBuffer                         flatmodel verify / the C++ flatbuffers verifier
  r3 = (verify + loader_walk) / peer_unchecked_walk           flatmodel verify + loader walk / the crate's unchecked walk
Goals: issue 9's for r1 and r3; issue 38's for r2 (geometric mean <= 0.7, no model over 1.0).
Summary rows: the geometric mean of each ratio over the models that have it (each model weighs
the same, whatever its size) and the worst (largest) ratio with its model.
"""

import json
import math
import os
import sys
from pathlib import Path

GROUPS = ["verify", "loader_walk", "peer_flatbuffers_verify", "peer_unchecked_walk"]
CPP = "cpp_verify"

# (key, column title, numerator groups (summed), denominator group, goal on the geomean, goal on every model)
RATIOS = [
    ("r1", "verify / crate verify", ["verify"], "peer_flatbuffers_verify", 0.10, 0.15),
    ("r2", "verify / C++ verify", ["verify"], CPP, 0.7, 1.0),
    ("r3", "(verify + loader walk) / crate unchecked walk", ["verify", "loader_walk"], "peer_unchecked_walk", 2.0, None),
]


def load_criterion(root: Path):
    """{group: {model: (median_ns, objects)}}"""
    out = {}
    for group in GROUPS:
        gdir = root / group
        if not gdir.is_dir():
            continue
        for mdir in sorted(gdir.iterdir()):
            est, bench = mdir / "new" / "estimates.json", mdir / "new" / "benchmark.json"
            if not est.is_file() or not bench.is_file():
                continue
            median = json.loads(est.read_text())["median"]["point_estimate"]
            b = json.loads(bench.read_text())
            objects = (b.get("throughput") or {}).get("Elements")
            out.setdefault(group, {})[b.get("function_id") or mdir.name] = (median, objects)
    return out


def load_tsv(path: Path):
    rows = []
    if path.is_file():
        for line in path.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                rows.append(line.split("\t"))
    return rows


def load(run: Path):
    """(times {group: {model: ns}}, objects {model: n}, sizes {model: bytes})"""
    times, objects, sizes = {}, {}, {}
    for group, models in load_criterion(run / "criterion").items():
        for model, (median, n) in models.items():
            times.setdefault(group, {})[model] = median
            if n:
                objects[model] = n
    for row in load_tsv(run / "cpp.tsv"):
        model, size, median, result = row[0], row[1], row[2], row[3]
        sizes.setdefault(model, int(size))
        if result == "ok":
            times.setdefault(CPP, {})[model] = float(median)
    for row in load_tsv(run / "files.tsv"):
        sizes[row[0]] = int(row[1])
    dirs = [Path(__file__).resolve().parent.parent / "testdata" / "tflite"]
    if os.environ.get("FLATMODEL_CORPUS"):
        dirs.append(Path(os.environ["FLATMODEL_CORPUS"]) / "tflite")
    for model in times.get("verify", {}):
        for d in dirs:
            if model not in sizes and (d / f"{model}.tflite").is_file():
                sizes[model] = (d / f"{model}.tflite").stat().st_size
    return times, objects, sizes


def ratio(times, model, num, den):
    try:
        top = sum(times[g][model] for g in num)
        bottom = times[den][model]
    except KeyError:
        return None
    return top / bottom if bottom > 0 else None


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def fmt_ratio(x):
    return "—" if x is None else f"{x:.3f}"


def fmt_ns(x):
    if x is None:
        return "—"
    return f"{x:.1f}" if x < 100 else f"{x:.0f}"


def table(times, objects, sizes):
    """The lines of the markdown report."""
    # The TFLite models flatmodel verified (the criterion bench skips files it rejects; its cvimodel
    # benchmarks, `verify/cvimodel_*`, have no peers and are left out).
    models = [m for m in times.get("verify", {}) if not m.startswith("cvimodel_")]
    models.sort(key=lambda m: (sizes.get(m, 0), m))
    per = {m: {k: ratio(times, m, num, den) for k, _, num, den, _, _ in RATIOS} for m in models}
    lines = []
    head = ["file", "bytes", "objects", "verify ns", "verify ns/object"] + [title for _, title, *_ in RATIOS]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|---|" + "---:|" * (len(head) - 1))
    for m in models:
        v = times["verify"][m]
        n = objects.get(m)
        row = [m, str(sizes.get(m, "?")), str(n or "?"), fmt_ns(v), fmt_ns(v / n) if n else "—"]
        row += [fmt_ratio(per[m][k]) for k, *_ in RATIOS]
        lines.append("| " + " | ".join(row) + " |")
    summary = {}
    for k, *_ in RATIOS:
        have = [(per[m][k], m) for m in models if per[m][k] is not None]
        summary[k] = (geomean([x for x, _ in have]) if have else None, max(have) if have else None, len(have))
    total = len(models)

    def row(label, cell):
        return "| " + " | ".join([label, "", "", "", ""] + [cell(k, g, go) for k, _, _, _, g, go in RATIOS]) + " |"

    def gm_cell(k, _g, _go):
        gm, _, n = summary[k]
        return fmt_ratio(gm) + ("" if gm is None or n == total else f" ({n} of {total} files)")

    def worst_cell(k, _g, _go):
        w = summary[k][1]
        return "—" if w is None else f"{fmt_ratio(w[0])} ({w[1]})"

    def goal_cell(_k, g, go):
        parts = ([f"geomean ≤ {g:g}"] if g is not None else []) + ([f"every file ≤ {go:g}"] if go is not None else [])
        return ", ".join(parts)

    def met_cell(k, g, go):
        gm, _, n = summary[k]
        if gm is None:
            return "—"
        parts = []
        if g is not None:
            parts.append("geomean " + ("yes" if gm <= g else "no"))
        if go is not None:
            over = sum(1 for m in models if per[m][k] is not None and per[m][k] > go)
            parts.append("every file " + ("yes" if over == 0 else f"no ({over} of {n} over)"))
        return ", ".join(parts)

    lines.append(row("**geometric mean**", gm_cell))
    lines.append(row("**worst**", worst_cell))
    lines.append(row("**goal**", goal_cell))
    lines.append(row("**goal met**", met_cell))
    lines.append("")
    lines.append("Median time per iteration, ns, of every reader (the ratios' inputs):")
    lines.append("")
    raw = [("verify", "verify"), ("loader_walk", "loader walk"), ("peer_flatbuffers_verify", "crate verify"),
           (CPP, "C++ verify"), ("peer_unchecked_walk", "crate unchecked walk")]
    lines.append("| file | " + " | ".join(t for _, t in raw) + " |")
    lines.append("|---|" + "---:|" * len(raw))
    for m in models:
        lines.append("| " + " | ".join([m] + [fmt_ns(times.get(g, {}).get(m)) for g, _ in raw]) + " |")
    return lines


def main():
    args = sys.argv[1:]
    if len(args) > 1 or any(a.startswith("-") for a in args):
        sys.exit(__doc__)
    run = Path(args[0]) if args else Path("target/bench-run/latest")
    times, objects, sizes = load(run)
    if not times.get("verify"):
        sys.exit(f"no verify/ results under {run / 'criterion'}")
    print("\n".join(table(times, objects, sizes)))


if __name__ == "__main__":
    main()
