"""H5, M8: a benchmark upload during a broker outage keeps its file and waits `pending`; the
same file can be uploaded again after a failure; a parse whose worker died is re-driven
within two minutes, and a duplicated delivery never parses in parallel with a live one."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.utils import timezone

from benchmarks.models import BenchmarkResult
from benchmarks.services import UploadMeta, benchmark_result_ingest, benchmark_result_parse
from benchmarks.services.results import benchmark_results_redrive_stuck
from core import jobs
from tests.benchmarks.factories_benchmarks import vllm_serve_bytes
from tests.factories import AcceleratorFactory


@pytest.fixture
def h100(db):
    return AcceleratorFactory(slug="h100-sxm-80gb", name="H100 SXM 80GB")


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_an_upload_while_the_broker_is_down_keeps_its_file_and_waits(
    celery_on, private_storage, api_client, engineer, h100, settings
):
    """H5: broker down → not a 500; the row is pending WITH its file, re-driven later."""
    settings.BENCHMARK_INLINE_PARSE_MAX_BYTES = 1000  # every file goes to the worker
    celery_on.stop()
    api_client.force_authenticate(engineer)
    data = vllm_serve_bytes(300)
    response = api_client.post(
        "/api/v1/benchmark-results/",
        {
            "file": SimpleUploadedFile("big.json", data),
            "accelerator": h100.slug,
            "gpu_count": 8,
            "precision": "bf16",
        },
        format="multipart",
    )
    assert response.status_code < 500, response.content
    result = BenchmarkResult.objects.get()
    assert result.status == BenchmarkResult.Status.PENDING
    with result.raw_file.open("rb") as handle:
        assert handle.read() == data
    celery_on.start()
    later = timezone.now() + timedelta(minutes=6)
    with transaction.atomic():
        assert benchmark_results_redrive_stuck(now=later) == 1
    assert celery_on.queue_length() == 1
    benchmark_result_parse(result_id=result.pk)  # what the worker does with that message
    result.refresh_from_db()
    assert result.status == BenchmarkResult.Status.PARSED


@pytest.mark.django_db
def test_the_same_file_uploads_again_after_a_failed_parse(private_storage, engineer, h100):
    """H5: a failed result does not swallow a new upload of the same bytes."""
    data = vllm_serve_bytes(40)
    meta = UploadMeta(accelerator=h100, gpu_count=8, precision="bf16")
    first = benchmark_result_ingest(
        acting_user=engineer, upload=SimpleUploadedFile("a.json", data), meta=meta
    ).result
    BenchmarkResult.objects.filter(pk=first.pk).update(status=BenchmarkResult.Status.FAILED)
    again = benchmark_result_ingest(
        acting_user=engineer, upload=SimpleUploadedFile("a.json", data), meta=meta
    )
    assert again.created
    assert again.result.pk != first.pk
    assert again.result.status == BenchmarkResult.Status.PARSED


def _parsing(engineer, h100, *, claimed_ago: timedelta, seed: int = 7) -> BenchmarkResult:
    result = benchmark_result_ingest(
        acting_user=engineer,
        upload=SimpleUploadedFile("w.json", vllm_serve_bytes(40, seed=seed)),
        meta=UploadMeta(accelerator=h100, gpu_count=8, precision="bf16"),
    ).result
    BenchmarkResult.objects.filter(pk=result.pk).update(
        status=BenchmarkResult.Status.PARSING,
        progress=0.01,
        claimed_at=timezone.now() - claimed_ago,
        attempts=1,
    )
    return result


@pytest.mark.django_db
def test_a_parse_whose_worker_died_is_redriven_within_two_minutes(
    private_storage, engineer, h100, settings, django_capture_on_commit_callbacks
):
    """M8: a parse claim not refreshed for 30 s is stale: the next beat run (every minute)
    re-drives it, instead of after the 31-minute task time limit."""
    settings.BENCHMARK_INLINE_PARSE_MAX_BYTES = 10
    stale = _parsing(engineer, h100, claimed_ago=jobs.STALE_AFTER + timedelta(seconds=1))
    _parsing(engineer, h100, claimed_ago=timedelta(seconds=1), seed=8)  # alive: left alone
    with django_capture_on_commit_callbacks(execute=False) as sent:
        assert benchmark_results_redrive_stuck() == 1
    assert len(sent) == 1
    schedule = django_settings.CELERY_BEAT_SCHEDULE["redrive-stuck-benchmark-results"]
    assert jobs.STALE_AFTER + schedule["schedule"] <= timedelta(minutes=2)
    parsed = benchmark_result_parse(result_id=stale.pk)  # the re-driven delivery takes over
    assert parsed is not None
    assert parsed.status == BenchmarkResult.Status.PARSED
    stale.refresh_from_db()
    assert stale.attempts == 2


@pytest.mark.django_db
def test_a_duplicated_delivery_does_not_parse_in_parallel(
    private_storage, engineer, h100, settings
):
    """M8: while a live parse holds a fresh claim, a second delivery is a no-op."""
    settings.BENCHMARK_INLINE_PARSE_MAX_BYTES = 10
    live = _parsing(engineer, h100, claimed_ago=timedelta(seconds=2))
    assert benchmark_result_parse(result_id=live.pk) is None
    live.refresh_from_db()
    assert (live.status, live.attempts) == (BenchmarkResult.Status.PARSING, 1)
