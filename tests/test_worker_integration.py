"""A real Celery worker subprocess over Redis runs a task the web side enqueued on commit."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from procurement.models import WorkerProbe
from procurement.services.system import worker_probe_request

ROOT = Path(__file__).resolve().parent.parent


def start_worker(log_path: Path) -> subprocess.Popen:
    db = settings.DATABASES["default"]
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings_test",
        "DATABASE_URL": (
            f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{connection.settings_dict['NAME']}"
        ),
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
    }
    log = log_path.open("w")
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "-P",
            "prefork",
            "-c",
            "1",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "-l",
            "info",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def stop_worker(proc: subprocess.Popen) -> None:
    try:
        os.killpg(os.getpgid(proc.pid), signal.SIGTERM)
        proc.wait(timeout=15)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        os.killpg(os.getpgid(proc.pid), signal.SIGKILL)


def wait_until(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return False


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_worker_subprocess_completes_probe_enqueued_on_commit(tmp_path, admin_user):
    import redis
    from kombu import pools

    from config.celery import app

    # Earlier tests may point the app at private brokers and close its pools: start clean.
    app.conf.broker_url = settings.CELERY_BROKER_URL
    if app._pool is not None:
        app._pool.force_close_all()
    app._pool = None
    app.amqp._producer_pool = None
    pools.reset()  # kombu's process-wide producer pools too
    redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()
    worker = start_worker(tmp_path / "worker.log")
    try:
        probe = worker_probe_request(acting_user=admin_user)  # autocommit: on_commit fires now
        done = wait_until(
            lambda: WorkerProbe.objects.filter(pk=probe.pk, completed_at__isnull=False).exists(),
            60,
        )
        assert done, (tmp_path / "worker.log").read_text()[-3000:]
    finally:
        stop_worker(worker)
