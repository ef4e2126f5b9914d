# shellcheck shell=bash
# Shared by fuzz/long-run.sh and fuzz/campaign.sh (sourced, from the repository's root): the
# toolchain, a target's libFuzzer flags from its options file, one run and the figures of its log.

rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked

# Every target `cargo fuzz list` names.
all_targets() { cargo +nightly fuzz list; }

# The libFuzzer flags of target $1 from fuzz/options/$1.options (OSS-Fuzz's format): its
# max_len and its dictionary.
option_flags() {
    local file=fuzz/options/$1.options max_len dict
    max_len=$(sed -n 's/^max_len *= *//p' "$file")
    dict=$(sed -n 's/^dict *= *//p' "$file")
    echo "-max_len=$max_len${dict:+ -dict=$PWD/fuzz/dict/$dict}"
}

# Builds targets $@ once, so that no run's time goes to compiling (the fuzz build: release,
# with debug assertions, as `cargo fuzz run` builds them).
build_targets() {
    local target
    for target in "$@"; do
        cargo +nightly fuzz build "$target" >/dev/null 2>&1 || { echo "cargo fuzz build $target failed" >&2; return 1; }
    done
}

# One run: `run_target SPEC CORPUS LOG LIMIT...` runs SPEC (TARGET, or TARGET:bytes for the
# byte-level mutator alone) over CORPUS with the libFuzzer flags LIMIT... and the target's own,
# logging to LOG; sets RUN_SECONDS to its wall-clock time. Findings go to fuzz/artifacts/TARGET/.
run_target() {
    local spec=$1 corpus=$2 log=$3 target=${1%%:*} env=() start=$SECONDS
    shift 3
    [[ "$spec" == *:bytes ]] && env=(FLATMODEL_FUZZ_BYTES_ONLY=1)
    mkdir -p "fuzz/artifacts/$target" "$(dirname "$log")"
    # shellcheck disable=SC2046,SC2086 # the option flags and FUZZ_ARGS are words
    env "${env[@]}" "target/x86_64-unknown-linux-gnu/release/$target" "$corpus" "$@" $(option_flags "$target") \
        -rss_limit_mb=2048 -timeout=30 -print_final_stats=1 -close_fd_mask=3 \
        -artifact_prefix="$PWD/fuzz/artifacts/$target/" ${FUZZ_ARGS:-} >"$log" 2>&1 || true
    # shellcheck disable=SC2034 # read by the scripts that source this file
    RUN_SECONDS=$((SECONDS - start))
}

# The mutator SPEC runs with: the structure-aware one for tflite, circle and pte unless
# `:bytes`, libFuzzer's byte-level ones otherwise.
mutator_of() {
    case "$1" in
        *:bytes) echo byte-level ;;
        tflite | circle | pte) echo structure-aware ;;
        *) echo byte-level ;;
    esac
}

# The figures of run log $1: "executions exec/s cov ft" (fork mode has no final stats: the last
# status line's count).
log_figures() {
    local log=$1 last execs rate cov ft
    last=$(grep -aE '^#[0-9]+.*cov: ' "$log" | tail -n 1 || true)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    [ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]*\):* .*/\1/p' <<<"$last")
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
    echo "${execs:-?} ${rate:-?} ${cov:-?} ${ft:-?}"
}
