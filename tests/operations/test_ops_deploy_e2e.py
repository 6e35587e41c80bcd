"""The production shape, brought up from the repository's own files and used as a browser would.

nginx (deploy/nginx/workbench.conf) → gunicorn → PostgreSQL and Redis, two Celery workers and
one beat, each started from the ExecStartPre/ExecStart line of its unit in deploy/systemd/
with only the marked paths and addresses swapped: loopback, free ports, a database of its own
(created and dropped here), a private redis-server with the persistence the docs require.
`manage.py deploy` (migrate, load_catalog, collectstatic) prepares the release as the web
unit does (the static files collected once a session by the same command, so it finds them
current). Then a client that behaves like a browser — cookies, the CSRF token from the page,
an `Origin` header on every POST, nginx's port in every URL — logs in, creates two
comparisons, sees them computed by the workers, and follows the API's `url` and `next` links.

Nothing waits on a timer: every step polls an observable state with a bounded deadline, so a
slow machine only takes longer. Every process started is stopped by its process group.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import psycopg
import pytest

from tests.support.deploy import collect_static, nginx_main, swapped, unit_lines
from tests.support.waiting import wait_until
from tests.support.worker import stop_worker

ROOT = Path(__file__).resolve().parents[2]
UNITS = ROOT / "deploy" / "systemd"
OPT = "/opt/workbench/.venv/bin/python"
DEPLOY_S = 900  # migrate + catalog + collectstatic (brotli of the vendored Plotly) on a busy box
READY_S = 300  # two small comparisons through two workers

pytestmark = [pytest.mark.deploy, pytest.mark.django_db]


def _free_ports(n: int) -> list[int]:
    """`n` different free ports: every socket is held while the kernel picks."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for sock in socks:
            sock.bind(("127.0.0.1", 0))
        return [int(sock.getsockname()[1]) for sock in socks]
    finally:
        for sock in socks:
            sock.close()


def _command(line: str, swaps: dict[str, str]) -> list[str]:
    """A unit's command line with the marked parts swapped; each must still be there."""
    return shlex.split(swapped(line, swaps))


def _env_file() -> dict[str, str]:
    pairs = {}
    for line in (UNITS / "workbench.env.example").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            key, _, value = line.partition("=")
            pairs[key] = value
    return pairs


@dataclass
class Stack:
    port: int
    brief_id: int
    tmp: Path
    procs: dict[str, subprocess.Popen] = field(default_factory=dict)

    def logs(self) -> str:
        return "\n".join(
            f"--- {path.name}\n{path.read_text(errors='replace')[-2500:]}"
            for path in sorted(self.tmp.glob("*.log"))
        )


