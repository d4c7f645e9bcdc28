#!/usr/bin/env bash
# tick-issue-criterion.sh: drop-in for the old script; see packages/ledger/README.md (tick-issue-criterion.sh N K | K --body FILE | N --match TEXT).
exec node "$(dirname "$(readlink -f "$0")")/../packages/ledger/dist/bin/leap-ledger.cjs" tick-criterion "$@"
