"""Open a TFLite model and walk it, with flatmodel and with PyPI's `tflite` package.

The walk reads every tensor's name, shape, type and buffer index and every operator's code,
inputs and outputs. flatmodel's side includes verifying the whole model (`flatmodel.open`);
the `tflite` package (flatc's generated Python) verifies nothing. Both read from the same
`bytes` in memory. Prints one row per model of $FLATMODEL_CORPUS (every `.tflite`), then the
geometric mean and the worst model of the ratio (tflite's time / flatmodel's).

    FLATMODEL_CORPUS=/path/to/corpus python benches/python/open_walk.py [--repeat N]

The RSS figure: open the largest model by path and take `numpy()` of every constant tensor,
reading resident memory before and after (Linux).
"""

import argparse
import math
import os
import statistics
import sys
import time
from pathlib import Path

import flatmodel
import tflite


def walk_flatmodel(data):
    m = flatmodel.open(data)
    n = 0
    for sg in m.subgraphs:
        for t in sg.tensors:
            t.name, t.shape, t.dtype, t.buffer
            n += 1
        for op in sg.operators:
            op.name, op.inputs, op.outputs
            n += 1
    return n


def walk_tflite(data):
    m = tflite.Model.GetRootAsModel(data, 0)
    n = 0
    for s in range(m.SubgraphsLength()):
        sg = m.Subgraphs(s)
        for i in range(sg.TensorsLength()):
            t = sg.Tensors(i)
            t.Name(), t.ShapeAsNumpy(), t.Type(), t.Buffer()
            n += 1
        for i in range(sg.OperatorsLength()):
            op = sg.Operators(i)
            code = m.OperatorCodes(op.OpcodeIndex())
            max(code.BuiltinCode(), code.DeprecatedBuiltinCode()), code.CustomCode()
            op.InputsAsNumpy(), op.OutputsAsNumpy()
            n += 1
    return n


def best_of(fn, data, repeat):
    """The median of `repeat` timings of `fn(data)`, each loop long enough to time (>= 2 ms)."""
    loops = 1
    while True:
        start = time.perf_counter()
        for _ in range(loops):
            fn(data)
        took = time.perf_counter() - start
        if took >= 0.002 or loops >= 1 << 16:
            break
        loops *= 4
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(loops):
            fn(data)
        times.append((time.perf_counter() - start) / loops)
    return statistics.median(times)


def resident():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def rss_of_arrays(path):
    """Resident memory `open(path)` and then `numpy()` of every constant tensor add."""
    before = resident()
    m = flatmodel.open(path)
    after_open = resident()
    arrays = [a for sg in m.subgraphs for t in sg.tensors if (a := t.numpy()) is not None]
    after_arrays = resident()
    total = sum(a.nbytes for a in arrays)
    return before, after_open, after_arrays, len(arrays), total


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    corpus = os.environ.get("FLATMODEL_CORPUS")
    if not corpus:
        sys.exit("set FLATMODEL_CORPUS to the corpus directory")
    models = sorted(Path(corpus).rglob("*.tflite"))
    ratios = []
    print(f"{'model':58} {'bytes':>9} {'items':>6} {'flatmodel':>11} {'tflite':>11} {'ratio':>7}")
    for path in models:
        data = path.read_bytes()
        if not flatmodel.verify(data).ok:
            print(f"{path.relative_to(corpus)!s:58} {len(data):9} invalid: skipped")
            continue
        try:
            walk_tflite(data)
        except Exception as e:  # the generated reader fails on some valid files
            print(f"{path.relative_to(corpus)!s:58} {len(data):9} tflite package fails: {type(e).__name__}")
            continue
        items = walk_flatmodel(data)
        ours = best_of(walk_flatmodel, data, args.repeat)
        theirs = best_of(walk_tflite, data, args.repeat)
        ratio = theirs / ours
        ratios.append((ratio, path))
        print(f"{path.relative_to(corpus)!s:58} {len(data):9} {items:6} {ours * 1e6:9.1f}us {theirs * 1e6:9.1f}us {ratio:6.1f}x")
    geomean = math.exp(sum(math.log(r) for r, _ in ratios) / len(ratios))
    worst, worst_path = min(ratios)
    print(f"\n{len(ratios)} models: geometric mean {geomean:.1f}x, worst {worst:.1f}x ({worst_path.relative_to(corpus)})")

    largest = max(models, key=lambda p: p.stat().st_size)
    before, after_open, after_arrays, count, total = rss_of_arrays(largest)
    mib = 1 << 20
    print(
        f"\nRSS, {largest.relative_to(corpus)} ({largest.stat().st_size / mib:.1f} MiB): before {before / mib:.1f} MiB, "
        f"open +{(after_open - before) / mib:.1f} MiB, numpy() of {count} constant tensors ({total / mib:.1f} MiB of data) "
        f"+{(after_arrays - after_open) / mib:.2f} MiB"
    )


if __name__ == "__main__":
    main()
