#!/usr/bin/env bash
# `npm test`: the whole suite on both engines — lint, typecheck, unit and integration tests on SQLite then on a
# throwaway PostgreSQL, the production build, the Python client's tests against it, the Playwright e2e suite on
# SQLite, then its API, crash-window, scale-out, MCP gateway and bulk suites again on PostgreSQL — then one summary line.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
START=$SECONDS
mkdir -p test-results
rm -f test-results/summary-*.json

bash scripts/test-prereqs.sh

PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
OWN_CLUSTER=""
# The Playwright pass on PostgreSQL gets a database of its own, created empty and dropped afterwards.
E2E_PG_DB="opledger_e2e_$$"
drop_e2e_database() {
  [[ -n "${OPLEDGER_TEST_PG_URL:-}" ]] || return 0
  "$PG_BIN/dropdb" --maintenance-db="$OPLEDGER_TEST_PG_URL" --if-exists --force "$E2E_PG_DB" >/dev/null 2>&1 || true
}
cleanup() {
  drop_e2e_database
  if [[ -n "$OWN_CLUSTER" ]]; then bash scripts/pg-cluster.sh stop >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

if [[ -z "${OPLEDGER_TEST_PG_URL:-}" ]]; then
  OWN_CLUSTER=1
  bash scripts/pg-cluster.sh start >/dev/null
  # shellcheck disable=SC1091
  source .data/pg-cluster.env
fi
export OPLEDGER_TEST_PG_URL

step() { printf '\n::: %s (+%ds)\n' "$1" "$((SECONDS - START))"; }

step "lint"
npm run -s lint
step "typecheck"
npm run -s typecheck
step "unit and integration tests on SQLite"
OPLEDGER_TEST_PG_URL= npx vitest run --reporter=default --reporter=json --outputFile.json=test-results/summary-vitest-sqlite.json
step "unit and integration tests on PostgreSQL"
CI="${CI:-1}" bash scripts/test-unit-pg.sh --reporter=default --reporter=json --outputFile.json=test-results/summary-vitest-pg.json
step "production build (with the test-only hooks: kill points, race barriers)"
OPLEDGER_TEST_HOOKS=1 npm run -s build
step "Python client against the production build (clients/python: pytest on Debian's python3)"
bash scripts/test-python.sh
# Both e2e passes run even if the first fails; the summary counts both, and the exit status says whether all passed.
E2E_STATUS=0
step "e2e on SQLite (Playwright, Debian Chromium)"
PLAYWRIGHT_JSON_OUTPUT_NAME=test-results/summary-playwright.json npx playwright test --reporter=list,json || E2E_STATUS=$?

step "e2e on PostgreSQL (the API, crash-window, scale-out, MCP gateway and bulk suites)"
PG_SUITES=()
for suite in e2e/api e2e/crash e2e/scale-out e2e/mcp e2e/bulk; do
  if [[ -d "$suite" ]]; then PG_SUITES+=("$suite"); fi
done
if ((${#PG_SUITES[@]} > 0)); then
  "$PG_BIN/createdb" --maintenance-db="$OPLEDGER_TEST_PG_URL" "$E2E_PG_DB"
  # Same port as the SQLite pass, whose server Playwright has stopped; its own artifacts folder so both passes' traces stay.
  OPLEDGER_E2E_DATABASE_URL="${OPLEDGER_TEST_PG_URL%/*}/$E2E_PG_DB" PLAYWRIGHT_JSON_OUTPUT_NAME=test-results/summary-playwright-pg.json \
    npx playwright test --reporter=list,json --output=test-results/artifacts-pg "${PG_SUITES[@]}" || E2E_STATUS=$?
  drop_e2e_database
fi

node scripts/test-summary.mjs "$((SECONDS - START))"
exit "$E2E_STATUS"
