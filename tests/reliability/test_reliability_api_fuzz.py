"""API fuzzing with schemathesis against a real server on a throw-away database.

A fresh PostgreSQL database (`gp_fuzz_<random>`) is migrated and filled with the catalog and
the demo data; `manage.py runserver` serves it on a spare port with a private Redis as the
broker; `lead` gets a token; schemathesis generates requests from `/api/schema/` for every
operation and checks that no response is a 5xx, that every status code is documented and
that every body matches its documented schema. Everything is removed afterwards.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import psycopg
import pytest
from django.conf import settings

from tests.reliability.conftest import free_port
from tests.support.waiting import wait_until
from tests.support.worker import stop_worker

ROOT = Path(__file__).resolve().parents[2]
SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")
MAX_EXAMPLES = 10  # per operation; with ~50 operations about 500 requests
SEED = 20261202  # reproducible: the same requests on every run

pytestmark = pytest.mark.services


def _admin_dsn() -> dict[str, object]:
    db = settings.DATABASES["default"]
    return {
        "host": db["HOST"] or "127.0.0.1",
        "port": db["PORT"] or 5432,
        "user": db["USER"] or "postgres",
        "password": db["PASSWORD"] or None,
        "dbname": "postgres",
        "autocommit": True,
        "connect_timeout": 10,
    }


@pytest.fixture
def fuzz_database():
    """A throw-away database, dropped (with any connection left) when the test ends."""
    name = f"gp_fuzz_{secrets.token_hex(4)}"
    dsn = _admin_dsn()
    with psycopg.connect(**dsn) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    auth = str(dsn["user"]) + (f":{dsn['password']}" if dsn["password"] else "")
    try:
        yield f"postgres://{auth}@{dsn['host']}:{dsn['port']}/{name}"
    finally:
        with psycopg.connect(**dsn) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _env(database_url: str, broker_url: str, var_dir: Path) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "true",
        "DATABASE_URL": database_url,
        "CELERY_BROKER_URL": broker_url,
        "VAR_DIR": str(var_dir),
        "PRIVATE_MEDIA_ROOT": str(var_dir / "private"),
        "LOG_LEVEL": "WARNING",
    }


def _prepare(env: dict[str, str], log: Path) -> None:
    """migrate + load_catalog + seed_demo in one process (one Django start-up, not three)."""
    script = (
        "from django.core.management import call_command as c;"
        "c('migrate', interactive=False, verbosity=0);"
        "c('load_catalog');"
        "c('seed_demo')"
    )
    with log.open("w") as out:
        done = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", script],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            timeout=240,
            check=False,
        )
    assert done.returncode == 0, log.read_text()[-3000:]


def _token(base: str) -> str:
    body = json.dumps({"username": "lead", "password": settings.DEMO_PASSWORD}).encode()
    url = f"{base}/api/v1/auth/token/"
    request = urllib.request.Request(url, body, {"Content-Type": "application/json"})  # noqa: S310
    with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 - loopback
        return json.load(response)["token"]


def _serving(base: str) -> bool:
    """The server answers (any HTTP status: the schema itself needs a login)."""
    try:
        with urllib.request.urlopen(f"{base}/api/schema/", timeout=5):  # noqa: S310 - loopback
            return True
    except urllib.error.HTTPError:
        return True
    except (urllib.error.URLError, OSError):
        return False


def test_schemathesis_finds_no_server_error_and_no_schema_violation(
    tmp_path, fuzz_database, redis_server
):
    var_dir = tmp_path / "var"
    (var_dir / "private").mkdir(parents=True)
    env = _env(fuzz_database, redis_server.url, var_dir)
    _prepare(env, tmp_path / "prepare.log")

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server_log = (tmp_path / "server.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
        cwd=ROOT,
        env=env,
        stdout=server_log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    report = tmp_path / "schemathesis.log"
    try:
        assert wait_until(lambda: _serving(base), 90, every=0.5), (
            tmp_path / "server.log"
        ).read_text()[-3000:]
        token = _token(base)
        started = time.monotonic()
        with report.open("w") as out:
            run = subprocess.run(
                [
                    str(SCHEMATHESIS),
                    "run",
                    f"{base}/api/schema/",
                    "--workers",
                    "1",
                    "-H",
                    f"Authorization: Token {token}",
                    "--checks",
                    "not_a_server_error,status_code_conformance,response_schema_conformance",
                    "--phases",
                    "examples,fuzzing",
                    "--max-examples",
                    str(MAX_EXAMPLES),
                    "--seed",
                    str(SEED),
                    "--generation-database",
                    "none",
                    "--request-timeout",
                    "30",
                    "--no-color",
                ],
                cwd=tmp_path,
                env={**env, "SCHEMATHESIS_HOOKS": ""},
                stdout=out,
                stderr=subprocess.STDOUT,
                timeout=300,
                check=False,
            )
        elapsed = time.monotonic() - started
        output = report.read_text()
        assert run.returncode == 0, f"schemathesis failed after {elapsed:.0f} s:\n{output[-12000:]}"
        assert "Server error" not in output
    finally:
        stop_worker(server)
        server_log.close()
