"""A comparison of 20,000 candidates on the default SQLite set-up (R11), measured in-process;
with `--database-url`, the same on PostgreSQL (issue 20 asks for both).

Builds a fresh SQLite database in a temporary folder, or a throw-away PostgreSQL database
it creates and drops (its name must start with `gp_bench`: it is dropped whole), in its own
process (the settings are read from this environment at start), writes one finished
comparison with `--candidates` rows and a snapshot of realistic size with bulk inserts, then
asks for the comparisons list page, the results page (cold: rendered, then from the cache),
the API (full first page, summary, ETag hit) and the printable decision record while another
thread logs in over and over.
Prints one JSON line: for each request its status, wall time, body size and SQL query count,
and the outcome of every login.

    python -m bench.large_comparison --candidates 20000
    python -m bench.large_comparison --database-url postgres://postgres@127.0.0.1:5432/gp_bench_large
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

PASSWORD = "large-comparison-bench-pw"  # noqa: S105 - a throw-away database
# The whole snapshot column selected (not one key of it read in the database).
WHOLE_SNAPSHOT = re.compile(r'(SELECT |, )"procurement_comparison"\."snapshot"(,| FROM)')


def _configure(folder: Path, database_url: str | None) -> None:
    os.environ["DATABASE_URL"] = database_url or f"sqlite:///{folder / 'db.sqlite3'}"
    os.environ["VAR_DIR"] = str(folder / "var")
    os.environ["CELERY_BROKER_URL"] = "memory://"
    os.environ["DEBUG"] = "true"
    os.environ["ALLOWED_HOSTS"] = "testserver,127.0.0.1,localhost"
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def _candidate(i: int, comparison: Any) -> Any:
    from decimal import Decimal

    from procurement.models import CandidateResult
    from procurement.models.comparisons import refusal_key

    eligible = i % 4 != 3
    unit = Decimal("0.0010") + Decimal(i) / Decimal(10**7)
    reasons = [] if eligible else ["The checklist is incomplete for this commitment level."]
    warnings = (
        [{"code": "QUOTE_STALE", "severity": "warn", "detail": "Quoted 40 days ago."}]
        if i % 5 == 0
        else []
    )
    return CandidateResult(
        comparison=comparison,
        key=f"q{i}",
        kind="gpu",
        label=f"Provider {i % 50} · H100 SXM 80GB · region-{i % 40} zone {i % 7}",
        provider_name=f"Provider {i % 50}",
        accelerator_name="H100 SXM 80GB",
        capacity_model=["on_demand", "spot", "reserved", "marketplace"][i % 4],
        gpus=8,
        hourly_price_usd=Decimal("2.1000") + Decimal(i % 300) / 100,
        eligible=eligible,
        reasons=reasons,
        # Stored with the row as the compute stores it.
        refused_by=refusal_key(eligible=eligible, warnings=warnings, reasons=reasons),
        cost_lines={
            name: str(Decimal(1000 + i % 977) + Decimal(k) / 7)
            for k, name in enumerate(
                ("compute", "storage", "egress", "observability", "labor", "idle", "failures")
            )
        },
        total_usd=Decimal(150_000 + i),
        accepted_outputs=Decimal(3_000_000),
        unit_cost_usd=unit,
        unit_label="per 1k accepted outputs",
        p10=float(unit) * 0.8,
        p50=float(unit),
        p90=float(unit) * 1.3,
        prob_cheapest=1.0 / (i + 1),
        rank=None if not eligible else i + 1,
        rank_hourly=None if not eligible else i + 1,
        fit={"fits": True, "replicas": 2, "memory_gb": 141.2, "headroom_pct": 18.5},
        performance={"tokens_per_s": 2400.0, "latency_source": "benchmark", "ttft_p95_ms": 310},
        perf_source="benchmark",
        checklist={"complete": eligible, "answered": 18 if eligible else 12, "required": 18},
        warnings=warnings,
        detail={"quote_version": i + 1, "region": f"region-{i % 40}", "zones": [f"z{i % 7}"]},
    )


def build(candidates: int) -> dict[str, Any]:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.utils import timezone

    from accounts.models import User
    from procurement.models import CandidateResult, Comparison
    from tests.factories import WorkloadBriefFactory

    call_command("migrate", verbosity=0)
    mode = None
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:  # the default set-up: no WAL, nothing tuned
            mode = cursor.execute("PRAGMA journal_mode").fetchone()[0]
    lead = User.objects.create_user("bench-lead", password=PASSWORD, role="lead")
    User.objects.create_user("bench-engineer", password=PASSWORD, role="engineer")
    brief = WorkloadBriefFactory(created_by=lead, e2e_p99_ms=30_000)
    now = timezone.now()
    quote_facts = [
        {"id": i, "provider": f"Provider {i % 50}", "accelerator": "h100-sxm-80gb",
         "price_per_gpu_hour": "2.1000", "region": f"region-{i % 40}", "zone": f"z{i % 7}",
         "capacity_model": "on_demand", "source_url": "https://example.com/list.csv",
         "quoted_at": now.isoformat(), "gpus_per_node": 8, "checklist": {"answered": 18},
         "datasheet": {f"figure_{k}": f"{k * 1.25:.4f} (source: vendor datasheet rev {k})"
                       for k in range(24)}}
        for i in range(candidates)
    ]  # fmt: skip
    snapshot = {
        "as_of": now.isoformat(),
        "base_currency": "USD",
        "fx_rates": {"EUR": {"rate_to_base": "1.08", "as_of": now.date().isoformat()}},
        "quotes": quote_facts,
        "selection": {"default": True, "quote_ids": list(range(candidates))},
    }
    result = {
        "unit_label": "per 1k accepted outputs",
        "notes": ["Synthetic large comparison."],
        "assumptions_applied": [],
        "tornado": None,
        "breakeven": None,
    }
    comparison = Comparison.objects.create(
        title=f"Every current offer ({candidates})",
        brief=brief,
        status=Comparison.Status.READY,
        progress=1.0,
        seed=1,
        engine_version="bench",
        snapshot=snapshot,
        snapshot_facts=Comparison.facts_of(snapshot),
        result=result,
        recommended_key="q0",
        created_by=lead,
        finished_at=now,
    )
    for lo in range(0, candidates, 2000):
        CandidateResult.objects.bulk_create(
            [_candidate(i, comparison) for i in range(lo, min(candidates, lo + 2000))]
        )
    snapshot_mb = len(json.dumps(snapshot)) / 1e6
    return {
        "comparison": comparison.pk,
        "database": connection.vendor,
        "journal_mode": mode,
        "snapshot_mb": snapshot_mb,
    }


def _timed(client: Any, path: str, **headers: Any) -> dict[str, Any]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as ctx:
        start = time.perf_counter()
        response = client.get(path, **headers)
        body = b"".join(response) if response.streaming else response.content
        elapsed = time.perf_counter() - start
    sql = [q["sql"] for q in ctx.captured_queries]
    return {
        "snapshot_loaded": any(WHOLE_SNAPSHOT.search(q) for q in sql),
        "status": response.status_code,
        "ms": round(elapsed * 1000, 1),
        "bytes": len(body),
        "queries": len(ctx.captured_queries),
        "etag": response.get("ETag", ""),
        "candidate_rows": body.count(b'<tr id="row-'),
        "api_candidates": _api_count(response, body),
    }


def _api_count(response: Any, body: bytes) -> int | None:
    if not response.get("Content-Type", "").startswith("application/json"):
        return None
    try:
        return len(json.loads(body).get("candidates", []))
    except (ValueError, AttributeError):
        return None


def _logins(stop: threading.Event, outcomes: list[int]) -> None:
    from django.db import connection
    from django.test import Client

    try:
        while not stop.is_set() or not outcomes:
            client = Client()
            response = client.post(
                "/accounts/login/", {"username": "bench-engineer", "password": PASSWORD}
            )
            ok = response.status_code == 302 and client.get("/").status_code == 200
            outcomes.append(200 if ok else response.status_code)
    except Exception:  # a failed login is the figure, not a crash
        outcomes.append(500)
    finally:
        connection.close()


def measure(comparison_id: int) -> dict[str, Any]:
    from django.test import Client

    from accounts.models import User

    client = Client()
    client.force_login(User.objects.get(username="bench-lead"))
    api = f"/api/v1/comparisons/{comparison_id}/"
    for path in ("/", "/comparisons/?status=failed", "/api/v1/comparisons/?status=failed"):
        client.get(path)  # warm-up: imports, templates, URL resolver (not what is measured)
    stop, outcomes = threading.Event(), []
    thread = threading.Thread(target=_logins, args=(stop, outcomes))
    thread.start()
    try:
        out = {
            "list_page": _timed(client, "/comparisons/"),
            "list_api": _timed(client, "/api/v1/comparisons/"),
            "detail_page_cold": _timed(client, f"/comparisons/{comparison_id}/"),
            "detail_page": _timed(client, f"/comparisons/{comparison_id}/"),
            "detail_page_2": _timed(client, f"/comparisons/{comparison_id}/?page=2"),
            # A header sort, cold: sorted in the database over every row, then cut to a page.
            "detail_page_sorted": _timed(
                client, f"/comparisons/{comparison_id}/?sort=-hourly&page=2"
            ),
            "api_cold": _timed(client, api),
            "api": _timed(client, api),
            "api_summary": _timed(client, f"{api}?view=summary"),
            # The printable decision record: the best rows, the evidence, a reason summary.
            "record_page_cold": _timed(client, f"/comparisons/{comparison_id}/record/"),
            "record_page": _timed(client, f"/comparisons/{comparison_id}/record/"),
        }
        out["api_etag"] = _timed(client, api, HTTP_IF_NONE_MATCH=out["api"]["etag"])
    finally:
        stop.set()
        thread.join(timeout=120)
    out["logins"] = {"count": len(outcomes), "failed": sum(1 for s in outcomes if s != 200)}
    return out


def _throwaway(database_url: str) -> tuple[str, str]:
    """(the server's maintenance database URL, the throw-away database's name)."""
    server, _, name = database_url.partition("?")[0].rpartition("/")
    if not database_url.startswith(("postgres://", "postgresql://")):
        raise SystemExit(f"--database-url must be a postgres:// URL, got {database_url!r}")
    if not name.startswith("gp_bench"):
        # The database is dropped after the run: never one that may hold real data.
        raise SystemExit(
            f"--database-url names {name!r}: the bench drops its database after the run, "
            "so give a throw-away name starting with gp_bench (e.g. gp_bench_large)"
        )
    return f"{server}/postgres", name


def _recreate(database_url: str, *, create: bool) -> None:
    import psycopg

    admin, name = _throwaway(database_url)
    with psycopg.connect(admin, autocommit=True) as conn:
        # FORCE: a connection the login thread left open must not keep the database alive.
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if create:
            conn.execute(f'CREATE DATABASE "{name}"')


def _run(candidates: int, folder: Path, database_url: str | None) -> dict[str, Any]:
    _configure(folder, database_url)
    start = time.perf_counter()
    facts = build(candidates)
    facts["build_s"] = round(time.perf_counter() - start, 1)
    facts["candidates"] = candidates
    facts.update(measure(facts["comparison"]))
    return facts


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--candidates", type=int, default=20_000)
    parser.add_argument(
        "--database-url",
        default=os.environ.get("BENCH_LARGE_DATABASE_URL") or None,
        help="a PostgreSQL URL whose database (gp_bench*) is created and dropped; "
        "default: a fresh SQLite file",
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        if args.database_url is None:
            facts = _run(args.candidates, Path(tmp), None)
        else:
            _recreate(args.database_url, create=True)
            try:
                facts = _run(args.candidates, Path(tmp), args.database_url)
            finally:
                from django.db import connections

                connections.close_all()
                _recreate(args.database_url, create=False)
    sys.stdout.write("\n" + json.dumps(facts) + "\n")


if __name__ == "__main__":
    main()
