#!/usr/bin/env bash
# The whole check, as CI runs it: install if needed, type-check, lint and format check, build the
# binary, then the one test suite on Bun and on Deno (the binary test uses the fresh build).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x node_modules/.bin/bun ] || npm ci --no-audit --no-fund
BIN=node_modules/.bin
step() { printf '\n== %s\n' "$*"; }

step "type-check (tsc)"
"$BIN/tsc" -p .
step "format and lint (deno fmt, deno lint)"
"$BIN/deno" fmt --check
"$BIN/deno" lint
step "build the binary"
"$BIN/bun" build.ts
export MCPGW_BINARY="$PWD/dist/mcp-gateway"
FILES=$(find test -name '*.test.ts' | sort)
step "tests on Bun"
# shellcheck disable=SC2086
"$BIN/bun" test --timeout 60000 $FILES
step "tests on Deno"
# shellcheck disable=SC2086
"$BIN/deno" test -A --no-check $FILES
