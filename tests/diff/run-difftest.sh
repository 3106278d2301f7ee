#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# make check entry for the differential harness. Each run ends with "N passed, M failed";
# failures are reduced into difftest-seed-S-reduced.wave in the current directory.
#
# 1. 300 generated kernels through the identity (print/parse round trip) and the
#    documentation-dialect lowering, then 500 without wave operations in SIMT and per-thread
#    mode.
# 2. Every registered pass alone and every -O level (a level naming a pass not yet registered
#    is skipped with a note), plus the harness's own remove-nops, so that the pipeline path is
#    tested before the library registers a pass. Seeds and size are chosen by measurement: all
#    of this stage took about 5 s on two cores with no library pass registered; the budget is
#    3 minutes. Each summary line says on how many kernels the pipeline fired, and each pass of
#    it apart: reported for people reading the log, not asserted (a pass that fires on no
#    kernel is not tested here; wavegen builds the shapes each pass rewrites).
#    Every pipeline is also held to its target's toolchain hazards: it must add none (the
#    summary says how often legalize rewrote or kept a halt or return inside a region).
# 3. The harness must catch wrong passes: one that changes memory (a mismatch the reducer then
#    shrinks to a few items) and one that breaks the IR (caught by verify-each, naming it).
set -eu
difftest="${WAVE_BUILDDIR:-.}/tests/diff/wave-difftest"
"$difftest" --seeds 300 --size 400 --transform default
"$difftest" --seeds 500 --size 400 --transform thread-vs-simt
# Generated kernels keep every register live (they store them all at the end), and legalize
# needs scratch for the flags of continue and halt inside regions (wave-emu and portable): the
# pipelines may grow .registers.
echo "every pass alone and every level; 'fired on N (PASS N, ...)': the kernels each changed"
"$difftest" --seeds 600 --size 1000 --test-pass remove-nops --all-passes --levels --max-registers 255
# legalize lowers documentation-dialect forms: give every level such kernels too.
"$difftest" --seeds 300 --size 400 --docs-dialect --levels --max-registers 255
echo "every level for the emulator, whose legalize rewrites continue and halt inside regions"
"$difftest" --seeds 300 --size 400 --target wave-emu --levels --max-registers 255
# Pipelines also must add no construct their target runs wrongly (difftest.h, hazards.c): on
# portable above, and for wave-ptx, whose wave operations need every live lane.
echo "every level for wave-ptx"
"$difftest" --seeds 200 --size 400 --target wave-ptx --levels

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() {
  echo "run-difftest.sh: $1; the output was:" >&2
  cat "$scratch/out" >&2
  exit 1
}

# expect_failure NAME ARGS...: wave-difftest must exit 1 with failures on its last line.
expect_failure() {
  name=$1
  shift
  status=0
  (cd "$scratch" && "$difftest" --seeds 10 --size 200 "$@") >"$scratch/out" 2>&1 || status=$?
  [ "$status" = 1 ] || fail "$name: exit status $status, expected 1"
  tail -n 1 "$scratch/out" | grep -Eq '^[0-9]+ passed, [1-9][0-9]* failed$' ||
    fail "$name: the last line does not count failures"
}

expect_failure drop-first-store --test-pass drop-first-store --passes drop-first-store
grep -q 'drop-first-store: FAIL: W=[0-9]*: memory differs' "$scratch/out" ||
  fail "drop-first-store: no memory mismatch reported"
grep -Eq '^drop-first-store: [0-9]+ of 10 seeds passed, fired on 10$' "$scratch/out" ||
  fail "drop-first-store: no summary line saying it fired on every kernel"
# A store and the halt are all a mismatch of a dropped store needs.
items=$(sed -n 's/^reduced kernel (\([0-9]*\) of [0-9]* items.*/\1/p' "$scratch/out" | sort -n |
        tail -n 1)
[ -n "$items" ] && [ "$items" -le 4 ] ||
  fail "drop-first-store: not reduced to at most 4 items (largest: ${items:-none})"
for reduced in "$scratch"/difftest-seed-*-reduced.wave; do
  grep -Eq '^ *(device|local)_store' "$reduced" ||
    fail "drop-first-store: no store is left in $(basename "$reduced")"
done

expect_failure append-empty-block --test-pass append-empty-block --passes append-empty-block \
  --no-reduce
grep -q 'internal error: .* (after pass append-empty-block)' "$scratch/out" ||
  fail "append-empty-block: verify-each did not name the pass"
