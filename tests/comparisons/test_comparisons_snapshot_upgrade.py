"""A comparison frozen in snapshot format 1 still opens, recomputes and exports.

`fixtures/snapshot_format1.json` is the snapshot the release before format 2 froze for the
world `_world` rebuilds here with the same primary keys: two GPU quotes, one API route and
two parsed results (one on the H100 quote that names the brief's model, one on the
accelerator that names none). Format 1 kept, beside every result, the best one per quote
and per accelerator; the oldest format-1 snapshots held only those.
"""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from pathlib import Path

import pytest

from procurement.models import Comparison
from procurement.services.comparisons import comparison_recompute, comparison_run
from procurement.snapshot import SNAPSHOT_FORMAT, thaw, upgrade
from procurement.snapshot.upgrade import SnapshotFormatError
from tests.benchmarks.factories_benchmarks import BenchmarkResultFactory, metrics_dict
from tests.comparisons.factories_comparisons import answer_checklist, frozen, h100, l40s
from tests.factories import (
    ModelApiRouteFactory,
    ModelProfileFactory,
    ProviderFactory,
    QuoteFactory,
    WorkloadBriefFactory,
)

FIXTURE = Path(__file__).parent / "fixtures" / "snapshot_format1.json"


def _format_1() -> dict:
    return json.loads(FIXTURE.read_text())


def _oldest_format_1() -> dict:
    """Before results carried their workload: only the ranked best figures."""
    snap = _format_1()
    del snap["measured"]["results"]
    del snap["calibration"]
    return snap


@pytest.fixture
def world(db, lead, checklist_items):
    pa = ProviderFactory(pk=9501, name="Cheap GPUs", slug="cheap-gpus")
    pb = ProviderFactory(pk=9502, name="Fast GPUs", slug="fast-gpus")
    answer_checklist(pa, lead)
    answer_checklist(pb, lead)
    model = ModelProfileFactory()
    brief = WorkloadBriefFactory(
        pk=9201, created_by=lead, e2e_p99_ms=30_000, model=model, title="Chat assistant"
    )
    fast_acc = h100()
    QuoteFactory(
        pk=9001,
        provider=pa,
        accelerator=l40s(),
        price_per_gpu_hour=Decimal("0.8900"),
        title="L40S on demand",
        entered_by=lead,
    )
    fast = QuoteFactory(
        pk=9002,
        provider=pb,
        accelerator=fast_acc,
        price_per_gpu_hour=Decimal("2.4900"),
        title="H100 on demand",
        entered_by=lead,
    )
    ModelApiRouteFactory(pk=9401, provider=pb, model_profile=model)
    BenchmarkResultFactory(
        pk=9301,
        quote=fast,
        accelerator=fast_acc,
        gpu_count=2,
        brief=brief,
        model_name="meta-llama/Llama-3.1-70B-Instruct",
        model_profile=model,
        precision="bf16",
        input_tokens_mean=1500,
        output_tokens_mean=300,
        concurrency=32,
        metrics=metrics_dict(output_tokens_per_s=2600.0),
    )
    BenchmarkResultFactory(
        pk=9302, accelerator=fast_acc, gpu_count=1, metrics=metrics_dict(output_tokens_per_s=1400.0)
    )
    return brief


def _stored(lead, brief, snapshot: dict) -> Comparison:
    """A queued comparison holding the old snapshot as it was stored (facts included)."""
    return Comparison.objects.create(
        title="Frozen in format 1",
        brief=brief,
        status=Comparison.Status.QUEUED,
        seed=7,
        samples=2000,
        engine_version=snapshot["engine_version"],
        assumptions=snapshot["assumptions"]["overrides"],
        snapshot=snapshot,
        snapshot_facts=Comparison.facts_of(snapshot),
        created_by=lead,
    )


def test_the_current_format_is_2():
    assert SNAPSHOT_FORMAT == 2
    assert _format_1()["format"] == 1


def test_upgrade_keeps_the_results_and_drops_the_second_ranking():
    stored = _format_1()
    before = copy.deepcopy(stored)
    snap = upgrade(stored)
    assert stored == before  # the stored snapshot is never changed
    assert snap["format"] == 2
    assert set(snap["measured"]) == {"results"}
    assert [r["result_id"] for r in snap["measured"]["results"]] == [9301, 9302]
    assert upgrade(snap) == snap  # the current format passes through unchanged


def test_upgrade_turns_the_oldest_ranked_figures_into_results():
    snap = upgrade(_oldest_format_1())
    results = {r["result_id"]: r for r in snap["measured"]["results"]}
    assert set(results) == {9301}  # the best of the quote and of the accelerator
    assert results[9301]["quote_id"] == 9002
    assert results[9301]["accelerator"] == "h100-sxm-80gb"
    assert snap["calibration"] == {}
    assert Comparison.facts_of(_oldest_format_1())["evidence_result_ids"] == [9301]


def test_a_newer_format_is_refused_in_words():
    with pytest.raises(SnapshotFormatError, match="format 3, newer than this release"):
        upgrade({**_format_1(), "format": 3})


def test_a_format_1_comparison_computes_opens_and_exports(world, lead, finance, client, api_client):
    comparison = _stored(lead, world, _format_1())
    comparison_run(comparison_id=comparison.pk)
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.READY, comparison.error
    rows = {row.quote_id or f"api:{row.api_route_id}": row for row in comparison.candidates.all()}
    assert set(rows) == {9001, 9002, "api:9401"}
    h100_row = rows[9002]
    evidence = (h100_row.performance or {}).get("evidence") or {}
    assert evidence.get("result_id") == 9301  # the result naming the brief's model counts
    assert comparison.snapshot["format"] == 1  # what was frozen stays as it was stored
    assert thaw(comparison.snapshot).input is not None

    client.force_login(finance)
    for page in ("", "review/", "record/"):
        response = client.get(f"/comparisons/{comparison.pk}/{page}")
        assert response.status_code == 200, page
    api_client.force_authenticate(finance)
    csv = api_client.get(f"/api/v1/comparisons/{comparison.pk}/export.csv", HTTP_ACCEPT="text/csv")
    assert csv.status_code == 200
    assert "H100 on demand" in b"".join(csv.streaming_content).decode()
    xlsx = api_client.get(f"/api/v1/comparisons/{comparison.pk}/export.xlsx")
    assert xlsx.status_code == 200
    body = b"".join(xlsx.streaming_content) if xlsx.streaming else xlsx.content
    assert body[:2] == b"PK"  # a zip container


def test_the_oldest_format_1_computes_and_says_why_its_figures_are_ignored(world, lead):
    comparison = _stored(lead, world, _oldest_format_1())
    comparison_run(comparison_id=comparison.pk)
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.READY, comparison.error
    h100_row = comparison.candidates.get(quote_id=9002)
    words = json.dumps(h100_row.performance)
    assert "does not record which model it measured" in words


def test_a_format_1_comparison_recomputes_into_format_2(world, lead, monkeypatch):
    monkeypatch.setattr("core.jobs.send", lambda name, args, **kw: None)
    comparison = _stored(lead, world, _format_1())
    comparison_run(comparison_id=comparison.pk)
    comparison.refresh_from_db()
    revision = frozen(comparison_recompute(acting_user=lead, comparison=comparison).comparison)
    assert revision.supersedes_id == comparison.pk
    assert revision.snapshot["format"] == 2
    assert set(revision.snapshot["measured"]) == {"results", "published"}
    assert revision.snapshot["selection"]["default"] is True
    comparison_run(comparison_id=revision.pk)
    revision.refresh_from_db()
    assert revision.status == Comparison.Status.READY, revision.error
