"""Load: wrk for 30 s at 32 connections against gunicorn on loopback: the dashboard (a
logged-in session) against a baseline measured in the same run (a minimal session-
authenticated view doing one query, served only by the benchmark's settings: bench.urls),
and the comparison API (a token, 500 candidates, full body) with and without an ETag hit:
requests/s, p50 and p99 latency, errors."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from bench import world
from bench.common import at_least, at_most, emit, record

PORT = int(os.environ.get("BENCH_LOAD_PORT", "8765"))  # another port where two benches share a box
DURATION = os.environ.get("BENCH_LOAD_DURATION", "30s")


def start_gunicorn() -> subprocess.Popen:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "bench.settings",  # the product's + /bench/baseline/
        "ALLOWED_HOSTS": "127.0.0.1",
    }
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "config.wsgi",
            "--bind",
            f"127.0.0.1:{PORT}",
            "--workers",
            "2",
            "--threads",
            "4",
            "--access-logfile",
            "/dev/null",
            "--log-level",
            "warning",
        ],
        cwd=Path(__file__).resolve().parent.parent,
        env=env,
        start_new_session=True,
    )
    for _ in range(100):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{PORT}/healthz", timeout=1)
            return proc
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("gunicorn did not start")


def _ms(out: str, pct: str) -> float:
    found = re.search(rf"{pct}%\s+([\d.]+)(us|ms|s)\b", out)
    assert found, out
    return float(found.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[found.group(2)]


def wrk(
    path: str, *headers: str, duration: str = DURATION, connections: int = 32
) -> dict[str, float]:
    flags = [arg for header in headers for arg in ("-H", header)]
    out = subprocess.run(
        [
            "wrk",
            "-t1",
            f"-c{connections}",
            f"-d{duration}",
            "--timeout",
            "30s",  # a slow answer is latency (reported as p99), not an error
            "--latency",
            *flags,
            f"http://127.0.0.1:{PORT}{path}",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    socket = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    errors = int(non2xx.group(1)) if non2xx else 0
    if socket:
        errors += sum(int(x) for x in socket.groups())
    return {"rps": rps, "p50_ms": _ms(out, "50"), "p99_ms": _ms(out, "99"), "errors": errors}


def etag_of(path: str, *headers: str) -> str:
    request = urllib.request.Request(f"http://127.0.0.1:{PORT}{path}")
    for header in headers:
        name, _, value = header.partition(": ")
        request.add_header(name, value)
    with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310 - loopback
        return response.headers["ETag"]


def main() -> None:
    if not shutil.which("wrk"):
        emit({"load_wrk_missing": record(0, "", "apt-get install wrk", False)})
        return
    w = world.setup()
    from django.conf import settings
    from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore
    from knox.models import AuthToken

    lead = w["users"]["lead"]
    session = SessionStore()
    session[SESSION_KEY] = str(lead.pk)
    session["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = lead.get_session_auth_hash()
    session.create()
    token = AuthToken.objects.create(user=lead)[1]  # knox: the key is shown once
    server = start_gunicorn()
    cookie = f"Cookie: {settings.SESSION_COOKIE_NAME}={session.session_key}"
    auth = f"Authorization: Token {token}"
    gz = "Accept-Encoding: gzip"  # as browsers, requests and httpx send it
    api_path = f"/api/v1/comparisons/{w['comparison'].pk}/"
    try:
        for path in ("/bench/baseline/", "/"):  # warm-up: imports, connections, caches
            wrk(path, cookie, duration="5s")
        baseline = wrk("/bench/baseline/", cookie)
        dash = wrk("/", cookie)
        api = wrk(api_path, auth, gz)
        etag = etag_of(api_path, auth, gz)
        api_etag = wrk(api_path, auth, gz, f"If-None-Match: {etag}")
    finally:
        os.killpg(os.getpgid(server.pid), signal.SIGTERM)
        server.wait(timeout=30)
    errors = sum(r["errors"] for r in (baseline, dash, api, api_etag))
    half = baseline["rps"] * 0.5
    out = {
        "load_baseline_rps": record(
            baseline["rps"], "req/s", "reference: session + one query", True,
            p50_ms=baseline["p50_ms"], p99_ms=baseline["p99_ms"],
        ),
        "load_dashboard_rps": at_least(
            dash["rps"], half, "req/s", f">= 50% of the baseline ({half:.0f} req/s)",
            share_of_baseline=round(dash["rps"] / baseline["rps"], 3),
        ),
        "load_dashboard_p50_ms": record(dash["p50_ms"], "ms", "reported", True),
        "load_dashboard_p99_ms": at_most(
            dash["p99_ms"], 10 * dash["p50_ms"], "ms", "<= 10x the dashboard's p50"
        ),
        "load_comparison_api_rps": at_least(
            api["rps"], 100, "req/s", ">= 100 (500 candidates, full body)",
            p50_ms=api["p50_ms"], p99_ms=api["p99_ms"],
        ),
        "load_comparison_api_etag_rps": at_least(
            api_etag["rps"], 1000, "req/s", ">= 1,000 (If-None-Match: 304)",
            p50_ms=api_etag["p50_ms"], p99_ms=api_etag["p99_ms"],
        ),
        "load_errors": record(errors, "errors", "0 (non-2xx/3xx and socket errors)", errors == 0),
    }  # fmt: skip
    emit(out)


if __name__ == "__main__":
    main()
