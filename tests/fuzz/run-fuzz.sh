#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs the libFuzzer targets (docs/fuzzing.md).
#   run-fuzz.sh [seeds]  each target over its seed corpus only: the regression run of `make check`
#                        (skipped, exit 77, when configure found no clang with libFuzzer)
#   run-fuzz.sh fuzz     each target for FUZZ_SECONDS (`make fuzz`), growing
#                        tests/fuzz/corpus/TARGET; a crash leaves its input in tests/fuzz/crashes/TARGET/
# FUZZ_TARGETS picks targets (default: parse profile pipeline). Paths are under WAVE_BUILDDIR.
set -u
mode=${1:-seeds}
build=${WAVE_BUILDDIR:-.}
if [ -z "${FUZZ_AVAILABLE:-}" ]; then
  echo "no clang with -fsanitize=fuzzer was found by configure (FUZZ_CC): fuzz targets skipped"
  exit 77
fi
status=0
for target in ${FUZZ_TARGETS:-parse profile pipeline}; do
  case $target in
    profile) seeds=$build/tests/fuzz/seeds/profile ;;
    *) seeds=$build/tests/fuzz/seeds/wave ;;
  esac
  binary=$build/tests/fuzz/fuzz_$target
  if [ ! -x "$binary" ]; then
    echo "run-fuzz.sh: no target '$target' ($binary)" >&2
    status=1
    continue
  fi
  echo "== fuzz_$target ($mode)"
  if [ "$mode" = fuzz ]; then
    corpus=$build/tests/fuzz/corpus/$target
    crashes=$build/tests/fuzz/crashes/$target
    mkdir -p "$corpus" "$crashes"
    "$binary" -max_total_time="${FUZZ_SECONDS:-60}" -timeout=10 -print_final_stats=1 \
      -artifact_prefix="$crashes/" "$corpus" "$seeds" || status=1
  else
    # libFuzzer's whole log only when a seed fails; its closing lines otherwise. The copy of a
    # failing seed it writes goes with the log, not into the directory make runs in: the seed
    # itself is named in the log.
    scratch=$(mktemp -d)
    log=$scratch/log
    if "$binary" -runs=0 -timeout=10 -artifact_prefix="$scratch/" "$seeds" >"$log" 2>&1; then
      tail -n 2 "$log"
    else
      cat "$log"
      echo "fuzz_$target fails on a seed: reproduce with $binary $seeds" >&2
      status=1
    fi
    rm -rf "$scratch"
  fi
done
exit $status
