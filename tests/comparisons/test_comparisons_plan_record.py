"""Issue 26: an approved plan in the record, the exports, the API, the review page, and its
price-change flag (the world and its arithmetic: tests/comparisons/plan_world.py).

Fabrikam: 16 GPUs × 730 × 2.00 = 23,360.00 a month, a 12-month contract of 280,320.00, below
its 12 months of spend with the 11.50 a month of storage it bills (23,371.50 × 12 = 280,458.00);
Contoso: 104 GPUs × 730 × 3.00 = 227,760.00 a month, a 1-month contract, 12 months of spend
over the brief's 12-month horizon = 227,771.50 × 12 = 2,733,258.00. The plan: 251,120.00 a
month, committing 3,013,716.00.
"""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import openpyxl
import pytest
from django.core import mail

from catalog.services.quotes import quote_revise
from procurement.models import Comparison, PriceChange
from procurement.services.reviews import review_submit
from tests.comparisons.plan_world import (
    CONTOSO_GPUS,
    FABRIKAM_MONTHLY,
    HOURS,
    STORAGE_MONTHLY,
    computed,
    contoso_reserved,
    fabrikam,
    plan_brief,
)
from tests.reviews.factories_reviews import deliver_price_changes

pytestmark = pytest.mark.django_db

CONTOSO_MONTHLY = CONTOSO_GPUS * HOURS * Decimal(3)  # 227,760.00
FABRIKAM_COMMITMENT = (FABRIKAM_MONTHLY + STORAGE_MONTHLY) * 12  # 280,458.00
CONTOSO_COMMITMENT = (CONTOSO_MONTHLY + STORAGE_MONTHLY) * 12  # 2,733,258.00
PLAN_MONTHLY = FABRIKAM_MONTHLY + CONTOSO_MONTHLY  # 251,120.00
PLAN_COMMITMENT = FABRIKAM_COMMITMENT + CONTOSO_COMMITMENT  # 3,013,716.00


@pytest.fixture
def approved(lead, finance, checklist_items, settings, django_capture_on_commit_callbacks):
    """The plan approved by finance alone (the threshold is above its commitment)."""
    settings.DUAL_APPROVAL_THRESHOLD_USD = 10_000_000
    cheap, dear = fabrikam(lead), contoso_reserved(lead, term_months=1)
    comparison, rows = computed(lead, plan_brief(lead, horizon_months=12), [cheap, dear])
    with django_capture_on_commit_callbacks(execute=True):
        review_submit(
            acting_user=finance,
            comparison=comparison,
            decision="approve",
            comment="Both vendors' parts checked.",
            candidate_key="plan",
            justification="The split saves 11,680.00 a month.",
        )
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.APPROVED
    mail.outbox.clear()
    return comparison, cheap, dear, rows


def test_the_record_shows_each_vendors_part_of_the_approved_plan(approved, login, finance):
    comparison, cheap, dear, rows = approved
    html = login(finance).get(f"/comparisons/{comparison.pk}/record/").content.decode()
    assert "the cheapest plan across offers</strong>: 2 vendor offers, commitment" in html
    assert f"USD {PLAN_COMMITMENT:,.2f}" in html  # USD 3,013,440.00
    assert f"USD {PLAN_MONTHLY:,.2f} a month" in html
    section = html.split('id="plan-decision"')[1].split("</table>")[0]
    for row, commitment, term in (
        (rows[cheap.pk], FABRIKAM_COMMITMENT, "12-month term"),
        (rows[dear.pk], CONTOSO_COMMITMENT, "1-month term"),
    ):
        assert row.label in section
        assert f"{commitment:,.2f}" in section
        assert term in section
        assert row.detail["configuration"]["words"] in section
    assert "Approved row" not in html  # the plan, not a row, was approved


