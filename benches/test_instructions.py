#!/usr/bin/env python3
"""Checks benches/instructions.py's table on a hand-made instructions.tsv whose ratios are worked out by hand.

Run: python3 benches/test_instructions.py   (benches/run.sh and CI run it)

Three models, instructions per call ('-': the reader rejects the model):

  model  bytes  structure  parse  reflect  crate   cpp
  a        100        100    250      120    400   125
  b        200        300    600      450   1200   250
  c         50         80      -      100      -   100

  structure / C++:    a 0.8, b 1.2, c 0.8     geomean 0.768^(1/3) = 0.916, worst 1.200 (b)
  rules / structure:  a 1.5, b 1.0, c —       geomean 1.5^(1/2)   = 1.225, worst 1.500 (a)
  reflect / compiled: a 1.2, b 1.5, c 1.25    geomean 2.25^(1/3)  = 1.310, worst 1.500 (b)
  structure / crate:  a 0.25, b 0.25          crate / C++: a 3.2, b 4.8, geomean 15.36^(1/2) = 3.919
"""

import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent

TSV = """# model\tbytes\tstructure\tparse\treflect\tcrate\tcpp
a\t100\t100.0\t250.0\t120.0\t400.0\t125.0
b\t200\t300.0\t600.0\t450.0\t1200.0\t250.0
c\t50\t80.0\t-\t100.0\t-\t100.0
"""


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


class InstructionsTable(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "instructions.tsv").write_text(TSV)
            out = subprocess.run([sys.executable, str(HERE / "instructions.py"), "--table", tmp],
                                 check=True, capture_output=True, text=True).stdout
        tables = [[cells(line) for line in block.splitlines() if line.startswith("| ")] for block in out.split("\n\n")]
        cls.models = tables[0][1:]
        cls.summary = {row[0]: row for row in tables[1]}

    def test_models_by_size_with_counts_and_ratios(self):
        self.assertEqual([row[0] for row in self.models], ["c", "a", "b"])
        a = next(row for row in self.models if row[0] == "a")
        # model, bytes, C++, structure, parse, run-time schema, crate, then the five ratios
        self.assertEqual(a, ["a", "100", "125", "100", "250", "120", "400", "0.800", "1.500", "1.200", "0.250", "3.200"])
        c = next(row for row in self.models if row[0] == "c")
        self.assertEqual(c[4], "—")
        self.assertEqual(c[7:], ["0.800", "—", "1.250", "—", "—"])

    def test_geometric_means_and_worst(self):
        self.assertEqual(self.summary["structure / C++"][1:4], ["3", "0.916", "1.200 (b)"])
        self.assertEqual(self.summary["rules / structure"][1:4], ["2", "1.225", "1.500 (a)"])
        self.assertEqual(self.summary["run-time schema / compiled"][1:4], ["3", "1.310", "1.500 (b)"])
        self.assertEqual(self.summary["crate / C++"][1:4], ["2", "3.919", "4.800 (b)"])

    def test_goals(self):
        self.assertEqual(self.summary["structure / C++"][4:], ["geomean ≤ 0.85, every model ≤ 1", "geomean no, every model no (1 over)"])
        self.assertEqual(self.summary["rules / structure"][5], "geomean no, every model yes")
        self.assertEqual(self.summary["run-time schema / compiled"][5], "geomean no, every model no (1 over)")


if __name__ == "__main__":
    unittest.main()
