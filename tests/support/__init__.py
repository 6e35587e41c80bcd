"""Shared test machinery: what more than one test module needs, and nothing else.

- `waiting`: `wait_until(predicate, timeout)`, the one poll loop (a deadline is a failure
  guard, never the thing under test).
- `worker`: start and stop a real Celery worker subprocess (its own process group) against
  the test database and broker; `reset_broker` for a test that follows one that pointed the
  app at a private Redis. `bench/bench_e2e.py` uses it too.
- `cast`: THE cast of users (one per role, each with why it exists), made into fixtures by
  `tests/conftest.py`.
- `paused_worker`: a Celery app for tests (`celery -A tests.support.paused_worker worker`)
  whose comparison compute step stops at a progress point and says so with a flag file: the
  barrier that makes "kill the worker mid-run" a fact rather than a race.

Modules here import Django lazily (inside functions, except `paused_worker`, which is a
worker's app module), so `bench/` can use them with its own settings.
"""
