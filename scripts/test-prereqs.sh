#!/usr/bin/env bash
# Installs what the test suite needs and a fresh Debian machine lacks: Debian's Chromium, PostgreSQL 15 server binaries,
# and strace (tests/sqlite-kill-durability.test.ts checks that every acknowledged COMMIT was fsynced first).
set -euo pipefail

missing=()
[[ -x /usr/bin/chromium ]] || missing+=(chromium)
[[ -x /usr/lib/postgresql/15/bin/initdb ]] || missing+=(postgresql)
command -v strace >/dev/null 2>&1 || missing+=(strace)
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "test prerequisites: chromium, postgresql and strace present"
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
