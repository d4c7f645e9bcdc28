#!/usr/bin/env bash
# clear-refactor-pending.sh: drop-in for the old script; see packages/ledger/README.md (clear-refactor-pending.sh N --step TITLE [-m MESSAGE]).
exec node "$(dirname "$(readlink -f "$0")")/../packages/ledger/dist/bin/leap-ledger.cjs" clear-refactor-pending "$@"
