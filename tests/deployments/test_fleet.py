"""Every row says its fleet and what is bought; the whole peak fleet must fit the offer."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import openpyxl
import pytest

from engine.types import HOURS_PER_MONTH
from tests.deployments.conftest import h200_quote, run_rows, sweep_on
from tests.factories import WorkloadBriefFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def big_brief(lead):
    """300 M answers a month at 300 output tokens: a fleet of many 8-GPU replicas."""
    return WorkloadBriefFactory(
        created_by=lead,
        monthly_accepted_outputs_low=200_000_000,
        monthly_accepted_outputs_likely=300_000_000,
        monthly_accepted_outputs_high=400_000_000,
    )


def _api_row(api_client, user, comparison, quote):
    api_client.force_authenticate(user)
    data = api_client.get(f"/api/v1/comparisons/{comparison.pk}/").json()
    return next(c for c in data["candidates"] if c["key"] == f"quote:{quote.pk}")


def test_v3_a_reserved_row_says_its_fleet_and_what_is_bought_through_the_api(
    lead, finance, big_brief, checklist_items, api_client
):
    quote = h200_quote(lead)
    sweep_on(lead, quote)
    comparison, _ = run_rows(lead, big_brief, [quote])
    row = _api_row(api_client, finance, comparison, quote)
    fleet = row["detail"]["fleet"]
    assert fleet["gpus_per_replica"] == 8
    assert fleet["replicas_peak"] > fleet["replicas_average"] >= 1  # peak-to-average 2.0
    assert fleet["gpus_peak"] == fleet["replicas_peak"] * 8
    assert fleet["nodes_peak"] == fleet["gpus_peak"] // 8
    # the fleet is what the cost lines bill: every GPU held all month
    assert Decimal(row["detail"]["billed_gpu_hours"]) == fleet["gpus_peak"] * HOURS_PER_MONTH
    assert fleet["bought"] == (
        f"{fleet['nodes_peak']} × 8-GPU H200 SXM 141GB nodes, 12 months, reserved"
    )
    assert fleet["spend_kind"] == "commitment"


def test_v3_spot_shows_an_expected_spend_and_warns_for_a_real_time_class(
    lead, finance, big_brief, checklist_items, api_client, login
):
    quote = h200_quote(lead, capacity_model="spot", term_months=0, title="H200 spot")
    sweep_on(lead, quote)
    comparison, _ = run_rows(lead, big_brief, [quote])
    row = _api_row(api_client, finance, comparison, quote)
    fleet = row["detail"]["fleet"]
    assert fleet["spend_kind"] == "expected spend"
    assert "not a commitment" in fleet["bought"]
    codes = [w["code"] for w in row["warnings"]]
    assert "SPOT_FOR_REALTIME" in codes
    # P4: a real-time brief with latency targets is never recommended spot alone (this
    # test once read the spot row's words on the recommendation's review page)
    comparison.refresh_from_db()
    assert not comparison.recommended_key
    html = login(finance).get(f"/comparisons/{comparison.pk}/review/").content.decode()
    assert "not recommended on spot alone" in html
    assert "12-month commitment" not in html


def test_v3_capacity_a_peak_fleet_beyond_the_offer_is_ineligible_with_the_reason(
    lead, big_brief, checklist_items
):
    quote = h200_quote(lead, max_gpus_available=16)
    sweep_on(lead, quote)
    _, rows = run_rows(lead, big_brief, [quote])
    row = rows[quote.pk]
    fleet = row.detail["fleet"]
    assert fleet["gpus_peak"] > 16
    assert not row.eligible
    assert any(
        r.startswith(f"needs {fleet['nodes_peak']} nodes ({fleet['gpus_peak']} GPUs) at peak")
        and r.endswith("offers 2 nodes (16 GPUs)")
        for r in row.reasons
    ), row.reasons


def test_v3_capacity_not_stated_is_a_warning_above_the_fleet_size(lead, big_brief, checklist_items):
    quote = h200_quote(lead)  # states no capacity
    sweep_on(lead, quote)
    _, rows = run_rows(lead, big_brief, [quote])
    row = rows[quote.pk]
    assert row.detail["fleet"]["gpus_peak"] > 64
    assert "CAPACITY_NOT_STATED" in [w["code"] for w in row.warnings]


def test_v3_exports_carry_replicas_gpus_nodes_and_what_is_bought(
    lead, finance, big_brief, checklist_items, login
):
    quote = h200_quote(lead)
    sweep_on(lead, quote)
    comparison, rows = run_rows(lead, big_brief, [quote])
    fleet = rows[quote.pk].detail["fleet"]
    client = login(finance)
    response = client.get(f"/api/v1/comparisons/{comparison.pk}/export.csv")
    text = b"".join(response.streaming_content).decode("utf-8-sig")
    (line,) = [r for r in csv.DictReader(io.StringIO(text)) if r["Key"] == f"quote:{quote.pk}"]
    assert line["GPUs at peak"] == str(fleet["gpus_peak"])
    assert line["Replicas at peak"] == str(fleet["replicas_peak"])
    assert line["Nodes at peak"] == str(fleet["nodes_peak"])
    assert line["What is bought"] == fleet["bought"]
    assert line["Configuration"] == "8 GPUs (TP=8, PP=1), bf16, vllm"
    response = client.get(f"/api/v1/comparisons/{comparison.pk}/export.xlsx")
    body = b"".join(response.streaming_content)
    sheet = openpyxl.load_workbook(io.BytesIO(body))["Candidates"]
    header = [c.value for c in sheet[1]]
    values = [c.value for c in sheet[2]]
    assert values[header.index("GPUs at peak")] == fleet["gpus_peak"]
    assert values[header.index("What is bought")] == fleet["bought"]


def test_v3_the_card_record_and_bar_say_what_is_bought(
    lead, finance, big_brief, checklist_items, login
):
    quote = h200_quote(lead)
    comparison, rows = run_rows(lead, big_brief, [quote])  # no benchmark: estimated only
    bought = rows[quote.pk].detail["fleet"]["bought"]
    client = login(finance)
    for path in ("", "review/", "record/"):
        html = client.get(f"/comparisons/{comparison.pk}/{path}").content.decode()
        assert bought in html, path
    html = client.get(f"/comparisons/{comparison.pk}/review/").content.decode()
    assert "No measured evidence" in html
    assert "run the benchmark plan before approving" in html.lower()


def test_v3_capacity_states_from_when_and_the_lead_time_on_the_row(
    lead, big_brief, checklist_items, login
):
    from datetime import timedelta

    from django.utils import timezone

    start = timezone.now() + timedelta(days=45)
    quote = h200_quote(
        lead, max_gpus_available=256, capacity_available_from=start, capacity_lead_time_days=30
    )
    sweep_on(lead, quote)
    comparison, rows = run_rows(lead, big_brief, [quote])
    capacity = rows[quote.pk].detail["capacity"]
    assert capacity["max_gpus_available"] == 256
    assert capacity["lead_time_days"] == 30
    assert capacity["available_from"].startswith(f"{start:%Y-%m-%d}")
    html = login(lead).get(comparison.get_absolute_url()).content.decode()
    assert f"256 GPUs offered from {start:%Y-%m-%d}, lead time 30 days" in html
    # and the RFQ asks every vendor for them
    html = login(lead).get(f"/catalog/rfqs/new/?brief={big_brief.pk}").content.decode()
    assert "how many GPUs you can provide in total, from when, and with which lead time" in html
    assert "sold by the GPU or only in whole nodes" in html  # P3: the unit of sale


def test_v3_capacity_not_stated_threshold_is_an_assumption_of_the_comparison(
    lead, big_brief, checklist_items
):
    from procurement.models import CandidateResult
    from procurement.services.comparisons import comparison_create, comparison_run

    quote = h200_quote(lead)
    sweep_on(lead, quote)
    comparison = comparison_create(
        acting_user=lead,
        brief=big_brief,
        quote_ids=[quote.pk],
        seed=7,
        assumptions={"capacity_unstated_warn_gpus": 10_000},
    ).comparison
    comparison_run(comparison_id=comparison.pk)
    row = CandidateResult.objects.get(comparison=comparison, key=f"quote:{quote.pk}")
    assert "CAPACITY_NOT_STATED" not in [w["code"] for w in row.warnings]
