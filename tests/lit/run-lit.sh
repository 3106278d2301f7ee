#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# make check entry for the lit suite; first checks that no test can pass vacuously.
set -e
"$PYTHON" "$WAVE_SRCDIR/tests/lit/lint-checks.py" "$WAVE_SRCDIR/tests/lit"
exec "$PYTHON" "$LIT" -sv "$WAVE_BUILDDIR/tests/lit"
