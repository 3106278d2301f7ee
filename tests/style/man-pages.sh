#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# make check entry: every option a tool's --help lists is described in its man page, so that
# neither falls behind the other. Options are the words starting with '-' on the lines of the
# help that start with one (after spaces); placeholders in capitals (-NAME=VALUE) are not.
srcdir=${WAVE_SRCDIR:-.}
builddir=${WAVE_BUILDDIR:-.}
status=0
for tool in waveopt wavesim wavegen; do
  page="$srcdir/tools/$tool.1"
  if [ ! -f "$page" ]; then
    echo "$page: missing"
    status=1
    continue
  fi
  help=$("$builddir/tools/$tool" --help) || { echo "$tool --help failed"; status=1; continue; }
  # The page spells a dash \- ; read it as the help does.
  text=$(sed 's/\\-/-/g; s/\\f[BIRP]//g' "$page")
  options=$(printf '%s\n' "$help" | grep -E '^ +-' |
    grep -oE '(^|[ ,[(])--?[a-zA-Z][a-zA-Z0-9-]*' | sed 's/^[ ,[(]*//' | grep -v '^-[A-Z]*$' |
    sort -u)
  [ -n "$options" ] || { echo "$tool --help: no options found"; status=1; }
  for option in $options; do
    # Whole: -dot is not found in -dot-dir.
    printf '%s\n' "$text" | grep -qE -e "(^|[^a-zA-Z0-9-])$option([^a-zA-Z0-9-]|\$)" ||
      { echo "$page: $tool --help lists $option, the page does not"; status=1; }
  done
done
exit $status
