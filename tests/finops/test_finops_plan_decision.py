"""An approved plan across offers is FinOps-ready (issue 40: U18, P9): it shows as approved,
exports one FOCUS commitment per vendor's part and ties each part's price row to it, and each
month is reconciled per vendor, from one consolidated bill or one bill per vendor, on the page
and in the REST API.

The plan by hand (`plan_decision`): Provider A's reserved part, 2,000 GPU-hours a month at
USD 2.50 for 12 months (USD 5,000 a month, contract and commitment USD 60,000, 24,000
GPU-hours), and Provider B's on-demand overflow, up to 2 GPUs at peak, USD 1,000 a month with
no term (commitment: 12 months of spend, USD 12,000). Plan: USD 6,000 a month for 1,000,000
accepted outputs, USD 0.006 an output.
"""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from finops.models import BillingImport, Reconciliation
from finops.tasks import billing_import_run_task
from procurement.models import Comparison
from tests.finops.test_finops_imports import HEADER, MARCH, count, line, run

pytestmark = pytest.mark.django_db

# March: A bills 5,000 GPU + 100 storage, B 1,200 GPU (400 GPU-hours), another cloud 77.
A_ROWS = line("5000.00", "2000", "GPU-Hours", sku="a-h100") + line(
    "100.00", "400", "GB-Month", sku="a-disk"
)
B_ROWS = line("1200.00", "400", "GPU-Hours", provider="Provider B", sku="b-h100")
OTHER = line("77.00", "1", "Hours", provider="Other Cloud")
BOTH = ["Provider A", "Provider B"]


@pytest.fixture
def plan_decision(db, lead, finance_other, settings, tmp_path):
    from core.roles import Role
    from procurement.models import CandidateResult, PlanPart, Review
    from tests.factories import ComparisonFactory, QuoteFactory, WorkloadBriefFactory
    from tests.support.cast import build_provider

    settings.STORAGES = {
        **settings.STORAGES,
        "default": {**settings.STORAGES["default"], "OPTIONS": {"location": str(tmp_path)}},
    }
    qa = QuoteFactory(provider=build_provider("provider_a"), capacity_model="reserved")
    qb = QuoteFactory(provider=build_provider("provider_b"), capacity_model="on_demand")
    brief = WorkloadBriefFactory(created_by=lead, acceptance_rate_likely=0.9, horizon_months=12)
    plan = {
        "status": "optimal",
        "split": True,
        "horizon_months": 12,
        "monthly_cost": "6000.00",
        "accepted_outputs": "1000000",
        "commitment_usd": "72000.00",
        "vendors": [
            {"offer_id": "a", "label": "A reserved", "capacity": "fixed",
             "monthly_cost": "5000.00", "committed_gpu_hours_per_month": "2000",
             "term_months": 12, "commitment_total": "60000.00", "commitment_usd": "60000.00"},
            {"offer_id": "b", "label": "B on demand", "capacity": "elastic",
             "monthly_cost": "1000.00", "committed_gpu_hours_per_month": "0",
             "term_months": 0, "commitment_total": "0", "commitment_usd": "12000.00"},
        ],
        "lines": [
            {"offer_id": "a", "role": "base", "capacity": "fixed", "replicas": 1, "gpus": 8,
             "billed_gpu_hours": "2000"},
            {"offer_id": "b", "role": "overflow", "capacity": "elastic", "replicas": 0,
             "gpus": 2, "billed_gpu_hours": "400"},
        ],
    }  # fmt: skip
    comparison = ComparisonFactory(
        title="Chat split across two vendors",
        brief=brief,
        created_by=lead,
        status=Comparison.Status.APPROVED,
        recommended_key="a",
        commitment_usd=Decimal("66000.00"),  # the recommended row's, not the plan's
        decided_at=datetime(2026, 3, 10, 15, 30, tzinfo=UTC),
        result={"plan": plan},
    )
    rows = {
        key: CandidateResult.objects.create(
            comparison=comparison,
            key=key,
            kind=CandidateResult.Kind.GPU,
            quote=quote,
            label=str(quote),
            provider_name=quote.provider.name,
            capacity_model=quote.capacity_model,
            gpus=8,
            hourly_price_usd=price,
            total_usd=Decimal("5500.00"),
            accepted_outputs=Decimal("1000000"),
            rank=rank,
        )
        for key, quote, price, rank in (("a", qa, Decimal("2.5"), 1), ("b", qb, Decimal(3), 2))
    }
    review = Review.objects.create(
        comparison=comparison,
        comparison_creator=lead,
        reviewer=finance_other,
        reviewer_role=Role.FINANCE_REVIEWER,
        decision=Review.Decision.APPROVE,
        approves_plan=True,
        comment="Checked each part.",
    )
    for position, (
        key,
        label,
        capacity,
        replicas,
        gpus,
        monthly,
        commit,
        contract,
        term,
    ) in enumerate(
        [
            ("a", "A reserved", "fixed", 1, 8, "5000.00", "60000.00", "60000.00", 12),
            ("b", "B on demand", "elastic", 0, 2, "1000.00", "12000.00", "0", 0),
        ]
    ):
        PlanPart.objects.create(
            review=review,
            comparison=comparison,
            candidate=rows[key],
            position=position,
            label=label,
            capacity=capacity,
            role="committed base" if key == "a" else "overflow",
            replicas=replicas,
            gpus=gpus,
            monthly_cost_usd=Decimal(monthly),
            commitment_usd=Decimal(commit),
            contract_usd=Decimal(contract),
            term_months=term,
            term=f"{term}-month term" if term else "no term (on demand)",
            checklist_level="basic",
        )
    return comparison


