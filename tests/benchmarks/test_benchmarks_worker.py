"""A large benchmark file is parsed off the request, with its progress saved on the row.

A7: the progress writes are checked in process, every write recorded as it happens (no
polling, no clock); the real worker test only checks that a file too large for the request
is parsed by a Celery worker subprocess, with no assumption about how long that takes.
"""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from benchmarks import parsers
from benchmarks.models import BenchmarkResult
from benchmarks.services import UploadMeta, benchmark_result_ingest, benchmark_result_parse
from benchmarks.services import results as results_service
from core.models import AuditEvent
from tests.benchmarks.factories_benchmarks import vllm_serve_bytes
from tests.support import worker


def _ingest_for_the_worker(engineer, h100, data: bytes, name: str) -> BenchmarkResult:
    outcome = benchmark_result_ingest(
        acting_user=engineer,
        upload=SimpleUploadedFile(name, data),
        meta=UploadMeta(accelerator=h100, gpu_count=8, serving_engine="vLLM"),
    )
    assert outcome.result.status == BenchmarkResult.Status.PENDING  # not parsed inline
    return outcome.result


@pytest.mark.django_db
def test_parse_writes_increasing_progress_to_the_row_before_it_is_done(
    engineer, h100, settings, monkeypatch
):
    """Each progress write lands on the row at once, between 0 and 1, never backwards."""
    settings.BENCHMARK_INLINE_PARSE_MAX_BYTES = 10  # every file goes to the task
    result = _ingest_for_the_worker(engineer, h100, vllm_serve_bytes(2_000), "vllm-2k.json")
    on_row: list[tuple[str, float]] = []

    class RecordingWriter(results_service.ProgressWriter):
        """The real writer, unthrottled, reading the row back after every call."""

        def __init__(self, result_id: int, **kwargs) -> None:
            super().__init__(result_id, interval_s=0.0)

        def __call__(self, fraction: float, *, force: bool = False) -> None:
            super().__call__(fraction, force=force)
            on_row.append(
                BenchmarkResult.objects.values_list("status", "progress").get(pk=self.result_id)
            )

    monkeypatch.setattr(results_service, "ProgressWriter", RecordingWriter)
    benchmark_result_parse(result_id=result.pk)

    assert on_row, "the parse wrote no progress"
    assert {status for status, _ in on_row} == {BenchmarkResult.Status.PARSING}
    values = [progress for _, progress in on_row]
    assert all(0 < p < 1 for p in values), values
    assert values == sorted(values)  # progress never goes backwards
    assert len(set(values)) >= 3, values  # read, parse, histograms: seen as they happen
    result.refresh_from_db()
    assert (result.status, result.progress) == (BenchmarkResult.Status.PARSED, 1.0)


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_large_vllm_file_is_parsed_on_a_real_worker(
    tmp_path, monkeypatch, private_storage, engineer, h100
):
    worker.reset_broker()
    monkeypatch.setenv("PRIVATE_MEDIA_ROOT", str(private_storage))  # the worker's storage
    data = vllm_serve_bytes(100_000)
    assert len(data) > 5_000_000  # parsed on the worker, not in the request
    log = tmp_path / "worker.log"
    proc = worker.start_worker(log)
    try:
        result_id = _ingest_for_the_worker(engineer, h100, data, "vllm-100k.json").pk

        def finished() -> bool:
            status = BenchmarkResult.objects.values_list("status", flat=True).get(pk=result_id)
            return status in (BenchmarkResult.Status.PARSED, BenchmarkResult.Status.FAILED)

        assert worker.wait_until(finished, 180, every=0.25), log.read_text()[-3000:]
    finally:
        worker.stop_worker(proc)
    result = BenchmarkResult.objects.get(pk=result_id)
    assert result.status == BenchmarkResult.Status.PARSED, (result.error, log.read_text()[-3000:])
    parsed = parsers.parse(data, "vllm-100k.json")
    assert result.progress == 1.0
    assert result.metrics["request_count"] == 100_000
    for family in ("ttft_ms", "itl_ms", "tpot_ms", "e2e_ms"):
        assert result.metrics[family] == parsed.metrics.to_dict()[family]
    assert result.distributions["ttft_ms"]["count"] == 100_000
    assert AuditEvent.objects.filter(
        action="benchmark_result.parsed", object_id=str(result_id)
    ).exists()
