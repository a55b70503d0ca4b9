#!/usr/bin/env bash
# `npm run test:unit:pg`: the vitest suites again with every test database on PostgreSQL (OPLEDGER_TEST_PG_URL, or the
# throwaway cluster recorded in .data/pg-cluster.env by `bash scripts/pg-cluster.sh start`). Without a server: skipped
# locally with a message, a failure in CI.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STATE_FILE="$ROOT/.data/pg-cluster.env"
PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"

unavailable() {
  local why="$1"
  if [[ -n "${CI:-}" && "${CI}" != "false" && "${CI}" != "0" ]]; then
    echo "test:unit:pg: FAILED: $why. CI must test PostgreSQL: start one with 'bash scripts/pg-cluster.sh start'." >&2
    exit 1
  fi
  echo "test:unit:pg: SKIPPED (PostgreSQL suites not run): $why. Start one with 'bash scripts/pg-cluster.sh start'." >&2
  exit 0
}

if [[ -z "${OPLEDGER_TEST_PG_URL:-}" && -f "$STATE_FILE" ]]; then
  # shellcheck disable=SC1090
  source "$STATE_FILE"
fi
[[ -n "${OPLEDGER_TEST_PG_URL:-}" ]] || unavailable "OPLEDGER_TEST_PG_URL is not set and no cluster is recorded in .data/pg-cluster.env"

pg_isready_bin="$(command -v pg_isready || echo "$PG_BIN/pg_isready")"
if [[ -x "$pg_isready_bin" ]] && ! "$pg_isready_bin" -q -t 5 -d "$OPLEDGER_TEST_PG_URL"; then
  unavailable "nothing answers at $OPLEDGER_TEST_PG_URL"
fi

export OPLEDGER_TEST_PG_URL
echo "test:unit:pg: test databases on $OPLEDGER_TEST_PG_URL" >&2
# PostgreSQL round trips cost more than an in-process SQLite file, and each test waits for CREATE DATABASE.
exec npx vitest run --testTimeout=30000 --hookTimeout=60000 "$@"
