#!/usr/bin/env bash
# Builds main.cpp against an installed flatmodel and Debian's flatbuffers 2.0.8
# (flatbuffers-compiler, libflatbuffers-dev), into OUTDIR/tflm_pattern. flatc generates
# schema_generated.h from the project's TFLite schema here, at build time; it is not committed.
#
#   examples/cpp-tflm-pattern/build.sh PREFIX OUTDIR
set -euo pipefail
prefix="$1"
out="$2"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
mkdir -p "$out"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
set -x
rm -f "$out/schema_generated.h"
flatc --cpp -o "$out" "$root/src/formats/tflite/schema.fbs"
# shellcheck disable=SC2046  # pkg-config's flags are words
"${CXX:-c++}" -std=c++17 -Wall -Wextra -Werror -O2 -I "$out" "$here/main.cpp" \
  $(pkg-config --cflags --libs flatmodel) -Wl,-rpath,"$(pkg-config --variable=libdir flatmodel)" \
  -o "$out/tflm_pattern"
