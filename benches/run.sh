#!/usr/bin/env bash
# The speed measurements in one command: first the instructions per call of every reader on every
# TFLite model, counted by callgrind (benches/instructions.py: flatmodel's structure check, parse and
# run-time schema, the flatbuffers crate, the C++ verifier); then the wall clock of every reader,
# interleaved per file, and the per-file ratio table (benches/results.py).
#
# Usage: FLATMODEL_CORPUS=/path/to/corpus benches/run.sh [MODEL_REGEX]
#
# MODEL_REGEX (an extended regex matched against whole file names without `.tflite`) picks a few
# models for a quick run, e.g. `benches/run.sh 'sine_float|litert_lstm'`.
#
# For each model, one after the other: the criterion benches `verify/`, `loader_walk/`,
# `peer_flatbuffers_verify/` and `peer_unchecked_walk/` (one run of the bench executable filtered
# to that model) and the C++ verifier (benches/cpp/verify.cpp), the C++ harness first on every
# other model. So all readers of one model are timed within a few seconds of each other, and a
# change in machine load between models moves the model's numerator and denominator together.
#
# Environment:
#   FLATMODEL_CORPUS  corpus root; its tflite/*.tflite are measured after testdata/tflite/*.tflite
#                     (a name already measured is skipped). Unset: testdata only.
#   BENCH_WARM_UP     warm-up seconds per benchmark (default 0.5)
#   BENCH_MEASURE     measurement seconds per benchmark (default 1)
#   BENCH_SAMPLES     samples per benchmark (default 30)
#   BENCH_OUT         run directory (default target/bench-run/<UTC date-time>; target/bench-run/latest
#                     links to it)
# The C++ side takes FLATC, CXX and CXXFLAGS (benches/cpp/build.sh).
#
#   BENCH_INSTRUCTIONS  0: leave out the instruction counts (they need valgrind; ~1.5 min for 45 models)
# The run directory receives meta.txt (date, machine, toolchains, commit, commands), files.tsv,
# instructions.tsv and instructions.md (benches/instructions.py's counts and table), criterion/
# (CRITERION_HOME), cpp.tsv (the C++ harness's output), bench.log and table.md (both tables, also
# printed).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
filter=${1:-}
warm=${BENCH_WARM_UP:-0.5}
measure=${BENCH_MEASURE:-1}
samples=${BENCH_SAMPLES:-30}
target=${CARGO_TARGET_DIR:-$root/target}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
out=${BENCH_OUT:-$target/bench-run/$stamp}
groups='verify|peer_flatbuffers_verify|loader_walk|peer_unchecked_walk'

# The table's parser first: a broken results.py should stop the run before the benches start.
python3 benches/test_results.py >/dev/null 2>&1 || { python3 benches/test_results.py; exit 1; }
python3 benches/test_instructions.py >/dev/null 2>&1 || { python3 benches/test_instructions.py; exit 1; }

echo "building the criterion bench ..." >&2
bench_exe=$(cargo bench -p flatmodel-benches --bench verify --no-run --message-format=json |
    python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("target", {}).get("name") == "verify" \
            and "bench" in m.get("target", {}).get("kind", []) and m.get("executable"):
        print(m["executable"])
')
[ -x "$bench_exe" ] || { echo "no bench executable found" >&2; exit 1; }
echo "building the C++ harness ..." >&2
cpp_exe=$(benches/cpp/build.sh)

mkdir -p "$out"
if [ -z "${BENCH_OUT:-}" ]; then
    ln -sfn "$stamp" "$target/bench-run/latest"
fi

# The models: testdata's, then the corpus's whose names testdata does not hold (as benches/verify.rs).
declare -A seen=()
files=()
dirs=("$root/testdata/tflite")
if [ -n "${FLATMODEL_CORPUS:-}" ]; then
    dirs+=("$FLATMODEL_CORPUS/tflite")
else
    echo "note: FLATMODEL_CORPUS is not set, so only testdata/tflite is measured" >&2
fi
for d in "${dirs[@]}"; do
    for f in "$d"/*.tflite; do
        [ -f "$f" ] || continue
        name=$(basename "$f" .tflite)
        [ -z "${seen[$name]:-}" ] || continue
        if [ -n "$filter" ] && ! [[ $name =~ ^($filter)$ ]]; then
            continue
        fi
        seen[$name]=1
        files+=("$f")
    done
done
[ "${#files[@]}" -gt 0 ] || { echo "no model matches" >&2; exit 1; }

{
    echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC') (start; $(uptime | sed 's/.*load/load/'))"
    echo "machine: $(lscpu | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) CPUs, $(uname -sr)"
    echo "rust: $(rustc -V)"
    sed 's/^/c++: /' "$target/bench-cpp/toolchain.txt"
    echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo ' + uncommitted changes')"
    echo "corpus: ${FLATMODEL_CORPUS:-(none)}; models: ${#files[@]}${filter:+ (filter: $filter)}"
    echo "criterion, per model: $(basename "$bench_exe") --bench --warm-up-time $warm --measurement-time $measure --sample-size $samples --noplot '^($groups)/MODEL\$'"
    echo "c++, per model: verify --warm-up-time $warm --measurement-time $measure --samples $samples MODEL.tflite"
} >"$out/meta.txt"

if [ "${BENCH_INSTRUCTIONS:-1}" != 0 ]; then
    echo "counting instructions (callgrind) ..." >&2
    python3 benches/instructions.py --out "$out" ${filter:+--filter "($filter)"} >"$out/instructions.md"
fi

: >"$out/files.tsv"
: >"$out/cpp.tsv"
: >"$out/bench.log"
run_cpp() {
    "$cpp_exe" --warm-up-time "$warm" --measurement-time "$measure" --samples "$samples" "$1" \
        >>"$out/cpp.tsv" 2>>"$out/bench.log"
}
run_criterion() {
    CRITERION_HOME="$out/criterion" "$bench_exe" --bench \
        --warm-up-time "$warm" --measurement-time "$measure" --sample-size "$samples" --noplot \
        "^($groups)/$(printf '%s' "$1" | sed 's/[][\\.|$(){}?+*^]/\\&/g')\$" >>"$out/bench.log" 2>&1
}
i=0
for f in "${files[@]}"; do
    name=$(basename "$f" .tflite)
    printf '%s\t%s\t%s\n' "$name" "$(wc -c <"$f" | tr -d ' ')" "$f" >>"$out/files.tsv"
    echo "[$((i + 1))/${#files[@]}] $name" >&2
    if [ $((i % 2)) -eq 0 ]; then
        run_cpp "$f"
        run_criterion "$name"
    else
        run_criterion "$name"
        run_cpp "$f"
    fi
    i=$((i + 1))
done
echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC') (end; $(uptime | sed 's/.*load/load/'))" >>"$out/meta.txt"

{
    if [ -s "$out/instructions.md" ]; then
        echo "Instructions per call (callgrind; benches/instructions.py):"
        echo
        cat "$out/instructions.md"
        echo
        echo "Wall clock, median ns per call (criterion; benches/results.py):"
        echo
    fi
    python3 benches/results.py "$out"
} >"$out/table.md"
cat "$out/meta.txt"
echo
cat "$out/table.md"
echo >&2
echo "run directory: $out" >&2
