"""Issue 17: single-point files uploaded as one sweep are read as one result with every point."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from benchmarks.figures import merge_sweeps
from benchmarks.models import BenchmarkResult
from benchmarks.selectors import evidence_results_for
from tests.benchmarks.factories_benchmarks import vllm_serve_bytes

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
