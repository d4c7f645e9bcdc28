#!/usr/bin/env bash
# tick-ledger.sh: drop-in for the old script; see packages/ledger/README.md (tick-ledger.sh N --step TITLE [-m MESSAGE]).
exec node "$(dirname "$(readlink -f "$0")")/../packages/ledger/dist/bin/leap-ledger.cjs" tick "$@"
