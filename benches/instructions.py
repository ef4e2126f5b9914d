#!/usr/bin/env python3
"""Instructions per call of every TFLite reader on every model, counted by callgrind (issue 38).

Usage: FLATMODEL_CORPUS=path/to/corpus python3 benches/instructions.py [--calls N] [-j JOBS]
           [--filter REGEX] [--out DIR] [--no-build]
       python3 benches/instructions.py --table DIR     (the table again, from DIR/instructions.tsv)

Models: testdata/tflite/*.tflite, then $FLATMODEL_CORPUS/tflite/*.tflite whose names testdata does
not hold (as benches/run.sh). REGEX is matched against whole names without `.tflite`.

Readers (benches/instr.rs and benches/cpp/instr.cpp):
  structure  flatmodel Model::parse_structure            parse    flatmodel Model::parse (+ the rules)
  reflect    flatmodel, schema.fbs read at run time      crate    the flatbuffers crate's root_as_model
  cpp        flatbuffers 2.0.8's C++ Verifier + tflite::VerifyModelBuffer
Each runs under `valgrind --tool=callgrind --toggle-collect=instr_measured`: a warm-up call outside
the counted function, then N counted calls (default 5). The figure per call is
(count(reader) - count(empty)) / N, where `empty` is the same harness calling nothing through the
same dispatch (each harness subtracts its own empty call, measured on the same model). Instruction
counts do not depend on the machine's load, so one run gives every ratio exactly.

Writes DIR/instructions.tsv (default target/bench-run/instructions-<UTC time>) and prints the table
(markdown), which benches/run.sh also puts in its table.md.
"""

import argparse
import concurrent.futures
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUST_READERS = ["structure", "parse", "reflect", "crate"]
READERS = RUST_READERS + ["cpp"]

# (key, title, numerator, denominator, goal on the geometric mean, goal on every model); a numerator
# "rules" is parse - structure.
RATIOS = [
    ("s_cpp", "structure / C++", "structure", "cpp", 0.85, 1.00),
    ("rules_s", "rules / structure", "rules", "structure", 1.0, 2.0),
    ("reflect_s", "run-time schema / compiled", "reflect", "structure", 1.25, 1.4),
    ("s_crate", "structure / crate", "structure", "crate", None, None),
    ("crate_cpp", "crate / C++", "crate", "cpp", None, None),
]


def models(filter_re):
    seen, out = set(), []
    dirs = [ROOT / "testdata" / "tflite"]
    if os.environ.get("FLATMODEL_CORPUS"):
        dirs.append(Path(os.environ["FLATMODEL_CORPUS"]) / "tflite")
    for d in dirs:
        for f in sorted(d.glob("*.tflite")):
            name = f.stem
            if name in seen or (filter_re and not re.fullmatch(filter_re, name)):
                continue
            seen.add(name)
            out.append(f)
    return out


def build():
    """(rust harness, C++ harness) paths."""
    cmd = ["cargo", "build", "--profile", "bench", "-p", "flatmodel-benches", "--example", "instr",
           "--message-format=json"]
    out = subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.PIPE, text=True).stdout
    rust = None
    for line in out.splitlines():
        m = json.loads(line)
        if m.get("reason") == "compiler-artifact" and m.get("target", {}).get("name") == "instr" and m.get("executable"):
            rust = m["executable"]
    if not rust:
        sys.exit("no instr executable found")
    verify = subprocess.run([str(ROOT / "benches" / "cpp" / "build.sh")], check=True, stdout=subprocess.PIPE,
                            text=True).stdout.strip()
    return rust, str(Path(verify).parent / "instr")


