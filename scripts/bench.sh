#!/usr/bin/env bash
# make bench: services up, then every benchmark (figures + ratios) into .bench/latest.json.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/services.sh
export DJANGO_ALLOW_ASYNC_UNSAFE=true
.venv/bin/python -m bench.run "$@"
