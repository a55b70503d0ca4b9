#!/usr/bin/env bash
# `npm test`: the whole suite on both engines — lint, typecheck, unit and integration tests on SQLite then on a
# throwaway PostgreSQL, the production build, and the Playwright e2e suite — then one summary line.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
START=$SECONDS
mkdir -p test-results
rm -f test-results/summary-*.json

bash scripts/test-prereqs.sh

if [[ -z "${OPLEDGER_TEST_PG_URL:-}" ]]; then
  bash scripts/pg-cluster.sh start >/dev/null
  trap 'bash scripts/pg-cluster.sh stop >/dev/null 2>&1 || true' EXIT
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
step "production build"
npm run -s build
step "e2e (Playwright, Debian Chromium)"
PLAYWRIGHT_JSON_OUTPUT_NAME=test-results/summary-playwright.json npx playwright test --reporter=list,json

node scripts/test-summary.mjs "$((SECONDS - START))"
