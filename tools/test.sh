#!/usr/bin/env bash
# The README's test command, with all of its set-up: on a fresh machine it installs what the tests need,
# then runs the fast tier (`npm test`) and the slow tier (`npm run test:slow`). `.ci/run` is this script.
#
#   tools/test.sh            install what is missing, `npm ci`, `npm test`, then `npm run test:slow`
#   tools/test.sh --no-ci    keep node_modules as it is (skip `npm ci`)
#
# The fast tier (each project's `test` target, every *.test.ts but *.slow.test.ts) needs nothing beyond
# node, git and bubblewrap: it runs once with chromium, redis-server, sshd, cargo, go, python3 and tmux
# hidden from its PATH (a shim of each that says so and exits 127), so a fast test that needs one fails
# at once. The slow tier (each project's `test-slow` target, *.slow.test.ts) runs with the normal PATH.
# The fast tier runs three Nx tasks at a time, the slow tier two, but for slice's slow tests, which run alone:
# its engine-kill matrix loses races under load. The real projects share the machine: a run their own flaky
# test failed is made again.
#
# What it installs, from Debian's packages, when the command is missing (as root, or through sudo):
#   chromium        the report's and `leap serve`'s browser tests (playwright-core drives it)
#   tmux            `leap status --watch` in a real pseudo-terminal
#   bubblewrap      the leaves' sandbox (`bwrap`)
#   redis-server    the BullMQ runner's tests (each test starts its own server on loopback)
#   openssh-server  the BullMQ runner's ssh remote (the test starts its own sshd on loopback)
#   git             every test's repositories
#   cargo           the conductor's and leap-verify's tests on a real Rust crate (inline and tests/ tests)
#   python3-pytest  the conductor's test on a real pytest project (`python3 -m pytest`)
#   golang-go       the conductor's test on a real Go module (`go test ./...`)
# The real agent CLIs (tests/real-agents) and Verdaccio (tests/registry) come from npm, into
# ~/.cache/leap-test, the first time their tests run; run as root, the tests that start a CLI as another
# user give it hard links of that install under /var/cache/leap-test-everyone.
#
# Every build and test of the commit runs, every time, in both tiers. Nx 24 keeps its cache and task database under
# ~/.nx/<repository id>/, one folder shared by every clone of the same repository on this machine, so a
# fresh clone would replay the results of another clone's run. NX_SKIP_NX_CACHE=true is honoured by
# `nx run-many` (`npm test`, `npm run test:slow`) and passed on to every task it runs; the log check below makes any replay a
# failure rather than a fast green (tests/first-contact proves a fresh clone's build runs every task
# with this setting).
set -euo pipefail
cd "$(dirname "$0")/.."
export NX_DAEMON=false NX_NO_CLOUD=true NX_TUI=false NX_SKIP_NX_CACHE=true
npm_ci=1
for arg in "$@"; do
  case "$arg" in
    --no-ci) npm_ci=0 ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "tools/test.sh: unknown option '$arg' (see tools/test.sh --help)" >&2; exit 2 ;;
  esac
done
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v tmux >/dev/null 2>&1 || need+=(tmux)
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
command -v git >/dev/null 2>&1 || need+=(git)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
[ -x /usr/sbin/sshd ] || need+=(openssh-server)
command -v cargo >/dev/null 2>&1 || need+=(cargo)
python3 -m pytest --version >/dev/null 2>&1 || need+=(python3-pytest)
command -v go >/dev/null 2>&1 || need+=(golang-go)
if [ "${#need[@]}" -gt 0 ]; then
  echo "tools/test.sh: installing ${need[*]} (Debian packages the tests need)"
  sudo=()
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "tools/test.sh: ${need[*]} missing, and not root and no sudo: install them, then run again" >&2; exit 2; }
    sudo=(sudo)
  fi
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
node --version
npm --version
[ "$npm_ci" = 1 ] && npm ci --no-audit --no-fund
log="$(mktemp)"
hidden="$(mktemp -d)"
trap 'rm -rf "$log" "$hidden"' EXIT
for name in chromium redis-server sshd cargo go python3 tmux; do
  printf '#!/bin/sh\necho "tools/test.sh: %s is hidden from the fast tier" >&2\nexit 127\n' "$name" >"$hidden/$name"
  chmod +x "$hidden/$name"
done
start=$SECONDS
PATH="$hidden:$PATH" npm test 2>&1 | tee "$log"
fast=$((SECONDS - start))
# The fast tier has just built every package: the slow tier runs on those builds rather than a second one.
# Node parses NODE_EXTRA_CA_CERTS at each start; npm's installs are the tests' only TLS and get the file as
# npm's cafile (`npm test` drops it too: docs/decisions/test-ca-certs.md).
ca=()
[ -n "${NODE_EXTRA_CA_CERTS:-}" ] && ca=("npm_config_cafile=$NODE_EXTRA_CA_CERTS")
env -u NODE_EXTRA_CA_CERTS "${ca[@]}" npm run test:slow -- --excludeTaskDependencies 2>&1 | tee -a "$log"
echo "tools/test.sh: the fast tier took ${fast} s, the slow tier $((SECONDS - start - fast)) s"
# Nx marks a replayed task `[local cache]` (or `[remote cache]`, or `existing outputs match the cache`)
# and its summary says "Nx read the output from the cache".
if grep -Eq '\[(local|remote) cache\]|existing outputs match the cache|read the output from the cache' "$log"; then
  echo "tools/test.sh: Nx replayed cached results instead of running every task (see the lines above)" >&2
  exit 1
fi
