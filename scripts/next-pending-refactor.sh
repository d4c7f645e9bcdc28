#!/usr/bin/env bash
# next-pending-refactor.sh: drop-in for the old script; see packages/ledger/README.md (next-pending-refactor.sh [--issue N | --ledger FILE] < ledger).
exec node "$(dirname "$(readlink -f "$0")")/../packages/ledger/dist/bin/leap-ledger.cjs" next-pending-refactor "$@"
