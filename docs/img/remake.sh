#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Remakes the README's "Seeing divergence" pictures with the project's own tools and the
# README's commands, from examples/divergent_if.wave: its graph as written and after -O2, each
# coloured by the divergence profile wavesim measured running that code.
#   docs/img/remake.sh [BUILDDIR]     (BUILDDIR: where tools/ was built; default the source tree)
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$src}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/examples"
cp "$src/examples/divergent_if.wave" "$tmp/examples/"
(
  cd "$tmp"
  PATH=$build/tools:$PATH
  mkdir -p before after
  wavesim examples/divergent_if.wave --profile=before/run.prof > /dev/null
  waveopt -dot-before -dot-format=svg -profile=before/run.prof examples/divergent_if.wave -o before/divergent_if.wave
  waveopt -O2 examples/divergent_if.wave -o after/divergent_if.wave
  wavesim after/divergent_if.wave --profile=after/run.prof > /dev/null
  waveopt -dot-before -dot-format=svg -profile=after/run.prof after/divergent_if.wave -o after/unchanged.wave
)
cp "$tmp/before/divergent_if.before.svg" "$src/docs/img/divergent_if.svg"
cp "$tmp/after/divergent_if.before.svg" "$src/docs/img/divergent_if.O2.svg"
echo "wrote docs/img/divergent_if.svg and docs/img/divergent_if.O2.svg"
