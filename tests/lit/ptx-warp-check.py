#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Full-warp .sync operations behind branches, in the PTX that wave-ptx writes.

A warp operation with the full member mask (vote.sync ..., 0xFFFFFFFF; shfl.sync) is undefined
in PTX unless every thread of the warp that has not exited executes it. The threads that take a
forward branch skip the code up to its label while still alive, so each full-mask .sync inside
such a range is a place where live threads may be missing. Whether they really are depends on
the branch being divergent, which this text cannot tell (a uniform if is a branch too); so the
script compares the input's PTX with the output's, counting for every full-mask .sync the
forward branches around it, and fails when the output has more: a warp operation the output
put behind a branch the input did not have (docs/toolchain.md "Wave operations under
divergence"). It runs the chain itself: wave-asm and wave-ptx on KERNEL, waveopt with the
given options on KERNEL, then wave-asm and wave-ptx on that.

usage: ptx-warp-check.py TOOLCHAIN_BIN --waveopt=COMMAND KERNEL WORKDIR [WAVEOPT OPTIONS...]
"""
import os
import re
import shlex
import subprocess
import sys

LABEL = re.compile(r"^\s*(\$?[A-Za-z_][\w$]*):")
BRANCH = re.compile(r"^\s*(?:@!?%\w+\s+)?bra(?:\.uni)?\s+(\$?[\w$]+)\s*;")
FULL_SYNC = re.compile(r"\.sync\b.*(0xffffffff|-1)\s*;", re.IGNORECASE)


def count(path):
    lines = open(path).read().splitlines()
    labels = {}
    for i, line in enumerate(lines):
        m = LABEL.match(line)
        if m:
            labels[m.group(1)] = i
    ranges = []
    for i, line in enumerate(lines):
        m = BRANCH.match(line)
        if m and labels.get(m.group(1), -1) > i:
            ranges.append((i, labels[m.group(1)]))
    total = 0
    for i, line in enumerate(lines):
        if FULL_SYNC.search(line):
            total += sum(1 for start, end in ranges if start < i < end)
    return total


def to_ptx(toolchain, wave, stem):
    subprocess.run([os.path.join(toolchain, "wave-asm"), wave, "-o", stem + ".wbin"], check=True)
    subprocess.run([os.path.join(toolchain, "wave-ptx"), stem + ".wbin", "-o", stem + ".ptx"],
                   check=True)
    return stem + ".ptx"


def main():
    if len(sys.argv) < 5 or not sys.argv[2].startswith("--waveopt="):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    toolchain, kernel, workdir = sys.argv[1], sys.argv[3], sys.argv[4]
    # One shell word, since it may be a wrapper's command line (valgrind in make check-valgrind).
    waveopt = shlex.split(sys.argv[2][len("--waveopt="):])
    os.makedirs(workdir, exist_ok=True)
    optimized = os.path.join(workdir, "out.wave")
    subprocess.run([*waveopt, "-w", *sys.argv[5:], kernel, "-o", optimized], check=True)
    before = count(to_ptx(toolchain, kernel, os.path.join(workdir, "in")))
    after = count(to_ptx(toolchain, optimized, os.path.join(workdir, "out")))
    print(f"full-mask .sync operations behind forward branches: {before} in the input, "
          f"{after} in the output")
    return 1 if after > before else 0


if __name__ == "__main__":
    sys.exit(main())
