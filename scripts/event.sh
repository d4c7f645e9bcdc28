#!/usr/bin/env bash
# Drop-in for event.sh: same arguments and exit codes as leap-event.
exec node "$(dirname "$(readlink -f "$0")")/../packages/core/dist/bin/leap-event.cjs" "$@"
