"""A benchmark of a hosted model API (finding X11, its hosted-API half).

An LLMPerf run against a provider's OpenAI-compatible endpoint has no GPU of the buyer's: the
upload attaches it to the API route (provider and model) instead of a quote or an accelerator,
asks no GPU count and no precision, keeps and shows its latency percentiles, and never shows a
per-GPU figure (result page, list, compare page, API). Files are written here in LLMPerf's
real layouts (`token_benchmark_ray.py`'s summary and individual responses); figures made up.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from knox.models import AuthToken

from benchmarks.models import BenchmarkResult
from benchmarks.selectors import evidence_results_for
from benchmarks.services import UploadMeta, benchmark_result_ingest
from benchmarks.services.asked import result_asks
from core.models import AuditEvent
from tests.factories import ModelApiRouteFactory, ModelProfileFactory, ProviderFactory

pytestmark = pytest.mark.django_db


def llmperf_summary(**overrides: Any) -> bytes:
    """An LLMPerf summary (`…_summary.json`): latencies in seconds, quantiles p25…p99."""
    obj: dict[str, Any] = {
        "version": "2023-08-31",
        "name": "llama-3-1-70b_550_150_summary",
        "model": "accounts/fireworks/models/llama-v3p1-70b-instruct",
        "mean_input_tokens": 550,
        "stddev_input_tokens": 0,
        "mean_output_tokens": 150,
        "stddev_output_tokens": 0,
        "num_concurrent_requests": 5,
        "results_ttft_s_quantiles_p50": 0.5166,
        "results_ttft_s_quantiles_p95": 0.7868,
        "results_ttft_s_quantiles_p99": 0.9515,
        "results_ttft_s_mean": 0.55,
        "results_end_to_end_latency_s_quantiles_p50": 2.9,
        "results_end_to_end_latency_s_quantiles_p95": 4.1,
        "results_end_to_end_latency_s_quantiles_p99": 4.4864,
        "results_end_to_end_latency_s_mean": 3.0,
        "results_inter_token_latency_s_quantiles_p50": 0.016,
        "results_inter_token_latency_s_quantiles_p95": 0.019,
        "results_inter_token_latency_s_quantiles_p99": 0.023,
        "results_inter_token_latency_s_mean": 0.017,
        "results_num_requests_started": 150,
        "results_error_rate": 0.0,
        "results_number_errors": 0,
        "results_error_code_frequency": "{}",
        "results_mean_output_throughput_token_per_s": 162.8695,
        "results_num_completed_requests": 150,
        "results_num_completed_requests_per_min": 64.9256,
        "framework": "fireworks",
        "timestamp": 1704851704,
    }
    obj.update(overrides)
    return json.dumps(obj, indent=4).encode()


def llmperf_individual() -> bytes:
    """LLMPerf individual responses: no model name in the file; one 429 among four."""
    ok = [(0.40, 2.0), (0.50, 2.5), (0.60, 3.0)]
    rows: list[dict[str, Any]] = [
        {
            "error_code": None,
            "error_msg": "",
            "inter_token_latency_s": 0.015,
            "ttft_s": ttft,
            "end_to_end_latency_s": e2e,
            "request_output_throughput_token_per_s": 60.0,
            "number_input_tokens": 550,
            "number_output_tokens": 150,
            "number_total_tokens": 700,
        }
        for ttft, e2e in ok
    ]
    rows.append({**rows[0], "error_code": 429, "error_msg": "rate limited", "ttft_s": 0})
    return json.dumps(rows).encode()


@pytest.fixture
def token_client(api_client, engineer):
    _, key = AuthToken.objects.create(user=engineer)
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return api_client


@pytest.fixture
def llama70b(db):
    return ModelProfileFactory(slug="llama-3-1-70b", name="Llama 3.1 70B")


@pytest.fixture
def route(db, llama70b):
    fireworks = ProviderFactory(slug="fireworks", name="Fireworks")
    return ModelApiRouteFactory(
        provider=fireworks,
        model_name="accounts/fireworks/models/llama-v3p1-70b-instruct",
        model_profile=llama70b,
    )


def _post(client, data: bytes, name: str, **fields):
    return client.post(
        "/api/v1/benchmark-results/",
        {**fields, "file": SimpleUploadedFile(name, data)},
        format="multipart",
    )


def test_x11_llmperf_run_against_an_api_attaches_to_its_route(token_client, route):
    """X11: route alone, no GPU count, no precision: 201; no accelerator, no GPU count, no
    precision asked, no per-GPU figure; the latency percentiles are the file's (s × 1000)."""
    response = _post(token_client, llmperf_summary(), "fireworks_summary.json", api_route=route.pk)
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["api_route"], body["on_api"]) == (route.pk, True)
    assert (body["accelerator"], body["gpu_count"], body["precision"]) == (None, None, "")
    assert body["figures"]["tokens_per_s_per_gpu"] is None
    assert body["figures"]["output_tokens_per_s"] == pytest.approx(162.8695)
    assert body["asks"] == []
    result = BenchmarkResult.objects.get()
    assert result.accelerator is None
    assert result.quote is None
    assert result.gpu_count is None
    ttft = result.metrics["ttft_ms"]
    assert (ttft["p50"], ttft["p95"], ttft["p99"]) == pytest.approx((516.6, 786.8, 951.5))
    assert result.metrics["e2e_ms"]["p99"] == pytest.approx(4486.4)
    assert "hosted API" in body["workload"]
    assert "GPU" not in body["workload"]


