"""The cheapest plan across offers, computed with every comparison and served by its API.

Hand-checked: every expected cost below is worked out from the rows' own fleets (replicas at
peak of one offer alone) and the quotes' prices, 730 hours a month."""

from __future__ import annotations

import csv
import io
import json
import re
from decimal import Decimal

import openpyxl
import pytest

from engine.plan.mixed_recommended import PLAN_MODELLED_LINES
from procurement.charts_plan import plan_name
from procurement.models import Comparison
from tests.comparisons.plan_world import l40s_beside_h200
from tests.deployments.conftest import h200_quote, run_rows, sweep_on
from tests.factories import ProviderFactory, WorkloadBriefFactory

pytestmark = pytest.mark.django_db
HOURS = Decimal(730)


@pytest.fixture
def big_brief(lead):
    """300 M answers a month at 300 output tokens: a fleet of many 8-GPU replicas."""
    return WorkloadBriefFactory(
        created_by=lead,
        monthly_accepted_outputs_low=200_000_000,
        monthly_accepted_outputs_likely=300_000_000,
        monthly_accepted_outputs_high=400_000_000,
    )


def _plan(api_client, user, comparison):
    api_client.force_authenticate(user)
    data = api_client.get(f"/api/v1/comparisons/{comparison.pk}/").json()
    assert data["status"] == Comparison.Status.READY
    return data["plan"], {c["key"]: c for c in data["candidates"]}


def _offers(lead, *, cheap_extra=None, dear_extra=None):
    cheap = h200_quote(
        lead,
        provider=ProviderFactory(name="Fabrikam", slug="fabrikam"),
        price_per_gpu_hour=Decimal("2.0000"),
        title="Fabrikam H200 reserved",
        **(cheap_extra or {}),
    )
    dear = h200_quote(
        lead,
        provider=ProviderFactory(name="Contoso", slug="contoso"),
        price_per_gpu_hour=Decimal("3.0000"),
        title="Contoso H200 reserved",
        **(dear_extra or {}),
    )
    sweep_on(lead, cheap, sha="a")
    sweep_on(lead, dear, sha="b")
    return cheap, dear


def test_a_the_cheapest_offers_capacity_then_the_next_offer(
    lead, finance, big_brief, checklist_items, api_client
):
    cheap, dear = _offers(lead, cheap_extra={"max_gpus_available": 16})
    comparison, rows = run_rows(lead, big_brief, [cheap, dear])
    assert not rows[cheap.pk].eligible  # the whole fleet does not fit its 16 GPUs
    plan, candidates = _plan(api_client, finance, comparison)
    single_gpus = candidates[f"quote:{dear.pk}"]["detail"]["fleet"]["gpus_peak"]
    assert single_gpus > 16
    assert plan["status"] == "optimal", plan
    parts = {v["offer_id"]: v for v in plan["vendors"]}
    lines = {ln["offer_id"]: ln for ln in plan["lines"]}
    assert lines[f"quote:{cheap.pk}"]["gpus"] == 16  # all of the cheapest offer's capacity
    assert lines[f"quote:{dear.pk}"]["gpus"] == single_gpus - 16  # the rest from the next
    cheap_cost = 16 * HOURS * Decimal(2)
    dear_cost = (single_gpus - 16) * HOURS * Decimal(3)
    assert Decimal(parts[f"quote:{cheap.pk}"]["monthly_cost"]) == cheap_cost
    assert Decimal(parts[f"quote:{dear.pk}"]["monthly_cost"]) == dear_cost
    assert Decimal(plan["monthly_cost"]) == cheap_cost + dear_cost
    single = single_gpus * HOURS * Decimal(3)
    assert Decimal(plan["best_single_cost"]) == single
    assert plan["best_single_label"] == candidates[f"quote:{dear.pk}"]["label"]
    assert Decimal(plan["saving_vs_single"]) == single - cheap_cost - dear_cost == 16 * HOURS
    # 12-month reservations: what is committed is every GPU held, over the term
    assert Decimal(plan["total_commitment"]) == (cheap_cost + dear_cost) * 12
    assert parts[f"quote:{cheap.pk}"]["term_months"] == 12
    unit = Decimal(plan["cost_per_accepted_output"])
    expected_unit = (cheap_cost + dear_cost) / Decimal(300_000_000)
    assert unit == pytest.approx(expected_unit, rel=Decimal("1e-6"))
    assert Decimal(plan["p10"]) <= Decimal(plan["p50"]) <= Decimal(plan["p90"])
    assert plan["capacity_limited"] == [f"quote:{cheap.pk}"]


