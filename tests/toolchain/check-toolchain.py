#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""make check-toolchain: libwaveopt's output through the real upstream tools.

The other tests hold the optimizer to its own interpreter (wavesim) and to what
docs/toolchain.md says the upstream tools do; this one runs the tools themselves. Every kernel
of tests/corpus and tests/bench/kernels is optimized at -O0..-O3 for every target (portable,
wave-emu, wave-ptx, spec), and each output must

  asm        assemble with wave-asm;
  emu        leave, run in wave-emu, the device memory that wavesim leaves running the input
             (the input under the interpreter is the reference). Required at -target=wave-emu,
             whose legalization is there to take out what the emulator runs wrongly
             (KNOWN_FAILURES says where it does not yet); at the other targets only where the
             emulator is faithful for the input (its run of the input matches wavesim's),
             since e.g. a `continue` kept for wave-ptx hangs the emulator;
  ptxas      come out of wave-ptx as PTX that `ptxas -arch=sm_90` accepts, wherever the
             input's PTX is accepted;
  dis-asm    disassemble with wave-dis into text that wave-asm turns back into the same bytes,
  dis-parse  and that waveopt reads as the same kernel (both printed by `waveopt -passes=`,
             less what no binary holds: see normalized()). Both only where they hold for the
             input, since wave-dis writes `call` targets as labels it never defines and device
             atomics in a form neither wave-asm nor waveopt reads.

"The input" for the last three is the kernel as written; one in the documentation dialect that
wave-asm rejects stands for itself as `waveopt -passes=` prints it (parsed, lowered to real
instructions by the printer, no pass run).

The kernels' launch comments are prose, so every kernel gets one generic launch (LAUNCH below,
docs/toolchain.md "make check-toolchain"). A kernel that traps, or runs past the budget, under
it in wavesim has no reference: its emu checks are skipped, counted and named in the summary.

Without the tools (WAVE_TOOLCHAIN unset, or not holding them) it prints one line saying so
and exits 0; --require makes that an error (make check-toolchain, asked for by name). No ptxas
skips only the ptxas checks. One line per failure names kernel, target, level and step; the
last line counts checks, passes, failures and skips by reason. Exit status 1 on any failure.

Every file a line names stays in BUILDDIR/tests/toolchain/work until the next run (make clean
removes it).

usage: check-toolchain.py [--toolchain DIR] [--srcdir DIR] [--builddir DIR] [-j N] [--require]
                          [KERNEL...]
