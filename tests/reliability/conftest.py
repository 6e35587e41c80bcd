"""Fixtures of the reliability area: a private Redis per test, the Celery app pointed at it,
a private storage folder, and the row-count snapshot of every domain table."""

from __future__ import annotations

import contextlib
import copy
import importlib
import os
import shutil
import signal
import socket
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.apps import apps

from tests.support.waiting import wait_until
from tests.support.worker import broker_idle

DOMAIN_APPS = ("accounts", "catalog", "checklist", "briefs", "benchmarks", "procurement")
# Rejections are audit-logged on purpose (outside the rolled-back transaction).
NOT_COUNTED = {"core.auditevent"}


def domain_counts() -> dict[str, int]:
    """`Model.objects.count()` for every model (M2M tables included) of the five apps."""
    counts: dict[str, int] = {}
    for label in DOMAIN_APPS:
        for model in apps.get_app_config(label).get_models(include_auto_created=True):
            name = model._meta.label_lower
            if name not in NOT_COUNTED:
                counts[name] = model._default_manager.count()
    return counts


def stored_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class RedisServer:
    """A throw-away redis-server subprocess (no persistence) that a test can stop and start."""

    workdir: Path
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def _ping(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def start(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.fail("These tests start their own Redis: install redis-server (Debian).")
        log = (self.workdir / f"redis-{self.port}.log").open("a")
        self.proc = subprocess.Popen(
            [
                binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--daemonize",
                "no",
                "--dir",
                str(self.workdir),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        if not wait_until(self._ping, 10):
            self.stop()
            raise RuntimeError(f"redis-server did not start on port {self.port}")

    def stop(self) -> None:
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.proc = None

    def queue_length(self, queue: str = "celery") -> int:
        import redis

        return int(redis.Redis.from_url(self.url).llen(queue))

    def idle(self, queue: str = "celery") -> bool:
        """Every delivery has run (see `tests.support.worker.broker_idle`)."""
        return broker_idle(self.url, queue)


@pytest.fixture
def redis_server(tmp_path) -> Iterator[RedisServer]:
    workdir = tmp_path / "redis"
    workdir.mkdir()
    server = RedisServer(workdir)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def _drop_broker_connections(app) -> None:
    """Forget pooled connections and producers (what Celery does after a fork), kombu's
    process-wide producer pools included: left behind, they hand a later test's publish a
    pool of closed connections ("Acquire on closed pool")."""
    from kombu import pools

    if app._pool is not None:
        app._pool.force_close_all()
    app._pool = None
    app.amqp._producer_pool = None
    pools.reset()


@pytest.fixture
def celery_on(redis_server, settings, monkeypatch) -> Iterator[RedisServer]:
    """Web side AND worker subprocesses use the private Redis, with short redelivery times.

    The Celery app read its broker settings at import: point it at the private server and
    drop its connection pool (and again on the way out).
    """
    from config.celery import app

    old = (app.conf.broker_url, copy.deepcopy(app.conf.broker_transport_options))
    settings.CELERY_BROKER_URL = redis_server.url
    monkeypatch.setenv("CELERY_BROKER_URL", redis_server.url)
    monkeypatch.setenv("CELERY_VISIBILITY_TIMEOUT", "5")
    monkeypatch.setenv("CELERY_UNACKED_RESTORE_INTERVAL", "1")
    app.conf.broker_url = redis_server.url
    app.conf.broker_transport_options = {
        **(old[1] or {}),
        "visibility_timeout": 5,
        "unacked_restore_interval": 1,
        "socket_connect_timeout": 1,
        "socket_timeout": 3,
    }
    _drop_broker_connections(app)
    try:
        yield redis_server
    finally:
        app.conf.broker_url, app.conf.broker_transport_options = old
        _drop_broker_connections(app)


@pytest.fixture
def private_storage(settings, tmp_path) -> Path:
    """Uploads are stored in this test's own folder, so "nothing was stored" is checkable."""
    root = tmp_path / "private"
    root.mkdir()
    storages = copy.deepcopy(settings.STORAGES)
    storages["default"]["OPTIONS"]["location"] = str(root)
    settings.STORAGES = storages
    settings.MEDIA_ROOT = str(root)
    return root


@pytest.fixture
def checklist_items(db):
    """The 20 seeded items (a transactional test elsewhere may have flushed them)."""
    from checklist.models import ChecklistItem

    seed = importlib.import_module("checklist.migrations.0002_seed_items")
    if ChecklistItem.objects.count() != len(seed.ITEMS):
        seed.seed_items(apps, None)
    return list(ChecklistItem.objects.order_by("order"))