class Browser:
    """Cookies kept and sent back (the `__Host-` ones too: a browser on 127.0.0.1 counts as a
    secure context), the CSRF token sent with every POST, `Origin` as a browser sets it."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.origin = f"http://127.0.0.1:{port}"
        self.cookies: dict[str, str] = {}

    def request(
        self, method: str, url: str, body: bytes | None = None, headers: dict | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        parts = urlsplit(url)
        assert parts.netloc in ("", f"127.0.0.1:{self.port}"), f"{url} left nginx's port"
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        sent = {"Accept": "text/html,application/json", **(headers or {})}
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if method == "POST":
            sent["Origin"] = self.origin
            sent["Referer"] = self.origin + "/"
            sent["X-CSRFToken"] = self.csrf_cookie()
        try:
            connection.request(method, path, body=body, headers=sent)
            response = connection.getresponse()
            data = response.read()
        finally:
            connection.close()
        for header, value in response.getheaders():
            if header.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                self.cookies[name.strip()] = rest.split(";", 1)[0]
        return response.status, {k.lower(): v for k, v in response.getheaders()}, data

    def csrf_cookie(self) -> str:
        return next((v for k, v in self.cookies.items() if k.endswith("csrftoken")), "")

    def get_json(self, url: str) -> tuple[int, dict]:
        status, _, data = self.request("GET", url, headers={"Accept": "application/json"})
        return status, json.loads(data)


def _healthz(port: int) -> dict | None:
    with contextlib.suppress(OSError, ValueError):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            connection.request("GET", "/healthz", headers={"Host": f"127.0.0.1:{port}"})
            return json.loads(connection.getresponse().read())
        finally:
            connection.close()
    return None


def _run(command: list[str], env: dict[str, str], log: Path, timeout: float) -> str:
    result = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    log.write_text(result.stdout + result.stderr)
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    return result.stdout


def _start(stack: Stack, name: str, command: list[str], env: dict[str, str]) -> None:
    log = (stack.tmp / f"{name}.log").open("w")
    stack.procs[name] = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )


@pytest.fixture(scope="module")
def stack(django_db_setup, tmp_path_factory) -> Iterator[Stack]:
    from django.db import connection

    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    redis_server = shutil.which("redis-server")
    if not Path(nginx).exists() or redis_server is None:
        pytest.fail("This test starts its own nginx and Redis: scripts/deps.sh installs both.")
    tmp = tmp_path_factory.mktemp("deploy-e2e")
    web_port, nginx_port, redis_port = _free_ports(3)
    db = connection.settings_dict
    server = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}"
    name = f"{db['NAME']}_deploy_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')

    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "PYTEST"))}
    env.pop("TEST_BROKER_WORKER", None)
    env.update(_env_file())
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DEBUG": "false",
            "SECRET_KEY": "deploy-test-only-" + "s" * 40,
            "AUDIT_HMAC_KEY": "deploy-test-only-" + "h" * 40,
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            # Empty on purpose: nginx's Host with its port must be enough for the CSRF check.
            "CSRF_TRUSTED_ORIGINS": "",
            "SECURE_SSL_REDIRECT": "false",
            "DATABASE_URL": f"{server}/{name}",
            "CELERY_BROKER_URL": f"redis://127.0.0.1:{redis_port}/0",
            "PRIVATE_MEDIA_ROOT": str(tmp / "private"),
            "VAR_DIR": str(tmp / "var"),
            # Collected once a session (the unit's `manage.py deploy` then finds it current).
            "STATIC_ROOT": str(collect_static(tmp_path_factory.getbasetemp())),
            "AUDIT_ANCHOR_FILE": str(tmp / "anchor.log"),
            "TRUSTED_PROXIES": "127.0.0.1",
            "LOG_LEVEL": "WARNING",
        }
    )
    stack = Stack(port=nginx_port, brief_id=0, tmp=tmp)
    try:
        # Redis as docs/deployment.md asks: append-only file, never evicting a queued message.
        _start(
            stack,
            "redis",
            [
                redis_server,
                *("--port", str(redis_port), "--bind", "127.0.0.1", "--dir", str(tmp)),
                *("--appendonly", "yes", "--maxmemory-policy", "noeviction"),
            ],
            env,
        )
        python = {OPT: sys.executable}
        (deploy,) = unit_lines("workbench-web.service", "ExecStartPre")
        _run(_command(deploy, python), env, tmp / "deploy.log", DEPLOY_S)
        seed = [sys.executable, "-c", "import django; django.setup(); "]
        seed[-1] += "from tests.support.deploy import seed; seed()"
        stack.brief_id = int(_run(seed, env, tmp / "seed.log", 300).split()[-1])

        (web,) = unit_lines("workbench-web.service", "ExecStart")
        _start(
            stack,
            "gunicorn",
            _command(web, {**python, "127.0.0.1:8001": f"127.0.0.1:{web_port}"}),
            env,
        )
        (worker,) = unit_lines("workbench-worker@.service", "ExecStart")
        for instance in ("w1", "w2"):
            line = _command(worker, {**python, "%i@%H": f"{instance}@deploytest"})
            _start(stack, f"worker-{instance}", line, env)
        (beat,) = unit_lines("workbench-beat.service", "ExecStart")
        schedule = {**python, "/var/lib/workbench/beat-schedule": str(tmp / "beat-schedule")}
        _start(stack, "beat", _command(beat, schedule), env)

        prefix = tmp / "nginx"
        prefix.mkdir()
        _start(
            stack,
            "nginx",
            [
                nginx,
                "-p",
                str(prefix),
                "-c",
                str(nginx_main(prefix, nginx_port, web_port, connections=256)),
            ],
            env,
        )
        yield stack
    finally:
        for proc in reversed(stack.procs.values()):
            stop_worker(proc, timeout=30)
        with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_the_production_shape_serves_a_browser_end_to_end(stack):
    port = stack.port
    # /healthz turns ok once the beat's heartbeat has gone through a worker (L3), with the
    # static files collected (L2): every check named, all passing.
    health: dict = {}

    def healthy() -> bool:
        nonlocal health
        health = _healthz(port) or {}
        return health.get("status") == "ok"

    assert wait_until(healthy, READY_S, every=0.5), f"{health}\n{stack.logs()}"
    assert {"database", "broker", "static", "workers", "queues"} <= set(health)

    browser = Browser(port)
    status, _, page = browser.request("GET", "/accounts/login/")
    assert status == 200, page[-2000:]
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert token is not None
    form = {"csrfmiddlewaretoken": token.group(1).decode(), "username": "lead"}
    form["password"] = "gpu-demo"
    status, headers, page = browser.request(
        "POST",
        "/accounts/login/",
        urlencode(form).encode(),
        {"Content-Type": "application/x-www-form-urlencoded"},
    )
    # L1: was 403 "Origin checking failed" (nginx dropped the port from Host).
    assert status == 302, page[-2000:]
    status, _, page = browser.request("GET", headers["location"])
    assert status == 200, page[-2000:]
    assert b"/static/" in page  # hashed static links render (L2)

    urls = []
    for title in ("Deployment check A", "Deployment check B"):
        body = json.dumps({"brief": stack.brief_id, "title": title}).encode()
        status, _, data = browser.request(
            "POST", "/api/v1/comparisons/", body, {"Content-Type": "application/json"}
        )
        assert status == 202, data
        queued = json.loads(data)
        # L1: absolute links keep nginx's port.
        assert queued["url"].startswith(f"http://127.0.0.1:{port}/api/v1/comparisons/")
        urls.append(queued["url"])

    def computed() -> bool:
        states = [browser.get_json(url)[1].get("status") for url in urls]
        assert "failed" not in states, stack.logs()
        return states == ["ready", "ready"]

    assert wait_until(computed, READY_S, every=0.5), stack.logs()

    status, first = browser.get_json("/api/v1/comparisons/?limit=1")
    assert status == 200
    assert first["count"] == 2
    assert first["next"].startswith(f"http://127.0.0.1:{port}/api/v1/comparisons/?")
    status, second = browser.get_json(first["next"])
    assert status == 200
    assert len(second["results"]) == 1
    assert second["results"][0]["id"] != first["results"][0]["id"]

    status, _, page = browser.request("GET", urlsplit(urls[0]).path.replace("/api/v1", ""))
    assert status == 200, page[-2000:]

    # Nothing crashed on the way: every process the units started is still up.
    assert all(proc.poll() is None for proc in stack.procs.values()), stack.logs()
