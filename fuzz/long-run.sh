#!/usr/bin/env bash
# Runs fuzz targets for a fixed time each and prints one Markdown row per run: executions, their
# rate, edges (`cov`), features (`ft`), corpus size and findings. Each run starts from the
# target's committed seeds alone (fuzz/seeds/TARGET, copied into a fresh corpus under
# fuzz/corpus/long/) with its options (fuzz/options/TARGET.options: max_len and dictionary),
# so runs are comparable; logs go to fuzz/logs/.
#
#   fuzz/long-run.sh [-t SECONDS] [-j PARALLEL] [TARGET[:bytes] ...]
#
# SECONDS defaults to 1800 (issue 13's 30 minutes), PARALLEL to 2 (one run per core), the targets
# to all `cargo fuzz list` names. `TARGET:bytes` runs TARGET with the structure-aware mutator off
# (`FLATMODEL_FUZZ_BYTES_ONLY=1`), to compare against. `FUZZ_ARGS` adds libFuzzer flags, for
# example `FUZZ_ARGS="-fork=1 -ignore_crashes=1"` to go on past a finding. Needs nightly and
# cargo-fuzz (installed when missing). A finding stays in fuzz/artifacts/TARGET/; see
# fuzz/README.md for turning it into a regression file. `-t 60 -j 1` is the throughput
# measurement of fuzz/README.md (executions per second on one core, from the seeds).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=fuzz/common.sh
source fuzz/common.sh

seconds=1800
parallel=2
while getopts "t:j:" opt; do
    case "$opt" in
        t) seconds=$OPTARG ;;
        j) parallel=$OPTARG ;;
        *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
runs=("$@")
[ ${#runs[@]} -gt 0 ] || mapfile -t runs < <(all_targets)

# One run: prints its row when done.
run() {
    local spec=$1 target=${1%%:*} name=${1/:/-}
    local corpus=$PWD/fuzz/corpus/long/$name log=$PWD/fuzz/logs/$name.log before findings
    rm -rf "$corpus" && mkdir -p "$corpus" "fuzz/artifacts/$target"
    cp fuzz/seeds/"$target"/* "$corpus/"
    before=$(find "fuzz/artifacts/$target" -type f | wc -l)
    run_target "$spec" "$corpus" "$log" -max_total_time="$seconds"
    findings=$(($(find "fuzz/artifacts/$target" -type f | wc -l) - before))
    read -r execs rate cov ft <<<"$(log_figures "$log")"
    # shellcheck disable=SC2016 # Markdown backticks
    printf '| `%s` | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$target" "$(mutator_of "$spec")" "$seconds" \
        "$execs" "$rate" "$cov" "$ft" "$(find "$corpus" -type f | wc -l)" "$findings"
}

# shellcheck disable=SC2046 # one word per target
build_targets $(printf '%s\n' "${runs[@]%%:*}" | sort -u)

echo "| target | mutations | seconds | executions | exec/s | edges (cov) | features (ft) | corpus | findings |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
for spec in "${runs[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
    run "$spec" &
done
wait
