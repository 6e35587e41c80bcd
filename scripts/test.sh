#!/usr/bin/env bash
# make test:      system packages (scripts/deps.sh), services, ruff, import contracts, then the
#                 suite with mypy and bandit running beside it.
# make test-fast: services, then the suite without browser and worker (`services`) tests,
#                 failures first, stopping at the first one (the inner loop).
# Extra arguments go to pytest: `make test ARGS="--lf"`, `make test-fast ARGS="-k quote"`.
#
# The test database is kept between runs (--reuse-db) and created afresh (--create-db) in CI
# (CI=true), when a migration file changed since the last run against this database, or when
# you pass --create-db yourself.
set -euo pipefail
cd "$(dirname "$0")/.."

fast=0
if [ "${1:-}" = "--fast" ]; then
  fast=1
  shift
fi

if [ $fast -eq 0 ]; then
  bash scripts/deps.sh
  export AXE_REQUIRED=1  # deps.sh installed axe-core: the browser tests must use it
fi
bash scripts/services.sh
checks_pid=""
checks_log="var/test-checks.log"
if [ $fast -eq 0 ]; then
  echo "== ruff"
  .venv/bin/ruff check .
  echo "== import contracts"
  .venv/bin/lint-imports --no-cache
  # mypy and bandit take about half a minute on a fresh clone, mostly while pytest waits on
  # its browser and worker subprocesses: they run beside the suite and report after it.
  mkdir -p var
  (
    set +e
    echo "== mypy"
    DEBUG=true .venv/bin/mypy
    typed=$?
    echo "== bandit (medium and high severity)"
    .venv/bin/bandit -q -c pyproject.toml -r . -ll
    secure=$?
    exit $((typed || secure))
  ) >"$checks_log" 2>&1 &
  checks_pid=$!
  trap 'kill "$checks_pid" 2>/dev/null || true' EXIT  # an interrupted run stops them too
  echo "== mypy and bandit run beside pytest (reported after it)"
fi

# One stamp per database: the hash of every migration file when it was last (re)created.
migrations_hash() {
  find . -path ./.venv -prune -o -path '*/migrations/*.py' -print | LC_ALL=C sort \
    | xargs sha256sum | sha256sum | cut -d' ' -f1
}
db_key=$(printf '%s' "${DATABASE_URL:-default}" | sha256sum | cut -c1-16)
stamp="var/test-db/$db_key.migrations"
current=$(migrations_hash)
create=()
fresh=0
case " $* " in
  *" --create-db "*) fresh=1 ;;  # the caller decides
  *" --reuse-db "*) ;;
  *)
    if [ "${CI:-}" = "true" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$current" ]; then
      create=(--create-db)
      fresh=1
    fi
    ;;
esac

# In parallel (pytest-xdist): each worker its own PostgreSQL test database (test_<name>_gwN)
# and Redis database number (config/settings_test.py). A file stays on one worker
# (--dist loadfile) so its module fixtures are built once. TEST_WORKERS=0 runs serially.
workers=${TEST_WORKERS:-$(($(nproc) + 1))}
parallel=()
# --no-loadscope-reorder: the files go out longest first (tests/support/schedule.py), not in
# pytest-xdist's order by number of tests.
[ "$workers" != "0" ] && parallel=(-n "$workers" --dist loadfile --no-loadscope-reorder)
echo "== pytest${create:+ (fresh test database)} (${workers} workers)"
export DJANGO_ALLOW_ASYNC_UNSAFE=true
selection=()
[ $fast -eq 1 ] && selection=(-m "not browser and not services and not deploy" -x --ff)
set +e
.venv/bin/python -m pytest -q "${parallel[@]}" "${create[@]}" "${selection[@]}" "$@"
rc=$?
checks_rc=0
if [ -n "$checks_pid" ]; then
  wait "$checks_pid"
  checks_rc=$?
  cat "$checks_log"
fi
set -e
# 0: passed, 1: some tests failed; either way the database was built and migrated.
if [ $fresh -eq 1 ] && [ $rc -le 1 ]; then
  mkdir -p "$(dirname "$stamp")" && echo "$current" >"$stamp"
fi
if [ $rc -eq 0 ] && [ $checks_rc -ne 0 ]; then
  echo "mypy or bandit failed (above)" >&2
  exit $checks_rc
fi
exit $rc
