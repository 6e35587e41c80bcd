#!/usr/bin/env bash
# Make sure PostgreSQL and Redis answer on 127.0.0.1; start them if installed but down.
set -uo pipefail

pg_up() { pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; }
redis_up() { redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; }

if ! pg_up; then
  if command -v pg_ctlcluster >/dev/null && [ -d /etc/postgresql ]; then
    echo "PostgreSQL is down: starting it"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
    for _ in $(seq 1 30); do pg_up && break; sleep 1; done
  fi
fi
if ! redis_up; then
  if command -v redis-server >/dev/null; then
    echo "Redis is down: starting it"
    mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
      --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
    for _ in $(seq 1 30); do redis_up && break; sleep 1; done
  fi
fi
ok=0
pg_up || { echo "ERROR: PostgreSQL is not reachable on 127.0.0.1:5432." \
  "Start it (Debian: pg_ctlcluster <version> main start) or set TEST_DATABASE_URL." >&2; ok=1; }
redis_up || { echo "ERROR: Redis is not reachable on 127.0.0.1:6379." \
  "Start it (redis-server --daemonize yes --port 6379)." >&2; ok=1; }
exit $ok
