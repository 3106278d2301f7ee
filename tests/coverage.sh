#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# make coverage: which lines of the library `make check` runs.
#   tests/coverage.sh SRCDIR [REPORT_DIR]    (REPORT_DIR defaults to ./coverage-report)
# Copies the working tree of SRCDIR, a git checkout (the files git tracks and the untracked
# ones it does not ignore), into a scratch directory, builds it there statically with gcov
# instrumentation (so that every test and tool counts into one set of data per source file,
# and this tree's own objects stay as they are), runs make check, and prints each library
# file's share of lines run, lowest first. REPORT_DIR gets one FILE.gcov per source file, its
# path in the name with '#' for '/', where ##### marks the lines no test ran. gcov comes with
# gcc.
set -eu
src=$(cd "$1" && pwd)
report=${2:-$PWD/coverage-report}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
(cd "$src" && git ls-files -co --exclude-standard -z | xargs -0 tar cf -) | (cd "$work" && tar xf -)
cd "$work"
echo "coverage: building in $work" >&2
autoreconf -fi >/dev/null 2>&1
./configure --quiet --disable-shared CFLAGS="-O1 -g --coverage" LDFLAGS="--coverage" >/dev/null
make -j"$(nproc)" >/dev/null
if ! make -j"$(nproc)" check >/dev/null 2>&1; then
  echo "coverage: make check failed; the figures count the tests that ran" >&2
fi
rm -rf "$report"
mkdir -p "$report"
# The libraries' objects are named DIR/PREFIX_la-NAME.o for DIR/NAME.c; the DOT library's
# copies of the core's helpers count with the core's own objects, and are left out.
find libwaveopt analysis passes -name '*.gcda' | sort | while read -r gcda; do
  obj=${gcda%.gcda}.o
  base=$(basename "$obj" .o)
  case $(dirname "$obj")/$base in
    libwaveopt/dot/libwaveopt_dot_la-*) ;;
    */libwaveopt_la-*|*/libwaveopt_libwaveopt_la-*) ;;
    *) continue ;;
  esac
  source=$(dirname "$obj")/${base#*_la-}.c
  [ -f "$source" ] || continue
  gcov -p -o "$obj" "$source" 2>/dev/null |
    awk -v f="$source" '$0 == "File '\''" f "'\''" {found = 1; next}
                        found && sub(/^Lines executed:/, "") {print $0 "\t" f; exit}'
done | sort -n | awk -F'\t' '{printf "%-22s %s\n", $1, $2}'
for g in *.gcov; do
  case $g in
    libwaveopt#*|analysis#*|passes#*) mv "$g" "$report/" ;;
  esac
done
echo "coverage: line by line in $report" >&2
