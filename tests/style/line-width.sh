#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# make check entry: no line of C is wider than the 100 columns of .clang-format's ColumnLimit.
# clang-format holds new code to the width when it is run; this holds all code to it when it is
# not. A column is a character: the bytes that continue a UTF-8 sequence are not counted; tabs
# count as one (the sources indent with spaces).
srcdir=${WAVE_SRCDIR:-.}
cd "$srcdir" || exit 1
find analysis examples libwaveopt passes tests tools -name '*.[ch]' -type f -exec env LC_ALL=C awk '
  {
    line = $0
    gsub(/[\200-\277]/, "", line)
    if (length(line) > 100) {
      printf "%s:%d: line of %d columns, wider than 100\n", FILENAME, FNR, length(line)
      found = 1
    }
  }
  END { exit found }' '{}' +
