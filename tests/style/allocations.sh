#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Every block the library takes comes from the allocator of the object it is for
# (waveopt/alloc.h), through support/alloc.c: a call to malloc, calloc, realloc, free, strdup or
# strndup anywhere else in the library would escape a caller's allocator and the
# out-of-memory test (tests/unit/test_oom.c) alike. Lists each such call and fails.
cd "${WAVE_SRCDIR:-$(dirname "$0")/../..}" || exit 1
found=$(grep -nE '(^|[^_[:alnum:]])(malloc|calloc|realloc|free|strdup|strndup)[[:space:]]*\(' \
  $(find libwaveopt analysis passes -name '*.[ch]' ! -path libwaveopt/support/alloc.c | sort) |
  grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|//)')
if [ -n "$found" ]; then
  echo "$found"
  echo "allocations.sh: $(echo "$found" | wc -l) allocations outside support/alloc.c" \
    "(use wave_mem_* with the object's allocator)"
  exit 1
fi
echo "allocations.sh: every allocation goes through support/alloc.c"