def _csv(response) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(response.content.decode())))


def test_the_plans_page_shows_it_approved_with_one_commitment_per_vendor(
    client, plan_decision, finance
) -> None:
    client.force_login(finance)
    page = client.get(f"/finops/decisions/{plan_decision.pk}/").content.decode()
    assert "not approved" not in page
    assert "not an approved decision" not in page
    assert 'id="plan-lines"' in page
    assert "A reserved: 12 months" in page
    assert "B on demand: 12 months" in page
    assert "USD 60,000.00" in page
    assert "USD 12,000.00" in page
    assert "24,000 GPU-Hours" in page  # 2,000 a month × 12
    assert 'id="import-bill"' in page
    assert 'value="Provider A, Provider B"' in page
    listed = client.get("/finops/").content.decode()
    assert listed.count("USD 72,000.00") == 1
    assert "USD 72,000.00" in listed  # the plan's total, not the row's 66,000.00
    assert "USD 66,000.00" not in listed


def test_the_focus_export_carries_every_vendors_commitment_and_price(
    api_client, plan_decision, finance
) -> None:
    api_client.force_authenticate(finance)
    base = f"/api/v1/finops/decisions/{plan_decision.pk}/focus"
    commitments = api_client.get(f"{base}/commitments/")
    assert commitments.status_code == 200, commitments.content
    rows = {r["ServiceProviderName"]: r for r in _csv(commitments)}
    assert set(rows) == {"Provider A", "Provider B"}
    a, b = rows["Provider A"], rows["Provider B"]
    assert (Decimal(a["ContractCommitmentCost"]), a["ContractCommitmentCategory"]) == (
        Decimal("60000.00"),
        "Usage",
    )
    assert Decimal(a["ContractCommitmentQuantity"]) == Decimal(24000)
    assert (Decimal(b["ContractCommitmentCost"]), b["ContractCommitmentCategory"]) == (
        Decimal("12000.00"),
        "Spend",
    )
    assert a["ContractCommitmentPeriodStart"].startswith("2026-03-10")
    assert b["ContractCommitmentPeriodEnd"].startswith("2027-03-10")
    prices = {r["ServiceProviderName"]: r for r in _csv(api_client.get(f"{base}/prices/"))}
    assert prices["Provider A"]["ContractCommitmentId"] == a["ContractCommitmentId"]
    assert prices["Provider B"]["ContractCommitmentId"] == b["ContractCommitmentId"]
    assert a["ContractCommitmentId"] != b["ContractCommitmentId"]


