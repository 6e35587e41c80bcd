"""Load: wrk for 30 s at 32 connections against gunicorn on loopback, on the dashboard (a
logged-in session) and the comparison API (a token): requests/s, p99 latency, errors."""

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
from bench.common import emit, record

PORT = 8765
DURATION = os.environ.get("BENCH_LOAD_DURATION", "30s")


def start_gunicorn() -> subprocess.Popen:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
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


def wrk(path: str, header: str) -> dict[str, float]:
    out = subprocess.run(
        [
            "wrk",
            "-t1",
            "-c32",
            f"-d{DURATION}",
            "--timeout",
            "30s",  # a slow answer is latency (reported as p99), not an error
            "--latency",
            "-H",
            header,
            f"http://127.0.0.1:{PORT}{path}",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", out)
    scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}[p99.group(2)]
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    socket = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    errors = int(non2xx.group(1)) if non2xx else 0
    if socket:
        errors += sum(int(x) for x in socket.groups())
    return {"rps": rps, "p99_ms": float(p99.group(1)) * scale, "errors": errors}


def main() -> None:
    if not shutil.which("wrk"):
        emit({"load_wrk_missing": record(0, "", "apt-get install wrk", False)})
        return
    w = world.setup()
    from django.conf import settings
    from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore
    from rest_framework.authtoken.models import Token

    lead = w["users"]["lead"]
    session = SessionStore()
    session[SESSION_KEY] = str(lead.pk)
    session["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = lead.get_session_auth_hash()
    session.create()
    token = Token.objects.get_or_create(user=lead)[0].key
    server = start_gunicorn()
    try:
        dash = wrk("/", f"Cookie: {settings.SESSION_COOKIE_NAME}={session.session_key}")
        api = wrk(f"/api/v1/comparisons/{w['comparison'].pk}/", f"Authorization: Token {token}")
    finally:
        os.killpg(os.getpgid(server.pid), signal.SIGTERM)
        server.wait(timeout=30)
    out = {}
    for name, r in (("dashboard", dash), ("comparison_api", api)):
        out[f"load_{name}_rps"] = record(r["rps"], "req/s", "reported (32 connections)", True)
        out[f"load_{name}_p99_ms"] = record(r["p99_ms"], "ms", "reported", True)
        out[f"load_{name}_errors"] = record(r["errors"], "errors", "0", r["errors"] == 0)
    emit(out)


if __name__ == "__main__":
    main()
