#!/usr/bin/env bash
# Builds verify.c against an installed flatmodel, three ways, into OUTDIR:
#   verify_pkgconfig          cc $(pkg-config --cflags --libs flatmodel): the shared library
#   verify_pkgconfig_static   the static library with pkg-config --static's system libraries
#   cmake/verify_cmake(_static)  find_package(flatmodel) (CMakeLists.txt)
#
#   examples/c-host/build.sh PREFIX OUTDIR
set -euo pipefail
prefix="$1"
out="$2"
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$out"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
cc="${CC:-cc}"
flags=(-std=c99 -Wall -Wextra -Werror -O2)
libdir="$(pkg-config --variable=libdir flatmodel)"

set -x
# Shared: the run path finds the library outside the system's directories.
# shellcheck disable=SC2046  # pkg-config's flags are words
"$cc" "${flags[@]}" "$here/verify.c" $(pkg-config --cflags --libs flatmodel) -Wl,-rpath,"$libdir" \
  -o "$out/verify_pkgconfig"
# Static: the archive by path (-lflatmodel_c would pick the shared library), then the system
# libraries it needs (Libs.private, which --static adds).
# shellcheck disable=SC2046
"$cc" "${flags[@]}" $(pkg-config --cflags flatmodel) "$here/verify.c" "$libdir/libflatmodel_c.a" \
  $(pkg-config --static --libs-only-l flatmodel | sed 's/-lflatmodel_c//') -o "$out/verify_pkgconfig_static"
cmake -S "$here" -B "$out/cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$out/cmake" >/dev/null
