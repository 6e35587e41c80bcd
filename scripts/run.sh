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

echo "Starting Celery worker (broker: ${CELERY_BROKER_URL:-filesystem://})"
.venv/bin/celery -A config worker -B -l info --concurrency 2 \
  --schedule var/celery/beat-schedule --without-gossip --without-mingle &
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
