#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Sets up libwaveopt on Debian (bookworm): installs the packages it needs (as root), builds it,
# and runs waveopt and wavesim on a bundled example kernel.
set -eu
cd "$(dirname "$0")"

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends \
    build-essential autoconf automake libtool pkg-config \
    libcriterion-dev llvm-14-tools python3 libgraphviz-dev graphviz clang >/dev/null
fi

[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure --quiet
make -j"$(nproc)" >/dev/null

optimized=$(mktemp)
trap 'rm -f "$optimized"' EXIT
echo "== waveopt -O2 examples/loop_demo.wave: documentation dialect in, optimized assembler dialect out:"
./tools/waveopt -O2 examples/loop_demo.wave -o "$optimized"
cat "$optimized"
echo "== running the optimized kernel in the reference interpreter (out[0..15]):"
./tools/wavesim "$optimized" -w --workgroup 32,1,1 --set-reg 0:0 --dump-u32 0:16 | tr '\n' ' '
echo
