"""M8: a REAL Celery worker (prefork, own process group) is SIGKILLed in the middle of a
benchmark parse. The beat's re-drive hands it to a new worker, and it is parsed exactly once,
as attempt 2, within the re-drive window (a 30 s stale claim, a beat every minute).

"In the middle" is a barrier the test owns, as in test_reliability_worker_kill.py: the first
worker runs `tests.support.paused_worker` with `PAUSE_PARSE_FLAG_ENV`, whose parse creates a
flag file and blocks, so at the kill the row is claimed (PARSING, attempt 1) and nothing
parsed is written. The 30 s without a heartbeat are not waited for: the dead claim's last
heartbeat is moved back by `STALE_AFTER` (the clock is the test's, not a sleep), and the beat
task is driven directly.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db.models import F

from benchmarks.models import BenchmarkResult
from benchmarks.services import UploadMeta, benchmark_result_ingest
from benchmarks.services.results import benchmark_results_redrive_stuck
from core import jobs
from core.models import AuditEvent
from tests.benchmarks.factories_benchmarks import vllm_serve_bytes
from tests.factories import AcceleratorFactory
from tests.support import worker
from tests.support.paused_worker import PAUSE_PARSE_FLAG_ENV
from tests.support.waiting import wait_until

BARRIER_APP = "tests.support.paused_worker"

pytestmark = [
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture
def h100(db):
    return AcceleratorFactory(slug="h100-sxm-80gb", name="H100 SXM 80GB")


def _row(pk: int) -> tuple[str, int]:
    return BenchmarkResult.objects.values_list("status", "attempts").get(pk=pk)


def _tail(*logs: Path) -> str:
    return "\n".join(f"--- {log.name}\n{log.read_text()[-3000:]}" for log in logs if log.exists())


def test_a_worker_killed_mid_parse_is_redriven_and_parsed_once(
    tmp_path, celery_on, private_storage, monkeypatch, settings, engineer, h100
):
    settings.BENCHMARK_INLINE_PARSE_MAX_BYTES = 10  # every file goes to the worker
    monkeypatch.setenv("PRIVATE_MEDIA_ROOT", str(private_storage))  # the workers' storage
    first_log, second_log = tmp_path / "worker-1.log", tmp_path / "worker-2.log"
    flag = tmp_path / "parse-paused.flag"
    first = worker.start_worker(
        first_log, app=BARRIER_APP, env={**worker.test_env(), PAUSE_PARSE_FLAG_ENV: str(flag)}
    )
    second = None
    try:
        result = benchmark_result_ingest(  # autocommit: published when this returns
            acting_user=engineer,
            upload=SimpleUploadedFile("vllm-2k.json", vllm_serve_bytes(2_000)),
            meta=UploadMeta(accelerator=h100, gpu_count=8, serving_engine="vLLM"),
        ).result

        def paused() -> bool:
            status = _row(result.pk)[0]
            assert status in (BenchmarkResult.Status.PENDING, BenchmarkResult.Status.PARSING)
            return flag.exists()

        assert wait_until(paused, 120), _tail(first_log)
        assert _row(result.pk) == (BenchmarkResult.Status.PARSING, 1)
        worker.kill_group(first)
        assert _row(result.pk) == (BenchmarkResult.Status.PARSING, 1)

        # No heartbeat since the kill: STALE_AFTER later, the claim is dead.
        BenchmarkResult.objects.filter(pk=result.pk).update(
            claimed_at=F("claimed_at") - jobs.STALE_AFTER - timedelta(seconds=1)
        )
        second = worker.start_worker(second_log)  # a normal worker
        assert benchmark_results_redrive_stuck() == 1  # the beat task's one call

        def parsed() -> bool:
            status = _row(result.pk)[0]
            assert status != BenchmarkResult.Status.FAILED, _tail(first_log, second_log)
            return status == BenchmarkResult.Status.PARSED

        assert wait_until(parsed, 120, every=0.25), _tail(first_log, second_log)
        assert wait_until(celery_on.idle, 60), _tail(second_log)  # copies ran, changed nothing
        result.refresh_from_db()
        assert (result.status, result.attempts, result.progress) == (
            BenchmarkResult.Status.PARSED,
            2,
            1.0,
        )
        assert result.metrics
        done = AuditEvent.objects.filter(action="benchmark_result.parsed", object_id=str(result.pk))
        assert done.count() == 1
    finally:
        if first.poll() is None:
            worker.kill_group(first)
        if second is not None:
            worker.stop_worker(second)
