#!/usr/bin/env bash
# make test: lint, then the whole suite against real PostgreSQL and Redis.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/services.sh
echo "== ruff"
.venv/bin/ruff check .
echo "== import contracts"
.venv/bin/lint-imports --no-cache
echo "== pytest"
export DJANGO_ALLOW_ASYNC_UNSAFE=true
.venv/bin/python -m pytest -q --create-db "$@"
