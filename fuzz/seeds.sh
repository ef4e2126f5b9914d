#!/usr/bin/env bash
# Rebuilds the committed seed corpora, fuzz/seeds/TARGET/: for each target, gathers the files of
# testdata/ its format reads (and its regression files), plus inputs written here (nnpackages and
# MANIFESTs) or by a target's stable build (`--seeds`: TFLite models cut down and the schema
# targets' inputs, `src/seeds.rs` and `src/schema.rs`), leaves out
# any longer than the target's `max_len` (fuzz/options/TARGET.options), and keeps the smallest
# subset that reaches every feature the whole set reaches (`cargo fuzz cmin`).
#
#   fuzz/seeds.sh [TARGET ...]          (default: every target `cargo fuzz list` names)
#
# Needs nightly and cargo-fuzz (installed when missing). Seeds are committed so that OSS-Fuzz's
# build (fuzz/oss-fuzz/build.sh) and CI need neither; rerun this when testdata/ or a target changes.
set -euo pipefail
cd "$(dirname "$0")/.."

rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked

max_len() { sed -n 's/^max_len *= *//p' "fuzz/options/$1.options"; }

# A one-model nnpackage, and the same with a config and a second model, in folder $1 (as
# `unzip` would leave them): the candidates of `package_zip` (zipped) and `manifest`.
packages() {
    local dir=$1
    mkdir -p "$dir/sine/metadata" "$dir/two/metadata"
    cp testdata/circle/sine_float.circle "$dir/sine/"
    printf '%s\n' '{' '  "major-version": "1", "minor-version": "2", "patch-version": "0",' \
        '  "configs": [], "models": ["sine_float.circle"], "model-types": ["circle"]' '}' \
        >"$dir/sine/metadata/MANIFEST"
    cp testdata/circle/sine_float.circle testdata/tflite/sine_float.tflite "$dir/two/"
    printf '%s\n' 'BACKENDS="cpu"' >"$dir/two/metadata/config.cfg"
    printf '%s\n' '{' '  "major-version": "1", "minor-version": "3", "patch-version": "0",' \
        '  "configs": ["config.cfg"], "models": ["sine_float.circle", "sine_float.tflite"],' \
        '  "model-types": ["circle", "tflite"],' \
        '  "pkg-inputs": ["0:0:0"], "pkg-outputs": ["1:0:0"],' \
        '  "model-connect": [{"from": "0:0:0", "to": ["1:0:0"]}]' '}' >"$dir/two/metadata/MANIFEST"
}

# The candidate seeds of target $1, copied into folder $2.
candidates() {
    local target=$1 dir=$2 scratch
    case "$target" in
        tflite | differential)
            # The large models only cut down.
            find testdata/tflite -name '*.tflite' -size -65537c -exec cp {} "$dir/" \;
            cargo run -q -p flatmodel-fuzz --bin tflite -- --seeds "$dir" >/dev/null
            ;;
        circle)
            cp testdata/circle/*.circle testdata/circle_training/* "$dir/"
            # The TFLite seeds as Circle models: Circle keeps TFLite's layout, so with the
            # identifier changed they reach the shared rules (sparsity, control flow, strings).
            scratch=$(mktemp -d)
            cargo run -q -p flatmodel-fuzz --bin tflite -- --seeds "$scratch" >/dev/null
            for model in "$scratch"/*.tflite; do
                printf 'CIR0' | dd of="$model" bs=1 seek=4 conv=notrunc status=none
                mv "$model" "$dir/$(basename "$model" .tflite).circle"
            done
            rm -r "$scratch"
            ;;
        pte) cp testdata/vkgraph/*.pte testdata/xnnpack/*.pte testdata/ptd/*.pte "$dir/" ;;
        vkgraph) cp testdata/vkgraph/*.vh00 "$dir/" ;;
        xnnpack | ptd | litertlm | cvimodel | bundle) cp testdata/"$target"/* "$dir/" ;;
        capi | views)
            find testdata/tflite testdata/circle testdata/vkgraph testdata/xnnpack testdata/ptd \
                testdata/litertlm testdata/cvimodel -type f -exec cp {} "$dir/" \;
            cargo run -q -p flatmodel-fuzz --bin tflite -- --seeds "$dir" >/dev/null
            ;;
        package_zip | manifest)
            scratch=$(mktemp -d)
            packages "$scratch"
            if [ "$target" = manifest ]; then
                cp "$scratch/sine/metadata/MANIFEST" "$dir/sine.MANIFEST"
                cp "$scratch/two/metadata/MANIFEST" "$dir/two.MANIFEST"
            else
                # Fixed times and no extra fields, so the zips are the same each time.
                find "$scratch" -exec touch -h -t 202601010000 {} +
                (cd "$scratch" && zip -qrX "$dir/sine.zip" sine && zip -qrX -0 "$dir/two.zip" two)
            fi
            rm -r "$scratch"
            ;;
        schema_text | schema_bfbs) cargo run -q -p flatmodel-fuzz --bin "$target" -- --seeds "$dir" >/dev/null ;;
        *) echo "fuzz/seeds.sh: no seeds listed for target $target" >&2 && exit 2 ;;
    esac
    # Its findings, kept as regression files, are seeds too.
    find testdata/regressions -name "$target-*" -exec cp {} "$dir/" \;
}

targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(cargo +nightly fuzz list)
for target in "${targets[@]}"; do
    limit=$(max_len "$target")
    work=$(mktemp -d)
    candidates "$target" "$work"
    find "$work" -type f -size +"$limit"c -delete
    before=$(find "$work" -type f | wc -l)
    cargo +nightly fuzz cmin "$target" "$work" -- -max_len="$limit" >"$work.log" 2>&1 ||
        { tail -n 20 "$work.log" >&2; exit 1; }
    rm -rf "fuzz/seeds/$target" && mkdir -p "fuzz/seeds/$target"
    cp "$work"/* "fuzz/seeds/$target/"
    echo "$target: $(find "fuzz/seeds/$target" -type f | wc -l) seeds of $before candidates," \
        "$(du -cb "fuzz/seeds/$target"/* | tail -n 1 | cut -f 1) bytes (max_len $limit)"
    rm -rf "$work" "$work.log"
done
