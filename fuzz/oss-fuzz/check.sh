#!/usr/bin/env bash
# Checks the OSS-Fuzz / ClusterFuzzLite build (CI runs this): builds every fuzz target with
# fuzz/oss-fuzz/build.sh into a temporary $OUT, then replays each target's seed corpus through
# its binary as ClusterFuzz would start it: `-runs=0`, ClusterFuzz's limits (25 s an input,
# 2560 MB), then the [libfuzzer] lines of its .options as -key=value flags, run from $OUT so
# that `dict = x.dict` resolves. Fails, naming the target, when a target listed by `cargo fuzz
# list` is missing from $OUT, when a target has no seed corpus zip, or when a target exits
# non-zero on its seeds (a panic, a sanitizer report, a leak, a timeout, a dictionary that is not
# there). Prints one line per target. Installs nightly and cargo-fuzz when they are missing;
# removes its temporary folder.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    rustup toolchain install nightly --profile minimal
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OUT=$work/out
mkdir "$OUT"

started=$SECONDS
fuzz/oss-fuzz/build.sh
echo "build.sh: $((SECONDS - started)) s"

failed=()
fail() {
    echo "FAIL $1: $2" >&2
    failed+=("$1")
}

mapfile -t listed < <(cargo fuzz list)
[ "${#listed[@]}" -gt 0 ] || fail "cargo fuzz list" "names no target"
for target in "${listed[@]}"; do
    [ -x "$OUT/$target" ] || fail "$target" "listed by cargo fuzz list, missing from \$OUT"
done

# Its argument without the blanks around it.
trim() {
    local s=$1
    s=${s#"${s%%[![:space:]]*}"}
    printf '%s' "${s%"${s##*[![:space:]]}"}"
}

# The [libfuzzer] section of an OSS-Fuzz .options file as libFuzzer flags, one a line.
libfuzzer_flags() {
    local section='' line key value
    while IFS= read -r line || [ -n "$line" ]; do
        line=$(trim "$line")
        case "$line" in
            '' | '#'* | ';'*) continue ;;
            '['*']') section=${line#[} section=${section%]} && continue ;;
        esac
        [ "$section" = libfuzzer ] || continue
        IFS='=' read -r key value <<<"$line"
        echo "-$(trim "$key")=$(trim "$value")"
    done <"$1"
}

replayed=0
for binary in "$OUT"/*; do
    target=$(basename "$binary")
    # Fuzz targets: the executables without a dot in their name (OSS-Fuzz's rule).
    if [ ! -f "$binary" ] || [ ! -x "$binary" ] || [[ "$target" == *.* ]]; then
        continue
    fi
    zip=$OUT/${target}_seed_corpus.zip
    if [ ! -f "$zip" ]; then
        fail "$target" "no seed corpus ($(basename "$zip"))"
        continue
    fi
    seeds=$work/seeds/$target
    mkdir -p "$seeds"
    unzip -q "$zip" -d "$seeds"
    flags=()
    if [ -f "$OUT/$target.options" ]; then
        mapfile -t flags < <(libfuzzer_flags "$OUT/$target.options")
    fi
    limits=(-timeout=25 -rss_limit_mb=2560) # ClusterFuzz's defaults; an .options line overrides
    count=$(find "$seeds" -type f | wc -l)
    log=$work/$target.log
    begun=$SECONDS
    if (cd "$OUT" && "./$target" -runs=0 "${limits[@]}" "${flags[@]}" "$seeds") >"$log" 2>&1; then
        # libFuzzer's line once every seed has run: "#9<tab>INITED cov: 2205 ft: 3469 corp: 6/145Kb ..."
        inited=$(grep -a 'INITED' "$log" | tail -n 1 || true)
        cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$inited")
        corpus=$(sed -n 's/.* corp: \([^ ]*\).*/\1/p' <<<"$inited")
        printf '%s: %d seeds replayed (%s): cov %s, corp %s, %d s\n' "$target" "$count" \
            "${flags[*]:-no options}" "${cov:-?}" "${corpus:-?}" $((SECONDS - begun))
        replayed=$((replayed + 1))
    else
        status=$?
        tail -n 40 "$log" >&2
        fail "$target" "exit $status replaying its $count seeds (${flags[*]:-no options})"
    fi
done

echo "check.sh: $replayed targets replayed their seeds, $((SECONDS - started)) s in all"
if [ "${#failed[@]}" -gt 0 ]; then
    echo "check.sh: failed: ${failed[*]}" >&2
    exit 1
fi
