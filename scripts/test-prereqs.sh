#!/usr/bin/env bash
# Installs what the test suite needs and a fresh Debian machine lacks: Debian's Chromium, PostgreSQL 15 server binaries,
# strace (tests/sqlite-kill-durability.test.ts checks that every acknowledged COMMIT was fsynced first), and python3
# with pytest, httpx and venv for the Python client's tests.
set -euo pipefail

missing=()
[[ -x /usr/bin/chromium ]] || missing+=(chromium)
[[ -x /usr/lib/postgresql/15/bin/initdb ]] || missing+=(postgresql)
command -v strace >/dev/null 2>&1 || missing+=(strace)
# The Python client's tests (scripts/test-python.sh) run on Debian's python3 with its pytest and httpx, in a venv.
/usr/bin/python3 -c 'import pytest' >/dev/null 2>&1 || missing+=(python3-pytest)
/usr/bin/python3 -c 'import httpx' >/dev/null 2>&1 || missing+=(python3-httpx)
/usr/bin/python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || missing+=(python3-venv)
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "test prerequisites: chromium, postgresql, strace, python3-pytest, python3-httpx and python3-venv present"
  exit 0
fi
if [[ $EUID -ne 0 ]] && ! command -v sudo >/dev/null 2>&1; then
  echo "test prerequisites: ${missing[*]} missing; install them with: apt-get install -y ${missing[*]}" >&2
  exit 1
fi
as_root() { if [[ $EUID -eq 0 ]]; then "$@"; else sudo "$@"; fi; }
echo "test prerequisites: installing ${missing[*]} from Debian"
as_root apt-get update
as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
