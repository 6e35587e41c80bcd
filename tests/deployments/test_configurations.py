"""An offer is costed in each configuration it can run in; a measurement counts at its shape."""

from __future__ import annotations

import pytest

from tests.deployments.conftest import h200_quote, run_rows, sweep_on

pytestmark = pytest.mark.django_db


def test_v2_measured_tp8_sweep_on_the_quote_is_costed_at_8_gpus_not_scaled(
    lead, deploy_brief, checklist_items, api_client
):
    # Given the engineer's 8-GPU TP=8 sweep uploaded for the very H200 quote
    quote = h200_quote(lead)
    sweep_on(lead, quote)
    # When the lead compares it
    comparison, rows = run_rows(lead, deploy_brief, [quote])
    row = rows[quote.pk]
    # Then the row is measured at 8 GPUs, at the sweep's SLO point, eligible, unscaled
    assert row.eligible, row.reasons
    assert row.gpus == 8
    assert row.perf_source == "measured"
    evidence = row.performance["evidence"]
    assert evidence["kind"] == "measured"
    assert not any("scaled" in a for a in evidence["adjustments"]), evidence
    assert evidence["operating_point"].startswith("concurrency 32, TTFT p95 752")
    assert row.performance["ttft_p95_ms"] == 752.0
    assert row.detail["latency_verdict"] == "meets (measured)"
    # And the 2-GPU memory minimum is an alternative, as an estimate
    configurations = row.detail["configurations"]
    chosen = [c for c in configurations if c["chosen"]]
    assert [c["configuration"]["gpus_per_replica"] for c in chosen] == [8]
    assert chosen[0]["configuration"]["origin"] == "measured_offer"
    assert chosen[0]["words"] == "8 GPUs (TP=8, PP=1), bf16, vllm"
    smallest = next(c for c in configurations if c["configuration"]["origin"] == "memory_minimum")
    assert smallest["configuration"]["gpus_per_replica"] == 2
    assert smallest["perf_source"] == "estimated"
    assert not smallest["chosen"]
    # And the API gives the same
    api_client.force_authenticate(lead)
    data = api_client.get(f"/api/v1/comparisons/{comparison.pk}/").json()
    (api_row,) = [c for c in data["candidates"] if c["key"] == f"quote:{quote.pk}"]
    assert api_row["gpus"] == 8
    assert api_row["detail"]["configurations"] == configurations


def test_v2_an_estimate_is_never_scaled_from_the_measured_configuration(
    lead, deploy_brief, checklist_items
):
    # Given the 8-GPU sweep on another H200 offer (the same accelerator)
    measured = h200_quote(lead)
    sweep_on(lead, measured)
    other = h200_quote(lead, title="Other H200 on demand", capacity_model="on_demand")
    _, rows = run_rows(lead, deploy_brief, [measured, other])
    row = rows[other.pk]
    # Then the other offer also runs the measured configuration, measured on its accelerator
    chosen = next(c for c in row.detail["configurations"] if c["chosen"])
    assert chosen["configuration"]["origin"] == "measured_accelerator"
    assert row.gpus == 8
    # And its estimated configurations rest on the roofline, not on the sweep scaled down
    for found in row.detail["configurations"]:
        if found["configuration"]["origin"] in ("memory_minimum", "power_of_two"):
            assert found["perf_source"] == "estimated", found


def test_v2_the_compare_page_and_the_plan_read_the_8_gpu_sweep_as_measured_not_scaled(
    client, lead, engineer, deploy_brief, checklist_items
):
    """One evidence path: the benchmark pages judge the sweep in the configuration the
    comparison costs it in (8 GPUs, TP=8), not scaled ×0.25 to the 2-GPU memory minimum."""
    from benchmarks.models import BenchmarkPlan
    from benchmarks.selectors import evidence_verdict
    from benchmarks.services.plans import plan_evidence

    quote = h200_quote(lead)
    result = sweep_on(lead, quote)
    result.brief = deploy_brief
    result.save(update_fields=["brief"])
    verdict = evidence_verdict(result, deploy_brief)
    assert verdict.kind == "measured", verdict.reason
    assert not any("scaled" in a for a in verdict.adjustments)
    plan = BenchmarkPlan.objects.create(quote=quote, brief=deploy_brief, created_by=lead)
    ((counted, match),) = plan_evidence(plan)
    assert (counted.pk, match.kind) == (result.pk, "measured")
    client.force_login(engineer)
    html = client.get(f"/benchmarks/compare/?brief={deploy_brief.pk}").content.decode()
    assert 'class="badge ok">measured</span>' in html
    assert "×0.25" not in html
    assert "scaled" not in html


def test_v2_a_sweep_on_more_gpus_than_the_offer_has_is_still_scaled_on_the_plan(
    lead, deploy_brief, checklist_items
):
    """The offer has 4 GPUs: the 8-GPU sweep is no configuration of its own there."""
    from benchmarks.models import BenchmarkPlan
    from benchmarks.services.plans import plan_evidence

    quote = h200_quote(lead, max_gpus_available=4)
    sweep_on(lead, quote)
    plan = BenchmarkPlan.objects.create(quote=quote, brief=deploy_brief, created_by=lead)
    ((_, match),) = plan_evidence(plan)
    assert match.kind == "proxy"
    assert any("scaled" in a for a in match.adjustments), match
