#!/usr/bin/env bash
# A throwaway PostgreSQL 15 cluster for the test suite: `start` prints its URL and records it, `stop` removes it.
#
#   bash scripts/pg-cluster.sh start    # stdout: export OPLEDGER_TEST_PG_URL=postgresql://postgres@127.0.0.1:PORT/opledger_test
#   source .data/pg-cluster.env         # the same exports, plus the cluster's directory and port
#   bash scripts/pg-cluster.sh stop
#
# Root cannot run initdb, so as root every server command runs as user `postgres` on a directory chowned to it.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STATE_FILE="$ROOT/.data/pg-cluster.env"
PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
FIRST_PORT="${OPLEDGER_PG_FIRST_PORT:-55432}"
DATABASE="opledger_test"

log() { echo "pg-cluster: $*" >&2; }

as_owner() {
  if [[ $EUID -eq 0 ]]; then
    if command -v runuser >/dev/null 2>&1; then
      runuser -u postgres -- "$@"
    else
      su postgres -s /bin/sh -c "$(printf '%q ' "$@")"
    fi
  else
    "$@"
  fi
}

port_in_use() {
  # A successful TCP connect means something already listens there.
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

stop_cluster() {
  if [[ ! -f "$STATE_FILE" ]]; then
    log "no cluster recorded in $STATE_FILE; nothing to stop"
    return 0
  fi
  local dir
  dir="$(sed -n 's/^export OPLEDGER_TEST_PG_DIR=//p' "$STATE_FILE")"
  if [[ -n "$dir" && -d "$dir/data" ]]; then
    as_owner "$PG_BIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || log "server in $dir was not running"
  fi
  # Only ever delete a directory this script created.
  if [[ "$dir" == "${TMPDIR:-/tmp}"/opledger-pg.* ]]; then rm -rf "$dir"; fi
  rm -f "$STATE_FILE"
  log "stopped and removed ${dir:-(unknown dir)}"
}

start_cluster() {
  if [[ ! -x "$PG_BIN/initdb" ]]; then
    log "PostgreSQL binaries not found in $PG_BIN (apt-get install -y postgresql)"
    exit 1
  fi
  if [[ $EUID -eq 0 ]] && ! id postgres >/dev/null 2>&1; then
    log "running as root needs a 'postgres' user (created by the postgresql package)"
    exit 1
  fi
  # A cluster left by an earlier run would otherwise keep its port and directory forever.
  [[ -f "$STATE_FILE" ]] && stop_cluster

  local dir
  dir="$(mktemp -d "${TMPDIR:-/tmp}/opledger-pg.XXXXXX")"
  trap 'as_owner "$PG_BIN/pg_ctl" -D "'"$dir"'/data" -m immediate stop >/dev/null 2>&1 || true; rm -rf "'"$dir"'"' ERR
  [[ $EUID -eq 0 ]] && chown postgres:postgres "$dir"

  # Durability is pointless for a throwaway cluster; --no-sync and fsync=off make it start and run faster.
  as_owner "$PG_BIN/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --locale=C --no-sync --no-instructions \
    >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; false; }

  local port="$FIRST_PORT" started=""
  while [[ $port -lt $((FIRST_PORT + 100)) ]]; do
    if ! port_in_use "$port"; then
      if as_owner "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 30 \
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
        start >/dev/null; then
        started=1
        break
      fi
      # Lost a race for the port: try the next one; any other failure is real.
      grep -q "could not bind\|Address already in use" "$dir/postgres.log" || { cat "$dir/postgres.log" >&2; false; }
    fi
    port=$((port + 1))
  done
  [[ -n "$started" ]] || { log "no free port in $FIRST_PORT..$((FIRST_PORT + 99))"; false; }

  "$PG_BIN/createdb" -h 127.0.0.1 -p "$port" -U postgres "$DATABASE"
  trap - ERR

  local url="postgresql://postgres@127.0.0.1:$port/$DATABASE"
  mkdir -p "$(dirname "$STATE_FILE")"
  {
    echo "export OPLEDGER_TEST_PG_URL=$url"
    echo "export OPLEDGER_TEST_PG_DIR=$dir"
    echo "export OPLEDGER_TEST_PG_PORT=$port"
  } >"$STATE_FILE"
  log "PostgreSQL 15 on 127.0.0.1:$port, data in $dir/data, state in ${STATE_FILE#"$ROOT"/}"
  echo "export OPLEDGER_TEST_PG_URL=$url"
}

case "${1:-}" in
  start) start_cluster ;;
  stop) stop_cluster ;;
  *)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
