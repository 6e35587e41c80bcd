"""Issue 17: single-point files uploaded as one sweep are read as one result with every point."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from benchmarks.models import BenchmarkResult
from benchmarks.selectors import evidence_results_for
from benchmarks.sweep_groups import merge_sweeps
from tests.benchmarks.factories_benchmarks import (
    BenchmarkResultFactory,
    metrics_dict,
    vllm_serve_bytes,
)
from tests.factories import WorkloadBriefFactory

SWEEP = "llama-70b concurrency sweep"


def _run_at(concurrency: int) -> bytes:
    doc = json.loads(vllm_serve_bytes(40, seed=concurrency))
    doc["max_concurrency"] = concurrency
    return json.dumps(doc).encode()


def _upload(client, h100, concurrency: int, sweep: str = SWEEP):
    return client.post(
        "/api/v1/benchmark-results/",
        {
            "file": SimpleUploadedFile(f"c{concurrency}.json", _run_at(concurrency)),
            "accelerator": h100.slug,
            "gpu_count": 4,
            "precision": "bf16",
            "sweep": sweep,
        },
        format="multipart",
    )


@pytest.mark.django_db
def test_issue17_single_point_uploads_of_one_sweep_become_one_result_with_every_point(
    api_client, engineer, h100
):
    api_client.force_authenticate(engineer)
    ids = []
    for concurrency in (32, 1, 8):  # uploaded in any order
        response = _upload(api_client, h100, concurrency)
        assert response.status_code == 201, response.json()
        assert response.json()["sweep"] == SWEEP
        ids.append(response.json()["id"])
    alone = _upload(api_client, h100, 16, sweep="").json()["id"]
    assert BenchmarkResult.objects.filter(status="parsed").count() == 4
    found = evidence_results_for([], [h100.pk], None)
    by_id = {r["result_id"]: r for r in found}
    assert set(by_id) == {min(ids), alone}
    swept = by_id[min(ids)]
    assert [p["concurrency"] for p in swept["operating_points"]] == [1.0, 8.0, 32.0]
    assert [p["label"] for p in swept["operating_points"]] == [
        "concurrency 1",
        "concurrency 8",
        "concurrency 32",
    ]
    assert sorted(swept["sweep_result_ids"]) == sorted(ids)
    assert swept["concurrency"] == 32.0
    assert len(by_id[alone]["operating_points"]) == 1


def test_issue17_a_sweep_groups_only_results_measured_alike():
    def item(rid, sweep, gpus=4, label="run 1", concurrency=8.0):
        return {
            "result_id": rid,
            "sweep": sweep,
            "quote_id": None,
            "accelerator": "h100",
            "gpu_count": gpus,
            "model_name": "m",
            "precision": "bf16",
            "brief_id": None,
            "concurrency": concurrency,
            "operating_points": [{"label": label, "concurrency": concurrency}],
        }

    merged = merge_sweeps(
        [
            item(1, "s", concurrency=8.0),
            item(2, ""),
            item(3, "s", concurrency=2.0),
            item(4, "s", gpus=8),  # other GPUs: another sweep entry
        ]
    )
    assert [m["result_id"] for m in merged] == [1, 2, 4]
    first = merged[0]
    # a label two files share names its result; points ordered by concurrency
    assert [p["label"] for p in first["operating_points"]] == ["run 1 (result 3)", "run 1"]
    assert first["sweep_result_ids"] == [1, 3]
    assert "sweep_result_ids" not in merged[1]


@pytest.mark.django_db
def test_issue17_the_upload_form_offers_a_sweep_name(login, engineer):
    html = login(engineer).get("/benchmarks/upload/").content.decode()
    assert 'name="sweep"' in html
    assert "one result with several operating points" in html


def _swept_metrics(*ttft_by_concurrency: tuple[int, float, float]) -> dict:
    """Stored metrics of a multi-point file: (concurrency, output tok/s, TTFT p95) per point;
    the headline is the saturation run, as the parsers write it."""
    points = [
        {
            "label": f"c{c}",
            "concurrency": c,
            "output_tokens_per_s": tps,
            "ttft_ms": {"p50": ttft / 2, "p95": ttft, "p99": ttft * 1.2, "mean": ttft / 2},
        }
        for c, tps, ttft in ttft_by_concurrency
    ]
    c, tps, ttft = max(ttft_by_concurrency, key=lambda p: p[1])
    return {
        **metrics_dict(ttft=(ttft / 2, ttft, ttft * 1.2), output_tokens_per_s=tps, concurrency=c),
        "operating_points": points,
    }


@pytest.mark.django_db
def test_issue17_compare_page_judges_a_sweep_at_the_point_the_comparison_costs(
    login, finance, lead, quote_a
):
    # Given a brief with TTFT p95 ≤ 2 s and a 3-point result whose saturation headline misses
    # it (a point past the first miss is never chosen, so the lower loads meet it too)
    brief = WorkloadBriefFactory(
        created_by=lead, ttft_p95_ms=2000, itl_p95_ms=None, e2e_p99_ms=None
    )
    metrics = _swept_metrics((1, 150.0, 210.0), (16, 1800.0, 900.0), (64, 3000.0, 3500.0))
    BenchmarkResultFactory(
        quote=quote_a, accelerator=quote_a.accelerator, brief=brief, metrics=metrics
    )
    # When the compare page reads it
    response = login(finance).get(f"/benchmarks/compare/?brief={brief.pk}")
    # Then the result meets the brief, at the point named on the row
    (row,) = response.context["rows"]
    assert row["meets"] is True
    assert row["judged_at"] == "concurrency 16, TTFT p95 900 ms"
    assert [(c["label"], c["observed"], c["ok"]) for c in row["checks"]] == [
        ("p95 TTFT", 900.0, True)
    ]
    assert "at concurrency 16, TTFT p95 900 ms" in response.content.decode()


@pytest.mark.django_db
def test_issue17_compare_page_counts_the_briefs_inter_token_target(login, finance, lead, quote_a):
    # Given a single-point result meeting TTFT but with ITL p95 35 ms, on a brief with ITL ≤ 25 ms
    brief = WorkloadBriefFactory(created_by=lead, ttft_p95_ms=2000, e2e_p99_ms=None, itl_p95_ms=25)
    BenchmarkResultFactory(quote=quote_a, accelerator=quote_a.accelerator, brief=brief)
    (row,) = login(finance).get(f"/benchmarks/compare/?brief={brief.pk}").context["rows"]
    # Then the ITL target is checked and missed, so the result does not meet the brief
    assert row["meets"] is False
    assert {c["label"]: c["ok"] for c in row["checks"]} == {"p95 TTFT": True, "p95 ITL": False}
    assert row["judged_at"] == ""
