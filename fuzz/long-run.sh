#!/usr/bin/env bash
# Runs fuzz targets for a fixed time each and prints one Markdown row per run: executions,
# edges (`cov`), features (`ft`), corpus size and findings. Each run starts from the seeds alone
# (a fresh corpus under fuzz/corpus/long/), so runs are comparable; logs go to fuzz/logs/.
#
#   fuzz/long-run.sh [-t SECONDS] [-j PARALLEL] [TARGET[:bytes] ...]
#
# SECONDS defaults to 1800 (issue 13's 30 minutes), PARALLEL to 2 (one run per core), the targets
# to all ten. `TARGET:bytes` runs TARGET with the structure-aware mutator turned off
# (`FLATMODEL_FUZZ_BYTES_ONLY=1`), to compare against. `FUZZ_ARGS` adds libFuzzer flags, for
# example `FUZZ_ARGS="-fork=1 -ignore_crashes=1"` to go on past a finding. Needs nightly and cargo-fuzz (installed
# when missing). A finding stays in fuzz/artifacts/TARGET/; see fuzz/README.md for turning it into
# a regression file.
set -euo pipefail
cd "$(dirname "$0")/.."

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
[ ${#runs[@]} -gt 0 ] || runs=(tflite circle pte vkgraph cvimodel litertlm differential package_zip manifest schema_text schema_bfbs)

rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked

# The seeds of each target: the models in testdata/, the .pte programs of the corpus when
# FLATMODEL_CORPUS names it, a small nnpackage (zipped, and its MANIFEST) built here, and the
# schema targets' own seeds (written by their stable build: `--seeds DIR`).
seed() {
    local target=$1 dir=$2
    case "$target" in
        tflite | differential) cp testdata/tflite/*.tflite "$dir/" ;;
        circle) cp testdata/circle/*.circle "$dir/" ;;
        vkgraph) cp testdata/vkgraph/*.vh00 "$dir/" ;;
        cvimodel) cp testdata/cvimodel/*.cvimodel "$dir/" ;;
        litertlm) cp testdata/litertlm/*.litertlm "$dir/" ;;
        pte)
            if [ -n "${FLATMODEL_CORPUS:-}" ]; then
                find "$FLATMODEL_CORPUS" -name '*.pte' -exec cp {} "$dir/" \;
            else
                cp testdata/vkgraph/*.vh00 "$dir/"
            fi
            ;;
        manifest | package_zip)
            local pkg
            pkg=$(mktemp -d)
            mkdir -p "$pkg/sine/metadata"
            cp testdata/circle/sine_float.circle "$pkg/sine/"
            printf '%s\n' '{' '  "major-version": "1", "minor-version": "2", "patch-version": "0",' \
                '  "configs": [], "models": ["sine_float.circle"], "model-types": ["circle"]' \
                '}' >"$pkg/sine/metadata/MANIFEST"
            if [ "$target" = manifest ]; then
                cp "$pkg/sine/metadata/MANIFEST" "$dir/"
            else
                (cd "$pkg" && zip -qr "$dir/sine.nnpkg.zip" sine)
            fi
            rm -r "$pkg"
            ;;
        schema_text | schema_bfbs) cargo run -q -p flatmodel-fuzz --bin "$target" -- --seeds "$dir" >/dev/null ;;
        *) echo "unknown target $target" >&2 && exit 2 ;;
    esac
}

# One run: prints its row when done.
run() {
    local spec=$1 target=${1%%:*} mode=structure-aware env=() dict=()
    [[ "$spec" == *:bytes ]] && mode=byte-level && env=(FLATMODEL_FUZZ_BYTES_ONLY=1)
    case "$target" in tflite | circle | pte) ;; *) mode=byte-level ;; esac
    [ "$target" = schema_text ] && dict=(-dict="$PWD/fuzz/dict/schema.dict")
    local name=${spec/:/-}
    local corpus=$PWD/fuzz/corpus/long/$name log=$PWD/fuzz/logs/$name.log
    rm -rf "$corpus" && mkdir -p "$corpus" fuzz/logs "fuzz/artifacts/$target"
    seed "$target" "$corpus"
    local before
    before=$(find "fuzz/artifacts/$target" -type f | wc -l)
    env "${env[@]}" cargo +nightly fuzz run "$target" "$corpus" -- \
        -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=30 -max_len=1000000 \
        -print_final_stats=1 -close_fd_mask=3 "${dict[@]}" ${FUZZ_ARGS:-} >"$log" 2>&1 || true
    local findings last execs
    findings=$(($(find "fuzz/artifacts/$target" -type f | wc -l) - before))
    last=$(grep -aE '^#[0-9]+.*cov: ' "$log" | tail -n 1 || true)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    [ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]*\):* .*/\1/p' <<<"$last") # fork mode
    local cov ft
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
    printf '| `%s` | %s | %s | %s | %s | %s | %s | %s |\n' "$target" "$mode" "$seconds" \
        "${execs:-?}" "${cov:-?}" "${ft:-?}" "$(find "$corpus" -type f | wc -l)" "$findings"
}

# Build once before the runs start, so no run's time goes to compiling.
for target in $(printf '%s\n' "${runs[@]%%:*}" | sort -u); do
    cargo +nightly fuzz build "$target" >/dev/null 2>&1
done

echo "| target | mutations | seconds | executions | edges (cov) | features (ft) | corpus | findings |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for spec in "${runs[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
    run "$spec" &
done
wait
