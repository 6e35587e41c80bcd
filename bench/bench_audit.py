"""Audit trail at 1,000,000 events (M7): the `/audit/` page and the chain's verification.

The events go into a throw-away PostgreSQL database (`gp_bench_audit`) in one COPY. Their
chain is the real one: each row's HMAC (hash version 2, `AUDIT_HMAC_KEY`) is computed by
`AuditEvent.compute_hash` over the previous row's, so `audit_chain_verify` accepts them; COPY
only inserts, which the append-only trigger allows. Built once per database.

Figures: the full re-verification (`manage.py audit_verify`, once, which leaves the
checkpoint); the page's p50/p95 as an admin (first page, and filtered by action) with the
checkpoint at the head; and the incremental verification of 1,000 new events.
"""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime, timedelta

from bench.common import at_most, emit, percentile, record

AUDIT_DB = os.environ.get(
    "BENCH_AUDIT_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/gp_bench_audit"
)
os.environ["DATABASE_URL"] = AUDIT_DB
os.environ.setdefault("DEBUG", "true")
os.environ.setdefault("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver")
os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:6379/14")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

EVENTS = int(os.environ.get("BENCH_AUDIT_EVENTS", "1000000"))  # smaller for a trial run
NEW_EVENTS = 1_000
REQUESTS = 20
PAGE_P95_LIMIT_MS = 300.0
INCREMENTAL_LIMIT_MS = 500.0
ACTIONS = ("quote.submitted", "quote.revised", "checklist.answered", "login.failed")
COLUMNS = (
    "actor_id, actor_name, action, object_type, object_id, object_repr, summary, outcome, "
    "created_at, prev_hash, row_hash, hash_version"
)


def ensure_database() -> None:
    import psycopg

    name = AUDIT_DB.rsplit("/", 1)[-1]
    admin = AUDIT_DB.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def fill(missing: int) -> float:
    """COPY `missing` chained events after the newest one; seconds taken."""
    import json

    from django.db import connection, transaction

    from core.audit import _AUDIT_LOCK_KEY
    from core.models import HASH_VERSION, AuditEvent

    started = time.perf_counter()
    with transaction.atomic(), connection.cursor() as cursor:
        # The same lock as audit_record: nothing else may append while the chain grows.
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_AUDIT_LOCK_KEY])
        last = AuditEvent.objects.order_by("-id").values_list("row_hash", flat=True).first()
        event = AuditEvent(actor_name="system", object_type="catalog.quote", outcome="ok")
        event.hash_version = HASH_VERSION
        event.prev_hash = last or ""
        start = datetime(2026, 1, 1, tzinfo=UTC)
        with cursor.cursor.copy(f"COPY procurement_auditevent ({COLUMNS}) FROM STDIN") as copy:
            for n in range(missing):
                event.action = ACTIONS[n % len(ACTIONS)]
                event.object_id = str(n % 50_000)
                event.object_repr = f"Quote {n % 50_000}"
                event.summary = {"n": n}
                event.created_at = start + timedelta(milliseconds=25 * n)
                event.row_hash = event.compute_hash()
                copy.write_row(
                    (
                        None,
                        event.actor_name,
                        event.action,
                        event.object_type,
                        event.object_id,
                        event.object_repr,
                        json.dumps(event.summary),
                        event.outcome,
                        event.created_at,
                        event.prev_hash,
                        event.row_hash,
                        event.hash_version,
                    )
                )
                event.prev_hash = event.row_hash
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE procurement_auditevent")
    return time.perf_counter() - started


def page_times(client: object, url: str) -> list[float]:
    for _ in range(2):
        assert client.get(url).status_code == 200, url  # type: ignore[attr-defined]
    times = []
    for _ in range(REQUESTS):
        started = time.perf_counter()
        client.get(url)  # type: ignore[attr-defined]
        times.append((time.perf_counter() - started) * 1000)
    return times


def main() -> None:
    ensure_database()
    import django

    django.setup()
    from django.core.management import call_command
    from django.test import Client

    from accounts.models import User
    from core.audit import audit_chain_verify, audit_record
    from core.models import AuditEvent
    from core.roles import Role

    call_command("migrate", verbosity=0)
    admin, _ = User.objects.get_or_create(username="bench-audit-admin", role=Role.ADMIN)
    have = AuditEvent.objects.count()
    out = {}
    if have < EVENTS:
        seconds = fill(EVENTS - have)
        out["audit_build_1m_s"] = record(seconds, "s", "(setup: COPY of the chained rows)", True)
    total = AuditEvent.objects.count()

    started = time.perf_counter()
    broken = audit_chain_verify(full=True)
    full_s = time.perf_counter() - started
    assert broken == [], broken[:5]
    out["audit_verify_full_1m_s"] = record(
        full_s, "s", f"(manage.py audit_verify over {total:,} events; not on a page view)", True
    )

    client = Client()
    client.force_login(admin)
    for name, url in (("page", "/audit/"), ("filtered", "/audit/?action=login.failed")):
        times = page_times(client, url)
        out[f"audit_{name}_1m_p50_ms"] = record(percentile(times, 0.5), "ms", "(p50)", True)
        out[f"audit_{name}_1m_p95_ms"] = at_most(
            percentile(times, 0.95), PAGE_P95_LIMIT_MS, "ms", f"<= {PAGE_P95_LIMIT_MS:.0f} ms"
        )

    for n in range(NEW_EVENTS):
        audit_record(actor=admin, action="bench.event", object_type="bench", object_id=str(n))
    started = time.perf_counter()
    assert audit_chain_verify() == []
    incremental_ms = (time.perf_counter() - started) * 1000
    out["audit_verify_incremental_1k_ms"] = at_most(
        incremental_ms,
        INCREMENTAL_LIMIT_MS,
        "ms",
        f"<= {INCREMENTAL_LIMIT_MS:.0f} ms for {NEW_EVENTS:,} new events at {total:,}",
    )
    emit(out)


if __name__ == "__main__":
    main()
