#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Compares what two builds of waveopt write, byte for byte: the optimized output and the
# diagnostics of -O0 .. -O3 on the corpus, the bench kernels, the lit tests' kernels, SEEDS
# wavegen kernels and (with --large) the three 1M-instruction kernels of bench_compile. A change
# of representation must leave all of it alone (the dense-IR issue); what may differ is listed
# with the first lines of each difference.
#
# usage: tests/compare-builds.sh OLD_BUILDDIR NEW_BUILDDIR [SEEDS] [--large]
#   each BUILDDIR holds tools/waveopt (and the new one tools/wavegen and, for --large,
#   tests/bench/bench_compile); SEEDS defaults to 2000.
set -eu
[ $# -ge 2 ] || { sed -n '9,11p' "$0" >&2; exit 2; }
# A libtool build's tools/waveopt is a wrapper script that costs more than a small kernel's
# optimization: run the real binary against the build's own library where there is one.
# (Build directories with spaces in their paths are not supported.)
tool() {
  if [ -x "$1/tools/.libs/$2" ]; then
    echo "env LD_LIBRARY_PATH=$1/libwaveopt/.libs $1/tools/.libs/$2"
  else
    echo "$1/tools/$2"
  fi
}
old=$(tool "$1" waveopt) new=$(tool "$2" waveopt) gen=$(tool "$2" wavegen)
seeds=${3:-2000}
large=${4:-}
srcdir=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/in"
for f in "$srcdir"/tests/corpus/*.wave "$srcdir"/tests/bench/kernels/*.wave \
         "$srcdir"/tests/lit/*.test "$srcdir"/tests/lit/Inputs/*.wave; do
  [ -f "$f" ] && cp "$f" "$work/in/$(basename "$(dirname "$f")")-$(basename "$f").wave"
done
seed=0
while [ "$seed" -lt "$seeds" ]; do
  $gen --seed "$seed" --size 400 -o "$work/in/gen-$seed.wave"
  seed=$((seed + 1))
done
if [ "$large" = --large ]; then
  "$2/tests/bench/bench_compile" --write-kernels "$work/in"
fi
compared=0 differ=0
for f in "$work"/in/*.wave; do
  for level in 0 1 2 3; do
    a=$($old -O$level "$f" -o - 2>&1 | sha1sum) || true
    b=$($new -O$level "$f" -o - 2>&1 | sha1sum) || true
    compared=$((compared + 1))
    if [ "$a" != "$b" ]; then
      differ=$((differ + 1))
      echo "differs: -O$level $(basename "$f")"
      $old -O$level "$f" -o - > "$work/a" 2>&1 || true
      $new -O$level "$f" -o - > "$work/b" 2>&1 || true
      diff "$work/a" "$work/b" | head -n 6
    fi
  done
done
echo "$compared compared, $differ differ"
[ "$differ" -eq 0 ]
