"""End to end: submit a 200-candidate comparison to a real Celery worker over Redis and time
until it is ready (commit → broker → worker → engine → rows in PostgreSQL)."""

from __future__ import annotations

import subprocess
import time

from bench import world
from bench.common import emit, record
from tests.support import worker

CANDIDATES = 200


def start_worker() -> subprocess.Popen:
    """The tests' worker (tests/support/worker.py), on the benchmark database and settings."""
    env = {"DJANGO_SETTINGS_MODULE": "config.settings"}  # the rest: this environment
    return worker.start_worker(None, env=env, loglevel="warning")


def main() -> None:
    w = world.setup()
    import redis
    from django.conf import settings

    from procurement.models import Comparison
    from procurement.services.comparisons import comparison_create

    redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()
    proc = start_worker()
    try:
        time.sleep(4)  # worker boot is not what we measure
        timings = []
        for _ in range(3):
            start = time.perf_counter()
            comparison = comparison_create(
                acting_user=w["users"]["lead"],
                brief=w["brief"],
                quote_ids=world.quote_ids(CANDIDATES),
                api_route_ids=[],
                title="Bench e2e",
            ).comparison
            status = "queued"
            while time.perf_counter() - start < 120:
                status = Comparison.objects.values_list("status", flat=True).get(pk=comparison.pk)
                if status in ("ready", "failed"):
                    break
                time.sleep(0.05)
            elapsed = time.perf_counter() - start
            assert status == "ready", status
            timings.append(elapsed)
    finally:
        worker.stop_worker(proc, timeout=30)
    best = min(timings)
    emit(
        {
            "e2e_comparison_200_candidates_s": record(
                best, "s", "< 10 s until ready", best < 10, runs=[round(t, 2) for t in timings]
            )
        }
    )


if __name__ == "__main__":
    main()