def test_the_exports_and_the_api_carry_each_vendors_part(approved, login, finance, api_client):
    comparison, cheap, dear, rows = approved
    client = login(finance)
    text = b"".join(
        client.get(f"/api/v1/comparisons/{comparison.pk}/export.csv").streaming_content
    ).decode("utf-8-sig")
    lines = {r["Key"]: r for r in csv.DictReader(io.StringIO(text))}
    assert lines["plan"]["Candidate"] == "Cheapest plan across offers (approved)"
    assert Decimal(lines["plan"]["Commitment (USD)"]) == PLAN_COMMITMENT
    assert Decimal(lines["plan"]["Total (USD)"]) == PLAN_MONTHLY
    fab, con = lines[f"plan:quote:{cheap.pk}"], lines[f"plan:quote:{dear.pk}"]
    assert fab["Candidate"] == f"{rows[cheap.pk].label} (approved)"
    assert (Decimal(fab["Commitment (USD)"]), fab["Commitment term"]) == (
        FABRIKAM_COMMITMENT,
        "12-month term",
    )
    assert (Decimal(con["Commitment (USD)"]), con["Commitment term"]) == (
        CONTOSO_COMMITMENT,
        "1-month term",
    )
    assert con["GPUs at peak"] == str(CONTOSO_GPUS)
    assert fab["Configuration"] == rows[cheap.pk].detail["configuration"]["words"]

    book = openpyxl.load_workbook(
        io.BytesIO(
            b"".join(
                client.get(f"/api/v1/comparisons/{comparison.pk}/export.xlsx").streaming_content
            )
        )
    )
    header, total, *parts = [[c.value for c in r] for r in book["Cheapest plan"].iter_rows()]
    col = {name: header.index(name) for name in header}
    assert total[col["Approved"]] == "yes"
    assert total[col["Commitment (USD)"]] == float(PLAN_COMMITMENT)
    by_key = {p[col["Key"]]: p for p in parts}
    con_sheet = by_key[f"plan:quote:{dear.pk}"]
    assert con_sheet[col["Approved"]] == "yes"
    assert con_sheet[col["Contracted (USD)"]] == float(CONTOSO_MONTHLY)  # 1 month
    assert con_sheet[col["Commitment (USD)"]] == float(CONTOSO_COMMITMENT)  # 12 of spend
    assert con_sheet[col["Checklist level"]] == "full"

    api_client.force_authenticate(finance)
    body = api_client.get(f"/api/v1/comparisons/{comparison.pk}/").json()
    plan = body["approved_plan"]
    assert plan["commitment_usd"] == "3013716.00"
    assert plan["monthly_cost_usd"] == "251120.00"
    assert plan["approved_by"] == [finance.username]
    assert [(p["key"], p["commitment_usd"], p["term"], p["gpus"]) for p in plan["parts"]] == [
        (f"quote:{cheap.pk}", "280458.00", "12-month term", 16),
        (f"quote:{dear.pk}", "2733258.00", "1-month term", CONTOSO_GPUS),
    ]
    reviews = api_client.get(f"/api/v1/comparisons/{comparison.pk}/reviews/").json()
    (review,) = reviews["results"]
    assert review["candidate"] == "plan"
    assert [p["quote_id"] for p in review["plan_parts"]] == [cheap.pk, dear.pk]


def test_a_price_change_on_the_second_vendors_quote_flags_the_approved_plan(
    approved, lead, finance, login, django_capture_on_commit_callbacks
):
    comparison, _cheap, dear, rows = approved
    with django_capture_on_commit_callbacks(execute=True):
        new = quote_revise(
            acting_user=lead, quote=dear, data={"price_per_gpu_hour": Decimal("3.30")}
        )
    deliver_price_changes()  # the worker's run, published on commit
    flag = PriceChange.objects.get(comparison=comparison)
    assert flag.on_plan
    assert (flag.candidate, flag.approved_quote, flag.new_quote) == (rows[dear.pk], dear, new)
    assert (flag.old_price, flag.new_price) == (Decimal("3.0000"), Decimal("3.30"))
    impact = flag.impact
    assert impact["plan"] is True
    assert impact["pct_change"] == "10.00"
    assert impact["needs_reapproval"] is True  # above the 5 % tolerance
    assert Decimal(impact["old_plan_monthly_usd"]) == PLAN_MONTHLY
    assert Decimal(impact["old_commitment_usd"]) == PLAN_COMMITMENT
    # Contoso's part at 3.30: 104 × 730 × 3.30 = 250,536.00; the split stays the cheapest
    new_part = CONTOSO_GPUS * HOURS * Decimal("3.30")
    assert Decimal(impact["new_part_monthly_usd"]) == new_part == Decimal("250536.00")
    assert Decimal(impact["new_plan_monthly_usd"]) == FABRIKAM_MONTHLY + new_part
    assert impact["same_vendors"] is True
    # told as for an approved row: the approver and the comparison's owner
    assert sorted(m.to[0] for m in mail.outbox) == sorted([finance.email, lead.email])
    body = mail.outbox[0].body
    assert "one vendor's part of the approved cheapest plan across offers" in body
    assert f"this vendor's part: USD {CONTOSO_MONTHLY:,.2f} a month -> USD 250,536.00" in body

    record = login(finance).get(f"/comparisons/{comparison.pk}/record/").content.decode()
    assert "Price changed since approval" in record
    assert "A vendor part of the approved cheapest plan across offers" in record
    assert f"quote #{dear.pk}" in record


def test_a_price_change_on_a_quote_outside_the_approved_plan_flags_nothing(
    approved, lead, checklist_items
):
    comparison, *_ = approved
    other = contoso_reserved(lead, term_months=12)
    quote_revise(acting_user=lead, quote=other, data={"price_per_gpu_hour": Decimal("3.30")})
    assert not PriceChange.objects.filter(comparison=comparison).exists()
