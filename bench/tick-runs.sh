#!/usr/bin/env bash
# The tick bench's loop (see tick.mjs), in bash: the same change committed by `git commit`, then by
# `leap-ledger tick`, with `node -e 0` between (and, given BASELINE, by that build's tick too); timed from a small
# process, as a shell runs them.
# Usage (in the bench repository): tick-runs.sh RUNS NODE LEAP_LEDGER [BASELINE_LEAP_LEDGER]
# Prints "COMMIT_US NODE_US TICK_US [BASELINE_TICK_US]" for each run; a failed commit or tick stops it.
set -eu
runs=$1 node=$2 ledger=$3 baseline=${4-}
for ((i = 0; i < runs; i++)); do
  printf 'export const v = %s;\n' "$i" >src/d1/f1.js
  git add src/d1/f1.js
  t0=$EPOCHREALTIME
  git commit -q -m "plain $i" >/dev/null
  t1=$EPOCHREALTIME
  "$node" -e 0
  t2=$EPOCHREALTIME
  printf 'export const v = -%s;\n' "$i" >src/d1/f1.js
  git add src/d1/f1.js
  t3=$EPOCHREALTIME
  "$node" "$ledger" tick --issue 1 --step "Step $i: it's \"quoted\" \$(x)" -m "green $i" >/dev/null
  t4=$EPOCHREALTIME
  line="$((${t1/./} - ${t0/./})) $((${t2/./} - ${t1/./})) $((${t4/./} - ${t3/./}))"
  if [ -n "$baseline" ]; then
    printf 'export const v = 1%s;\n' "$i" >src/d1/f1.js
    git add src/d1/f1.js
    t5=$EPOCHREALTIME
    "$node" "$baseline" tick --issue 1 --step "Step b$i: it's \"quoted\" \$(x)" -m "baseline $i" >/dev/null
    t6=$EPOCHREALTIME
    line="$line $((${t6/./} - ${t5/./}))"
  fi
  echo "$line"
done
