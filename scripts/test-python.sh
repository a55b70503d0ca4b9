#!/usr/bin/env bash
# `npm run test:python`: installs clients/python as docs/python.md says (offline, into a throwaway virtualenv that sees
# Debian's python3-httpx and python3-pytest), then runs its pytest suite against the production build: the session
# starts `npm run serve` on SQLite in a fresh data dir (port OPLEDGER_PYTHON_PORT, default 3204). Run `npm run build`
# first. Ends with pytest's closing line; exits non-zero when a test fails.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
PYTHON="${OPLEDGER_PYTHON:-/usr/bin/python3}"
VENV=".data/python-venv-${OPLEDGER_PYTHON_PORT:-3204}"

rm -rf "$VENV"
"$PYTHON" -m venv --system-site-packages "$VENV"
# The install command of docs/python.md, offline: no index, the venv's own setuptools as the build backend.
"$VENV/bin/pip" install --quiet --no-build-isolation --no-index ./clients/python
"$VENV/bin/python" -c 'import opledger, httpx; print(f"opledger from {opledger.__file__}, httpx {httpx.__version__}")'

cd clients/python
exec "../../$VENV/bin/python" -m pytest -p no:cacheprovider -q "$@"
