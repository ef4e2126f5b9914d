#!/usr/bin/env python3
"""Turns a `cargo bench --bench verify` run into the ns/object table of benches/RESULTS.md.

Usage: python3 benches/results.py [CRITERION_DIR...] > table.md
(CRITERION_DIR defaults to target/criterion; given several runs' directories, each figure is the
fastest of the runs, which filters out time lost to other processes on a busy machine; model files are looked up in testdata/tflite and,
with FLATMODEL_CORPUS set, in $FLATMODEL_CORPUS/tflite, for their sizes.)

Each figure is criterion's median time per iteration divided by the model's object count (the
benchmark's Throughput::Elements: tables + vectors + strings flatmodel's verifier counted).
The overall rows divide the summed median times by the summed objects.
"""

import json
import os
import sys
from pathlib import Path

COLUMNS = [
    ("verify", "verify"),
    ("parse", "parse"),
    ("walk", "verify+walk"),
    ("loader_walk", "loader walk"),
    ("peer_flatbuffers_verify", "peer verify"),
    ("peer_unchecked_walk", "peer unchecked walk"),
    ("peer_planus_walk", "planus walk"),
]


def load(root: Path):
    """{group: {model: (median_ns, objects)}}"""
    out = {}
    for group, _ in COLUMNS:
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


def size_of(model: str):
    dirs = [Path(__file__).resolve().parent.parent / "testdata" / "tflite"]
    if os.environ.get("FLATMODEL_CORPUS"):
        dirs.append(Path(os.environ["FLATMODEL_CORPUS"]) / "tflite")
    for d in dirs:
        p = d / f"{model}.tflite"
        if p.is_file():
            return p.stat().st_size
    return None


def fmt(x):
    if x is None:
        return "—"
    return f"{x:.1f}" if x < 100 else f"{x:.0f}"


def main():
    roots = [Path(a) for a in sys.argv[1:]] or [Path("target/criterion")]
    data = {}
    for root in roots:
        for group, runs in load(root).items():
            for model, (median, objects) in runs.items():
                old = data.setdefault(group, {}).get(model)
                if old is None or median < old[0]:
                    data[group][model] = (median, objects)
    models = sorted({m for g in data.values() for m in g}, key=lambda m: (size_of(m) or 0, m))
    objects = {}
    for g in data.values():
        for m, (_, n) in g.items():
            objects[m] = n
    head = ["model", "bytes", "objects"] + [label for _, label in COLUMNS]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * 3 + "---:|" * len(COLUMNS))
    for m in models:
        row = [m, str(size_of(m) or "?"), str(objects[m])]
        for g, _ in COLUMNS:
            t = data.get(g, {}).get(m)
            row.append(fmt(t[0] / t[1]) if t and t[1] else "—")
        print("| " + " | ".join(row) + " |")
    common = [m for m in models if all(m in data.get(g, {}) for g, _ in COLUMNS)]
    for label, subset in ((f"**overall** ({len(models)} models)", models), (f"**common** ({len(common)} models)", common)):
        row = [label, str(sum(size_of(m) or 0 for m in subset)), str(sum(objects[m] for m in subset))]
        for g, _ in COLUMNS:
            have = [m for m in subset if m in data.get(g, {})]
            t = sum(data[g][m][0] for m in have) if have else 0
            n = sum(data[g][m][1] for m in have) if have else 0
            cell = fmt(t / n) if n else "—"
            if have and len(have) < len(subset):
                cell += f" ({len(have)})"
            row.append(cell)
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
