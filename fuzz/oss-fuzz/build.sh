#!/usr/bin/env bash
# Builds flatmodel's fuzz targets into $OUT as OSS-Fuzz and ClusterFuzzLite run them: one
# libFuzzer binary per cargo-fuzz target (`cargo fuzz list`), and beside each its seeds
# (<target>_seed_corpus.zip, from fuzz/seeds/<target>/), its options (<target>.options, from
# fuzz/options/) and the dictionaries those name (fuzz/dict/*.dict).
#
# Where it runs:
# - OSS-Fuzz: this file is projects/flatmodel/build.sh, copied to $SRC/build.sh beside the
#   checkout $SRC/flatmodel; the builder sets OUT, RUSTFLAGS (the sanitizer) and the libFuzzer
#   cargo-fuzz links.
# - ClusterFuzzLite: .clusterfuzzlite/build.sh runs this file from the checkout.
# - Locally: `OUT=/tmp/out fuzz/oss-fuzz/build.sh`, from any folder. Needs a nightly toolchain
#   and cargo-fuzz; builds with AddressSanitizer (cargo-fuzz's default) into cargo's target
#   folder (CARGO_TARGET_DIR is honoured). fuzz/oss-fuzz/check.sh runs this and replays the seeds.
set -euo pipefail

: "${OUT:?set OUT to the folder the fuzz targets go to}"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# The checkout: the one this file sits in (fuzz/oss-fuzz/), else OSS-Fuzz's $SRC/flatmodel.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ -f "$here/../Cargo.toml" ] && [ -d "$here/../fuzz_targets" ]; then
    repo=$(cd "$here/../.." && pwd)
elif [ -n "${SRC:-}" ] && [ -f "$SRC/flatmodel/fuzz/Cargo.toml" ]; then
    repo=$SRC/flatmodel
else
    echo "build.sh: no flatmodel checkout around $here, nor in \$SRC/flatmodel" >&2
    exit 1
fi
cd "$repo"

# cargo-fuzz needs nightly (-Zsanitizer). OSS-Fuzz's builder sets RUSTUP_TOOLCHAIN to its dated
# nightly, and its `cargo` is a wrapper that reads its first arguments (`fuzz build`), so no
# `+nightly` here; elsewhere rustup is asked for nightly unless the caller chose a toolchain.
if [ -z "${RUSTUP_TOOLCHAIN:-}" ]; then
    case "$(rustc --version)" in
        *-nightly*) ;;
        *) export RUSTUP_TOOLCHAIN=nightly ;;
    esac
fi

# -O: optimised, as OSS-Fuzz recommends. --debug-assertions: the targets rely on them. A read
# that fails on bytes the verifier accepted is a verifier bug, and flatmodel::wire::broken
# panics on it only in a build with debug assertions (a release build returns None and the
# fuzzer would never see it). The `debug_assert` in `verified_str` likewise.
cargo fuzz build -O --debug-assertions

# cargo-fuzz builds for the host triple into cargo's target folder (the workspace's: fuzz/ is a
# member). OSS-Fuzz's coverage build puts its binaries in the same place.
target_dir=$(cargo metadata --format-version 1 --no-deps |
    sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
host=$(rustc -vV | sed -n 's/^host: //p')
built=$target_dir/$host/release

mapfile -t targets < <(cargo fuzz list)
[ "${#targets[@]}" -gt 0 ] || { echo "build.sh: cargo fuzz list names no target" >&2; exit 1; }

for target in "${targets[@]}"; do
    cp "$built/$target" "$OUT/"

    # The seed corpus, zipped (no paths kept beyond the target's folder; a stale zip is replaced,
    # as zip would otherwise add to it).
    rm -f "$OUT/${target}_seed_corpus.zip"
    seeds=fuzz/seeds/$target
    if [ -d "$seeds" ] && [ -n "$(find "$seeds" -type f -print -quit)" ]; then
        (cd "$seeds" && zip -q -r -X "$OUT/${target}_seed_corpus.zip" .)
    else
        echo "build.sh: $target has no seeds ($seeds)" >&2
    fi

    if [ -f "fuzz/options/$target.options" ]; then
        cp "fuzz/options/$target.options" "$OUT/"
    fi
done

# The dictionaries (shared between targets; each .options names its own).
for dict in fuzz/dict/*.dict; do
    if [ -f "$dict" ]; then cp "$dict" "$OUT/"; fi
done

echo "build.sh: ${#targets[@]} targets in $OUT"
