#!/usr/bin/env bash
# Flash cost of each flatmodel entry point on a Cortex-M4 (thumbv7em-none-eabihf): one firmware
# per row that calls that one function, opt-level "z", LTO, one codegen unit, panic = abort,
# linked with --gc-sections (Cargo.toml, .cargo/config.toml). Prints .text + .rodata in bytes,
# and the same less the empty firmware (vector table and runtime start-up).
set -euo pipefail
cd "$(dirname "$0")"

size_of() {
  cargo build --quiet --release --bin footprint --no-default-features --features "$1"
  local total=0 name size
  while read -r name size; do
    total=$((total + 16#$size))
  done < <(readelf -S -W target/thumbv7em-none-eabihf/release/footprint | sed 's/^ *\[ *[0-9]*\]//' |
    awk '$1 == ".text" || $1 == ".rodata" { print $1, $5 }')
  echo "$total"
}

base=$(size_of baseline)
printf '| entry | .text + .rodata | less the empty firmware (%s) |\n|---|---:|---:|\n' "$base"
for entry in tflite-structure:tflite::Model::parse_structure tflite-parse:tflite::Model::parse \
  circle-structure:circle::Model::parse_structure circle-parse:circle::Model::parse \
  vkgraph-structure:vkgraph::Blob::parse_structure pte-parse:pte::PteFile::parse \
  cvimodel-parse:cvimodel::CviModel::parse; do
  feature=${entry%%:*}
  bytes=$(size_of "$feature")
  printf '| `%s` | %s | %s |\n' "${entry#*:}" "$bytes" "$((bytes - base))"
done
