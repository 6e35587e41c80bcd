"""Settings, all from the environment (one file; production is switched on by DEBUG=False).

With nothing set the workbench runs embedded: SQLite and a real Celery worker over kombu's
``filesystem://`` transport. Set DATABASE_URL / CELERY_BROKER_URL for PostgreSQL and Redis.
"""

from __future__ import annotations

import json
import os
from datetime import timedelta
from pathlib import Path
from typing import Any

import dj_database_url
import django_stubs_ext
from django.core.exceptions import ImproperlyConfigured

# Model forms, admins and paginators are generic in their model (`ModelAdmin[Quote]`).
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("VAR_DIR", BASE_DIR / "var"))


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return raw.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    return default if raw is None or raw == "" else int(raw)


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
    SECRET_KEY = "dev-only-insecure-key-never-used-in-production-0123456789abcdef"  # noqa: S105

# The audit chain's HMAC key: held outside the database; in DEBUG derived from SECRET_KEY.
AUDIT_HMAC_KEY = env_str("AUDIT_HMAC_KEY")
if not AUDIT_HMAC_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("AUDIT_HMAC_KEY must be set when DEBUG is off.")
    import hashlib as _hashlib

    AUDIT_HMAC_KEY = _hashlib.sha256(f"audit-chain:{SECRET_KEY}".encode()).hexdigest()
# A file outside the database where each audit checkpoint is appended as a signed line (ship it
# to a log store or WORM storage): verification then notices a trail shortened or emptied by
# whoever owns the tables. Empty: no external anchor, allowed with DEBUG only: `check --deploy`
# and `audit_verify` fail without one in production (R7). `make run` and the compose file set it.
AUDIT_ANCHOR_FILE = env_str("AUDIT_ANCHOR_FILE", "")
# The worker anchors (and re-signs the head) this often; a newest line older than twice this
# (and five minutes' grace) fails verification: anchoring stopped or the file lost lines.
AUDIT_ANCHOR_EVERY_MINUTES = env_int("AUDIT_ANCHOR_EVERY_MINUTES", 10)

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost" if DEBUG else "")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "knox",  # hashed, expiring API tokens
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "template_partials",
    "csp",
    "core",
    "accounts",
    "catalog",
    "checklist",
    "briefs",
    "benchmarks",
    "procurement.apps.ProcurementConfig",
    "finops.apps.FinopsConfig",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "accounts.middleware.SessionLifetimeMiddleware",  # idle timeout, absolute lifetime
    "accounts.middleware.NoStoreMiddleware",  # authenticated responses: no-store
    "accounts.middleware.KnownDeviceMiddleware",  # remembers browsers that logged in
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "core.control_chars.ControlCharacterMiddleware",  # no control character in a form field
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "csp.middleware.CSPMiddleware",
    "core.api.middleware.JsonBodyMiddleware",  # malformed JSON is a 400 on every API write
    "core.db_limits.DatabaseLimitsMiddleware",  # huge ids 400, a locked SQLite 503 (S7)
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
AUTH_USER_MODEL = "accounts.User"
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "dashboard"
LOGOUT_REDIRECT_URL = "accounts:login"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "csp.context_processors.nonce",
                "core.navigation.navigation",
            ],
        },
    }
]

DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=env_int("DB_CONN_MAX_AGE", 60),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # The development database: readers never wait for the writer (WAL), a writer waits up to
    # 20 s for another, and a transaction takes the write lock when it begins (IMMEDIATE), so
    # two parallel writes queue instead of failing half-way with "database is locked".
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "timeout": 20,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 12},  # ASVS L2
    },
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
# Plotly's basic bundle (scatter and bar: every trace type the charts draw, about a quarter
# of the full build) is vendored in static/vendor/plotly/; never a CDN.
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES: dict[str, dict[str, Any]] = {
    "default": {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": env_str("PRIVATE_MEDIA_ROOT", str(VAR_DIR / "private"))},
    },
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}
# In production WhiteNoise serves every static file under a hashed name with a ten-year
# immutable Cache-Control, and brotli or gzip from the files compressed at collectstatic.
WHITENOISE_MAX_AGE = env_int("WHITENOISE_MAX_AGE", 0 if DEBUG else 3600)
# Uploaded evidence and benchmark files are private: no MEDIA_URL is ever served directly;
# views stream them after an access check.
MEDIA_ROOT = STORAGES["default"]["OPTIONS"]["location"]

