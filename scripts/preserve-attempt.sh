#!/usr/bin/env bash
# preserve-attempt.sh: drop-in for the old script; see packages/ledger/README.md (preserve-attempt.sh N --step TITLE).
exec node "$(dirname "$(readlink -f "$0")")/../packages/ledger/dist/bin/leap-ledger.cjs" preserve-attempt "$@"
