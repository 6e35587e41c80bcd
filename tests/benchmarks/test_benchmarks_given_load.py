"""Issue 17: the concurrency (or request rate) a run was measured at, given at upload when the
file does not state it (AIPerf's summary CSV does not), so single-point files grouped into
one sweep are placed on the concurrency axis and the engine can choose among them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from benchmarks.models import BenchmarkResult
from benchmarks.selectors import evidence_results_for
from engine.operating_points import ServiceLevel, choose_point, point_from_dict
from tests.benchmarks.factories_benchmarks import vllm_serve_bytes
from tests.factories import ModelProfileFactory

pytestmark = pytest.mark.django_db

# Written for these tests (SOURCE.txt there): one AIPerf CSV per concurrency 1, 8 and 32,
# TTFT p95 400, 1,500 and 3,200 ms, output 120, 800 and 2,100 tokens/s.
AIPERF_CSV = Path(__file__).parent / "fixtures" / "aiperf_csv_sweep"
SWEEP = "llama-70b aiperf concurrency sweep"
API = "/api/v1/benchmark-results/"


@pytest.fixture
def llama70b():
    return ModelProfileFactory(slug="llama-3-1-70b", name="Llama 3.1 70B", params_total_b=70.6)


def _aiperf_csv(concurrency: int) -> SimpleUploadedFile:
    data = (AIPERF_CSV / f"c{concurrency}_profile_export_aiperf.csv").read_bytes()
    return SimpleUploadedFile("profile_export_aiperf.csv", data)


def _vllm_at(concurrency: int) -> SimpleUploadedFile:
    doc = json.loads(vllm_serve_bytes(30, seed=concurrency))
    doc["max_concurrency"] = concurrency
    return SimpleUploadedFile(f"c{concurrency}.json", json.dumps(doc).encode())


def _post(client, h100, upload, **fields):
    body = {"accelerator": h100.slug, "gpu_count": 4, "precision": "bf16", "file": upload}
    return client.post(API, {**body, **fields}, format="multipart")


def test_aiperf_csv_uploads_given_their_concurrency_form_a_sweep_the_engine_chooses_from(
    api_client, engineer, h100, llama70b
):
    # Given three AIPerf CSV files (no concurrency in them) uploaded as one sweep, each with
    # the concurrency it ran at, in any order
    api_client.force_authenticate(engineer)
    ids = []
    for concurrency in (32, 1, 8):
        response = _post(
            api_client,
            h100,
            _aiperf_csv(concurrency),
            model_profile=llama70b.slug,
            sweep=SWEEP,
            concurrency=concurrency,
        )
        assert response.status_code == 201, response.json()
        ids.append(response.json()["id"])
    # Then each result's workload and single point say its concurrency
    stored = {r.pk: r for r in BenchmarkResult.objects.all()}
    assert sorted(r.concurrency for r in stored.values()) == [1.0, 8.0, 32.0]
    for result in stored.values():
        (point,) = result.metrics["operating_points"]
        assert point["concurrency"] == result.concurrency
        assert point["label"] == f"concurrency {result.concurrency:g}"
        assert any("as given at upload" in note for note in result.parse_notes)
    # And the sweep reads as one result whose points are labelled by concurrency, in order
    (swept,) = evidence_results_for([], [h100.pk], None)
    assert sorted(swept["sweep_result_ids"]) == sorted(ids)
    assert [p["label"] for p in swept["operating_points"]] == [
        "concurrency 1",
        "concurrency 8",
        "concurrency 32",
    ]
    assert swept["concurrency"] == 32.0
    # When the engine reads it for a brief whose TTFT p95 target only the lower two meet
    points = [point_from_dict(p) for p in swept["operating_points"]]
    choice = choose_point(points, ServiceLevel(ttft_p95_ms=2000.0))
    # Then it takes concurrency 8 (the cheapest point meeting the target), and says so
    assert choice is not None
    assert (choice.concurrency, choice.meets, choice.output_tokens_per_s) == (8.0, True, 800.0)
    assert choice.statement.startswith("concurrency 8, TTFT p95 1,500 ms")


def test_a_concurrency_given_against_the_files_own_is_refused_naming_both(
    api_client, engineer, h100
):
    api_client.force_authenticate(engineer)
    refused = _post(api_client, h100, _vllm_at(4), concurrency=8)
    assert refused.status_code == 400
    message = (
        "The file states concurrency 4, not 8: leave the concurrency empty (the file's is "
        "kept) or upload the file of the run at concurrency 8."
    )
    assert refused.json()["fields"]["concurrency"] == [message]
    assert not BenchmarkResult.objects.exists()

    # the same value as the file's is accepted
    accepted = _post(api_client, h100, _vllm_at(4), concurrency=4)
    assert accepted.status_code == 201, accepted.json()
    assert BenchmarkResult.objects.get().concurrency == 4.0


def test_the_upload_form_offers_the_concurrency_and_refuses_a_contradiction_on_the_page(
    login, engineer, quote_a
):
    client = login(engineer)
    page = client.get("/benchmarks/upload/").content.decode()
    assert 'name="concurrency"' in page
    assert 'name="request_rate"' in page
    form = {"quote": quote_a.pk, "gpu_count": 4, "precision": "bf16", "concurrency": 8}
    refused = client.post("/benchmarks/upload/", {**form, "file": _vllm_at(4)})
    assert refused.status_code == 400
    assert "The file states concurrency 4, not 8" in refused.content.decode()
    assert not BenchmarkResult.objects.exists()


def test_a_concurrency_given_for_a_file_of_several_runs_is_refused(api_client, engineer, h100):
    written = Path(__file__).parents[1] / "parsers/fixtures/written"
    data = (written / "vllm_append_result_rate_sweep.jsonl").read_bytes()
    api_client.force_authenticate(engineer)
    refused = _post(api_client, h100, SimpleUploadedFile("sweep.jsonl", data), concurrency=8)
    assert refused.status_code == 400
    assert refused.json()["fields"]["concurrency"][0].startswith("The file holds 4 runs")
    assert not BenchmarkResult.objects.exists()


def test_a_request_rate_given_labels_the_point_by_rate(api_client, engineer, h100, llama70b):
    api_client.force_authenticate(engineer)
    response = _post(
        api_client, h100, _aiperf_csv(8), model_profile=llama70b.slug, request_rate=2.5
    )
    assert response.status_code == 201, response.json()
    result = BenchmarkResult.objects.get()
    assert (result.request_rate, result.concurrency) == (2.5, None)
    (point,) = result.metrics["operating_points"]
    assert (point["request_rate_per_s"], point["label"]) == (2.5, "request rate 2.5/s")


def test_a_non_positive_load_is_refused_by_the_service(engineer, h100):
    from benchmarks.errors import UploadRejected
    from benchmarks.services import UploadMeta, benchmark_result_ingest

    meta = UploadMeta(accelerator=h100, gpu_count=1, precision="bf16", request_rate=0.0)
    with pytest.raises(UploadRejected, match="Request rate must be a number above 0"):
        benchmark_result_ingest(acting_user=engineer, upload=_vllm_at(4), meta=meta)
    assert not BenchmarkResult.objects.exists()


def test_a_large_file_keeps_the_given_concurrency_or_its_own_when_it_states_another(
    api_client, engineer, h100, llama70b, settings
):
    from benchmarks.services import benchmark_result_parse

    settings.BENCHMARK_INLINE_PARSE_MAX_BYTES = 10  # parsed on a worker: unknown at upload
    api_client.force_authenticate(engineer)
    given = _post(
        api_client, h100, _aiperf_csv(8), model_profile=llama70b.slug, concurrency=8
    ).json()
    contradicted = _post(api_client, h100, _vllm_at(4), concurrency=16).json()

    unstated = benchmark_result_parse(result_id=given["id"])
    assert unstated is not None
    unstated.refresh_from_db()
    assert unstated.concurrency == 8.0
    assert unstated.metrics["operating_points"][0]["label"] == "concurrency 8"

    stated = benchmark_result_parse(result_id=contradicted["id"])
    assert stated is not None
    stated.refresh_from_db()
    assert stated.concurrency == 4.0  # the file is the evidence
    assert stated.metrics["operating_points"][0]["label"] == "concurrency 4"
    assert any("concurrency given at upload (16) was not used" in n for n in stated.parse_notes)
