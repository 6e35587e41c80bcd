"""Test settings: real PostgreSQL and Redis at their local default URLs."""

import os

os.environ.setdefault("DEBUG", "true")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/gpuprocure")
# Inherited by the production-mode subprocesses of the tests, which need one.
os.environ.setdefault("AUDIT_HMAC_KEY", "test-only-audit-hmac-key-0123456789abcdef")
os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:6379/15")


def _broker_for_this_worker(url: str, worker: str) -> str:
    """Each pytest-xdist worker (gw0, gw1 …) its own Redis database number, counted down from
    the base URL's, so that one worker's Celery subprocess never takes another's tasks. Each
    worker's PostgreSQL test database is pytest-django's (``test_<name>_gw0`` …)."""
    if not worker.startswith("gw") or not worker[2:].isdigit():
        return url
    base, _, number = url.rpartition("/")
    if not base.startswith("redis") or not number.isdigit():
        return url
    return f"{base}/{(int(number) - int(worker[2:])) % 16}"


# Once per pytest worker, written back into the environment: its subprocesses (Celery workers,
# servers) inherit the URL as it is, also when a test points them at a private Redis. The
# marker names the worker, since the workers themselves inherit the controller's environment.
_worker = os.environ.get("PYTEST_XDIST_WORKER", "")
if _worker and os.environ.get("TEST_BROKER_WORKER") != _worker:
    os.environ["CELERY_BROKER_URL"] = _broker_for_this_worker(
        os.environ["CELERY_BROKER_URL"], _worker
    )
    os.environ["TEST_BROKER_WORKER"] = _worker

from config.settings import *  # noqa: E402, F403  (after the environment it reads is set)

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
STORAGES["staticfiles"]["BACKEND"] = "django.contrib.staticfiles.storage.StaticFilesStorage"  # noqa: F405
EVIDENCE_UPLOAD_MAX_BYTES = 200_000
BENCHMARK_UPLOAD_MAX_BYTES = 20_000_000
MONTE_CARLO_SAMPLES = 2_000
# A test's writes share one transaction id, so the dashboard's stamp (`xmin`) would not see
# an update inside it: the lists are read fresh, and the tests of the cache commit each write.
DASHBOARD_LISTS_CACHE_SECONDS = 0
if DATABASES["default"]["ENGINE"].endswith("postgresql"):  # noqa: F405
    # The test database's flush truncates every table, the audit trail too; the trail's
    # TRUNCATE trigger lets a session through only when it says so (core migration 0006).
    # A test never needs a commit on disk before it goes on: synchronous_commit off (a session
    # setting) spares every commit and TRUNCATE of the suite its wait for the WAL flush.
    DATABASES["default"].setdefault("OPTIONS", {})["options"] = (  # noqa: F405
        "-c workbench.audit_truncate=allowed -c synchronous_commit=off"
    )
