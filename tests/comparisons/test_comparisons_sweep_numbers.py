"""Numbers a real sweep survives (issue 24): hand cases through the API.

The audit's common brief and quote (tests/comparisons/sweep_world.py). Every figure below is
worked by hand from the convention in docs/engine/operating-points.md: a measured throughput
is successful output tokens per wall-clock second, so the GPU time failed requests took is
already in it; acceptance is the brief's (or the measured) rate, never × SLO attainment.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.comparisons.sweep_world import audit_brief, compare, h100_quote, row, upload, vllm_file

pytestmark = pytest.mark.django_db


def _hand_total(tokens_per_s: float) -> Decimal:
    """1e6 accepted / 0.8 acceptance = 1.25e6 requests × 200 tokens / tok/s = GPU seconds;
    / 3,600 = hours; / utilisation 0.5 = billed hours; × $2.50."""
    hours = Decimal(1_250_000 * 200) / Decimal(str(tokens_per_s)) / 3600
    return (hours / Decimal("0.5") * Decimal("2.50")).quantize(Decimal("0.01"))


def test_n2_failures_counted_once_hand_case(api_client, lead, engineer):
    # 18 successes and 2 timeouts at concurrency 16, 2,500 tok/s (successful tokens / s)
    brief, quote = audit_brief(lead), h100_quote(lead)
    api_client.force_authenticate(engineer)
    upload(api_client, quote, brief, vllm_file(16, 2500, ok=18, failed=2))
    comparison = compare(lead, brief, [quote])
    assert comparison.status == "ready", comparison.error
    got = row(comparison, quote)
    # 1.25e6 × 200 / 2,500 = 100,000 s = 27.78 h; / 0.5 = 55.56 h; × 2.50 = 138.89
    # (171.47 before: failures counted in goodput, the failure rate and the throughput)
    assert _hand_total(2500) == Decimal("138.89")
    assert got.total_usd == Decimal("138.89")
    assert got.unit_cost_usd == Decimal("0.694450")  # 138.89 / 200 (per 1M output tokens)
    perf = got.performance
    assert "10.0 %" in perf["failure_used"]
    assert "not charged again" in perf["failure_used"]
    assert perf["acceptance_used"].startswith("the brief's assumption 80 %")
    assert perf["evidence"]["error_rate"] == 0.1


def test_n6_a_tail_the_p95_target_allows_is_not_bought_again(api_client, lead, engineer):
    # 19 requests at TTFT 300 ms, 1 at 600 ms: p95 315 ms meets the 500 ms target
    brief, quote = audit_brief(lead), h100_quote(lead)
    api_client.force_authenticate(engineer)
    upload(api_client, quote, brief, vllm_file(16, 2500, ttft_s=[0.3] * 19 + [0.6]))
    comparison = compare(lead, brief, [quote])
    got = row(comparison, quote)
    assert got.eligible, got.reasons
    assert got.total_usd == Decimal("138.89")  # 146.20 before (acceptance × goodput 0.95)
    assert got.performance["evidence"]["slo_attainment"] == 0.95


def _audit_sweep(api_client, quote, brief, *, last_all_fail: bool = True, sweep: str = "s"):
    """c4/8/16/32 at 800/1,500/2,500/3,500 tok/s; TTFT 100/200/400/900 ms (c32 misses TTFT
    for every request when ``last_all_fail``)."""
    for c, tps, ttft in ((4, 800, 0.1), (8, 1500, 0.2), (16, 2500, 0.4), (32, 3500, 0.9)):
        if c == 32 and not last_all_fail:
            ttft = [0.45] * 10 + [0.9] * 10
        upload(api_client, quote, brief, vllm_file(c, tps, ttft_s=ttft), sweep=sweep)


def test_n1_a_point_no_request_meets_leaves_the_comparison_ready(api_client, lead, engineer):
    brief, quote = audit_brief(lead), h100_quote(lead)
    api_client.force_authenticate(engineer)
    _audit_sweep(api_client, quote, brief)
    comparison = compare(lead, brief, [quote])
    assert comparison.status == "ready", comparison.error
    got = row(comparison, quote)
    assert got.total_usd == Decimal("138.89")  # costed at c16
    points = {p["label"]: p for p in got.detail["operating_points"]}
    c32 = next(p for label, p in points.items() if "32" in label)
    assert c32["meets"] is False
    assert c32["slo_attainment"] == 0.0
    # costed at its own throughput: 1.25e6 × 200 / 3,500 / 3,600 / 0.5 × 2.50 = 99.21
    assert Decimal(c32["unit_cost"]) == (_hand_total(3500) / 200).quantize(Decimal("0.000001"))
    chosen = [p for p in points.values() if p["chosen"]]
    assert [p["concurrency"] for p in chosen] == [16.0]


def test_engine_version_bump_an_old_comparison_keeps_its_version_and_figures(
    api_client, lead, engineer
):
    from engine.comparison import ENGINE_VERSION
    from procurement.models import CandidateResult, Comparison
    from procurement.services.comparisons import comparison_recompute, comparison_run

    brief, quote = audit_brief(lead), h100_quote(lead)
    api_client.force_authenticate(engineer)
    upload(api_client, quote, brief, vllm_file(16, 2500, ok=18, failed=2))
    old = compare(lead, brief, [quote])
    # as the 1.3.0 engine froze it: failures counted three times, 171.47
    Comparison.objects.filter(pk=old.pk).update(
        engine_version="1.3.0", snapshot={**old.snapshot, "engine_version": "1.3.0"}
    )
    CandidateResult.objects.filter(comparison=old).update(total_usd=Decimal("171.47"))
    old.refresh_from_db()
    revision = comparison_run(
        comparison_id=comparison_recompute(acting_user=lead, comparison=old).comparison.pk
    )
    assert revision.engine_version == ENGINE_VERSION  # 1.5.0 or later: failures counted once
    assert row(revision, quote).total_usd == Decimal("138.89")
    old.refresh_from_db()
    assert old.engine_version == "1.3.0"
    assert row(old, quote).total_usd == Decimal("171.47")


def test_engine_version_1_5_0_an_old_1_4_0_comparison_keeps_its_version_and_figures(
    api_client, lead, engineer
):
    """Engine 1.5.0 lowers a vLLM row's prefill by the cached share (120.69 with half the
    input cached, tests/comparisons/test_comparisons_prefix_cache.py); a comparison the
    1.4.0 engine computed (138.89: the cached share lowered API prices only) keeps its
    version and figures, and its recompute is a new revision at 1.5.0."""
    from engine.comparison import ENGINE_VERSION
    from procurement.models import CandidateResult, Comparison
    from procurement.services.comparisons import comparison_recompute, comparison_run

    brief, quote = audit_brief(lead, serving_engine="vLLM"), h100_quote(lead)
    api_client.force_authenticate(engineer)
    upload(api_client, quote, brief, vllm_file(16, 2500), serving_engine="vLLM")
    old = compare(lead, brief, [quote], cached_input_fraction=0.5)
    assert old.assumptions == {"cached_input_fraction": 0.5}
    Comparison.objects.filter(pk=old.pk).update(
        engine_version="1.4.0", snapshot={**old.snapshot, "engine_version": "1.4.0"}
    )
    CandidateResult.objects.filter(comparison=old).update(total_usd=Decimal("138.89"))
    old.refresh_from_db()
    revision = comparison_run(
        comparison_id=comparison_recompute(acting_user=lead, comparison=old).comparison.pk
    )
    assert revision.engine_version == ENGINE_VERSION  # 1.5.0 or later: cached prefixes
    assert row(revision, quote).total_usd == Decimal("120.69")
    old.refresh_from_db()
    assert old.engine_version == "1.4.0"
    assert row(old, quote).total_usd == Decimal("138.89")


def test_c2_separate_uploads_of_one_quote_form_one_sweep(api_client, lead, engineer):
    """Five single-point files at five concurrencies, no sweep name: read as one sweep, the
    row is costed at c16 (the last point meeting TTFT 500 ms), not at the c64 file."""
    from benchmarks.selectors import evidence_results_for

    brief, quote = audit_brief(lead), h100_quote(lead)
    api_client.force_authenticate(engineer)
    loads = ((4, 800, 0.1), (8, 1500, 0.2), (16, 2500, 0.4), (32, 3500, 0.9), (64, 4000, 1.5))
    for c, tps, ttft in reversed(loads):  # uploaded in any order
        upload(api_client, quote, brief, vllm_file(c, tps, ttft_s=ttft), name=f"c{c}.json")
    (entry,) = evidence_results_for([quote.pk], [quote.accelerator_id], brief.pk)
    assert [p["concurrency"] for p in entry["operating_points"]] == [4, 8, 16, 32, 64]
    assert len(entry["sweep_result_ids"]) == 5
    comparison = compare(lead, brief, [quote])
    got = row(comparison, quote)
    assert got.eligible, got.reasons
    assert got.total_usd == Decimal("138.89")  # 1.25e6 × 200 / 2,500 / 3,600 / 0.5 × 2.50
    assert got.performance["evidence"]["operating_point"].startswith("concurrency 16")


def test_c2_a_user_splits_a_group_by_naming_its_sweeps(api_client, lead, engineer):
    from benchmarks.selectors import evidence_results_for

    brief, quote = audit_brief(lead), h100_quote(lead)
    api_client.force_authenticate(engineer)
    for c, name in ((4, "morning"), (8, "morning"), (16, "evening"), (32, "evening")):
        upload(api_client, quote, brief, vllm_file(c, 100.0 * c), sweep=name)
    found = evidence_results_for([quote.pk], [quote.accelerator_id], brief.pk)
    assert sorted([p["concurrency"] for p in e["operating_points"]] for e in found) == [
        [4, 8],
        [16, 32],
    ]


def test_c2_repetitions_at_one_concurrency_are_one_point_with_their_spread(
    api_client, lead, engineer
):
    """Two runs at c16, 2,400 and 2,600 tok/s: one point at the mean 2,500 (never the best
    run, 2,600), its range kept."""
    brief, quote = audit_brief(lead), h100_quote(lead)
    api_client.force_authenticate(engineer)
    upload(api_client, quote, brief, vllm_file(8, 1500, ttft_s=0.2))
    upload(api_client, quote, brief, vllm_file(16, 2400, ttft_s=0.4))
    upload(api_client, quote, brief, vllm_file(16, 2600, ttft_s=0.4))
    comparison = compare(lead, brief, [quote])
    got = row(comparison, quote)
    assert got.total_usd == Decimal("138.89")
    (c16,) = [p for p in got.detail["operating_points"] if p["concurrency"] == 16]
    assert c16["label"].endswith("(mean of 2 runs)")
    assert c16["tokens_per_s"] == 2500.0


def test_n11_gpu_rows_without_a_storage_price_pay_the_stated_default(lead):
    """1,000 GB brief: the API row paid 23.00 of storage, the GPU row 0.00 (no storage price
    on its quote). Now both pay 1,000 × 0.023 = 23.00, and the GPU row says why."""
    from tests.factories import ModelApiRouteFactory

    brief, quote = audit_brief(lead, storage_gb=1000), h100_quote(lead)
    route = ModelApiRouteFactory(region="eu-west", model_profile=brief.model)
    comparison = compare(lead, brief, [quote], route_ids=[route.pk])
    assert Decimal(row(comparison, quote).cost_lines["storage"]) == Decimal("23.00")
    api = comparison.candidates.get(key=f"api:{route.pk}")
    assert Decimal(api.cost_lines["storage"]) == Decimal("23.00")
    applied = {(a["name"], a["candidate_id"]): a for a in comparison.result["assumptions_applied"]}
    stated = applied[("storage_price_per_gb_month", f"quote:{quote.pk}")]
    assert stated["label"] == "Storage price per GB-month (the quote states none)"
    assert Decimal(str(stated["value"])) == Decimal("0.023")
    priced = h100_quote(lead)
    priced.storage_per_gb_month = Decimal("0.05")
    priced.save(update_fields=["storage_per_gb_month"])
    again = compare(lead, brief, [priced])
    assert Decimal(row(again, priced).cost_lines["storage"]) == Decimal("50.00")  # its own