def test_x11_hosted_api_model_comes_from_the_route_when_the_file_names_none(token_client, route):
    """X11: LLMPerf's individual responses name no model: the route's model is the model
    measured (and its profile), nothing is asked."""
    response = _post(token_client, llmperf_individual(), "individual.json", api_route=route.pk)
    assert response.status_code == 201, response.json()
    result = BenchmarkResult.objects.get()
    assert result.model_name == route.model_name
    assert result.model_profile == route.model_profile
    assert result.metrics["requests_failed"] == 1
    # p50 of the three successful TTFTs 400, 500, 600 ms is 500 ms
    assert result.metrics["ttft_ms"]["p50"] == pytest.approx(500.0)


def test_x11_a_route_with_gpus_is_refused_naming_the_field(token_client, route, h100):
    """X11: a route with an accelerator, or with a GPU count, is a contradiction: 400 naming
    the field; nothing stored, the refusal audited."""
    both = _post(
        token_client, llmperf_summary(), "s.json", api_route=route.pk, accelerator=h100.slug
    )
    assert both.status_code == 400
    assert "api_route" in both.json()["fields"]
    counted = _post(token_client, llmperf_summary(), "s.json", api_route=route.pk, gpu_count=8)
    assert counted.status_code == 400
    assert "gpu_count" in counted.json()["fields"]
    assert not BenchmarkResult.objects.exists()


def test_x11_a_run_on_gpus_still_needs_its_gpu_count(token_client, h100):
    """X11: the API stays as it was for GPU runs: an accelerator without a GPU count is 400
    with `fields.gpu_count`; without quote, accelerator and route, 400 with `fields.quote`."""
    response = _post(token_client, llmperf_summary(), "s.json", accelerator=h100.slug)
    assert response.status_code == 400
    assert response.json()["fields"]["gpu_count"] == ["This field is required."]
    nothing = _post(token_client, llmperf_summary(), "s.json", gpu_count=1)
    assert nothing.status_code == 400
    assert "quote" in nothing.json()["fields"]


def test_x11_the_same_llmperf_run_on_gpus_is_still_asked_its_precision(token_client, h100):
    """X11: on GPUs of the buyer's the precision matters and the file states none: asked."""
    response = _post(token_client, llmperf_summary(), "s.json", accelerator=h100.slug, gpu_count=1)
    assert response.status_code == 400
    assert "precision" in response.json()["fields"]


def test_x11_hosted_api_result_never_asks_and_never_enters_a_comparison(engineer, route, h100):
    """X11: a hosted API's result asks nothing after its parse either, and the comparison's
    snapshot (results by quote or accelerator) never picks it up."""
    result = _service_upload(engineer, route)
    assert result_asks(result) == []
    assert evidence_results_for([], [h100.pk], None) == []
    assert AuditEvent.objects.filter(action="benchmark_result.uploaded").count() == 1


def _service_upload(engineer, route) -> BenchmarkResult:
    outcome = benchmark_result_ingest(
        acting_user=engineer,
        upload=SimpleUploadedFile("summary.json", llmperf_summary()),
        meta=UploadMeta(api_route=route, gpu_count=None),
    )
    return outcome.result


def test_x11_pages_show_latency_and_no_per_gpu_figure(client, login, engineer, route, brief):
    """X11: the result page, the list and the compare page show the API's latencies and the
    route, never "tokens/s per GPU" for it; the compare page says it is not used yet."""
    result = _service_upload(engineer, route)
    result.brief = brief
    result.save(update_fields=["brief"])
    login(engineer)
    page = client.get(result.get_absolute_url()).content.decode()
    assert "hosted API" in page
    assert "Fireworks" in page
    assert "tokens/s per GPU" not in page
    assert "951.5" in page  # TTFT p99 in ms, in the percentile table
    listing = client.get("/benchmarks/").content.decode()
    assert "n/a (API)" in listing
    assert "hosted API" in listing
    compare = client.get(f"/benchmarks/compare/?brief={brief.pk}").content.decode()
    assert "Fireworks · accounts/fireworks/models/llama-v3p1-70b-instruct (API)" in compare
    assert "judges its API route" in compare
    assert "n/a (API)" in compare


def test_x11_upload_form_takes_a_route_without_gpus(client, login, engineer, route):
    """X11: the upload page offers the hosted API; chosen, no GPU count is needed."""
    login(engineer)
    page = client.get("/benchmarks/upload/").content.decode()
    assert "Hosted API measured" in page
    response = client.post(
        "/benchmarks/upload/",
        {"api_route": route.pk, "file": SimpleUploadedFile("s.json", llmperf_summary())},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    assert BenchmarkResult.objects.get().api_route == route
