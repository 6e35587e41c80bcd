"""GET /api/v1/benchmark-results/ (filters, pagination, query count) and the detail shape."""

from __future__ import annotations

import pytest

from benchmarks.models import BenchmarkResult
from tests.benchmarks.factories_benchmarks import BenchmarkResultFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def rows(quote_a, quote_b, h200, brief):
    return {
        "a": BenchmarkResultFactory(quote=quote_a, accelerator=quote_a.accelerator, brief=brief),
        "b": BenchmarkResultFactory(quote=quote_b, accelerator=h200, format_id="guidellm"),
        "failed": BenchmarkResultFactory(
            accelerator=h200, status=BenchmarkResult.Status.FAILED, error="bad", metrics={}
        ),
    }


def _ids(api_client, query=""):
    response = api_client.get(f"/api/v1/benchmark-results/{query}")
    assert response.status_code == 200
    return {item["id"] for item in response.json()["results"]}


def test_list_filters(api_client, finance, rows, quote_a, h200, brief):
    api_client.force_authenticate(finance)
    a, b, failed = rows["a"].pk, rows["b"].pk, rows["failed"].pk
    assert _ids(api_client) == {a, b, failed}
    assert _ids(api_client, f"?quote={quote_a.pk}") == {a}
    assert _ids(api_client, f"?accelerator={h200.slug}") == {b, failed}
    assert _ids(api_client, f"?accelerator={h200.pk}") == {b, failed}
    assert _ids(api_client, f"?brief={brief.pk}") == {a}
    assert _ids(api_client, "?status=failed") == {failed}
    assert _ids(api_client, "?format=guidellm") == {b}


def test_bad_filter_is_a_clear_400(api_client, finance, rows):
    api_client.force_authenticate(finance)
    response = api_client.get("/api/v1/benchmark-results/?status=nonsense")
    assert response.status_code == 400
    assert "status" in response.json()["fields"]


def test_detail_shape(api_client, engineer, rows):
    api_client.force_authenticate(engineer)
    body = api_client.get(f"/api/v1/benchmark-results/{rows['a'].pk}/").json()
    for key in ("status", "progress", "format", "metrics", "discrepancies", "error", "figures"):
        assert key in body
    assert body["format"] == "vllm-serve"
    assert body["metrics"]["e2e_ms"]["p99"] == 12000.0
    assert body["figures"]["tokens_per_s_per_gpu"] == 2400.0
    assert body["download_url"] == f"/benchmarks/results/{rows['a'].pk}/download/"
    failed = api_client.get(f"/api/v1/benchmark-results/{rows['failed'].pk}/").json()
    assert (failed["status"], failed["error"]) == ("failed", "bad")


def test_missing_result_is_404(api_client, engineer):
    api_client.force_authenticate(engineer)
    assert api_client.get("/api/v1/benchmark-results/999999/").status_code == 404


@pytest.mark.parametrize("count", [3, 40])
def test_list_query_count_does_not_grow(
    count, api_client, engineer, h100, brief, django_assert_max_num_queries
):
    BenchmarkResultFactory.create_batch(count, accelerator=h100, brief=brief)
    api_client.force_authenticate(engineer)
    with django_assert_max_num_queries(6):
        response = api_client.get("/api/v1/benchmark-results/")
    assert response.json()["count"] == count
