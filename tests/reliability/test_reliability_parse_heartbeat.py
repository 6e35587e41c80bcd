"""M8: the parse claim is kept alive through the steps that report no progress (reading the
file, building the histograms), so a slow parse is never taken over as if its worker died."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from benchmarks.models import BenchmarkResult
from benchmarks.services import UploadMeta, benchmark_result_ingest, benchmark_result_parse
from benchmarks.services import results as results_service
from core import jobs
from tests.benchmarks.factories_benchmarks import vllm_serve_bytes
from tests.factories import AcceleratorFactory
from tests.support.waiting import wait_until

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_the_claim_beats_while_the_parse_is_applied(
    celery_on, private_storage, monkeypatch, settings, engineer
):
    """Given a parse whose histogram step reports no progress, while it runs the row's claim
    is still refreshed (the step waits for that fact, a barrier, then goes on)."""
    settings.BENCHMARK_INLINE_PARSE_MAX_BYTES = 10  # queued, parsed below in this process
    monkeypatch.setattr(jobs, "KEEP_ALIVE_EVERY_S", 0.05)
    h100 = AcceleratorFactory(slug="h100-sxm-80gb", name="H100 SXM 80GB")
    result = benchmark_result_ingest(
        acting_user=engineer,
        upload=SimpleUploadedFile("vllm-300.json", vllm_serve_bytes(300)),
        meta=UploadMeta(accelerator=h100, gpu_count=8, serving_engine="vLLM"),
    ).result
    original = results_service.apply_parsed
    beats: list[bool] = []

    def slow_apply(row: BenchmarkResult, parsed) -> None:
        def claimed_at():
            return BenchmarkResult.objects.values_list("claimed_at", flat=True).get(pk=row.pk)

        before = claimed_at()
        beats.append(wait_until(lambda: claimed_at() > before, 10, every=0.02))
        original(row, parsed)

    monkeypatch.setattr(results_service, "apply_parsed", slow_apply)
    benchmark_result_parse(result_id=result.pk)
    assert beats == [True]
    result.refresh_from_db()
    assert result.status == BenchmarkResult.Status.PARSED


def test_no_side_thread_inside_a_transaction():
    """Inside a transaction the side thread's UPDATE would wait on this connection's own row
    lock, so the block runs without one."""
    import threading

    from django.db import transaction

    started = threading.active_count()
    with (
        transaction.atomic(),
        jobs.heartbeat_while(BenchmarkResult, 0, running="parsing", attempt=1, every_s=0.01),
    ):
        assert threading.active_count() == started
    with jobs.heartbeat_while(BenchmarkResult, 0, running="parsing", attempt=1, every_s=0.01):
        assert threading.active_count() == started + 1  # outside one, the beat runs
