"""Issue 26: the plan's request-size buckets from the per-request samples of the uploads
made for the brief, when there are any; from the brief otherwise; the page says which.

The brief (the factory's): mean prompt 1,500 tokens, p95 3,000, 300 out. The upload, bound
to the brief, measured 20 requests: 16 with a 1,000-token prompt and 4 with 6,000, each with
9 output tokens. Prompts of 3,000 tokens or more (the brief's p95) are long:

    short: 16 / 20 = 80 %, prompt 1,000, output 9 (1,009 tokens a request)
    long:   4 / 20 = 20 %, prompt 6,000, output 9 (6,009 tokens a request)

The brief alone says 95 % short requests at (1,500 − 0.05 × 3,000) / 0.95 = 1,421.1 tokens
of prompt and 5 % long ones at 3,000.
"""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from benchmarks.models import BenchmarkResult
from tests.benchmarks.factories_benchmarks import vllm_serve_bytes
from tests.comparisons.factories_comparisons import h100
from tests.comparisons.plan_world import computed, contoso_reserved, fabrikam, plan_brief

pytestmark = pytest.mark.django_db

PROMPTS = [1000] * 16 + [6000] * 4


def _upload_for(api_client, engineer, brief):
    """A vLLM serving file with per-request arrays, uploaded for the brief on an H100 (an
    accelerator no quote of the comparison has: its figures are nobody's evidence)."""
    doc = json.loads(vllm_serve_bytes(len(PROMPTS)))
    doc["input_lens"] = PROMPTS
    doc["total_input_tokens"] = sum(PROMPTS)
    upload = SimpleUploadedFile("replayed-traffic.json", json.dumps(doc).encode())
    api_client.force_authenticate(engineer)
    response = api_client.post(
        "/api/v1/benchmark-results/",
        {
            "accelerator": h100().slug,
            "gpu_count": 8,
            "precision": "bf16",
            "brief": brief.pk,
            "file": upload,
        },
        format="multipart",
    )
    assert response.status_code == 201, response.json()
    result = BenchmarkResult.objects.get(pk=response.json()["id"])
    assert result.status == BenchmarkResult.Status.PARSED
    return result


def test_buckets_from_the_uploads_per_request_samples(
    lead, engineer, finance, checklist_items, api_client, login
):
    brief = plan_brief(lead, horizon_months=12)
    result = _upload_for(api_client, engineer, brief)
    sizes = result.distributions["request_sizes"]
    assert sizes["input_tokens"] == PROMPTS
    assert sizes["output_tokens"] == [9.0] * 20
    comparison, _ = computed(lead, brief, [fabrikam(lead), contoso_reserved(lead, term_months=12)])
    plan = comparison.result["plan"]
    assert plan["status"] == "optimal"
    assert plan["buckets"] == [
        {"name": "short", "share": 0.8, "input_tokens": 1000.0, "output_tokens": 9.0},
        {"name": "long", "share": 0.2, "input_tokens": 6000.0, "output_tokens": 9.0},
    ]
    # the samples shape the traffic, the brief keeps its mean: one offer carrying every
    # request still costs what its row costs, 15 replicas × 8 GPUs × 730 × 3.00
    assert plan["best_single_cost"] == "262800.00"
    assert plan["monthly_cost"] == "251120.00"  # 16 × 730 × 2.00 + 104 × 730 × 3.00
    source = plan["buckets_source"]
    assert source["source"] == "samples"
    assert source["uploads"] == [result.pk]
    assert source["requests"] == 20
    assert source["words"] == (
        "from 20 measured requests in 1 upload made for this brief: prompts of 3,000 tokens or "
        "more (the brief's p95) are long"
    )
    html = login(finance).get(f"/comparisons/{comparison.pk}/review/").content.decode()
    line = html.split('id="plan-buckets"')[1].split("</p>")[0]
    assert "Request sizes from 20 measured requests in 1 upload made for this brief" in line
    assert "short 80.0 % (prompt 1,000, output 9 tokens), long 20.0 % (prompt 6,000" in line


def test_without_samples_the_buckets_come_from_the_brief_and_the_page_says_so(
    lead, finance, checklist_items, login
):
    brief = plan_brief(lead, horizon_months=12)
    comparison, _ = computed(lead, brief, [fabrikam(lead), contoso_reserved(lead, term_months=12)])
    plan = comparison.result["plan"]
    assert [(b["name"], b["share"], b["input_tokens"]) for b in plan["buckets"]] == [
        ("short", 0.95, 1421.1),  # (1,500 − 0.05 × 3,000) / 0.95
        ("long", 0.05, 3000.0),
    ]
    assert plan["buckets_source"]["source"] == "brief"
    html = login(finance).get(f"/comparisons/{comparison.pk}/").content.decode()
    line = html.split('id="plan-buckets"')[1].split("</p>")[0]
    assert "Request sizes from the brief: the top 5 % of requests are long" in line


def test_an_upload_for_another_brief_is_not_read(lead, engineer, checklist_items, api_client):
    other = plan_brief(lead, horizon_months=12)
    _upload_for(api_client, engineer, other)
    comparison, _ = computed(
        lead,
        plan_brief(lead, horizon_months=12),
        [fabrikam(lead), contoso_reserved(lead, term_months=12)],
    )
    assert comparison.result["plan"]["buckets_source"]["source"] == "brief"
    assert "request_sizes" in comparison.snapshot
    assert comparison.snapshot["request_sizes"] == []
