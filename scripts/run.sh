#!/usr/bin/env bash
# make run: migrate, load the catalog and demo data, start web + Celery worker; Ctrl-C stops both.
# No environment needed: SQLite and Celery's filesystem transport. Set DATABASE_URL and
# CELERY_BROKER_URL (e.g. postgres://..., redis://127.0.0.1:6379/0) to use real services.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBUG="${DEBUG:-true}"
PY=.venv/bin/python
mkdir -p var/celery/queue var/celery/processed var/celery/control var/private

$PY manage.py migrate --noinput -v0
if $PY manage.py help load_catalog >/dev/null 2>&1; then $PY manage.py load_catalog; fi
$PY manage.py seed_demo

# S8: the worker (and its beat) is restarted when it exits, after 1, 2, 4 … 30 s.
supervise_worker() {
  local delay=1 child="" started
  trap 'kill "$child" 2>/dev/null; wait "$child" 2>/dev/null; exit 0' INT TERM
  while true; do
    mkdir -p var/celery/queue var/celery/processed var/celery/control 2>/dev/null || true
    started=$SECONDS
    .venv/bin/celery -A config worker -B -l info --concurrency 2 \
      --schedule var/celery/beat-schedule --without-gossip --without-mingle &
    child=$!
    wait "$child" || true
    if (( SECONDS - started > 60 )); then delay=1; fi
    echo "Celery worker exited; restarting it in ${delay} s" >&2
    sleep "$delay" & wait $! || true
    delay=$(( delay < 16 ? delay * 2 : 30 ))
  done
}
echo "Starting Celery worker (broker: ${CELERY_BROKER_URL:-filesystem://})"
supervise_worker &
WORKER=$!
cleanup() { kill "$WORKER" 2>/dev/null || true; wait "$WORKER" 2>/dev/null || true; }
trap cleanup EXIT INT TERM

cat <<MSG

  GPU procurement workbench: http://127.0.0.1:8000/
  Health: http://127.0.0.1:8000/healthz    API docs: http://127.0.0.1:8000/api/docs/
  Demo logins (password gpu-demo): lead, engineer, finance, finance2, security,
  vendor_a (Northwind), vendor_b (Contoso), admin
  Ctrl-C stops the web server and the worker.

MSG
# L15: runserver opens a connection per thread; persistent ones would exhaust PostgreSQL.
DB_CONN_MAX_AGE=0 $PY manage.py runserver 127.0.0.1:8000 --noreload
