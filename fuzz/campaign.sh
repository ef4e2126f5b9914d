#!/usr/bin/env bash
# The fuzzing campaign, kept across runs: each run of a target goes on from that target's corpus
# (fuzz/corpus/campaign/TARGET, started from its committed seeds) for a number of executions or
# a time, with its options (max_len, dictionary), and appends one row to fuzz/campaign.tsv (the
# record, committed): date, commit, target, mutator, executions, seconds, executions per
# second, edges (`cov`), features (`ft`), corpus size and findings. `--table` prints, per
# target, the executions of all its runs added up, its latest coverage and every finding: the
# table in fuzz/README.md.
#
#   fuzz/campaign.sh [-n EXECUTIONS] [-t SECONDS] [-j PARALLEL] [TARGET[:bytes] ...]
#   fuzz/campaign.sh --table
#
# EXECUTIONS defaults to 10,000,000 (issue 39's campaign: at least 10^7 per target), SECONDS to
# no limit (a run stops at whichever comes first), PARALLEL to 2, the targets to every
# `cargo fuzz list` name. Logs go to fuzz/logs/campaign-TARGET.log; a finding stays in
# fuzz/artifacts/TARGET/ (fuzz/README.md says how it becomes a regression file). The corpus
# lives under fuzz/corpus/, which git ignores: keep that folder to go on where a run stopped.
set -euo pipefail
cd "$(dirname "$0")/.."
record=fuzz/campaign.tsv
header=$'date\tcommit\ttarget\tmutator\texecutions\tseconds\texec_per_s\tcov\tft\tcorpus\tfindings'

if [ "${1:-}" = --table ]; then
    [ -f "$record" ] || { echo "no $record yet" >&2; exit 2; }
    echo "| target | mutator | runs | executions | edges (cov) | features (ft) | corpus | findings | dates |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---|"
    # Rows in the order they were run: sums, and the latest run's coverage and corpus.
    awk -F'\t' 'NR > 1 {
        key = $3 "\t" $4
        if (!(key in runs)) order[++n] = key
        runs[key]++; execs[key] += $5; found[key] += $11
        cov[key] = $8; ft[key] = $9; corpus[key] = $10
        if (!(key in first)) first[key] = substr($1, 1, 10)
        last[key] = substr($1, 1, 10)
    }
    function grouped(x,   s) {
        s = sprintf("%d", x)
        while (s ~ /[0-9][0-9][0-9][0-9]/) sub(/[0-9][0-9][0-9]($|,)/, ",&", s)
        return s
    }
    END {
        for (i = 1; i <= n; i++) {
            k = order[i]; split(k, part, "\t")
            dates = first[k] == last[k] ? first[k] : first[k] " to " last[k]
            printf "| `%s` | %s | %d | %s | %s | %s | %s | %d | %s |\n", part[1], part[2], runs[k], grouped(execs[k]),
                cov[k], ft[k], corpus[k], found[k], dates
        }
    }' "$record"
    exit 0
fi

# shellcheck source=fuzz/common.sh
source fuzz/common.sh

executions=10000000
seconds=0
parallel=2
while getopts "n:t:j:" opt; do
    case "$opt" in
        n) executions=$OPTARG ;;
        t) seconds=$OPTARG ;;
        j) parallel=$OPTARG ;;
        *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
runs=("$@")
[ ${#runs[@]} -gt 0 ] || mapfile -t runs < <(all_targets)
[ -f "$record" ] || echo "$header" >"$record"
commit=$(git rev-parse --short HEAD)

# One run: appends its row to the record when done.
run() {
    local spec=$1 target=${1%%:*} name=${1/:/-}
    local corpus=$PWD/fuzz/corpus/campaign/$name log=$PWD/fuzz/logs/campaign-$name.log before findings
    mkdir -p "$corpus" "fuzz/artifacts/$target"
    [ -n "$(ls -A "$corpus")" ] || cp fuzz/seeds/"$target"/* "$corpus/"
    before=$(find "fuzz/artifacts/$target" -type f | wc -l)
    local limits=(-runs="$executions")
    [ "$seconds" -gt 0 ] && limits+=(-max_total_time="$seconds")
    local date
    date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    run_target "$spec" "$corpus" "$log" "${limits[@]}"
    findings=$(($(find "fuzz/artifacts/$target" -type f | wc -l) - before))
    read -r execs rate cov ft <<<"$(log_figures "$log")"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$date" "$commit" "$target" "$(mutator_of "$spec")" \
        "$execs" "$RUN_SECONDS" "$rate" "$cov" "$ft" "$(find "$corpus" -type f | wc -l)" "$findings" >>"$record"
    echo "$target: $execs executions in ${RUN_SECONDS} s, cov $cov, ft $ft, $findings finding(s)"
}

# shellcheck disable=SC2046 # one word per target
build_targets $(printf '%s\n' "${runs[@]%%:*}" | sort -u)
for spec in "${runs[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
    run "$spec" &
done
wait
