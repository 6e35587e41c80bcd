"""Acceptance: the demo decision's FOCUS export, and one hand-built month of its bill.

Given the seeded demo comparison approved by finance, its FOCUS 1.3 Contract Commitment file
passes the spec checker with the decision's commitment and the contract's period; a FOCUS
bill for one month of the approved offer, imported on the worker, and the month's counted
outputs give the cost per accepted output computed here by hand, and the drift flag on the
lead's and finance's dashboards once it is past the tolerance.
"""

from __future__ import annotations

import io
from datetime import UTC, date, datetime, time
from decimal import Decimal

import pyarrow.parquet as pq
import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from finops import selectors, services
from finops.models import BillingImport, Reconciliation
from finops.tasks import billing_import_run_task
from procurement.selectors.reviews.commitment import row_commitment
from tests.finops.focus_spec import read_rows, violations

pytestmark = pytest.mark.django_db

HEADER = (
    "BillingAccountId,BillingCurrency,BillingPeriodStart,BillingPeriodEnd,ChargePeriodStart,"
    "ChargePeriodEnd,ChargeCategory,EffectiveCost,BilledCost,ServiceProviderName,SkuId,"
    "ResourceId,ConsumedQuantity,ConsumedUnit\n"
)


def _user(name):
    from accounts.models import User

    return User.objects.get(username=name)


def first_month(decision) -> date:
    """The month the decision's contract starts in (the month of its approval)."""
    return decision.decided_at.astimezone(UTC).date().replace(day=1)


def bill_for(provider: str, sku: str, lines: list[tuple[str, str, str]], month: date):
    """A FOCUS cost-and-usage CSV: (cost, quantity, unit) rows of the offer for `month`, and
    one row of another provider (unmatched)."""
    start = f"{month:%Y-%m}-01T00:00:00Z"
    end = f"{selectors.add_months(month, 1):%Y-%m}-01T00:00:00Z"
    text = HEADER
    for cost, quantity, unit in lines:
        text += (
            f"acct-9,USD,{start},{end},{start},{end},Usage,{cost},{cost},{provider},{sku},"
            f"node-1,{quantity},{unit}\n"
        )
    text += f"acct-9,USD,{start},{end},{start},{end},Usage,55.00,55.00,Elsewhere,x,y,1,Hours\n"
    return text.encode()


def test_demo_decision_exports_focus_commitments_with_its_commitment_and_period(
    demo_decision, client
):
    client.force_login(_user("finance"))
    url = reverse("finops:focus-commitments", args=[demo_decision.pk])
    response = client.get(url)
    assert response.status_code == 200
    columns, rows = read_rows(response.content)
    assert violations(columns, rows) == []
    assert len(rows) == 1
    row = selectors.approved_candidate(demo_decision)
    commitment = row_commitment(row.detail)
    assert Decimal(rows[0]["ContractCommitmentCost"]) == commitment.commitment_usd
    months = (
        row.detail["commitment"]["months_counted"] or row.detail["commitment"]["horizon_months"]
    )
    start = datetime.combine(demo_decision.decided_at.astimezone(UTC).date(), time(), tzinfo=UTC)
    end = datetime.combine(selectors.add_months(start.date(), months), time(), tzinfo=UTC)
    for prefix in ("ContractCommitment", "Contract"):
        assert rows[0][f"{prefix}PeriodStart"] == start.strftime("%Y-%m-%dT%H:%M:%SZ")
        assert rows[0][f"{prefix}PeriodEnd"] == end.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert rows[0]["ServiceProviderName"] == row.provider_name

    parquet = client.get(url, {"format": "parquet"})
    table = pq.read_table(io.BytesIO(parquet.content))
    assert table.column("ContractCommitmentCost")[0].as_py() == commitment.commitment_usd

    prices = client.get(reverse("finops:focus-prices", args=[demo_decision.pk]))
    price_columns, price_rows = read_rows(prices.content)
    assert "SkuPriceId" in price_columns
    assert len(price_rows) >= demo_decision.candidates.filter(quote__isnull=False).count()
    tied = [r for r in price_rows if r["ContractCommitmentId"]]
    assert [r["ContractCommitmentId"] for r in tied] == [rows[0]["ContractCommitmentId"]]


