#!/usr/bin/env bash
# Flash cost of each flatmodel entry point on a Cortex-M4 (thumbv7em-none-eabihf): one firmware
# per row that calls that one function, opt-level "z", LTO, one codegen unit, panic = abort,
# linked with --gc-sections (Cargo.toml, .cargo/config.toml). Prints .text + .rodata in bytes,
# less the empty firmware (vector table and start-up). Where arm-none-eabi-g++ and flatc are
# installed (Debian: gcc-arm-none-eabi libstdc++-arm-none-eabi-newlib flatbuffers-compiler
# libflatbuffers-dev), the rows with a C++ peer also show flatbuffers' generated verifier for
# the same schema (cpp/peer.cpp, -Os, --gc-sections), measured the same way. With
# arm-none-eabi-gcc, one more row: a C firmware calling fm_verify_tflite, the C ABI's entry
# that wraps tflite::Model::parse (../c-firmware/footprint.c, linked with -Os --gc-sections
# against the C ABI's firmware library of TFLite's functions, libflatmodel_c_tflite.a), less the
# same C firmware calling nothing. It must be
# at most C_BUDGET bytes over the tflite::Model::parse row, and link no other format's code.
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")"
out=target/footprint
mkdir -p "$out"
C_BUDGET=1024

# .text + .rodata of an ELF file, in bytes.
flash() {
  local total=0 name size
  while read -r name size; do
    total=$((total + 16#$size))
  done < <(readelf -S -W "$1" | sed 's/^ *\[ *[0-9]*\]//' | awk '$1 == ".text" || $1 == ".rodata" { print $1, $5 }')
  echo "$total"
}

rust() {
  cargo build --quiet --release --bin footprint --no-default-features --features "$1"
  flash target/thumbv7em-none-eabihf/release/footprint
}

have_cpp=false
if command -v arm-none-eabi-g++ >/dev/null && command -v flatc >/dev/null && [ -d /usr/include/flatbuffers ]; then
  have_cpp=true
  mkdir -p "$out/include" && ln -sfn /usr/include/flatbuffers "$out/include/flatbuffers"
fi

# The C++ peer for schema $1 (src/formats/$1/schema.fbs) and its verify function $2; none: the
# empty firmware.
cpp() {
  local flags=(-Os -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -std=c++17 -DNDEBUG
    -ffunction-sections -fdata-sections -fno-exceptions -fno-rtti -nostartfiles -Wl,--gc-sections
    -Wl,-e,entry --specs=nano.specs --specs=nosys.specs -isystem "$out/include")
  if [ $# -gt 0 ]; then
    # A fresh copy each time (a failed flatc must not leave an old header to compile). flatc
    # 2.0.8 predates `(deprecated)` on enum values and union members (Circle 0.10 has both),
    # which changes no verifier code: the copy leaves it out there.
    rm -rf "${out:?}/$1" && mkdir -p "$out/$1"
    sed -E 's/^( *[A-Za-z_0-9]+( *= *-?[0-9]+)?) *\(deprecated\)/\1/' "../../src/formats/$1/schema.fbs" >"$out/$1/schema.fbs"
    flatc --cpp -o "$out/$1" "$out/$1/schema.fbs"
    flags+=(-I "$out/$1" -DPEER_HEADER='"schema_generated.h"' -DPEER_VERIFY="$2")
  fi
  rm -f "$out/peer-${1:-empty}.elf"
  arm-none-eabi-g++ "${flags[@]}" cpp/peer.cpp -o "$out/peer-${1:-empty}.elf"
  flash "$out/peer-${1:-empty}.elf"
}

base=$(rust baseline)
cpp_base=$($have_cpp && cpp || echo 0)
echo "| entry | flatmodel | C++ flatbuffers $($have_cpp && flatc --version | cut -d' ' -f3) verifier |"
echo "|---|---:|---:|"
row() {
  local bytes peer=-
  bytes=$(rust "$1")
  if $have_cpp && [ -n "${3:-}" ]; then
    peer=$(($(cpp "$3" "$4") - cpp_base))
  fi
  last=$((bytes - base))
  printf '| `%s` | %s | %s |\n' "$2" "$last" "$peer"
}
row tflite-structure tflite::Model::parse_structure tflite tflite::VerifyModelBuffer
row tflite-structure,numeric-paths "tflite::Model::parse_structure (numeric-paths)"
row tflite-parse tflite::Model::parse
tflite_parse=$last
c_bytes=
c_elf=../c-firmware/build/thumbv7em-none-eabihf/footprint-tflite.elf
if command -v arm-none-eabi-gcc >/dev/null; then
  make --quiet -C ../c-firmware footprint >/dev/null
  c_bytes=$(($(flash "$c_elf") - $(flash "${c_elf%-tflite.elf}-empty.elf")))
  printf '| `%s` from C (`arm-none-eabi-gcc -Os`, `--features tflite`) | %s | - |\n' fm_verify_tflite "$c_bytes"
fi
row circle-structure circle::Model::parse_structure circle circle::VerifyModelBuffer
row circle-parse circle::Model::parse
row vkgraph-structure vkgraph::Blob::parse_structure vkgraph vkgraph::VerifyVkGraphBuffer
row pte-parse pte::PteFile::parse
row cvimodel-parse cvimodel::CviModel::parse
echo "(bytes of .text + .rodata less the empty firmware: $base for Rust${cpp_base:+, $cpp_base for C++})"

if [ -z "$c_bytes" ]; then
  echo "(no fm_verify_tflite row: it needs arm-none-eabi-gcc)"
  exit 0
fi
# No other format's verifier: none of the other C entry points, no other schema's layout or
# names (read-only data), no other format's entry, container or rules code. A few functions may
# carry another format's name: LLVM merges functions whose code is identical, and a TFLite view
# accessor or graph trait method can be the twin of Circle's or ExecuTorch's, keeping either name.
symbols=$(arm-none-eabi-nm -C "$c_elf")
if ! grep -q ' T fm_verify_tflite$' <<<"$symbols" || ! grep -q 'flatmodel::formats::tflite::' <<<"$symbols"; then
  echo "the C firmware's symbols do not show fm_verify_tflite and TFLite's code: the check below would prove nothing" >&2
  exit 1
fi
others=$(grep -E ' (T fm_verify|T fm_verify_(circle|pte|vkgraph|cvimodel)|T fm_check_runtime)$|flatmodel::formats::(circle|circle_training|pte|vkgraph|cvimodel)::' <<<"$symbols" |
  grep -vE ' [tT] flatmodel::formats::[a-z_]+::(generated::[A-Za-z0-9_]+::[a-z0-9_]+|graph::<impl flatmodel::graph::[a-z:]*[A-Za-z]+ for [^>]*>::[a-z_]+)$' || true)
if [ -n "$others" ]; then
  printf 'the C firmware calling only fm_verify_tflite links other formats:\n%s\n' "$others" >&2
  exit 1
fi
echo "fm_verify_tflite from C links no other format's entry points, schema data or rules"

# The C ABI's wrapper: at most C_BUDGET bytes over the Rust entry it wraps.
over=$((c_bytes - tflite_parse))
echo "fm_verify_tflite from C: $over bytes over tflite::Model::parse (at most $C_BUDGET)"
if [ "$over" -gt "$C_BUDGET" ]; then
  echo "fm_verify_tflite from C is $over bytes over tflite::Model::parse: more than $C_BUDGET" >&2
  exit 1
fi
