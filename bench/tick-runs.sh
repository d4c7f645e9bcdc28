#!/usr/bin/env bash
# The tick bench's loop (see tick.mjs), in bash: the same change committed by `git commit`, then by
# `leap-ledger tick`, with `node -e 0` between (and, given BASELINE, by that build's tick, each first in turn); timed from a small
# process, as a shell runs them.
# Usage (in the bench repository): tick-runs.sh RUNS NODE LEAP_LEDGER [BASELINE_LEAP_LEDGER]
# Prints "COMMIT_US NODE_US TICK_US [BASELINE_TICK_US]" for each run; a failed commit or tick stops it.
set -eu
runs=$1 node=$2 ledger=$3 baseline=${4-}
# Stage a change, then time COMMAND...; prints its microseconds.
timed() {
  printf 'export const v = %s;\n' "$1" >src/d1/f1.js
  git add src/d1/f1.js
  shift
  local t0=$EPOCHREALTIME
  "$@" >/dev/null
  local t1=$EPOCHREALTIME
  echo "$((${t1/./} - ${t0/./}))"
}
for ((i = 0; i < runs; i++)); do
  commit=$(timed "$i" git commit -q -m "plain $i")
  t0=$EPOCHREALTIME
  "$node" -e 0
  t1=$EPOCHREALTIME
  # Given a baseline, the two ticks take turns going first.
  if [ -n "$baseline" ] && ((i % 2 == 1)); then
    before=$(timed "1$i" "$node" "$baseline" tick --issue 1 --step "Step b$i: it's \"quoted\" \$(x)" -m "baseline $i")
  fi
  tick=$(timed "-$i" "$node" "$ledger" tick --issue 1 --step "Step $i: it's \"quoted\" \$(x)" -m "green $i")
  if [ -n "$baseline" ] && ((i % 2 == 0)); then
    before=$(timed "1$i" "$node" "$baseline" tick --issue 1 --step "Step b$i: it's \"quoted\" \$(x)" -m "baseline $i")
  fi
  echo "$commit $((${t1/./} - ${t0/./})) $tick${baseline:+ $before}"
done