def import_bill(decision, data: bytes, *, provider: str, sku: str, gpus: int, captured):
    with captured(execute=False) as callbacks:
        job = services.billing_import_create(
            acting_user=_user("finance"),
            comparison=decision,
            month=first_month(decision),
            upload=SimpleUploadedFile("march.csv", data),
            name="march.csv",
            size=len(data),
            provider_names=[provider],
            sku_ids=[sku],
            gpus_per_instance=gpus,
        )
    assert len(callbacks) == 1  # the worker is rung once the import is committed
    billing_import_run_task(job.pk)
    job.refresh_from_db()
    return job


def test_a_hand_built_month_gives_the_hand_computed_cost_per_accepted_output_and_drift(
    demo_decision, client, django_capture_on_commit_callbacks, settings
):
    settings.FINOPS_DRIFT_TOLERANCE = "0.10"
    row = selectors.approved_candidate(demo_decision)
    provider, sku = row.provider_name, "gpu-node-sku"
    forecast = selectors.forecast_of(demo_decision, row)
    # Given: a month billed at the forecast GPU-hours, 10 % dearer per hour, plus storage.
    gpu_hours = forecast.gpu_hours or Decimal(730)
    gpu_cost = (forecast.gpu_spend or Decimal(1000)) * Decimal("1.1")
    storage = Decimal("120.50")
    data = bill_for(
        provider,
        sku,
        [
            (format(gpu_cost / 2, "f"), format(gpu_hours / 2, "f"), "GPU-Hours"),
            (format(gpu_cost / 2, "f"), format(gpu_hours / 2, "f"), "GPU-Hours"),
            (format(storage, "f"), "500", "GB-Month"),
        ],
        first_month(demo_decision),
    )
    job = import_bill(
        demo_decision,
        data,
        provider=provider,
        sku=sku,
        gpus=1,
        captured=django_capture_on_commit_callbacks,
    )
    assert job.status == BillingImport.Status.DONE, job.error
    assert (job.rows_matched, job.rows_unmatched) == (3, 1)
    assert job.unmatched_cost_usd == Decimal("55")
    assert not Reconciliation.objects.exists()  # no counts yet: nothing to reconcile

    # When: the team records 80 % of the forecast accepted outputs, at the forecast share.
    accepted = (forecast.accepted_outputs * Decimal("0.8")).quantize(Decimal(1))
    client.force_login(_user("engineer"))
    response = client.post(
        reverse("finops:actuals-new", args=[demo_decision.pk]),
        {
            "month": f"{first_month(demo_decision):%Y-%m}",
            "accepted_outputs": str(accepted),
            "acceptance_share": str(forecast.acceptance),
        },
    )
    assert response.status_code == 302

    # Then: the month's actual cost per accepted output is the bill over the count.
    month = Reconciliation.objects.get(comparison=demo_decision)
    by_hand = (gpu_cost + storage) / accepted
    assert month.actual_unit_cost_usd == by_hand.quantize(Decimal("1e-12"))
    assert month.actual_spend_usd == (gpu_cost + storage).quantize(Decimal("1e-6"))
    assert month.forecast_unit_cost_usd == (forecast.spend / forecast.accepted_outputs).quantize(
        Decimal("1e-12")
    )
    assert month.drift  # 10 % dearer hours over 80 % of the outputs: far past 10 %
    parts = sum((Decimal(d["per_output"]) for d in month.drivers), Decimal(0))
    assert abs(parts - (month.actual_unit_cost_usd - month.forecast_unit_cost_usd)) < Decimal(
        "1e-9"
    )

    for who in ("lead", "finance"):
        client.force_login(_user(who))
        cache.clear()  # the dashboard cards are cached per role for a few seconds
        page = client.get("/").content.decode()
        assert "Decisions drifting from forecast" in page, who
        assert "flag-drift" in page, who
    client.force_login(_user("engineer"))
    assert "Decisions drifting from forecast" not in client.get("/").content.decode()

    detail = client.get(reverse("finops:decision-detail", args=[demo_decision.pk])).content.decode()
    assert 'data-plotly="fig-reconciliation"' in detail
    assert 'class="chart-table"' in detail
    assert "past tolerance" in detail

    api = client.get(reverse("api-finops-reconciliation", args=[demo_decision.pk])).json()
    assert api["months"][0]["month"] == f"{first_month(demo_decision):%Y-%m}"
    assert api["months"][0]["drift"] is True