# --- Domain settings --------------------------------------------------------------------------
BASE_CURRENCY = env_str("BASE_CURRENCY", "USD")
STALE_QUOTE_DAYS = env_int("STALE_QUOTE_DAYS", 30)
BENCHMARK_UPLOAD_MAX_BYTES = env_int("BENCHMARK_UPLOAD_MAX_BYTES", 200 * 1000 * 1000)
TRACE_UPLOAD_MAX_BYTES = env_int("TRACE_UPLOAD_MAX_BYTES", 200 * 1000 * 1000)
EVIDENCE_UPLOAD_MAX_BYTES = env_int("EVIDENCE_UPLOAD_MAX_BYTES", 20 * 1000 * 1000)
# Benchmark files one uploader may keep in all (a failed parse keeps only its first 64 KB).
BENCHMARK_UPLOAD_QUOTA_BYTES = env_int("BENCHMARK_UPLOAD_QUOTA_BYTES", 5 * 1000 * 1000 * 1000)
DUAL_APPROVAL_THRESHOLD_USD = env_int("DUAL_APPROVAL_THRESHOLD_USD", 250_000)
# A brief whose volume implies more GPUs at peak than this is saved only once confirmed.
BRIEF_CONFIRM_ABOVE_GPUS = env_int("BRIEF_CONFIRM_ABOVE_GPUS", 128)
# Business days finance has to decide a ready comparison before it shows as overdue.
REVIEW_WINDOW_BUSINESS_DAYS = env_int("REVIEW_WINDOW_BUSINESS_DAYS", 5)
MONTE_CARLO_SAMPLES = env_int("MONTE_CARLO_SAMPLES", 10_000)
# Seconds a user's dashboard lists are kept while the tables they show are unchanged
# (procurement/selectors/dashboard.py: any write changes their stamp first); 0: never kept.
DASHBOARD_LISTS_CACHE_SECONDS = 60
# Wall-clock seconds the worker's mixed-fleet solver may take before it keeps its best plan.
MIXED_PLAN_TIME_LIMIT_S = float(env_str("MIXED_PLAN_TIME_LIMIT_S", "10"))
# A month whose actual cost per accepted output is off its forecast by more than this share
# (0.10: 10 %, either way) is flagged on the lead's and finance's dashboards.
FINOPS_DRIFT_TOLERANCE = env_str("FINOPS_DRIFT_TOLERANCE", "0.10")
# A price change behind an approved decision larger than this (in % of the approved price,
# either way) needs a re-approval: the lead recomputes and the reviewers decide again; a
# smaller one may be acknowledged by the owner or a reviewer.
PRICE_CHANGE_TOLERANCE_PCT = env_int("PRICE_CHANGE_TOLERANCE_PCT", 5)
DEMO_PASSWORD = "gpu-demo"  # noqa: S105 - demo accounts only; refused in production mode

# --- Celery -----------------------------------------------------------------------------------
# PostgreSQL is the source of truth; the broker is only a doorbell (see docs/adr).
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "filesystem://")
_celery_visibility = env_int("CELERY_VISIBILITY_TIMEOUT", 3600)
if CELERY_BROKER_URL.startswith("filesystem://"):
    _queue_dir = VAR_DIR / "celery" / "queue"
    _processed_dir = VAR_DIR / "celery" / "processed"
    CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {
        "data_folder_in": str(_queue_dir),
        "data_folder_out": str(_queue_dir),
        "processed_folder": str(_processed_dir),
        "control_folder": str(VAR_DIR / "celery" / "control"),
        "store_processed": False,
    }
else:
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": _celery_visibility,
        "unacked_restore_interval": env_int("CELERY_UNACKED_RESTORE_INTERVAL", 10),
        "unacked_restore_throttle": 1,
        "socket_connect_timeout": 3,
        "socket_timeout": 10,
    }
