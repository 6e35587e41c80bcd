#!/usr/bin/env bash
# make bench: system packages (wrk, via scripts/deps.sh), services up, then every benchmark
# (figures, targets and ratios) into .bench/latest.json.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || bash scripts/deps.sh  # a fresh machine: wrk for the load bench
bash scripts/services.sh
export DJANGO_ALLOW_ASYNC_UNSAFE=true
.venv/bin/python -m bench.run "$@"
