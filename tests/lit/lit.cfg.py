# SPDX-License-Identifier: Apache-2.0
# lit configuration for the tool-level tests. Run through `make check` (tests/lit/run-lit.sh),
# which points lit at the build tree; lit.site.cfg.py there says where everything is.
import os
import shlex
import sys

import lit.formats

config.name = "libwaveopt"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test", ".wave"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.join(config.wave_srcdir, "tests/lit")
config.test_exec_root = os.path.join(config.wave_builddir, "tests/lit")

tools = os.path.join(config.wave_builddir, "tools")
# make check-valgrind sets WAVE_VALGRIND to a directory: every run of a tool goes through
# valgrind memcheck, one log per process there, which tests/valgrind/summarize.sh reads
# afterwards (a test whose RUN line expects failure, `not %waveopt ...`, would hide valgrind's
# exit status). The real binaries are run, not libtool's wrapper scripts, which are shell.
valgrind_logs = os.environ.get("WAVE_VALGRIND", "")
def tool(name):
    if not valgrind_logs:
        return os.path.join(tools, name)
    libs = os.path.join(config.wave_builddir, "libwaveopt", ".libs")
    suppressions = os.path.join(config.wave_srcdir, "tests/valgrind/graphviz.supp")
    return ("env LD_LIBRARY_PATH=%s valgrind -q --leak-check=full --show-leak-kinds=definite "
            "--errors-for-leak-kinds=definite --suppressions=%s --log-file=%s/%s.%%%%p.log %s"
            % (libs, suppressions, valgrind_logs, name, os.path.join(tools, ".libs", name)))
for name in ("waveopt", "wavesim", "wavegen"):
    config.substitutions.append(("%" + name, tool(name)))
config.substitutions.append(("%corpus", os.path.join(config.wave_srcdir, "tests/corpus")))
config.substitutions.append(("%bench_kernels", os.path.join(config.wave_srcdir, "tests/bench/kernels")))
config.substitutions.append(("%dot", config.dot))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
config.substitutions.append(("FileCheck", config.filecheck))
# Pass plugins that `make check` builds (check_LTLIBRARIES): the example and broken ones.
config.substitutions.append(("%canon_plugin", os.path.join(
    config.wave_builddir, "examples/plugin/.libs/canon_plugin.so")))
config.substitutions.append(("%broken_plugins", os.path.join(
    config.wave_builddir, "tests/plugin/.libs")))

# Diagnostics must not depend on the terminal the tests run from.
config.environment["NO_COLOR"] = "1"
for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

# The upstream tools (shared/toolchain/bin, its README), where WAVE_TOOLCHAIN names them: tests
# that need them say "REQUIRES: wave-toolchain" and are reported UNSUPPORTED elsewhere.
toolchain = os.environ.get("WAVE_TOOLCHAIN", "")
if toolchain and all(os.access(os.path.join(toolchain, t), os.X_OK)
                     for t in ("wave-asm", "wave-dis", "wave-ptx")):
    config.available_features.add("wave-toolchain")
    for t in ("wave-asm", "wave-dis"):
        config.substitutions.append(("%" + t, os.path.join(os.path.abspath(toolchain), t)))
    check = os.path.join(config.test_source_root, "ptx-warp-check.py")
    # waveopt goes in as one quoted word: under valgrind it is a command line of its own.
    config.substitutions.append(("%ptx-warp-check", "%s %s %s --waveopt=%s" % (
        sys.executable, check, os.path.abspath(toolchain), shlex.quote(tool("waveopt")))))