CELERY_VISIBILITY_TIMEOUT = _celery_visibility
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# S8: a lost broker is retried for ever (with Celery's growing interval, at most 30 s apart),
# not given up after 100 tries; `make run` also restarts a worker that exits.
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_BROKER_CONNECTION_TIMEOUT = 10
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True  # together with acks_late, or a killed task is lost
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_SERIALIZER = "json"
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 1800)
# A bill is read on its own queue by its own worker (scripts/run.sh, docker-compose.yml), so a
# large file never holds the slots comparisons, notices and the audit anchor run in (R4).
CELERY_TASK_ROUTES = {"finops.tasks.billing_import_run_task": {"queue": "imports"}}
CELERY_TASK_SOFT_TIME_LIMIT = CELERY_TASK_TIME_LIMIT - 60
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_TIMEZONE = "UTC"
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0.2, "interval_step": 0.5}
# /healthz says "degraded" when no worker ran the beat's one-minute heartbeat for this long
# (a missed beat or two is not an outage), or a comparison or parse waited longer than this.
HEALTH_HEARTBEAT_MAX_AGE_S = env_int("HEALTH_HEARTBEAT_MAX_AGE_S", 180)
HEALTH_QUEUE_MAX_AGE_S = env_int("HEALTH_QUEUE_MAX_AGE_S", 600)
CELERY_BEAT_SCHEDULE = {
    # /healthz: the beat and at least one worker are alive while this runs every minute
    "heartbeat": {
        "task": "procurement.tasks.heartbeat_task",
        "schedule": timedelta(minutes=1),
    },
    "redrive-stuck-comparisons": {
        "task": "procurement.tasks.comparisons_redrive_stuck_task",
        "schedule": timedelta(minutes=1),
    },
    "redrive-stuck-billing-imports": {
        "task": "finops.tasks.billing_imports_redrive_stuck_task",
        "schedule": timedelta(minutes=1),
    },
    "redrive-stuck-benchmark-results": {
        "task": "benchmarks.tasks.benchmark_results_redrive_stuck_task",
        "schedule": timedelta(minutes=1),  # with a 30 s stale claim: re-driven within 2 min
    },
    "redrive-stuck-traffic-traces": {
        "task": "briefs.tasks.traffic_traces_redrive_stuck_task",
        "schedule": timedelta(minutes=1),
    },
    # a price change's impact and notices still pending a minute after the vendor's save
    "redrive-pending-price-changes": {
        "task": "procurement.tasks.price_changes_redrive_pending_task",
        "schedule": timedelta(minutes=1),
    },
    # verify the audit trail's new events and anchor its head outside the database
    "audit-anchor": {
        "task": "core.tasks.audit_anchor_task",
        "schedule": timedelta(minutes=AUDIT_ANCHOR_EVERY_MINUTES),
    },
    # expired API tokens are refused when presented; this removes the rest (accounts.auth)
    "purge-expired-api-tokens": {
        "task": "accounts.tasks.api_tokens_purge_expired_task",
        "schedule": timedelta(hours=1),
    },
}
# Scheduled catalog refresh (docs/imports.md): a JSON list of public price files, e.g.
# [{"kind": "litellm", "url": "https://.../model_prices_and_context_window.json"},
#  {"kind": "skypilot", "path": "/srv/catalogs/aws/vms.csv", "provider": "aws"}],
# imported every CATALOG_IMPORT_EVERY_HOURS as CATALOG_IMPORT_USER (a lead or admin).
CATALOG_IMPORT_SOURCES = json.loads(env_str("CATALOG_IMPORT_SOURCES", "[]") or "[]")
CATALOG_IMPORT_USER = env_str("CATALOG_IMPORT_USER", "")
# Host names a scheduled import may fetch although they resolve to a private or loopback
# address (an intranet mirror); every other hop, redirects included, must be public.
CATALOG_IMPORT_PRIVATE_HOSTS = env_list("CATALOG_IMPORT_PRIVATE_HOSTS", "")
CATALOG_IMPORT_EVERY_HOURS = env_int("CATALOG_IMPORT_EVERY_HOURS", 24 * 7)
if CATALOG_IMPORT_SOURCES:
    CELERY_BEAT_SCHEDULE["catalog-import-refresh"] = {
        "task": "catalog.tasks.catalog_import_refresh_task",
        "schedule": timedelta(hours=CATALOG_IMPORT_EVERY_HOURS),
    }

# --- REST framework ---------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "accounts.auth.TokenAuthentication",  # knox (`Authorization: Token <key>`, hashed)
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": [
        "core.api.parsers.SafeJSONParser",  # absurd nesting is a clear 400, not a 500
        "core.api.parsers.SafeFormParser",  # no control character in a text field (R1)
        "core.api.parsers.SafeMultiPartParser",
    ],
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "rest_framework.filters.OrderingFilter",
    ],
    "DEFAULT_PAGINATION_CLASS": "core.api.pagination.BoundedLimitOffsetPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "core.api.schema.AutoSchema",
    "EXCEPTION_HANDLER": "core.api.errors.exception_handler",
    "COERCE_DECIMAL_TO_STRING": True,
    "DEFAULT_THROTTLE_RATES": {"login": "10/min"},
}
SPECTACULAR_SETTINGS = {
    "TITLE": "GPU procurement workbench API",
    "DESCRIPTION": "Choose GPUs, or a model API, by the cost per accepted output.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],  # like every API view
}

