#!/usr/bin/env bash
# Line coverage of the model rules (and of the whole library) reached by the corpora of `long-run.sh`'s runs: replays each
# run's corpus through a coverage build of its target (`cargo fuzz coverage`) and prints one
# Markdown row per run and rules file (lines covered of lines, functions covered of functions).
#
#   fuzz/rules-coverage.sh RUN...      (RUN: a folder of fuzz/corpus/long/ named TARGET or
#                                       TARGET-ANYTHING, e.g. tflite tflite-bytes tflite-before)
#
# Compare a structure-aware run with its byte-level twin (`long-run.sh tflite tflite:bytes`).
set -euo pipefail
cd "$(dirname "$0")/.."

rustup component add llvm-tools-preview --toolchain nightly >/dev/null 2>&1
llvm_bin=$(rustc +nightly --print sysroot)/lib/rustlib/x86_64-unknown-linux-gnu/bin
# The rules each target reaches: the shared graph rules and each format's own.
rules_of() {
    case "$1" in
        tflite | differential) echo src/graph/rules.rs src/graph/checker.rs src/formats/tflite/rules.rs ;;
        circle) echo src/graph/rules.rs src/graph/checker.rs src/formats/circle/graph.rs ;;
        pte) echo src/formats/pte/file.rs ;;
        *) echo "no rules file listed for $1" >&2 && exit 2 ;;
    esac
}

echo "| run | file | lines covered | functions covered |"
echo "|---|---|---:|---:|"
for run in "$@"; do
    target=${run%%-*}
    corpus=fuzz/corpus/long/$run
    [ -d "$corpus" ] || { echo "no corpus $corpus: run fuzz/long-run.sh first" >&2; exit 2; }
    mkdir -p fuzz/logs
    cargo +nightly fuzz coverage "$target" "$corpus" >"fuzz/logs/coverage-$run.log" 2>&1 ||
        { tail -n 20 "fuzz/logs/coverage-$run.log" >&2; exit 1; }
    profile=fuzz/coverage/$target/coverage.profdata
    binary=target/x86_64-unknown-linux-gnu/coverage/x86_64-unknown-linux-gnu/release/$target
    # llvm-cov's columns: file (less the files' common prefix), regions, missed, cover,
    # functions, missed, executed, lines, missed, cover, ...; TOTAL: the library's whole `src/`.
    report() {
        "$llvm_bin/llvm-cov" report "$binary" -instr-profile="$profile" "$@" |
            awk -v run="$run" '$1 ~ /\.rs$/ || $1 == "TOTAL" {
                file = $1
                sub(/.*\/src\//, "", file)
                if (file == "TOTAL") file = "all of src/"
                printf "| %s | `%s` | %d of %d | %d of %d |\n", run, file, $8 - $9, $8, $5 - $6, $5
            }'
    }
    # shellcheck disable=SC2046 # one word per file
    report $(rules_of "$target") | grep -v 'all of src/'
    report -ignore-filename-regex='/(\.cargo|rustc|fuzz|benches)/' | grep 'all of src/'
done
