#!/usr/bin/env bash
# next-unchecked.sh: drop-in for the old script; see packages/ledger/README.md (next-unchecked.sh [--issue N | --ledger FILE] < ledger).
exec node "$(dirname "$(readlink -f "$0")")/../packages/ledger/dist/bin/leap-ledger.cjs" next-unchecked "$@"
