"""The ten-times world (issue 41): 100,000 current quotes over 50 providers, 50 finance
reviewers and a finished 20,000-candidate comparison in a throw-away PostgreSQL database
(`BENCH_TENX_DATABASE_URL`, a `gp_bench*` name; built once with set-based inserts, then kept).

1. Each page's p95 (in-process, 20 requests after two warm-ups) and bytes, DEBUG off.
2. The same endpoints under load on the production shape: nginx with the shipped
   `deploy/nginx/workbench.conf` in front of gunicorn started as `workbench-web.service`
   starts it, PostgreSQL behind, each as a share of `/healthz`'s requests/s in the same run
   (wrk, 16 connections, `BENCH_TENX_DURATION` each, default 10 s).

    python -m bench.bench_tenx
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DB = os.environ.get("BENCH_TENX_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/gp_bench_tenx")
PORT = int(os.environ.get("BENCH_LOAD_PORT", "8765")) + 10  # beside bench_load's gunicorn
DURATION = os.environ.get("BENCH_TENX_DURATION", "20s")
CONNECTIONS = 8  # a heavy page's backlog must drain within the run (3 sync workers)
QUOTES, CANDIDATES, REVIEWERS, PROVIDERS = 100_000, 20_000, 50, 50
REQUESTS = 20
PRODUCTION = {
    "DATABASE_URL": DB,
    "DJANGO_SETTINGS_MODULE": "config.settings",
    "DEBUG": "false",
    "SECRET_KEY": "bench-tenx-only-" + "s" * 40,
    "AUDIT_HMAC_KEY": "bench-tenx-only-" + "h" * 40,
    "ALLOWED_HOSTS": "127.0.0.1,localhost,testserver",
    "SECURE_SSL_REDIRECT": "false",
    "CELERY_BROKER_URL": os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/14"),
    "STATIC_ROOT": str(ROOT / ".bench" / "static"),
    "VAR_DIR": str(ROOT / ".bench" / "var"),
    "TRUSTED_PROXIES": "127.0.0.1",
    "LOG_LEVEL": "WARNING",
}


def _database() -> None:
    import psycopg

    server, _, name = DB.rpartition("/")
    if not name.startswith("gp_bench"):
        raise SystemExit(f"BENCH_TENX_DATABASE_URL names {name!r}: use a gp_bench* name")
    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def _quotes(lead: Any) -> None:
    """QUOTES current quotes in one INSERT … SELECT over generate_series (seconds)."""
    from django.db import connection
    from django.utils import timezone

    from accounts.models import Provider
    from catalog.models import Accelerator, Quote

    missing = QUOTES - Quote.objects.count()
    if missing <= 0:
        return
    providers = [
        Provider.objects.get_or_create(slug=f"tenx-{i}", defaults={"name": f"Tenx cloud {i}"})[0]
        for i in range(PROVIDERS)
    ]
    gpus = list(
        Accelerator.objects.filter(segment="datacenter", max_gpus_per_node__gte=8).order_by("pk")
    )
    now = timezone.now()
    template = Quote.objects.create(
        quoted_at=now,
        valid_until=now + timedelta(days=90),
        provider=providers[0],
        accelerator=gpus[0],
        capacity_model="on_demand",
        price_per_gpu_hour="2.0000",
        region="eu-west",
        entered_by=lead,
        source_url="https://example.com/tenx-price-list",
    )
    computed = {
        "provider_id": f"(ARRAY{[p.pk for p in providers]})[1 + mod(g, {PROVIDERS})]",
        "accelerator_id": f"(ARRAY{[a.pk for a in gpus]})[1 + mod(g, {len(gpus)})]",
        "capacity_model": "(ARRAY['on_demand','spot','reserved','marketplace'])[1 + mod(g, 4)]",
        "term_months": "CASE WHEN mod(g, 4) = 2 THEN 12 ELSE 0 END",
        "price_per_gpu_hour": "1.50 + mod(g, 300) / 100.0",
        "region": "(ARRAY['eu-west','us-east','eu-central'])[1 + mod(g, 3)]",
        "title": "'Tenx offer ' || g",
        "quoted_at": "now() - make_interval(days => mod(g, 45)::int)",
    }
    columns = [f.column for f in Quote._meta.concrete_fields if not f.primary_key]
    values = ", ".join(computed.get(c, f't."{c}"') for c in columns)
    names = ", ".join(f'"{c}"' for c in columns)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO catalog_quote ({names}) SELECT {values} "  # noqa: S608  # nosec B608
            "FROM catalog_quote t, generate_series(1, %s) g WHERE t.id = %s",
            [missing - 1, template.pk],
        )
        cursor.execute("ANALYZE")


def build() -> dict[str, Any]:
    """The world, built once (the comparison's title marks it done)."""
    import django

    django.setup()
    from django.core.management import call_command

    from accounts import demo as accounts_demo
    from accounts.models import User
    from bench import large_comparison
    from procurement.models import Comparison

    call_command("migrate", verbosity=0)
    done = Comparison.objects.filter(title=f"Every current offer ({CANDIDATES})").first()
    if done is not None:
        return {"comparison": done.pk, "build_s": 0.0}
    start = time.perf_counter()
    call_command("load_catalog", verbosity=0)
    users = accounts_demo.load()
    User.objects.bulk_create(
        [
            User(username=f"tenx-finance-{i}", role="finance", email=f"f{i}@example.com")
            for i in range(REVIEWERS)
        ],
        ignore_conflicts=True,
    )
    _quotes(users["lead"])
    facts = large_comparison.build(CANDIDATES)
    return {"comparison": facts["comparison"], "build_s": round(time.perf_counter() - start, 1)}


def pages(comparison: int, token: str) -> dict[str, tuple[str, str]]:
    """name → (path, Authorization header value or "" for the session)."""
    api = f"Token {token}"
    return {
        "dashboard": ("/", ""),
        "quotes_page": ("/catalog/quotes/", ""),
        "quotes_api": ("/api/v1/quotes/", api),
        "comparisons_page": ("/comparisons/", ""),
        "comparisons_api": ("/api/v1/comparisons/", api),
        "comparison_page": (f"/comparisons/{comparison}/", ""),
        "comparison_api": (f"/api/v1/comparisons/{comparison}/", api),
        "record_page": (f"/comparisons/{comparison}/record/", ""),
    }


def in_process(paths: dict[str, tuple[str, str]], lead: Any) -> dict[str, Any]:
    from django.test import Client

    from bench.common import at_most, percentile, record

    client = Client()
    client.force_login(lead)
    out: dict[str, Any] = {}
    for name, (path, auth) in paths.items():
        headers = {"HTTP_AUTHORIZATION": auth} if auth else {}
        for _ in range(2):
            response = client.get(path, **headers)
            assert response.status_code == 200, (path, response.status_code)
        times = []
        for _ in range(REQUESTS):
            start = time.perf_counter()
            response = client.get(path, **headers)
            times.append((time.perf_counter() - start) * 1000)
        out[f"tenx_{name}_p95_ms"] = at_most(percentile(times, 0.95), 1000, "ms", "<= 1 s")
        out[f"tenx_{name}_bytes"] = at_most(len(response.content), 2_000_000, "B", "<= 2 MB")
        out[f"tenx_{name}_p50_ms"] = record(percentile(times, 0.5), "ms", "reported", True)
    return out


def _wait(url: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=2)  # noqa: S310 - loopback
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer")


def under_load(paths: dict[str, tuple[str, str]], cookie: str) -> dict[str, Any]:
    """wrk through nginx → gunicorn: requests/s of each endpoint over /healthz's."""
    from bench.bench_load import wrk
    from bench.common import record
    from tests.support.deploy import nginx_main, swapped, unit_lines

    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not shutil.which("wrk") or not Path(nginx).exists():
        return {"tenx_load_missing": record(0, "", "wrk and nginx (scripts/deps.sh)", False)}
    web_port = PORT + 1
    env = {**os.environ, **PRODUCTION}
    python = {"/opt/workbench/.venv/bin/python": sys.executable}
    (web_line,) = unit_lines("workbench-web.service", "ExecStart")
    web = shlex.split(swapped(web_line, {**python, "127.0.0.1:8001": f"127.0.0.1:{web_port}"}))
    procs = []
    with tempfile.TemporaryDirectory() as tmp:
        prefix = Path(tmp)
        try:
            procs.append(subprocess.Popen(web, cwd=ROOT, env=env, start_new_session=True))
            conf = nginx_main(prefix, PORT, web_port)
            procs.append(
                subprocess.Popen(
                    [nginx, "-p", str(prefix), "-c", str(conf)], start_new_session=True
                )
            )
            _wait(f"http://127.0.0.1:{PORT}/healthz")
            measured = {"healthz": _wrk(wrk, "/healthz", "")}
            for name, (path, auth) in paths.items():
                measured[name] = _wrk(wrk, path, f"Authorization: {auth}" if auth else cookie)
        finally:
            for proc in reversed(procs):
                os.killpg(os.getpgid(proc.pid), signal.SIGTERM)
                proc.wait(timeout=30)
    base = measured["healthz"]["rps"]
    out: dict[str, Any] = {}
    for name, found in measured.items():
        share = found["rps"] / base if base else 0.0
        out[f"tenx_load_{name}_rps"] = record(
            found["rps"], "req/s", "share of /healthz, same run", found["errors"] == 0,
            share_of_healthz=round(share, 3), p50_ms=found["p50_ms"], p99_ms=found["p99_ms"],
            errors=found["errors"], status=found["status"], bytes=found["bytes"],
        )  # fmt: skip
    return out


def _wrk(wrk: Any, path: str, header: str) -> dict[str, float]:
    """One request first (its status and size, and a warm cache), then wrk for DURATION."""
    import bench.bench_load as load

    load.PORT = PORT  # through nginx
    request = urllib.request.Request(f"http://127.0.0.1:{PORT}{path}")
    if header:
        request.add_header(*header.split(": ", 1))
    with urllib.request.urlopen(request, timeout=120) as response:  # noqa: S310 - loopback
        status, size = response.status, len(response.read())
        assert response.url.endswith(path), f"{path} redirected to {response.url}"
    found = wrk(path, *([header] if header else []), duration=DURATION, connections=CONNECTIONS)
    return {**found, "status": status, "bytes": size}


def main() -> None:
    _database()
    os.environ.update(PRODUCTION)
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    static = subprocess.run(
        [sys.executable, "manage.py", "deploy", "--static-only", "-v0"],
        cwd=ROOT,
        env=os.environ,
        capture_output=True,
        text=True,
        check=False,
    )
    assert static.returncode == 0, static.stderr[-2000:]
    world = build()
    from django.conf import settings
    from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore
    from knox.models import AuthToken

    from accounts.models import User
    from bench.common import emit, record

    lead = User.objects.get(username="bench-lead")
    token = AuthToken.objects.create(user=lead)[1]
    paths = pages(world["comparison"], token)
    out: dict[str, Any] = {"tenx_build_s": record(world["build_s"], "s", "reported", True)}
    out.update(in_process(paths, lead))
    session = SessionStore()
    session[SESSION_KEY] = str(lead.pk)
    session["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = lead.get_session_auth_hash()
    session.create()
    out.update(under_load(paths, f"Cookie: {settings.SESSION_COOKIE_NAME}={session.session_key}"))
    emit(out)


if __name__ == "__main__":
    main()
