#!/usr/bin/env bash
# ledger-steps.sh: drop-in for the old script; see packages/ledger/README.md (ledger-steps.sh SUBCOMMAND [ARGS]).
exec node "$(dirname "$(readlink -f "$0")")/../packages/ledger/dist/bin/leap-ledger.cjs" "$@"