def test_a_consolidated_bill_is_reconciled_per_vendor(plan_decision, finance) -> None:
    """By hand: A 5,100 against 5,000 (1.02, within 10 %), B 1,200 against 1,000 (1.2, past
    it); the plan 6,300 / 1,000,000 = 0.0063 against 0.006: ratio 1.05, within."""
    job = run(
        plan_decision,
        (HEADER + A_ROWS + B_ROWS + OTHER).encode(),
        finance,
        provider_names=BOTH,
        sku_ids=[],
    )
    assert job.status == BillingImport.Status.DONE, job.error
    assert (job.rows_matched, job.rows_unmatched) == (3, 1)
    count(plan_decision, finance, "1000000")
    month = Reconciliation.objects.get(comparison=plan_decision)
    assert month.forecast_unit_cost_usd == Decimal("0.006")
    assert month.actual_unit_cost_usd == Decimal("0.0063")
    assert month.cost_ratio == Decimal("1.05")
    assert not month.drift
    vendors = {v["provider"]: v for v in month.vendors}
    assert (
        vendors["Provider A"]["forecast_spend_usd"],
        vendors["Provider A"]["actual_spend_usd"],
    ) == (
        "5000.00",
        "5100.00",
    )
    assert Decimal(vendors["Provider A"]["spend_ratio"]) == Decimal("1.02")
    assert not vendors["Provider A"]["drift"]
    assert Decimal(vendors["Provider B"]["spend_ratio"]) == Decimal("1.2")
    assert vendors["Provider B"]["drift"]
    assert Decimal(vendors["Provider B"]["gpu_hours"]) == 400


def test_one_bill_per_vendor_waits_for_every_vendor(plan_decision, finance, client) -> None:
    count(plan_decision, finance, "1000000")
    first = run(plan_decision, (HEADER + A_ROWS).encode(), finance, sku_ids=[])
    assert first.status == BillingImport.Status.DONE, first.error
    assert not Reconciliation.objects.exists()  # B's bill is not in yet
    second = run(
        plan_decision,
        (HEADER + B_ROWS).encode(),
        finance,
        provider_names=["Provider B"],
        sku_ids=[],
    )
    assert second.status == BillingImport.Status.DONE, second.error
    month = Reconciliation.objects.get(comparison=plan_decision)
    assert month.actual_unit_cost_usd == Decimal("0.0063")
    assert [v["billing_import"] for v in month.vendors] == [first.pk, second.pk]
    client.force_login(finance)
    page = client.get(f"/finops/decisions/{plan_decision.pk}/").content.decode()
    row = page.split('id="vendor-months"')[1].split("Provider B")[1].split("</tr>")[0]
    assert "(B on demand)" in row
    assert 'USD 1,000.00</td><td class="num">USD 1,200.00' in row
    assert "1.200" in row


def test_the_api_takes_a_plans_bill_and_returns_each_vendors_month(
    api_client, plan_decision, finance
) -> None:
    api_client.force_authenticate(finance)
    base = f"/api/v1/finops/decisions/{plan_decision.pk}"
    posted = api_client.post(
        f"{base}/bills/",
        {
            "file": SimpleUploadedFile("march.csv", (HEADER + A_ROWS + B_ROWS).encode()),
            "month": MARCH.isoformat(),
            "provider_names": BOTH,
        },
        format="multipart",
    )
    assert posted.status_code == 202, posted.content
    billing_import_run_task(posted.json()["id"])
    bills = api_client.get(f"{base}/bills/").json()
    assert bills[0]["by_provider"]["provider b"]["gpu_cost_usd"] == "1200.00"
    counted = api_client.post(
        f"{base}/outputs/",
        {
            "months": [
                {"month": "2026-03-01", "accepted_outputs": "1000000", "acceptance_share": "0.9"}
            ]
        },
        format="json",
    )
    assert counted.status_code == 201, counted.content
    month = api_client.get(f"{base}/reconciliation/").json()["months"][0]
    assert Decimal(month["cost_ratio"]) == Decimal("1.05")
    assert [v["provider"] for v in month["vendors"]] == BOTH


