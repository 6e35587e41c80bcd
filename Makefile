# The two commands: `make run` and `make test`. Everything else is a helper.
VENV ?= .venv
PY := $(VENV)/bin/python
PYTHON ?= python3
HOST := 127.0.0.1
PORT := 8000

.PHONY: run test test-fast lint bench venv worker clean check-deploy fit-data fit-estimate accuracy

$(VENV)/.installed: requirements.txt requirements-dev.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements-dev.txt
	@touch $@

venv: $(VENV)/.installed

## make run: venv, migrate, catalog + demo data, web on $(HOST):$(PORT) (default
## 127.0.0.1:8000; `make run PORT=8123 HOST=0.0.0.0`) and a Celery worker.
run: venv
	@HOST="$(HOST)" PORT="$(PORT)" bash scripts/run.sh

## make test: system packages (scripts/deps.sh), ruff, import contracts, mypy, bandit, then the suite
## against PostgreSQL and Redis (started if down). Extra pytest arguments: ARGS="--lf".
test: venv
	@bash scripts/test.sh $(ARGS)

## make test-fast: the inner loop: no browser, no worker (`services`) tests, -x --ff, no lint.
test-fast: venv
	@bash scripts/test.sh --fast $(ARGS)

lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

## make bench: benchmarks, printed as a table and written to .bench/latest.json.
bench: venv
	@bash scripts/bench.sh

## make fit-data MLPERF=<results root>: rebuild the estimator's fit data (one row per VALID
## MLPerf Inference LLM result, with catalog specs and its source path) from a results tree.
MLPERF ?= ../shared/data/mlperf-inference-v4.1
fit-data: venv
	$(PY) -m benchmarks.mlperf_fit_data $(MLPERF) engine/fitted/data/mlperf-inference-v4.1.csv

## make fit-estimate: refit the estimator's parameters from the shipped fit data (deterministic).
fit-estimate: venv
	$(PY) -m engine.fitted fit

## make accuracy: the estimator's out-of-sample error and bands -> docs/engine/accuracy.md.
accuracy: venv
	$(PY) -m engine.fitted accuracy

check-deploy: venv
	DEBUG=false SECRET_KEY=check-deploy-$$(date +%s)-a-long-random-string-for-the-check \
	AUDIT_HMAC_KEY=check-deploy-audit-key AUDIT_ANCHOR_FILE=var/audit-anchor.jsonl \
	ALLOWED_HOSTS=workbench.example.com $(PY) manage.py check --deploy --fail-level WARNING

clean:
	rm -rf var/celery .pytest_cache .ruff_cache staticfiles
