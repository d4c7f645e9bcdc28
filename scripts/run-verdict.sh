#!/usr/bin/env bash
exec node "$(dirname "$(readlink -f "$0")")/../packages/verify/dist/bin/leap-verdict.cjs" "$@"
