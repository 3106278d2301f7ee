#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# make check entry for the differential harness: 300 generated kernels through the identity
# (print/parse round trip) and the documentation-dialect lowering, then 500 kernels without
# wave operations run in SIMT and per-thread mode. Each run ends with "N passed, M failed";
# failures are reduced into difftest-seed-S-reduced.wave in the current directory.
set -eu
difftest="${WAVE_BUILDDIR:-.}/tests/diff/wave-difftest"
"$difftest" --seeds 300 --size 400 --transform default
"$difftest" --seeds 500 --size 400 --transform thread-vs-simt