def test_c_a_minimum_commitment_that_makes_the_split_dearer_means_no_split(
    lead, finance, big_brief, checklist_items, api_client
):
    # the cheap offer's 16 GPUs come with a 40-GPU monthly commitment: 40 × 730 × 2.00 paid
    # for 16 GPUs of work is dearer than the 16 × 730 × 1.00 the split would save
    cheap, dear = _offers(lead, cheap_extra={"max_gpus_available": 16, "min_commitment_gpus": 40})
    comparison, _ = run_rows(lead, big_brief, [cheap, dear])
    plan, candidates = _plan(api_client, finance, comparison)
    single_gpus = candidates[f"quote:{dear.pk}"]["detail"]["fleet"]["gpus_peak"]
    assert plan["status"] in {"optimal", "single"}, plan
    assert [v["offer_id"] for v in plan["vendors"]] == [f"quote:{dear.pk}"]
    assert plan["split"] is False
    assert Decimal(plan["monthly_cost"]) == single_gpus * HOURS * Decimal(3)
    assert Decimal(plan["saving_vs_single"]) == 0


def test_d_infeasible_capacity_gives_the_reason_and_the_comparison_stays_ready(
    lead, finance, big_brief, checklist_items, api_client
):
    cheap, dear = _offers(
        lead, cheap_extra={"max_gpus_available": 16}, dear_extra={"max_gpus_available": 16}
    )
    comparison, _ = run_rows(lead, big_brief, [cheap, dear])
    plan, candidates = _plan(api_client, finance, comparison)
    need = candidates[f"quote:{dear.pk}"]["detail"]["fleet"]["gpus_peak"]
    assert plan["status"] == "infeasible"
    short = need - 32
    nodes = -(-short // 8)
    assert plan["reason"] == f"capacity short by {short} GPUs ({nodes} node{'s' * (nodes != 1)})"
    assert plan["monthly_cost"] is None
    assert plan["vendors"] == []


def test_b_short_requests_on_a_cheaper_gpu_and_long_ones_on_a_larger_gpu(
    lead, finance, checklist_items, api_client
):
    """Prompts: mean 1,500, p95 3,000 tokens, 300 out; a 32k-token window. The long bucket
    (5 %) has the p95 prompt, the short one (95 %) (1,500 − 0.05 × 3,000) / 0.95 = 1,421
    tokens; a replica's time per request goes with its tokens (1,721 short, 3,300 long, 1,800
    at the mean). Both offers run the same measured sweep (8 GPUs, TP=8), so one replica of
    either carries 1/N of the peak at the mean, N the single-offer fleet. The L40S fits the
    p95 context but not the window, so it takes no long request: the long requests need
    0.05 × 3,300 / 1,800 × N = 0.0917 × N H200 replicas, 2 when N = 15, and the short ones the
    rest of the fleet's time, N − 2 L40S replicas (the H200s' spare time carries short ones).
    """
    brief, small, large = l40s_beside_h200(lead, window=32768)
    comparison, rows = run_rows(lead, brief, [small, large])
    assert rows[small.pk].eligible
    assert rows[large.pk].eligible
    assert rows[small.pk].fit["fits_at_context_window"] is False
    plan, candidates = _plan(api_client, finance, comparison)
    n = candidates[f"quote:{large.pk}"]["detail"]["fleet"]["replicas_peak"]
    assert n == 15
    assert [b["name"] for b in plan["buckets"]] == ["short", "long"]
    lines = {ln["offer_id"]: ln for ln in plan["lines"]}
    on_small, on_large = lines[f"quote:{small.pk}"], lines[f"quote:{large.pk}"]
    assert set(on_small["bucket_shares"]) == {"short"}  # no long request on the L40S
    assert on_large["bucket_shares"]["long"] == pytest.approx(1.0)
    assert (on_small["replicas"], on_large["replicas"]) == (n - 2, 2)
    cost = (n - 2) * 8 * HOURS * Decimal(1) + 2 * 8 * HOURS * Decimal(4)
    assert cost == Decimal("122640.00")
    assert Decimal(plan["monthly_cost"]) == cost
    # the only single GPU type that serves every request is the H200: 15 × 8 × 730 × 4.00
    assert Decimal(plan["best_single_cost"]) == n * 8 * HOURS * Decimal(4) == Decimal("350400")
    assert Decimal(plan["saving_vs_single"]) == Decimal("227760.00")
    assert plan["saving_pct"] == "65.0"


def _chart(html, element_id):
    match = re.search(rf'<script id="{element_id}" type="application/json">(.*?)</script>', html)
    assert match, element_id
    return json.loads(match.group(1))


def test_the_results_and_review_pages_show_the_plan_card_and_its_chart(
    lead, finance, big_brief, checklist_items, login
):
    cheap, dear = _offers(lead, cheap_extra={"max_gpus_available": 16})
    comparison, rows = run_rows(lead, big_brief, [cheap, dear])
    plan = comparison.result["plan"]
    client = login(finance)
    for path in ("", "review/"):
        html = client.get(f"/comparisons/{comparison.pk}/{path}").content.decode()
        assert "Cheapest plan across offers" in html, path
        saving = Decimal(plan["saving_vs_single"])
        assert saving == 16 * HOURS  # 16 GPUs at 1.00 less a GPU-hour, in the plan's model
        # in the rows' terms: the workload's own lines added back, storage at each vendor
        recommended = rows[dear.pk]
        own = Decimal(rows[cheap.pk].cost_lines["storage"]) + sum(
            (
                Decimal(value)
                for name, value in recommended.cost_lines.items()
                if name not in PLAN_MODELLED_LINES
            ),
            Decimal(0),
        )
        total = Decimal(plan["monthly_cost"]) + own
        assert Decimal(plan["monthly_total_usd"]) == total
        in_rows = recommended.total_usd - total
        assert in_rows == saving - Decimal(rows[cheap.pk].cost_lines["storage"])
        assert Decimal(plan["vs_recommended_usd"]) == in_rows
        assert (
            f"Saves USD {in_rows:,.2f} a month ({plan['vs_recommended_pct']} %) against the "
            f"recommended row, {recommended.label}"
        ) in html, path
        # what approving commits: each part's contract, or its 12 months of spend where that
        # is larger (its storage, 500 GB × 0.023 = 11.50 a month, billed by each vendor, P15)
        assert Decimal(plan["commitment_usd"]) - Decimal(plan["total_commitment"]) == 2 * 138
        assert f"Total commitment USD {Decimal(plan['commitment_usd']):,.2f}" in html
        assert "committed base (fixed)" in html
        assert rows[cheap.pk].label in html
        figure = _chart(html, "fig-mixed-plan")
        assert figure["layout"]["barmode"] == "stack"
        stacked = {t["name"]: t["x"][0] for t in figure["data"] if t["y"] == ["Cheapest plan"]}
        assert sum(stacked.values()) == pytest.approx(float(plan["monthly_cost"]))
        assert any(name.endswith("· committed base") for name in stacked)
        (single,) = [t for t in figure["data"] if t["name"] == "best single candidate"]
        assert single["x"] == [float(plan["best_single_cost"])]
        assert "<script>" not in html  # strict CSP: data only, plotted by the served JS
        table = html.split('data-plotly="fig-mixed-plan"')[1].split("</details>")[0]
        assert f"{plan_name(plan)} vs the best single" in table  # its data table follows it
        assert f"{int(Decimal(plan['best_single_cost'])):,}" in table


def test_no_plan_shows_the_reason_on_the_review_page(
    lead, finance, big_brief, checklist_items, login
):
    cheap, dear = _offers(
        lead, cheap_extra={"max_gpus_available": 16}, dear_extra={"max_gpus_available": 16}
    )
    comparison, _ = run_rows(lead, big_brief, [cheap, dear])
    assert comparison.status == Comparison.Status.READY
    html = login(finance).get(f"/comparisons/{comparison.pk}/review/").content.decode()
    assert "No plan across offers: capacity short by" in html
    assert 'id="fig-mixed-plan"' not in html


def test_the_exports_carry_the_plans_total_commitment_and_each_vendors_part(
    lead, finance, big_brief, checklist_items, login
):
    cheap, dear = _offers(lead, cheap_extra={"max_gpus_available": 16})
    comparison, _ = run_rows(lead, big_brief, [cheap, dear])
    plan = comparison.result["plan"]
    client = login(finance)
    response = client.get(f"/api/v1/comparisons/{comparison.pk}/export.csv")
    text = b"".join(response.streaming_content).decode("utf-8-sig")
    lines = {r["Key"]: r for r in csv.DictReader(io.StringIO(text))}
    assert lines["plan"]["Kind"] == "mixed plan"
    assert Decimal(lines["plan"]["Total (USD)"]) == Decimal(plan["monthly_cost"])
    assert Decimal(lines["plan"]["Commitment (USD)"]) == Decimal(plan["commitment_usd"])
    for part in plan["vendors"]:
        row = lines[f"plan:{part['offer_id']}"]
        assert row["Candidate"] == part["label"]
        assert Decimal(row["Commitment (USD)"]) == Decimal(part["commitment_usd"])
        assert row["Commitment term"] == "12 months"
    assert lines[f"plan:quote:{cheap.pk}"]["GPUs at peak"] == "16"
    response = client.get(f"/api/v1/comparisons/{comparison.pk}/export.xlsx")
    book = openpyxl.load_workbook(io.BytesIO(b"".join(response.streaming_content)))
    sheet = [[c.value for c in row] for row in book["Cheapest plan"].iter_rows()]
    header, total, *parts = sheet
    assert total[header.index("Commitment (USD)")] == float(plan["commitment_usd"])
    assert total[header.index("Solver outcome or reason")] == "optimal"
    assert {p[header.index("Key")] for p in parts} == {
        f"plan:quote:{cheap.pk}",
        f"plan:quote:{dear.pk}",
    }
