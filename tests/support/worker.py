"""A real Celery worker subprocess (prefork, `-c 1`) in its own process group.

    from tests.support import worker
    proc = worker.start_worker(tmp_path / "worker.log")       # the test database and broker
    try:
        assert worker.wait_until(done, 60), (tmp_path / "worker.log").read_text()[-3000:]
    finally:
        worker.stop_worker(proc)

`start_worker(log, app="tests.support.paused_worker", env={...})` starts the barrier worker
instead (see `paused_worker`). `bench/bench_e2e.py` passes `env` (the production settings
module; database and broker from its own environment), so no Django test setup is needed.
`broker_idle(url)` is the fact to wait for when "every delivery has run" matters.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.support.waiting import wait_until

__all__ = [
    "broker_idle",
    "kill_group",
    "reset_broker",
    "start_worker",
    "stop_worker",
    "test_env",
    "wait_until",
]

ROOT = Path(__file__).resolve().parents[2]
TEST_SETTINGS = "config.settings_test"


def test_env() -> dict[str, str]:
    """The database and broker this pytest process uses (its test database, not the dev one)."""
    from django.conf import settings
    from django.db import connection

    db = settings.DATABASES["default"]
    name = connection.settings_dict["NAME"]
    return {
        "DJANGO_SETTINGS_MODULE": TEST_SETTINGS,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{name}",
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
    }


test_env.__test__ = False  # type: ignore[attr-defined]  # a helper, not a test


def start_worker(
    log_path: Path | None,
    *,
    app: str = "config",
    env: dict[str, str] | None = None,
    loglevel: str = "info",
) -> subprocess.Popen:
    """Start `celery -A <app> worker`; output to `log_path` (None: discarded).

    `env` is laid over this process's environment; without it, `test_env()` (call this from
    inside a test with database access).
    """
    full_env = {**os.environ, **(test_env() if env is None else env)}
    log = log_path.open("w") if log_path is not None else subprocess.DEVNULL
    command = [sys.executable, "-m", "celery", "-A", app, "worker", "-P", "prefork", "-c", "1"]
    command += ["--without-gossip", "--without-mingle", "--without-heartbeat", "-l", loglevel]
    command += ["-Q", "celery,imports"]  # bills have their own queue (settings.CELERY_TASK_ROUTES)
    try:
        return subprocess.Popen(
            command,
            cwd=ROOT,
            env=full_env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    finally:
        if log is not subprocess.DEVNULL:
            log.close()  # the child holds its own copy


def stop_worker(proc: subprocess.Popen, timeout: float = 15) -> None:
    """SIGTERM a worker's (or a test server's) whole group, a warm shutdown; SIGKILL it if
    that takes too long."""
    try:
        os.killpg(os.getpgid(proc.pid), signal.SIGTERM)
        proc.wait(timeout=timeout)
    except ProcessLookupError:
        return
    except subprocess.TimeoutExpired:
        kill_group(proc)


def kill_group(proc: subprocess.Popen, timeout: float = 10) -> None:
    """SIGKILL the worker's whole group (the main process and its pool) and reap it."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(os.getpgid(proc.pid), signal.SIGKILL)
    proc.wait(timeout=timeout)


def broker_idle(url: str, queue: str = "celery") -> bool:
    """Nothing queued on the Redis broker at `url` and nothing delivered but unacknowledged
    (kombu's `unacked` hash). The tasks are acks_late: a message is acknowledged after its
    run, so idle means every delivery, retries and redelivered copies included, has run."""
    import redis

    client = redis.Redis.from_url(url)
    return int(client.llen(queue)) == 0 and int(client.hlen("unacked")) == 0


def reset_broker() -> None:
    """Point the web side's Celery app at the test broker again, with fresh pools, and empty
    that broker (earlier tests may have used a private Redis and closed the pools)."""
    import redis
    from django.conf import settings
    from kombu import pools

    from config.celery import app

    app.conf.broker_url = settings.CELERY_BROKER_URL
    if app._pool is not None:
        app._pool.force_close_all()
    app._pool = None
    app.amqp._producer_pool = None
    pools.reset()  # kombu's process-wide producer pools too
    redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()
