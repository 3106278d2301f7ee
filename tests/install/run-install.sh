#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The library as another compiler gets it: installed into a staging directory (make install
# DESTDIR=...), then used from there alone through pkg-config, the way a user outside the tree
# builds against it.
#   - every installed header compiles on its own, as C11 and as C++11 (-Wall -Wextra -Werror
#     -pedantic), and examples/embed/all_headers.cpp includes every one of them;
#   - examples/embed/embed.c (pkg-config waveopt) and all_headers.cpp (pkg-config waveopt-dot)
#     build, link the staged libraries and run: embed checks its own results and exits non-zero
#     on a failure; the C++ program draws a kernel.
# The staged .pc files name the configured prefix, which holds nothing yet: a copy of each with
# its prefix moved into the staging directory is what pkg-config reads (the system's .pc files,
# libcgraph's among them, stay as they are). Compilers and flags come from configure (CC, CXX,
# SANITIZER_FLAGS: a sanitized library needs sanitized programs).
set -eu
build=$(cd "${WAVE_BUILDDIR:-.}" && pwd)
src=$(cd "${WAVE_SRCDIR:-.}" && pwd)
CC=${CC:-cc}
CXX=${CXX:-c++}
SANITIZER_FLAGS=${SANITIZER_FLAGS:-}
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
stage=$(mktemp -d "${TMPDIR:-/tmp}/waveopt-install.XXXXXX")
trap 'rm -rf "$stage"' EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

echo "== make install DESTDIR=$stage"
if ! ${MAKE:-make} -s -C "$build" install DESTDIR="$stage/root" >"$stage/install.log" 2>&1; then
  cat "$stage/install.log"
  echo "FAIL: make install"
  exit 1
fi
pc=$(find "$stage/root" -name waveopt.pc)
[ -n "$pc" ] || { echo "FAIL: no waveopt.pc installed"; exit 1; }
mkdir "$stage/pkgconfig"
for name in waveopt waveopt-dot; do
  sed "s|^prefix=|prefix=$stage/root|" "$(dirname "$pc")/$name.pc" >"$stage/pkgconfig/$name.pc"
done
PKG_CONFIG_PATH=$stage/pkgconfig
export PKG_CONFIG_PATH
libdir=$($PKG_CONFIG --variable=libdir waveopt)
includedir=$($PKG_CONFIG --variable=includedir waveopt)
case $libdir in "$stage"/*) ;; *) echo "FAIL: libdir $libdir is outside the stage"; exit 1 ;; esac
dot_flags=$($PKG_CONFIG --cflags waveopt-dot)
strict="-Wall -Wextra -Werror -pedantic"

echo "== each installed header on its own, as C11 and as C++11"
headers=0
for header in "$includedir"/waveopt/*.h; do
  name=$(basename "$header")
  headers=$((headers + 1))
  # The typedef keeps a header of macros alone (api.h) from being an empty translation unit.
  printf '#include <waveopt/%s>\ntypedef int only_%s;\n' "$name" "${name%.h}" >"$stage/one.c"
  cp "$stage/one.c" "$stage/one.cpp"
  $CC -std=c11 $strict $dot_flags -c "$stage/one.c" -o "$stage/one.o" || fail "$name as C11"
  $CXX -std=c++11 $strict $dot_flags -c "$stage/one.cpp" -o "$stage/one.o" || fail "$name as C++11"
  grep -q "#include <waveopt/$name>" "$src/examples/embed/all_headers.cpp" ||
    fail "examples/embed/all_headers.cpp does not include waveopt/$name"
done
[ "$headers" -gt 0 ] || fail "no headers installed in $includedir/waveopt"
echo "$headers headers"

# LD_LIBRARY_PATH: the staged libraries, not a copy installed on the machine or the build's.
run() {
  LD_LIBRARY_PATH=$libdir "$@"
}

echo "== examples/embed/embed.c against pkg-config waveopt"
if $CC -std=c11 $strict $SANITIZER_FLAGS $($PKG_CONFIG --cflags waveopt) \
    "$src/examples/embed/embed.c" $($PKG_CONFIG --libs waveopt) -o "$stage/embed"; then
  case $(run ldd "$stage/embed") in
    *"$libdir/libwaveopt.so"*) ;;
    *) fail "embed does not load the staged libwaveopt" ;;
  esac
  run "$stage/embed" >"$stage/embed.out" || { cat "$stage/embed.out"; fail "embed ran"; }
  tail -n 1 "$stage/embed.out"
else
  fail "embed.c builds"
fi

echo "== examples/embed/all_headers.cpp against pkg-config waveopt-dot"
if $CXX -std=c++11 $strict $SANITIZER_FLAGS $dot_flags "$src/examples/embed/all_headers.cpp" \
    $($PKG_CONFIG --libs waveopt-dot) -o "$stage/all_headers"; then
  run "$stage/all_headers" >"$stage/cxx.out" || { cat "$stage/cxx.out"; fail "all_headers ran"; }
  grep -q '^digraph' "$stage/cxx.out" || fail "all_headers drew no graph"
  tail -n 1 "$stage/cxx.out"
else
  fail "all_headers.cpp builds"
fi

[ "$failures" -eq 0 ] || { echo "$failures failures"; exit 1; }
echo "installed library: every check passed"
