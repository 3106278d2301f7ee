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
    libcriterion-dev llvm-14-tools python3 libgraphviz-dev graphviz clang libclang-rt-14-dev \
    abigail-tools valgrind \
    >/dev/null
fi

[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure --quiet
make -j"$(nproc)" >/dev/null

# The demo's files stay in setup-demo/ (git ignores it) so the graphs can be opened afterwards.
demo=setup-demo
rm -rf "$demo" && mkdir "$demo"
echo "== waveopt -O2 -dot examples/divergent_if.wave -o $demo/divergent_if.wave:"
./tools/waveopt -O2 -dot examples/divergent_if.wave -o "$demo/divergent_if.wave"
cat "$demo/divergent_if.wave"
echo "== the control-flow graph it drew, coloured by divergence ($demo/divergent_if.dot), rendered by graphviz:"
dot -Tsvg "$demo/divergent_if.dot" -o "$demo/divergent_if.svg"
ls "$demo"
echo "== the reference interpreter, input then output (out[0..15]; 60 for even lanes, 52 for odd):"
for kernel in examples/divergent_if.wave "$demo/divergent_if.wave"; do
  ./tools/wavesim "$kernel" -w --dump-u32 0:16 | tr '\n' ' '
  echo
done