"""
import argparse
import concurrent.futures
import hashlib
import os
import re
import shutil
import struct
import subprocess
import sys
import time

TARGETS = ("portable", "wave-emu", "wave-ptx", "spec")
LEVELS = (0, 1, 2, 3)
UPSTREAM = ("wave-asm", "wave-dis", "wave-emu", "wave-ptx")

# The generic launch, the same flags for wavesim and wave-emu. Two workgroups, so that
# workgroup ids matter; r0..r3 point at four buffers 4 KiB apart, big enough for the kernels'
# counts; device memory (1 MiB, both tools' default) holds word i = i, so loaded values are
# small, in-range indices, and sorted. It is loaded from a file: wave-emu's --fill-iota writes
# f32 values whatever TYPE says. The workgroup is the kernel's .workgroup_size (wave-emu takes
# the binary's directive over --workgroup), else 64 threads. wave-ptx runs 32-wide only.
MEMORY_BYTES = 1 << 20
LAUNCH = ["--grid", "2,1,1", "--wave-width", "32",
          "--set-reg", "0:0x1000", "--set-reg", "1:0x2000",
          "--set-reg", "2:0x3000", "--set-reg", "3:0x4000"]
DEFAULT_WORKGROUP = "64,1,1"
# wavesim counts wave-instructions issued; the emulator walks both sides of every if, so it
# gets more room. The longest reference run (bench/nbody_cutoff) issues about 1.1 M.
SIM_BUDGET = 4_000_000
EMU_BUDGET = 40_000_000
TIMEOUT_S = 120

# Failures known and not yet fixed in the library: (kernel, target, levels, step, reason).
# Each is reported as KNOWN and does not fail the run; one that passes again fails it until it
# leaves this list.
KNOWN_FAILURES = [
    ("corpus/cas_claim", "wave-emu", LEVELS, "emu",
     "wave-asm encodes `atomic_cas`/`local_atomic_cas` as atomic adds and no rewrite into "
     "other instructions exists; waveopt warns (docs/toolchain.md \"Compare-and-swap\")"),
]
KNOWN = {(k, t, level, step): why for k, t, levels, step, why in KNOWN_FAILURES
         for level in levels}


def run(cmd, **kw):
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=TIMEOUT_S, **kw)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(cmd, 124, b"", b"timed out after %ds" % TIMEOUT_S)


def first_line(cp):
    text = (cp.stderr or cp.stdout or b"").decode(errors="replace").strip()
    for line in text.splitlines():
        if "error" in line.lower():
            return line.strip()
    return text.splitlines()[0].strip() if text else "exit status %d" % cp.returncode


def first_difference(a, b):
    """The address of the first 16-byte row where two --dump-memory texts differ."""
    for la, lb in zip(a.splitlines(), b.splitlines()):
        if la != lb:
            return la.split(b":")[0].decode(errors="replace")
    return "the end"


NUMBER = re.compile(r"(?<![\w.])(-?)(0[xX][0-9A-Fa-f]+|\d+)(?![\w.])")
HINT = re.compile(r"\.(?:cached|uncached|streaming)\b")
HALF = re.compile(r"\b(r\d+)\.(?:lo|hi)\b")


def normalized(text):
    """waveopt's print of a kernel, less what no binary holds, so that what wave-dis gives back
    can equal it: every integer literal becomes the unsigned 32-bit value waveopt stores
    (wave_operand.value; waveopt prints an immediate as it was spelled, 128 or 0x80, wave-dis
    writes hex), and cache hints and .lo/.hi register suffixes go (wave-asm parses and drops
    them: docs/language.md "Cache hints", "Registers")."""
    def canon(m):
        v = int(m.group(2), 0)
        return str((-v if m.group(1) else v) & 0xFFFFFFFF)
    return NUMBER.sub(canon, HALF.sub(r"\1", HINT.sub("", text)))


class Tools:
    def __init__(self, args):
        self.bin = args.toolchain
        # The programs libtool's wrapper scripts run, where the build is shared: the wrappers
        # cost a shell each, 80 ms of the 10 that waveopt takes (some 1500 runs).
        libs = os.path.join(args.builddir, "tools", ".libs")
        self.env = None
        if os.access(os.path.join(libs, "waveopt"), os.X_OK):
            self.env = dict(os.environ)
            self.env["LD_LIBRARY_PATH"] = os.pathsep.join(
                [os.path.join(args.builddir, "libwaveopt", ".libs")]
                + [p for p in [os.environ.get("LD_LIBRARY_PATH")] if p])
        else:
            libs = os.path.join(args.builddir, "tools")
        self.waveopt = os.path.join(libs, "waveopt")
        self.wavesim = os.path.join(libs, "wavesim")
        self.ptxas = shutil.which("ptxas") or ("/usr/local/cuda/bin/ptxas" if os.access(
            "/usr/local/cuda/bin/ptxas", os.X_OK) else None)
        self.iota = None

    def up(self, name):
        return os.path.join(self.bin, name)

    def launch(self, workgroup):
        return LAUNCH + ["--workgroup", workgroup, "--arg", "0:" + self.iota,
                         "--dump-memory", "0:%#x" % MEMORY_BYTES]

    def asm(self, wave, wbin):
        cp = run([self.up("wave-asm"), "-W", "none", wave, "-o", wbin])
        return (True, "") if cp.returncode == 0 else (False, first_line(cp))

    def emu(self, wbin, workgroup):
        cp = run([self.up("wave-emu"), wbin, "--max-instructions", str(EMU_BUDGET)]
                 + self.launch(workgroup))
        return (True, cp.stdout) if cp.returncode == 0 else (False, first_line(cp))

    def sim(self, wave, workgroup):
        cp = run([self.wavesim, "-w", "--emulator-fallbacks", "--max-instructions",
                  str(SIM_BUDGET), wave] + self.launch(workgroup), env=self.env)
        return (True, cp.stdout) if cp.returncode == 0 else (False, first_line(cp))

    def ptx(self, wbin, stem):
        # wave-ptx's default --sm 75: with --sm 90 it writes `.version 7.5`, which ptxas
        # refuses for sm_90.
        cp = run([self.up("wave-ptx"), wbin, "-o", stem + ".ptx"])
        if cp.returncode != 0:
            return False, "wave-ptx: " + first_line(cp)
        cp = run([self.ptxas, "-arch=sm_90", stem + ".ptx", "-o", stem + ".cubin"])
        return (True, "") if cp.returncode == 0 else (False, "ptxas: " + first_line(cp))

    def reprint(self, wave):
        cp = run([self.waveopt, "-w", "-passes=", "-strip-comments", wave], env=self.env)
        return (True, cp.stdout) if cp.returncode == 0 else (False, first_line(cp))

    def roundtrip(self, wave, wbin, stem):
        """(dis-asm, dis-parse) results for the binary wbin assembled from wave."""
        cp = run([self.up("wave-dis"), wbin, "-o", stem + ".dis.wave"])
        if cp.returncode != 0:
            bad = (False, "wave-dis: " + first_line(cp))
            return bad, bad
        ok, why = self.asm(stem + ".dis.wave", stem + ".dis.wbin")
        if not ok:
            dis_asm = (False, "wave-asm rejects wave-dis's text: " + why)
        elif open(wbin, "rb").read() != open(stem + ".dis.wbin", "rb").read():
            dis_asm = (False, "wave-dis's text assembles to other bytes (%s.dis.wbin)" % stem)
        else:
            dis_asm = (True, "")
        ok, theirs = self.reprint(stem + ".dis.wave")
        if not ok:
            return dis_asm, (False, "waveopt rejects wave-dis's text: " + theirs)
        ok, ours = self.reprint(wave)
        if not ok:
            return dis_asm, (False, "waveopt rejects its own output: " + ours)
        if normalized(ours.decode()) != normalized(theirs.decode()):
            return dis_asm, (False, "waveopt reads wave-dis's text as another kernel "
                             "(%s.dis.wave)" % stem)
        return dis_asm, (True, "")


def workgroup_of(path):
    for line in open(path, errors="replace"):
        m = re.match(r"\s*\.workgroup_size\s+([\d\s,]+)", line)
        if m:
            dims = [d.strip() for d in m.group(1).split(",") if d.strip()]
            return ",".join((dims + ["1", "1"])[:3])
    return DEFAULT_WORKGROUP


class Kernel:
    def __init__(self, name, path):
        self.name = name  # corpus/NAME or bench/NAME: the two sets share names
        self.path = path


def check_kernel(tools, kernel, workdir):
    """Every check of one kernel: a list of (kernel, target, level, step, verdict, detail)
    where verdict is pass, fail or skip (detail then is the reason, counted in the summary)."""
    out = os.path.join(workdir, kernel.name)
    os.makedirs(out, exist_ok=True)
    workgroup = workgroup_of(kernel.path)
    ref_ok, ref = tools.sim(kernel.path, workgroup)

    # The input as the upstream tools see it, for the rules that hold an output to its input.
    base, base_wbin = kernel.path, os.path.join(out, "input.wbin")
    base_asm = tools.asm(base, base_wbin)[0]
    if not base_asm:  # the documentation dialect
        base = os.path.join(out, "input.wave")
        ok, text = tools.reprint(kernel.path)
        open(base, "wb").write(text if ok else b"")
        base_asm = ok and tools.asm(base, base_wbin)[0]
    faithful = False
    if base_asm and ref_ok:
        ok, dump = tools.emu(base_wbin, workgroup)
        faithful = ok and dump == ref
    base_ptx = base_asm and tools.ptxas is not None and \
        tools.ptx(base_wbin, os.path.join(out, "input"))[0]
    base_dis = (False, False)
    if base_asm:
        a, p = tools.roundtrip(base, base_wbin, os.path.join(out, "input"))
        base_dis = (a[0], p[0])

    results = []
    cache = {}  # the products of each distinct output text: targets and levels often agree
    for target in TARGETS:
        for level in LEVELS:
            def record(step, verdict, detail=""):
                results.append((kernel.name, target, level, step, verdict, detail))
            wave = os.path.join(out, "%s-O%d.wave" % (target, level))
            cp = run([tools.waveopt, "-w", "-target=" + target, "-O%d" % level,
                      kernel.path, "-o", wave], env=tools.env)
            if cp.returncode != 0:
                record("waveopt", "fail", first_line(cp))
                continue
            key = hashlib.sha256(open(wave, "rb").read()).hexdigest()[:16]
            if key not in cache:
                stem = os.path.join(out, key)
                shutil.copyfile(wave, stem + ".wave")
                got = {"asm": tools.asm(stem + ".wave", stem + ".wbin")}
                if got["asm"][0]:
                    got["emu"] = tools.emu(stem + ".wbin", workgroup) if ref_ok else None
                    got["ptxas"] = tools.ptx(stem + ".wbin", stem) if tools.ptxas else None
                    got["dis-asm"], got["dis-parse"] = tools.roundtrip(
                        stem + ".wave", stem + ".wbin", stem)
                cache[key] = got
            got = cache[key]
            ok, why = got["asm"]
            record("asm", "pass" if ok else "fail", why)
            if not ok:
                for step in ("emu", "ptxas", "dis-asm", "dis-parse"):
                    record(step, "skip", "the output does not assemble")
                continue

            if not ref_ok:
                record("emu", "skip", "no reference: wavesim fails on the input")
            else:
                ok, dump = got["emu"]
                if ok and dump == ref:
                    record("emu", "pass")
                elif target != "wave-emu" and not faithful:
                    record("emu", "skip", "the emulator is not faithful for the input")
                elif ok:
                    record("emu", "fail", "memory differs from wavesim's on the input at "
                           "%s (%s)" % (first_difference(ref, dump), wave))
                else:
                    record("emu", "fail", "wave-emu: %s (%s)" % (dump, wave))

            if tools.ptxas is None:
                record("ptxas", "skip", "no ptxas")
            elif not base_ptx:
                record("ptxas", "skip", "the input's PTX fails")
            else:
                ok, why = got["ptxas"]
                record("ptxas", "pass" if ok else "fail", "%s (%s)" % (why, wave))

            for i, step in enumerate(("dis-asm", "dis-parse")):
                ok, why = got[step]
                if ok:
                    record(step, "pass")
                elif not base_dis[i]:
                    record(step, "skip", "the input's wave-dis round trip fails")
                else:
                    record(step, "fail", "%s (%s)" % (why, wave))
    return kernel, ref_ok, ref if not ref_ok else None, results


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--toolchain", default=os.environ.get("WAVE_TOOLCHAIN", ""))
    ap.add_argument("--srcdir", default=os.path.join(here, "..", ".."))
    ap.add_argument("--builddir", default=os.environ.get("WAVE_BUILDDIR", "."))
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--require", action="store_true",
                    help="missing tools are an error, not a skip")
    ap.add_argument("kernels", nargs="*", help="corpus/NAME or bench/NAME (default: all)")
    args = ap.parse_args()

    missing = [t for t in UPSTREAM
               if not args.toolchain or not os.access(os.path.join(args.toolchain, t), os.X_OK)]
    if missing:
        where = args.toolchain or "WAVE_TOOLCHAIN unset"
        print("check-toolchain: %s, the upstream tools are missing (%s: no %s)"
              % ("failed" if args.require else "skipped", where, ", ".join(missing)))
        return 1 if args.require else 0
    args.toolchain = os.path.abspath(args.toolchain)
    args.builddir = os.path.abspath(args.builddir)
    tools = Tools(args)
    for tool in (tools.waveopt, tools.wavesim):
        if not os.access(tool, os.X_OK):
            print("check-toolchain: %s is not built (make first)" % tool)
            return 1

    kernels = []
    for prefix, sub in (("corpus", "tests/corpus"), ("bench", "tests/bench/kernels")):
        d = os.path.join(args.srcdir, sub)
        for f in sorted(os.listdir(d)):
            if f.endswith(".wave"):
                kernels.append(Kernel(prefix + "/" + f[:-5], os.path.join(d, f)))
    if args.kernels:
        kernels = [k for k in kernels if k.name in args.kernels]
        unknown = set(args.kernels) - {k.name for k in kernels}
        if unknown:
            print("check-toolchain: no kernel %s" % ", ".join(sorted(unknown)))
            return 2

    workdir = os.path.join(args.builddir, "tests", "toolchain", "work")
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    tools.iota = os.path.join(workdir, "iota.bin")
    with open(tools.iota, "wb") as f:
        f.write(struct.pack("<%dI" % (MEMORY_BYTES // 4), *range(MEMORY_BYTES // 4)))

    start = time.time()
    results, no_reference = [], []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for kernel, ref_ok, why, rs in pool.map(lambda k: check_kernel(tools, k, workdir),
                                                kernels):
            results += rs
            if not ref_ok:
                no_reference.append("%s (%s)" % (kernel.name, why))

    failed = 0
    passed = 0
    skips = {}
    reasons = {}
    for name, target, level, step, verdict, detail in results:
        where = "%s -target=%s -O%d %s" % (name, target, level, step)
        known = KNOWN.get((name, target, level, step))
        if verdict == "fail" and known:
            print("KNOWN %s: %s" % (where, detail))
            skips["known failure"] = skips.get("known failure", 0) + 1
            reasons.setdefault(known, (name, target, step))
        elif verdict == "fail":
            print("FAIL %s: %s" % (where, detail))
            failed += 1
        elif verdict == "pass" and known:
            print("FAIL %s: passes, remove it from KNOWN_FAILURES" % where)
            failed += 1
        elif verdict == "pass":
            passed += 1
        else:
            skips[detail] = skips.get(detail, 0) + 1
    for why, (name, target, step) in reasons.items():
        print("known failure of %s -target=%s %s (KNOWN_FAILURES): %s" % (name, target, step, why))
    for entry in no_reference:
        print("no reference: %s" % entry)
    if not tools.ptxas:
        print("check-toolchain: no ptxas on PATH or in /usr/local/cuda/bin: ptxas checks skipped")
    skipped = sum(skips.values())
    print("check-toolchain: %d kernels x %d targets x %d levels: %d checks, %d passed, "
          "%d failed, %d skipped%s in %.0f s" % (
              len(kernels), len(TARGETS), len(LEVELS), len(results), passed, failed, skipped,
              "".join(" [%s: %d]" % kv for kv in sorted(skips.items())), time.time() - start))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
