#!/usr/bin/env bash
# Drop-in for leaf-role.sh: same arguments and exit codes as leap-role.
exec node "$(dirname "$(readlink -f "$0")")/../packages/core/dist/bin/leap-role.cjs" "$@"