def count(exe, reader, model, calls):
    """(total instructions counted, accepted) for one callgrind run."""
    with tempfile.NamedTemporaryFile(prefix="callgrind.", delete=True) as out:
        run = subprocess.run(["valgrind", "--tool=callgrind", "--toggle-collect=instr_measured",
                              f"--callgrind-out-file={out.name}", exe, reader, str(model), str(calls)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if run.returncode != 0:
            sys.exit(f"{exe} {reader} {model}: exit {run.returncode}\n{run.stderr}")
        totals = re.search(r"^totals:\s*(\d+)", Path(out.name).read_text(), re.M)
    if not totals:
        sys.exit(f"{exe} {reader} {model}: no totals in the callgrind output")
    return int(totals.group(1)), run.stdout.strip() == "ok"


def measure(rust, cpp, model, calls):
    """{reader: instructions per call, or None when the reader rejects the model}."""
    base = {"rust": count(rust, "empty", model, calls)[0], "cpp": count(cpp, "empty", model, calls)[0]}
    row = {}
    for reader in READERS:
        exe, name, side = (cpp, "verify", "cpp") if reader == "cpp" else (rust, reader, "rust")
        total, ok = count(exe, name, model, calls)
        row[reader] = (total - base[side]) / calls if ok else None
    return row


def ratio(row, num, den):
    if num == "rules":
        parse, structure = row.get("parse"), row.get("structure")
        top = None if parse is None or structure is None else parse - structure
    else:
        top = row.get(num)
    bottom = row.get(den)
    return top / bottom if top is not None and bottom else None


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def table(rows, sizes):
    """The markdown lines: per-model counts and ratios, then each ratio's geometric mean, worst and goal."""
    names = sorted(rows, key=lambda m: (sizes.get(m, 0), m))
    lines = ["| model | bytes | C++ | structure | parse | run-time schema | crate | "
             + " | ".join(t for _, t, *_ in RATIOS) + " |",
             "|---|" + "---:|" * (6 + len(RATIOS))]
    cell = lambda x: "—" if x is None else f"{x:,.0f}"
    rcell = lambda x: "—" if x is None else f"{x:.3f}"
    per = {m: {k: ratio(rows[m], n, d) for k, _, n, d, _, _ in RATIOS} for m in names}
    for m in names:
        r = rows[m]
        lines.append("| " + " | ".join([m, str(sizes.get(m, "?"))] + [cell(r.get(x)) for x in
                     ["cpp", "structure", "parse", "reflect", "crate"]] + [rcell(per[m][k]) for k, *_ in RATIOS]) + " |")
    lines.append("")
    lines.append("| ratio | models | geometric mean | worst | goal | met |")
    lines.append("|---|---:|---:|---|---|---|")
    for k, title, _, _, g, every in RATIOS:
        have = [(per[m][k], m) for m in names if per[m][k] is not None]
        if not have:
            continue
        gm = geomean([x for x, _ in have])
        worst = max(have)
        goal = ", ".join(([f"geomean ≤ {g:g}"] if g else []) + ([f"every model ≤ {every:g}"] if every else [])) or "—"
        met = []
        if g:
            met.append("geomean " + ("yes" if gm <= g else "no"))
        if every:
            over = sum(1 for x, _ in have if x > every)
            met.append("every model " + ("yes" if over == 0 else f"no ({over} over)"))
        lines.append(f"| {title} | {len(have)} | {gm:.3f} | {worst[0]:.3f} ({worst[1]}) | {goal} | {', '.join(met) or '—'} |")
    return lines


def write_tsv(path, rows, sizes):
    with open(path, "w") as f:
        f.write("# model\tbytes\t" + "\t".join(READERS) + "\t(instructions per call; - rejected)\n")
        for m, r in rows.items():
            f.write("\t".join([m, str(sizes[m])] + ["-" if r[x] is None else f"{r[x]:.1f}" for x in READERS]) + "\n")


def read_tsv(path):
    rows, sizes = {}, {}
    for line in Path(path).read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.split("\t")
        sizes[cols[0]] = int(cols[1])
        rows[cols[0]] = {x: None if v == "-" else float(v) for x, v in zip(READERS, cols[2:])}
    return rows, sizes


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=5)
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--filter")
    ap.add_argument("--out")
    ap.add_argument("--no-build", action="store_true", help="use the harnesses already built")
    ap.add_argument("--table", metavar="DIR", help="print the table of DIR/instructions.tsv and stop")
    a = ap.parse_args()
    if a.table:
        rows, sizes = read_tsv(Path(a.table) / "instructions.tsv")
        print("\n".join(table(rows, sizes)))
        return
    files = models(a.filter)
    if not files:
        sys.exit("no model matches")
    if a.no_build:
        target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
        rust, cpp = str(target / "release" / "examples" / "instr"), str(target / "bench-cpp" / "instr")
    else:
        print("building the harnesses ...", file=sys.stderr)
        rust, cpp = build()
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    out = Path(a.out or target / "bench-run" / time.strftime("instructions-%Y%m%dT%H%M%SZ", time.gmtime()))
    out.mkdir(parents=True, exist_ok=True)
    sizes = {f.stem: f.stat().st_size for f in files}
    rows = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        jobs = {pool.submit(measure, rust, cpp, f, a.calls): f.stem for f in files}
        for done, job in enumerate(concurrent.futures.as_completed(jobs), 1):
            rows[jobs[job]] = job.result()
            print(f"[{done}/{len(files)}] {jobs[job]}", file=sys.stderr)
    rows = {f.stem: rows[f.stem] for f in files}
    write_tsv(out / "instructions.tsv", rows, sizes)
    print("\n".join(table(rows, sizes)))
    print(f"\n(instructions per call, callgrind, {a.calls} counted calls; {out / 'instructions.tsv'})", file=sys.stderr)


if __name__ == "__main__":
    main()