def test_a_computed_plan_approved_reads_its_fleet_and_reaches_finops(
    lead, finance, checklist_items, api_client, client, settings
) -> None:
    """The bar said "0 replicas, 1 GPUs" of an on-demand part (U18): Fabrikam's 2 reserved
    nodes read as held replicas, Contoso's on-demand part as GPUs at peak, billed as used."""
    from tests.comparisons.plan_world import computed, contoso_on_demand, fabrikam, plan_brief

    settings.DUAL_APPROVAL_THRESHOLD_USD = 10**9  # one approval decides here
    cheap, dear = fabrikam(lead), contoso_on_demand(lead, evidenced=True)
    comparison, _rows = computed(lead, plan_brief(lead, horizon_months=1), [cheap, dear])
    client.force_login(finance)
    ready = client.get(f"/comparisons/{comparison.pk}/review/").content.decode()
    offered = ready.split('data-summary-for="plan" hidden>')[1].split("</p>")[0]
    assert "Fabrikam + Contoso" in offered  # the line the page shows once the plan is chosen
    assert "2 replicas, 16 GPUs held" in offered
    api_client.force_authenticate(finance)
    approved = api_client.post(
        f"/api/v1/comparisons/{comparison.pk}/reviews/",
        {
            "decision": "approve",
            "comment": "Both parts checked.",
            "candidate": "plan",
            "justification": "Two vendors cost less a month.",
            "acknowledge": ["PERF_ESTIMATED", "SPOT_FOR_REALTIME", "PERF_PROXY"],
        },
        format="json",
    )
    assert approved.status_code == 201, approved.json()
    parts = {p["key"]: p for p in approved.json()["plan_parts"]}
    elastic = parts[f"quote:{dear.pk}"]
    assert (elastic["capacity"], elastic["replicas"]) == ("elastic", 0)
    client.force_login(finance)
    html = client.get(f"/comparisons/{comparison.pk}/review/").content.decode()
    bar = html.split('id="decision-plan"')[1].split("</span>")[0]
    assert "0 replicas" not in bar
    assert f"up to {elastic['gpus']} GPUs at peak, billed as used" in bar
    assert "2 replicas, 16 GPUs held" in bar
    page = client.get(f"/finops/decisions/{comparison.pk}/").content.decode()
    assert 'id="plan-lines"' in page
    export = api_client.get(f"/api/v1/finops/decisions/{comparison.pk}/focus/commitments/")
    assert export.status_code == 200, export.content
    assert {r["ContractCommitmentId"].rsplit("-", 1)[-1] for r in _csv(export)} == {
        f"quote:{cheap.pk}",
        f"quote:{dear.pk}",
    }


def test_the_finops_list_reads_every_plans_total_in_one_query(
    plan_decision, finance, django_assert_max_num_queries
) -> None:
    from finops import selectors
    from tests.factories import ComparisonFactory

    row_decision = ComparisonFactory(
        title="A row",
        brief=plan_decision.brief,
        created_by=plan_decision.created_by,
        status=Comparison.Status.APPROVED,
        commitment_usd=Decimal("5000.00"),
    )
    with django_assert_max_num_queries(1):
        totals = selectors.decision_commitments([plan_decision, row_decision])
    assert totals == {plan_decision.pk: Decimal("72000.00"), row_decision.pk: Decimal("5000.00")}
