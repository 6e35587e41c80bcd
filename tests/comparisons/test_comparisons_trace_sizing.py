"""Issue 42 through a comparison: a brief with a traffic trace has each eligible GPU row sized
from it — replicas a minute, SLO attainment, the fewest GPUs and the least money a month at the
row's centre, p10 and p90 throughput — beside what the peak-to-average sizing bought; the
trace is frozen by its sha256 and read again on the worker."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from briefs.services.traces import traffic_trace_read, traffic_trace_upload
from catalog.models import Accelerator, ModelProfile
from catalog.services.seed_data import catalog_load
from engine.trace import CurvePoint, OperatingCurve, RequestTrace, size_trace, sustainable_point
from procurement.models import CandidateResult, Comparison
from procurement.services.comparisons import comparison_create, comparison_run
from tests.comparisons.factories_comparisons import answer_checklist
from tests.factories import ProviderFactory, QuoteFactory, WorkloadBriefFactory

pytestmark = pytest.mark.django_db


def _azure_trace(minutes: int = 5, seed: int = 11) -> tuple[str, RequestTrace]:
    """A bursty five minutes in the Azure trace's layout: 3 requests a second, 12 a second in
    the third minute; prompts 200–3,000 tokens, outputs 20–600."""
    rng = np.random.default_rng(seed)
    rows, arrivals, prompts, outputs = [], [], [], []
    t = 0.0
    while True:
        rate = 12.0 if 120 <= t < 180 else 3.0
        t += float(rng.exponential(1 / rate))
        if t >= minutes * 60:
            break
        prompt, out = int(rng.integers(200, 3000)), int(rng.integers(20, 600))
        whole = int(t)
        micro = min(9_999_999, round((t - whole) * 1e7))
        rows.append(f"2023-11-16 18:{whole // 60:02d}:{whole % 60:02d}.{micro:07d},{prompt},{out}")
        arrivals.append(whole + micro / 1e7)
        prompts.append(prompt)
        outputs.append(out)
    body = "TIMESTAMP,ContextTokens,GeneratedTokens\n" + "\n".join(rows) + "\n"
    a = np.asarray(arrivals)
    return body, RequestTrace.of(a - a[0], prompts, outputs)


def traced_world(lead, **h200: object) -> tuple[object, list[object], RequestTrace]:
    """A Llama 3.1 70B brief with the bursty trace read, and an H100 and an H200 quote of one
    provider whose checklist is answered (``h200``: the H200 quote's own fields)."""
    catalog_load()
    brief = WorkloadBriefFactory(
        created_by=lead, model=ModelProfile.objects.get(slug="llama-3-1-70b")
    )
    body, trace = _azure_trace()
    uploaded = traffic_trace_upload(
        brief=brief,
        upload=SimpleUploadedFile("bursty.csv", body.encode()),
        window="hour",
        acting_user=lead,
    )
    traffic_trace_read(trace_id=uploaded.pk)
    provider = ProviderFactory(name="Traced GPUs", slug="traced-gpus")
    answer_checklist(provider, lead)
    quotes = [
        QuoteFactory(
            provider=provider,
            entered_by=lead,
            accelerator=Accelerator.objects.get(slug=slug),
            **fields,
        )
        for slug, fields in (("h100-sxm-80gb", {}), ("h200-sxm-141gb", h200))
    ]
    return brief, quotes, trace


@pytest.fixture
def world(lead, settings, tmp_path, checklist_items):
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {**settings.STORAGES["default"], "OPTIONS": {"location": str(tmp_path)}},
    }
    return traced_world(
        lead, capacity_model="reserved", term_months=12, price_per_gpu_hour=Decimal("3.20")
    )


