#!/usr/bin/env python3
"""Checks benches/results.py on a hand-made run directory whose ratios are worked out by hand.

Run: python3 benches/test_results.py   (benches/run.sh runs it before benchmarking)

Three models, median ns per reader:

  model  bytes  verify  loader_walk  crate verify  C++ verify  crate unchecked walk
  a        100      10           20           200          40                    10
  b        200     100          100           500         100                   200
  c        300      50           50           400   (rejected)                  100

  r1 = verify / crate verify:            a 0.05, b 0.2, c 0.125 geomean (0.05*0.2*0.125)^(1/3) = 0.108
  r2 = verify / C++ verify:              a 0.25, b 1.0, c —     geomean (0.25*1.0)^(1/2)     = 0.5 (2 of 3 files)
  r3 = (verify + loader) / unchecked:    a 3.0,  b 1.0, c 1.0   geomean 3^(1/3)              = 1.442
  worst: r1 0.2 (b), r2 1.0 (b), r3 3.0 (a)
"""

import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent

TIMES = {
    "verify": {"a": 10, "b": 100, "c": 50},
    "loader_walk": {"a": 20, "b": 100, "c": 50},
    "peer_flatbuffers_verify": {"a": 200, "b": 500, "c": 400},
    "peer_unchecked_walk": {"a": 10, "b": 200, "c": 100},
}
OBJECTS = {"a": 5, "b": 10, "c": 20}
SIZES = {"a": 100, "b": 200, "c": 300}


def make_run(root: Path):
    for group, models in TIMES.items():
        for model, ns in models.items():
            d = root / "criterion" / group / model / "new"
            d.mkdir(parents=True)
            # Only the fields results.py reads; the mean differs from the median so that a parser
            # reading the wrong estimate gets other figures.
            (d / "estimates.json").write_text(json.dumps({"mean": {"point_estimate": ns * 3.0},
                                                          "median": {"point_estimate": float(ns)}}))
            (d / "benchmark.json").write_text(json.dumps({"group_id": group, "function_id": model,
                                                          "throughput": {"Elements": OBJECTS[model]}}))
    (root / "cpp.tsv").write_text(
        "# file\tbytes\tmedian_ns\tresult\tsamples\titerations\n"
        "a\t100\t40.000\tok\t30\t465\n"
        "# file\tbytes\tmedian_ns\tresult\tsamples\titerations\n"
        "b\t200\t100.000\tok\t30\t465\n"
        "c\t300\t-\trejected\t0\t0\n"
    )
    (root / "files.tsv").write_text("".join(f"{m}\t{n}\t/x/{m}.tflite\n" for m, n in SIZES.items()))


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


class ResultsTable(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with tempfile.TemporaryDirectory() as tmp:
            make_run(Path(tmp))
            out = subprocess.run([sys.executable, str(HERE / "results.py"), tmp],
                                 check=True, capture_output=True, text=True).stdout
        tables = [[cells(line) for line in block.splitlines() if line.startswith("| ")]
                  for block in out.split("\n\n")]
        tables = [t for t in tables if t]
        cls.rows = {row[0]: row for row in tables[0]}
        cls.raw = {row[0]: row for row in tables[1]}

    def test_per_model_rows(self):
        # file, bytes, objects, verify ns, verify ns/object, r1, r2, r3
        self.assertEqual(self.rows["a"], ["a", "100", "5", "10.0", "2.0", "0.050", "0.250", "3.000"])
        self.assertEqual(self.rows["b"], ["b", "200", "10", "100", "10.0", "0.200", "1.000", "1.000"])
        self.assertEqual(self.rows["c"], ["c", "300", "20", "50.0", "2.5", "0.125", "—", "1.000"])

    def test_raw_medians(self):
        # file, verify, loader walk, crate verify, C++ verify, crate unchecked walk
        self.assertEqual(self.raw["b"], ["b", "100", "100", "500", "100", "200"])
        self.assertEqual(self.raw["c"], ["c", "50.0", "50.0", "400", "—", "100"])

    def test_geometric_means(self):
        self.assertEqual(self.rows["**geometric mean**"][5:], ["0.108", "0.500 (2 of 3 files)", "1.442"])

    def test_worst(self):
        self.assertEqual(self.rows["**worst**"][5:], ["0.200 (b)", "1.000 (b)", "3.000 (a)"])

    def test_goals_met(self):
        self.assertEqual(self.rows["**goal met**"][5:], [
            "geomean no, every file no (1 of 3 over)",  # 0.108 > 0.10; only b's 0.2 is over 0.15
            "geomean yes, every file yes",  # 0.5 <= 0.7; b's 1.0 is not over 1.0
            "geomean yes",  # 1.442 <= 2.0
        ])


if __name__ == "__main__":
    unittest.main()
