#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# make check entry: the ABI of the built libraries is the one committed in abi/ (libabigail's
# abidw wrote it, from the public headers' types only), and that baseline belongs to the
# -version-info the libraries are built with, which NEWS names. The built library is written
# out the same way and the two files compared with --harmless: abidiff counts a member added
# into a struct's padding as harmless, yet a program built before it may leave garbage there
# that the library would read as the new member.
#   check-abi.sh           compare; any change (an added function too) fails
#   check-abi.sh update    write the baseline anew (make update-abi): only when -version-info
#                          moved from the one the baseline records, and NEWS has a line for it,
#                          so that the three change in one commit
# Environment: WAVE_SRCDIR, WAVE_BUILDDIR, ABIDW, ABIDIFF, and VERSION_INFO_libwaveopt,
# VERSION_INFO_libwaveopt_dot (Makefile.am's -version-info of each).
set -u
src=${WAVE_SRCDIR:-.}
build=${WAVE_BUILDDIR:-.}
ABIDW=${ABIDW:-abidw}
ABIDIFF=${ABIDIFF:-abidiff}
mode=${1:-check}
headers=$src/libwaveopt/waveopt
# abi/suppressions: what a sanitized build adds that is not interface.
dump="--no-corpus-path --no-comp-dir-path --no-show-locs --headers-dir $headers --drop-private-types"
scratch=$(mktemp "${TMPDIR:-/tmp}/waveopt-abi.XXXXXX")
trap 'rm -f "$scratch"' EXIT
status=0

# Compares the baseline with the built library; prints abidiff's report, returns non-zero on any
# change it lists, harmless ones included.
differs() {
  "$ABIDW" $dump --out-file "$scratch" "$2" || return 2
  report=$("$ABIDIFF" --harmless --suppressions "$src/abi/suppressions" "$1" "$scratch" 2>&1)
  rc=$?
  printf '%s\n' "$report"
  [ "$rc" -ne 0 ] && return "$rc"
  printf '%s\n' "$report" | grep -qE '^ *\[[ACD]\]|^ *[0-9]+ (data member|function|variable)' &&
    return 4
  return 0
}

# The version-info a library's baseline was written for (abi/version-info: "NAME CURRENT:REV:AGE").
recorded() {
  awk -v lib="$1" '$1 == lib { print $2 }' "$src/abi/version-info" 2>/dev/null
}

for lib in libwaveopt libwaveopt-dot; do
  var=VERSION_INFO_$(echo "$lib" | tr - _)
  eval "current=\${$var:-}"
  so=$build/libwaveopt/.libs/$lib.so
  baseline=$src/abi/$lib.abi
  [ -n "$current" ] || { echo "check-abi.sh: $var is not set"; exit 1; }
  [ -f "$so" ] || { echo "check-abi.sh: $so is not built"; exit 1; }
  if ! grep -q -- "-version-info $current" "$src/NEWS"; then
    echo "$lib: NEWS has no line for -version-info $current"
    status=1
  fi
  if [ "$mode" = update ]; then
    if [ -f "$baseline" ] && [ "$(recorded "$lib")" = "$current" ] &&
        differs "$baseline" "$so" >/dev/null; then
      echo "$lib: the ABI and -version-info $current are as recorded"
      continue
    fi
    if [ "$(recorded "$lib")" = "$current" ]; then
      echo "$lib: the ABI changed but -version-info is still $current: raise it (Makefile.am)"
      status=1
      continue
    fi
    [ "$status" -eq 0 ] || continue
    "$ABIDW" $dump --out-file "$baseline" "$so" || { status=1; continue; }
    { grep -v "^$lib " "$src/abi/version-info" 2>/dev/null; echo "$lib $current"; } | sort \
      >"$src/abi/version-info.new" && mv "$src/abi/version-info.new" "$src/abi/version-info"
    echo "$lib: baseline written for -version-info $current"
    continue
  fi
  if [ "$(recorded "$lib")" != "$current" ]; then
    echo "$lib: built with -version-info $current, the baseline in abi/ is for $(recorded "$lib")"
    echo "  (make update-abi writes it for the new one)"
    status=1
  fi
  differs "$baseline" "$so" >"$scratch.report"
  rc=$?
  if [ "$rc" -ne 0 ]; then
    cat "$scratch.report"
    echo "$lib: the ABI differs from abi/$lib.abi (abidiff exit $rc). If that is meant: raise"
    echo "  -version-info in Makefile.am, add a NEWS line naming it, run make update-abi, and"
    echo "  commit the three together."
    status=1
  else
    echo "$lib: ABI as in abi/$lib.abi (-version-info $current)"
  fi
  rm -f "$scratch.report"
done
exit $status