def test_each_eligible_row_is_sized_from_the_trace(lead, world) -> None:
    brief, quotes, trace = world
    comparison = comparison_create(
        acting_user=lead, brief=brief, quote_ids=[q.pk for q in quotes], seed=3
    ).comparison
    comparison_run(comparison_id=comparison.pk)
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.READY, comparison.error
    assert comparison.snapshot["traffic_trace"]["window"] == "hour"
    facts = comparison.result["trace"]
    assert facts["status"] == "replayed", facts
    assert "a representative hour" in facts["scaling"]
    # 3,000,000 accepted a month ÷ 0.92 = 3,260,870 requests, 4,467 in an hour (730 a month),
    # 372 in the five minutes the trace covers: each traced request counts 372 ÷ its count.
    assert facts["factor"] == pytest.approx(3_000_000 / 0.92 / 730 / 12 / trace.requests)
    rows = [r for r in CandidateResult.objects.filter(comparison=comparison) if r.eligible]
    assert rows, [r.reasons for r in CandidateResult.objects.filter(comparison=comparison)]
    for row in rows:
        sizing = row.detail["trace_sizing"]
        centre, low, high = (sizing["profiles"][p] for p in ("centre", "p10", "p90"))
        assert centre["holds"], sizing
        assert len(centre["replicas"]) == 5  # one a minute
        # the burst of the third minute needs the most replicas
        assert centre["replicas"][2] == max(centre["replicas"])
        assert centre["attainment"] >= 0.95
        # a slower profile never needs fewer replicas; a faster never more
        assert low["fixed_replicas"] >= centre["fixed_replicas"] >= high["fixed_replicas"]
        assert Decimal(sizing["pessimistic_extra_monthly"]) >= 0
        # the replay is the engine's own, at the row's point (reproduced here)
        gpus = row.detail["fleet"]["gpus_per_replica"]
        assert centre["fixed_gpus"] == centre["fixed_replicas"] * gpus
        if row.capacity_model == "reserved":
            hours = Decimal(centre["fixed_replicas"] * gpus * 730)
            assert Decimal(centre["monthly_cost"]) == (hours * row.hourly_price_usd).quantize(
                Decimal("0.01")
            )
            assert centre["basis"] == "fixed fleet"
        else:
            assert centre["basis"] == "as used"
        assert sizing["peak_to_average_gpus"] == row.detail["fleet"]["gpus_peak"]
    assert {c["key"] for c in facts["curves"]} == {r.key for r in rows}
    # The plan across offers splits the trace's own requests and takes its load curve.
    plan = comparison.result["plan"]
    source = plan["buckets_source"]
    assert source["source"] == "trace", source
    assert "the traffic trace bursty.csv" in source["words"]
    assert source["measured_requests"] == trace.requests
    # Robust to the profile: the plan solved again at every offer's p10 throughput, and what
    # holding the service level there costs over the centre's plan.
    pessimistic = plan["pessimistic"]
    assert pessimistic["status"] == "solved", pessimistic
    extra = Decimal(pessimistic["monthly_cost"]) - Decimal(plan["monthly_cost"])
    assert Decimal(pessimistic["extra_monthly"]) == extra
    assert extra >= 0
    assert f"USD {extra:,.2f} more than at the centre" in pessimistic["words"]
    cheapest = facts["curves"][0]["key"]
    shape = next(r for r in rows if r.key == cheapest).detail["trace_sizing"]["profiles"]
    assert [round(x + 0.49999) for x in facts["load_shape"]] == shape["centre"]["replicas"]


def test_the_plan_takes_the_traces_load_duration_curve() -> None:
    """A load curve 1, 1, 2, 4 (peak-to-average 2) sets the demand's ratio and its layers:
    capacity for the bottom half of the peak serves 75 % of the month, as the curve says."""
    from engine.plan.mixed_types import PlanDemand
    from tests.engine.builders import fixed_energy

    demand = PlanDemand(monthly_outputs=1e6, peak_to_average=1.0, load_shape=(1, 1, 2, 4))
    assert demand.peak_to_average == 2.0
    assert fixed_energy(0.5, demand.peak_to_average, 10, demand.load_shape) == pytest.approx(0.75)
    # the analytic curve at the same ratio (linear at 2) says 75 % too; a burstier trace less
    bursty = PlanDemand(monthly_outputs=1e6, load_shape=(1, 1, 1, 1, 1, 1, 1, 9))
    assert fixed_energy(0.5, bursty.peak_to_average, 10, bursty.load_shape) < 0.75


def test_a_changed_trace_file_is_not_replayed(lead, world) -> None:
    """The worker reads the frozen file again and checks its sha256."""
    from django.core.files.storage import default_storage

    from briefs.models import TrafficTrace

    brief, quotes, _ = world
    comparison = comparison_create(
        acting_user=lead, brief=brief, quote_ids=[q.pk for q in quotes], seed=3
    ).comparison
    stored = TrafficTrace.objects.get().raw_file.name
    with default_storage.open(stored, "wb") as handle:
        handle.write(b"TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:00:00,1,1\n")
    comparison_run(comparison_id=comparison.pk)
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.READY
    assert comparison.result["trace"]["status"] == "not replayed"
    assert "changed since" in comparison.result["trace"]["reason"]


def test_the_replay_at_a_rows_point_is_the_engines() -> None:
    """The row's point as a one-point curve (Little's law on its latencies) gives the same
    replicas as the engine's replay called directly."""
    _, trace = _azure_trace()
    point = CurvePoint(8.0, 400.0, 500.0, 40.0)
    curve = OperatingCurve.of([point], input_tokens=1500, output_tokens=300)
    held = sustainable_point(curve, ttft_p95_ms=800, itl_p95_ms=60)
    assert held is not None
    assert held.concurrency == 8.0
    sizing = size_trace(trace, curve, held)
    assert sizing.replicas[2] == sizing.peak_replicas


def test_the_results_review_pages_and_api_show_the_trace_sizing(
    lead, finance, world, client, api_client
) -> None:
    brief, quotes, trace = world
    comparison = comparison_create(
        acting_user=lead, brief=brief, quote_ids=[q.pk for q in quotes], seed=3
    ).comparison
    comparison_run(comparison_id=comparison.pk)
    client.force_login(lead)
    page = client.get(f"/comparisons/{comparison.pk}/").content.decode()
    assert "Sized from the traffic trace" in page
    assert 'id="trace-sizing-table"' in page
    assert 'id="plan-pessimistic"' in page
    assert "fig-trace" in page
    assert f"{trace.requests:,} requests" in page
    client.force_login(finance)
    review = client.get(f"/comparisons/{comparison.pk}/review/").content.decode()
    assert "Sized from the traffic trace" in review
    api_client.force_authenticate(finance)
    body = api_client.get(f"/api/v1/comparisons/{comparison.pk}/").json()
    assert body["trace"]["status"] == "replayed"
    sized = [c for c in body["candidates"] if "trace_sizing" in (c.get("detail") or {})]
    assert sized
    assert sized[0]["detail"]["trace_sizing"]["profiles"]["centre"]["holds"] is True