# --- Security ---------------------------------------------------------------------------------
LOGIN_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5)
LOGIN_FAILURE_WINDOW_S = env_int("LOGIN_FAILURE_WINDOW_S", 900)
LOGIN_FAILURE_ADDRESS_LIMIT = env_int("LOGIN_FAILURE_ADDRESS_LIMIT", 20)  # spraying
LOGIN_FAILURE_ACCOUNT_LIMIT = env_int("LOGIN_FAILURE_ACCOUNT_LIMIT", 20)  # rotating addresses
# Past a login limit an unknown browser needs more than the password: a one-time sign-in
# link mailed to the account (valid LOGIN_LINK_TTL_S, at most LOGIN_LINK_MAIL_LIMIT mails per
# account per window), or a known-device cookie set at an earlier login (KNOWN_DEVICE_DAYS).
LOGIN_LINK_TTL_S = env_int("LOGIN_LINK_TTL_S", 900)
LOGIN_LINK_MAIL_LIMIT = env_int("LOGIN_LINK_MAIL_LIMIT", 3)
KNOWN_DEVICE_DAYS = env_int("KNOWN_DEVICE_DAYS", 180)
KNOWN_DEVICE_COOKIE = "wb_device"
# Reverse proxies (addresses or networks) whose X-Forwarded-For is believed; none by default.
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES", "")
API_TOKEN_TTL_DAYS = env_int("API_TOKEN_TTL_DAYS", 90)
API_TOKEN_LIMIT_PER_USER = env_int("API_TOKEN_LIMIT_PER_USER", 10)  # the oldest are revoked
# Password reset by e-mail: links valid one hour; requests limited per address and per
# e-mail address (known or not) over the window.
PASSWORD_RESET_TIMEOUT = env_int("PASSWORD_RESET_TIMEOUT", 3600)
PASSWORD_RESET_WINDOW_S = env_int("PASSWORD_RESET_WINDOW_S", 3600)
PASSWORD_RESET_EMAIL_LIMIT = env_int("PASSWORD_RESET_EMAIL_LIMIT", 3)
PASSWORD_RESET_ADDRESS_LIMIT = env_int("PASSWORD_RESET_ADDRESS_LIMIT", 10)
REST_KNOX = {
    "TOKEN_TTL": timedelta(days=API_TOKEN_TTL_DAYS),
    "AUTH_HEADER_PREFIX": "Token",
    "AUTO_REFRESH": False,
}
DATA_UPLOAD_MAX_MEMORY_SIZE = 2_500_000
# The new-comparison form posts one field per ticked candidate, up to 5,000 quotes and 5,000
# API routes (procurement.services.comparisons.MAX_IDS; the form says so past it) plus its
# overrides: Django's default of 1,000 fields refused 995+ ticked quotes with a blank 400 (L8).
DATA_UPLOAD_MAX_NUMBER_FIELDS = 10_500
FILE_UPLOAD_MAX_MEMORY_SIZE = 2_500_000
SESSION_COOKIE_HTTPONLY = True
SESSION_IDLE_TIMEOUT_S = env_int("SESSION_IDLE_TIMEOUT_S", 30 * 60)
SESSION_ABSOLUTE_S = env_int("SESSION_ABSOLUTE_S", 12 * 3600)
SESSION_COOKIE_AGE = SESSION_ABSOLUTE_S
CSRF_COOKIE_HTTPONLY = False  # htmx reads the token from the page, not the cookie; kept default
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31_536_000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SESSION_COOKIE_NAME = "__Host-sessionid"
    KNOWN_DEVICE_COOKIE = "__Host-wb_device"
    CSRF_COOKIE_NAME = "__Host-csrftoken"

CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        # Plotly and htmx set element styles at run time; scripts stay strict.
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:", "blob:"],
        "font-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "worker-src": ["'self'", "blob:"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"],
    }
}

# Production sends mail (review notices, password reset links) over SMTP: set
# EMAIL_BACKEND=django.core.mail.backends.smtp.EmailBackend and the EMAIL_HOST settings.
EMAIL_BACKEND = env_str("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = env_str("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "workbench@localhost")
# Where the workbench is reached from outside: notification e-mails link to SITE_URL + path.
# `make run` sets it from HOST and PORT; without it, the first allowed host over https.
SITE_URL = env_str(
    "SITE_URL",
    "http://127.0.0.1:8000" if DEBUG else f"https://{(ALLOWED_HOSTS or ['localhost'])[0]}",
).rstrip("/")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}
