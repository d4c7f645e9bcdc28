#!/usr/bin/env bash
exec node "$(dirname "$(readlink -f "$0")")/../packages/supervise/dist/bin/leap-wait.cjs" "$@"
