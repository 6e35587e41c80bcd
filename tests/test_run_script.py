"""`make run` serves where HOST and PORT say: a real, bounded start of scripts/run.sh.

The script migrates a fresh SQLite database, loads the catalog and the demo data, starts a
Celery worker (in-memory broker here) and the web server on a free loopback port; the test
waits for /healthz on that port, reads the banner, then stops the whole process group.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import urllib.request
from pathlib import Path

import pytest

from accounts.demo import DEMO_USERS

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.services


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:  # noqa: S310 - loopback http
            return bool(response.status == 200)
    except OSError:
        return False


def test_n1_n4_run_serves_on_the_port_asked_and_lists_every_demo_login(tmp_path: Path) -> None:
    port = _free_port()
    env = {
        **os.environ,
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "DEBUG": "true",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "CELERY_BROKER_URL": "memory://",
        "VAR_DIR": str(tmp_path / "var"),
    }
    env.pop("SITE_URL", None)
    log = tmp_path / "run.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            ["bash", "scripts/run.sh"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        url = f"http://127.0.0.1:{port}/healthz"
        # Up to about five minutes for migrate, the catalog and the demo data on a busy box.
        for _ in range(600):
            if proc.poll() is not None or _answers(url):
                break
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=0.5)
        banner = log.read_text(errors="replace")
        assert proc.poll() is None, banner[-3000:]
        assert _answers(url), banner[-3000:]
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert f"http://127.0.0.1:{port}/" in banner
    for username, *_ in DEMO_USERS:
        assert f"    {username} " in banner, username
