"""Test settings: real PostgreSQL and Redis at their local default URLs."""

import os

os.environ.setdefault("DEBUG", "true")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/gpuprocure")
# Inherited by the production-mode subprocesses of the tests, which need one.
os.environ.setdefault("AUDIT_HMAC_KEY", "test-only-audit-hmac-key-0123456789abcdef")
os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:6379/15")

from config.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
STORAGES["staticfiles"]["BACKEND"] = "django.contrib.staticfiles.storage.StaticFilesStorage"  # noqa: F405
EVIDENCE_UPLOAD_MAX_BYTES = 200_000
BENCHMARK_UPLOAD_MAX_BYTES = 20_000_000
MONTE_CARLO_SAMPLES = 2_000
if DATABASES["default"]["ENGINE"].endswith("postgresql"):  # noqa: F405
    # The test database's flush truncates every table, the audit trail too; the trail's
    # TRUNCATE trigger lets a session through only when it says so (core migration 0006).
    DATABASES["default"].setdefault("OPTIONS", {})["options"] = (  # noqa: F405
        "-c workbench.audit_truncate=allowed"
    )
