#!/usr/bin/env bash
# Time commands from a small process, as a shell (a skill's launch line) runs them. A fork of the
# bench's own Node process costs several milliseconds here (its memory is copied on write), and
# spawnSync would count that in every figure; bash forks in a fraction of one.
#
# Usage: time-runs.sh RUNS EXPECT INPUT BASE_ARGC [BASE...] -- CMD...
#   Each run times BASE (when BASE_ARGC > 0) and then CMD, back to back, and prints their wall times
#   in microseconds on one line: "BASE_US CMD_US", or "CMD_US" alone.
#   CMD reads INPUT through a pipe (`cat INPUT | CMD`, as `cat issue.md | leap-ledger current`), or
#   /dev/null when INPUT is empty; BASE reads /dev/null. Both write to /dev/null.
#   CMD must exit with EXPECT; any other status stops the runs (exit 3, naming it on stderr).
set -u
runs=$1 expect=$2 input=$3 base_argc=$4
shift 4
base=("${@:1:base_argc}")
shift "$base_argc"
if [ "${1-}" != -- ]; then
  echo "time-runs.sh: expected -- before the command" >&2
  exit 2
fi
shift

for ((i = 0; i < runs; i++)); do
  line=''
  if ((base_argc > 0)); then
    t0=$EPOCHREALTIME
    "${base[@]}" </dev/null >/dev/null 2>&1
    t1=$EPOCHREALTIME
    line="$((${t1/./} - ${t0/./})) "
  fi
  t0=$EPOCHREALTIME
  if [ -n "$input" ]; then
    cat -- "$input" | "$@" >/dev/null 2>&1
  else
    "$@" </dev/null >/dev/null 2>&1
  fi
  status=$?
  t1=$EPOCHREALTIME
  if [ "$status" != "$expect" ]; then
    echo "time-runs.sh: $* exited with $status, expected $expect" >&2
    exit 3
  fi
  echo "$line$((${t1/./} - ${t0/./}))"
done
