#!/usr/bin/env bash
# Builds sanitize.c with AddressSanitizer and UBSan against an installed flatmodel (its static
# library, so that the whole program is one binary), then runs it over testdata/ and, when
# FLATMODEL_CORPUS is set, the corpus. `cargo xtask c-check` calls this after `install-c`.
#
#   capi/tests/c/run.sh PREFIX OUTDIR
set -euo pipefail
prefix="$1"
out="$2"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
mkdir -p "$out"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
# The static library by its path, then the system libraries it needs (Libs.private).
libs_private="$(pkg-config --static --libs-only-l flatmodel | sed 's/-lflatmodel_c//')"
# shellcheck disable=SC2086  # the flags are words
${CC:-cc} -std=c11 -Wall -Wextra -Werror -g -O1 -fno-omit-frame-pointer \
  -fsanitize=address,undefined -fno-sanitize-recover=all \
  $(pkg-config --cflags flatmodel) "$here/sanitize.c" \
  "$(pkg-config --variable=libdir flatmodel)/libflatmodel_c.a" $libs_private -o "$out/sanitize"
ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1" \
UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
  "$out/sanitize" "$root/testdata"
