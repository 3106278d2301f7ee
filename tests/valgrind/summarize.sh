#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# make check-valgrind, after the lit suite ran every tool under valgrind memcheck with one log
# per process in DIR: prints the logs that hold an error or a definite leak, and fails when
# there is one, or when there are no logs at all (nothing ran under valgrind).
dir=${1:?usage: summarize.sh DIR}
logs=$(find "$dir" -name '*.log' | wc -l)
if [ "$logs" -eq 0 ]; then
  echo "check-valgrind: no valgrind logs in $dir"
  exit 1
fi
# With -q a log is empty unless valgrind found something.
bad=$(find "$dir" -name '*.log' -size +0 | sort)
for log in $bad; do
  echo "== $log"
  cat "$log"
done
count=$(printf '%s\n' "$bad" | grep -c .)
echo "check-valgrind: $logs tool runs under memcheck, $count with errors or definite leaks"
[ "$count" -eq 0 ]
