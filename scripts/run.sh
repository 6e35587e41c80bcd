#!/usr/bin/env bash
# make run: migrate, load the catalog and demo data, start web, a Celery worker and the beat;
# Ctrl-C stops them all.
# No environment needed: SQLite and Celery's filesystem transport. Set DATABASE_URL and
# CELERY_BROKER_URL (e.g. postgres://..., redis://127.0.0.1:6379/0) to use real services.
# HOST and PORT choose where the web server listens (`make run PORT=8123 HOST=0.0.0.0`);
# SITE_URL, the address notification e-mails link to, follows them unless set.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBUG="${DEBUG:-true}"
HOST="${HOST:-127.0.0.1}"
PORT="${PORT:-8000}"
if ! [[ "$PORT" =~ ^[0-9]+$ ]] || [ "$PORT" -lt 1 ] || [ "$PORT" -gt 65535 ]; then
  echo "PORT must be a TCP port number (1-65535), got '$PORT'" >&2
  exit 2
fi
shown_host="$HOST"
[ "$HOST" = "0.0.0.0" ] && shown_host=127.0.0.1
export SITE_URL="${SITE_URL:-http://$shown_host:$PORT}"
export ALLOWED_HOSTS="${ALLOWED_HOSTS:-127.0.0.1,localhost,$HOST}"
PY=.venv/bin/python
VAR="${VAR_DIR:-var}"  # queue folders, uploads and the beat schedule (settings.VAR_DIR)
mkdir -p "$VAR/celery/queue" "$VAR/celery/processed" "$VAR/celery/control" "$VAR/private"
# R7: the audit trail's head is anchored outside the database, on by default (ship this file
# off the host in production: docs/deployment.md).
export AUDIT_ANCHOR_FILE="${AUDIT_ANCHOR_FILE:-$PWD/$VAR/audit-anchor.jsonl}"

$PY manage.py migrate --noinput -v0
if $PY manage.py help load_catalog >/dev/null 2>&1; then $PY manage.py load_catalog; fi
# Published MLPerf Inference v4.1 results: the evidence a row takes before any upload.
$PY manage.py import_mlperf --seed -v0
$PY manage.py seed_demo

# S8: each Celery process is restarted when it exits, after 1, 2, 4 … 30 s. Beat runs as its own
# supervised process, never embedded in a worker (`-B`): a killed worker left its embedded beat
# running, and two beats sent every periodic task (R8). Bills are read by their own worker on
# the `imports` queue, so a large bill never holds the slots comparisons run in (R4).
supervise() {
  local name="$1" delay=1 child="" started
  shift
  trap 'kill "$child" 2>/dev/null; wait "$child" 2>/dev/null; exit 0' INT TERM
  while true; do
    mkdir -p "$VAR/celery/queue" "$VAR/celery/processed" "$VAR/celery/control" 2>/dev/null || true
    started=$SECONDS
    "$@" &
    child=$!
    wait "$child" || true
    if (( SECONDS - started > 60 )); then delay=1; fi
    echo "Celery $name exited; restarting it in ${delay} s" >&2
    sleep "$delay" & wait $! || true
    delay=$(( delay < 16 ? delay * 2 : 30 ))
  done
}
echo "Starting Celery worker, imports worker and beat (broker: ${CELERY_BROKER_URL:-filesystem://})"
supervise worker .venv/bin/celery -A config worker -l info --concurrency 2 -Q celery \
  -n "worker@%h" --without-gossip --without-mingle &
WORKER=$!
supervise "imports worker" .venv/bin/celery -A config worker -l info --concurrency 1 \
  -Q imports -n "imports@%h" --without-gossip --without-mingle &
IMPORTS=$!
supervise beat .venv/bin/celery -A config beat -l info --schedule "$VAR/celery/beat-schedule" &
BEAT=$!
cleanup() {
  kill "$WORKER" "$IMPORTS" "$BEAT" 2>/dev/null || true
  wait "$WORKER" "$IMPORTS" "$BEAT" 2>/dev/null || true
}
trap cleanup EXIT INT TERM

# Every login the demo data created (accounts, and the vendors' reps the checklist adds).
logins=$($PY manage.py shell -v0 -c "
from accounts.models import User
for u in User.objects.filter(is_active=True).select_related('provider').order_by('role', 'username'):
    org = f', {u.provider.name}' if u.provider_id else ''
    print(f'    {u.username:<12} {u.get_role_display()}{org}')
")

cat <<MSG

  GPU procurement workbench: $SITE_URL/
  Health: $SITE_URL/healthz    API docs: $SITE_URL/api/docs/
  Demo logins (password gpu-demo):
$logins
  A five-minute tour: README.md. Ctrl-C stops the web server, the worker and the beat.

MSG
# runserver opens a connection per thread; persistent ones would exhaust PostgreSQL.
DB_CONN_MAX_AGE=0 $PY manage.py runserver "$HOST:$PORT" --noreload
