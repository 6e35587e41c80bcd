"""A 100,000-request vLLM file is parsed by a REAL Celery worker subprocess over Redis, with
its progress visible on the row (values strictly between 0 and 1) before it is done."""

from __future__ import annotations

import time

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile

from benchmarks import parsers
from benchmarks.models import BenchmarkResult
from benchmarks.services import UploadMeta, benchmark_result_ingest
from core.models import AuditEvent
from tests.benchmarks.factories_benchmarks import vllm_serve_bytes
from tests.test_worker_integration import start_worker, stop_worker


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_large_vllm_file_parses_on_a_real_worker_with_progress(
    tmp_path, monkeypatch, private_storage, engineer, h100
):
    import redis

    redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()
    monkeypatch.setenv("PRIVATE_MEDIA_ROOT", str(private_storage))  # the worker's storage
    data = vllm_serve_bytes(100_000)
    assert len(data) > 5_000_000  # parsed on the worker, not in the request
    worker = start_worker(tmp_path / "worker.log")
    try:
        outcome = benchmark_result_ingest(  # autocommit: on_commit enqueues at once
            acting_user=engineer,
            upload=SimpleUploadedFile("vllm-100k.json", data),
            meta=UploadMeta(accelerator=h100, gpu_count=8, serving_engine="vLLM"),
        )
        result_id = outcome.result.pk
        assert outcome.result.status == BenchmarkResult.Status.PENDING
        seen: list[float] = []
        deadline = time.monotonic() + 120
        status = BenchmarkResult.Status.PENDING
        while time.monotonic() < deadline:
            status, progress = BenchmarkResult.objects.filter(pk=result_id).values_list(
                "status", "progress"
            )[0]
            if status in (BenchmarkResult.Status.PARSED, BenchmarkResult.Status.FAILED):
                break
            seen.append(progress)
            time.sleep(0.05)
        log = (tmp_path / "worker.log").read_text()[-3000:]
        assert status == BenchmarkResult.Status.PARSED, log
        assert any(0 < p < 1 for p in seen), (seen[-20:], log)
        assert seen == sorted(seen)  # progress never goes backwards
    finally:
        stop_worker(worker)
    result = BenchmarkResult.objects.get(pk=result_id)
    parsed = parsers.parse(data, "vllm-100k.json")
    assert result.progress == 1.0
    assert result.metrics["request_count"] == 100_000
    for family in ("ttft_ms", "itl_ms", "tpot_ms", "e2e_ms"):
        assert result.metrics[family] == parsed.metrics.to_dict()[family]
    assert result.distributions["ttft_ms"]["count"] == 100_000
    assert AuditEvent.objects.filter(
        action="benchmark_result.parsed", object_id=str(result_id)
    ).exists()
