#!/usr/bin/env bash
# Make sure PostgreSQL (with pgvector) and Redis answer on their local addresses.
# Starts them when they are installed here but stopped; says what is missing otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

pg_host=127.0.0.1; pg_port=5432
if ! pg_isready -q -h "$pg_host" -p "$pg_port" 2>/dev/null; then
  if command -v pg_ctlcluster >/dev/null && [ "$(id -u)" = "0" ]; then
    echo "PostgreSQL is not answering on $pg_host:$pg_port; starting it"
    for version in $(ls /etc/postgresql); do
      pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
    done
    for _ in $(seq 1 30); do pg_isready -q -h "$pg_host" -p "$pg_port" && break; sleep 0.5; done
  fi
  if ! pg_isready -q -h "$pg_host" -p "$pg_port" 2>/dev/null; then
    echo "PostgreSQL is not running on $pg_host:$pg_port. Start it (e.g. 'sudo pg_ctlcluster 15 main start')," >&2
    echo "or install it: 'sudo apt-get install postgresql', or point DATABASE_URL at a running server." >&2
    exit 1
  fi
fi

bash scripts/ensure_pgvector.sh

if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  if command -v redis-server >/dev/null; then
    echo "Redis is not answering on 127.0.0.1:6379; starting it"
    mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
      --dir /var/lib/redis --logfile /var/log/redis/metnos.log
    for _ in $(seq 1 20); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 0.25; done
  fi
  if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
    echo "Redis is not running on 127.0.0.1:6379. Install it ('sudo apt-get install redis-server')" >&2
    echo "and start it, or point REDIS_URL at a running server." >&2
    exit 1
  fi
fi
