"""Importing a FOCUS bill and the team's counts for a small approved decision (conftest's
`decision`): matching, bad input answered naming the column or row with nothing
half-imported, the worker's claim, and the month reconciled by hand."""

from __future__ import annotations

import io
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from core.errors import Conflict, DomainError, NotAllowed
from core.models import AuditEvent
from finops import services
from finops.models import ActualOutputs, BillingImport, Reconciliation
from finops.tasks import billing_import_run_task
from tests.factories import FxRateFactory

pytestmark = pytest.mark.django_db

MARCH = date(2026, 3, 1)
HEADER = (
    "BillingAccountId,BillingCurrency,BillingPeriodStart,ChargePeriodStart,EffectiveCost,"
    "ServiceProviderName,SkuId,ConsumedQuantity,ConsumedUnit\n"
)


def line(
    cost,
    qty="",
    unit="",
    *,
    currency="USD",
    at="2026-03-05T00:00:00Z",
    provider="Provider A",
    sku="h100-reserved",
) -> str:
    return f"acct-1,{currency},2026-03-01T00:00:00Z,{at},{cost},{provider},{sku},{qty},{unit}\n"


def create(decision, data: bytes, user, *, name="march.csv", month=MARCH, **rule):
    return services.billing_import_create(
        acting_user=user,
        comparison=decision,
        month=month,
        upload=SimpleUploadedFile(name, data),
        name=name,
        size=len(data),
        provider_names=rule.pop("provider_names", ["Provider A"]),
        sku_ids=rule.pop("sku_ids", ["h100-reserved"]),
        **rule,
    )


def run(decision, data: bytes, user, **kw) -> BillingImport:
    job = create(decision, data, user, **kw)
    billing_import_run_task(job.pk)
    job.refresh_from_db()
    return job


def count(decision, user, accepted, share="0.9", month=MARCH):
    from finops.focus.actuals import MonthCount

    return services.actual_outputs_record(
        acting_user=user,
        comparison=decision,
        source=ActualOutputs.Source.FORM,
        counts=[MonthCount(month, Decimal(accepted), Decimal(share))],
    )


BILL = HEADER + line("5500.00", "2000", "GPU-Hours") + line("100.00", "400", "GB-Month")
BILL += line("77.00", "1", "Hours", provider="Other Cloud")


def test_a_month_over_tolerance_is_reconciled_as_computed_by_hand_and_flagged(decision, finance):
    job = run(decision, BILL.encode(), finance)
    assert job.status == BillingImport.Status.DONE, job.error
    assert (job.rows_total, job.rows_matched, job.rows_unmatched) == (3, 2, 1)
    assert job.unmatched_sample[0]["row"] == 3
    assert job.unmatched_sample[0]["reason"] == "other provider"
    count(decision, finance, "800000", "0.9")
    month = Reconciliation.objects.get()
    # By hand: (5,500 + 100) / 800,000 = 0.007 against 5,100 / 1,000,000 = 0.0051.
    assert month.actual_unit_cost_usd == Decimal("0.007")
    assert month.forecast_unit_cost_usd == Decimal("0.0051")
    assert month.cost_ratio == (Decimal("0.007") / Decimal("0.0051")).quantize(Decimal("1e-12"))
    assert month.drift
    # Utilisation the bill implies: 800,000 / 0.9 completed × g / 2,000 hours, with
    # g = 2,000 × 0.8 × 0.9 / 1,000,000 GPU-hours per completed output: 0.64.
    assert month.forecast_utilisation == Decimal("0.8")
    assert month.actual_utilisation == Decimal("0.64")
    drivers = {d["name"]: Decimal(d["per_output"]) for d in month.drivers}
    assert drivers["price"] == Decimal("0.0005")  # (2.75 − 2.50) × 2,000 h / 1,000,000
    assert sum(drivers.values()) == Decimal("0.0019")
    assert AuditEvent.objects.filter(action="reconciliation.computed").exists()


def test_a_month_on_forecast_is_not_flagged(decision, finance, client, lead):
    bill = HEADER + line("5000.00", "2000", "GPU-Hours") + line("100.00", "400", "GB-Month")
    run(decision, bill.encode(), finance)
    count(decision, finance, "1000000")
    assert not Reconciliation.objects.get().drift
    client.force_login(lead)
    assert "flag-drift" not in client.get("/").content.decode()


def test_a_file_that_is_not_focus_is_refused_naming_the_columns_and_nothing_is_kept(
    decision, finance, tmp_path
):
    data = b"Date,Cost,Service\n2026-03-01,5,GPU\n"
    with pytest.raises(DomainError, match="BillingAccountId, BillingCurrency, BillingPeriodStart"):
        create(decision, data, finance)
    assert not BillingImport.objects.exists()
    assert not list(tmp_path.rglob("*.csv"))


def test_another_currency_without_an_fx_rate_fails_naming_row_and_column(decision, finance):
    bill = (
        HEADER + line("100", "40", "GPU-Hours") + line("5000", "2000", "GPU-Hours", currency="EUR")
    )
    job = run(decision, bill.encode(), finance)
    assert job.status == BillingImport.Status.FAILED
    assert job.error.startswith("Row 2, column BillingCurrency: EUR has no FX rate to USD")
    assert (job.rows_total, job.gpu_cost_usd) == (0, 0)  # nothing half-imported
    assert AuditEvent.objects.filter(action="billing_import.refused").exists()
    FxRateFactory(currency="EUR", rate_to_base=Decimal("1.10"), as_of=date(2026, 3, 1))
    again = run(decision, bill.encode(), finance)
    assert again.status == BillingImport.Status.DONE
    assert again.gpu_cost_usd == Decimal("5600")


def test_a_row_of_another_period_fails_the_import(decision, finance):
    bill = (
        HEADER
        + line("5", "1", "GPU-Hours")
        + line("5", "1", "GPU-Hours", at="2026-02-28T23:00:00Z")
    )
    job = run(decision, bill.encode(), finance)
    assert job.status == BillingImport.Status.FAILED
    assert (
        "Row 2, column ChargePeriodStart: 2026-02-28T23:00:00Z is outside the billing month"
        in job.error
    )


def test_a_month_outside_the_contract_is_refused(decision, finance):
    with pytest.raises(DomainError, match="2028-01 is outside this decision's contract period"):
        create(decision, BILL.encode(), finance, month=date(2028, 1, 1))
    with pytest.raises(DomainError, match="2026-02 is outside"):
        count(decision, finance, "10", month=date(2026, 2, 1))
    assert not BillingImport.objects.exists()
    assert not ActualOutputs.objects.exists()


def test_only_importers_import_and_only_decisions_take_bills(decision, engineer, lead):
    with pytest.raises(NotAllowed):
        create(decision, BILL.encode(), engineer)
    decision.status = "ready"
    decision.save()
    with pytest.raises(Conflict, match="not approved"):
        create(decision, BILL.encode(), lead)


def test_a_parquet_bill_is_read_the_same(decision, finance):
    table = pa.table(
        {
            "BillingAccountId": ["acct-1"],
            "BillingCurrency": ["USD"],
            "BillingPeriodStart": [datetime(2026, 3, 1, tzinfo=UTC)],
            "ChargePeriodStart": [datetime(2026, 3, 1, tzinfo=UTC)],
            "EffectiveCost": pa.array([Decimal("5500.00")], pa.decimal128(12, 2)),
            "ServiceProviderName": ["Provider A"],
            "SkuId": ["h100-reserved"],
            "ConsumedQuantity": pa.array([Decimal(2000)], pa.decimal128(12, 2)),
            "ConsumedUnit": ["GPU-Hours"],
        }
    )
    sink = io.BytesIO()
    pq.write_table(table, sink)
    job = run(decision, sink.getvalue(), finance, name="march.parquet")
    assert job.status == BillingImport.Status.DONE, job.error
    assert (job.gpu_hours, job.gpu_cost_usd) == (Decimal(2000), Decimal(5500))


def test_a_second_delivery_of_a_finished_import_does_nothing(decision, finance):
    job = run(decision, BILL.encode(), finance)
    assert services.billing_import_run(import_id=job.pk) is None
    assert AuditEvent.objects.filter(action="billing_import.imported").count() == 1


def test_a_lost_message_is_sent_again(decision, finance, django_capture_on_commit_callbacks):
    job = create(decision, BILL.encode(), finance)
    BillingImport.objects.filter(pk=job.pk).update(
        created_at=datetime.now(UTC) - timedelta(minutes=10)
    )
    with django_capture_on_commit_callbacks() as callbacks:
        assert services.billing_imports_redrive_stuck() == 1
    assert len(callbacks) == 1


# --- the pages -------------------------------------------------------------------------------


def test_the_import_form_answers_a_non_focus_file_with_its_columns(decision, finance, client):
    client.force_login(finance)
    response = client.post(
        reverse("finops:billing-import-new", args=[decision.pk]),
        {
            "month": "2026-03",
            "provider_names": "Provider A",
            "gpus_per_instance": 8,
            "file": SimpleUploadedFile("x.csv", b"a,b\n1,2\n"),
        },
    )
    assert response.status_code == 400
    assert "EffectiveCost" in response.content.decode()
    assert not BillingImport.objects.exists()


def test_the_page_polls_while_an_import_runs_and_stops_when_done(decision, finance, client):
    client.force_login(finance)
    response = client.post(
        reverse("finops:billing-import-new", args=[decision.pk]),
        {
            "month": "2026-03",
            "provider_names": "Provider A",
            "gpus_per_instance": 8,
            "sku_ids": "h100-reserved",
            "file": SimpleUploadedFile("march.csv", BILL.encode()),
        },
    )
    assert response.status_code == 302
    job = BillingImport.objects.get()
    page = reverse("finops:decision-detail", args=[decision.pk])
    polling = client.get(page, HTTP_HX_REQUEST="true")
    assert polling.status_code == 200
    assert 'hx-trigger="every 2s"' in polling.content.decode()
    full = client.get(page).content.decode()
    assert 'id="billing-imports"' in full
    assert 'id="import-bill"' in full
    billing_import_run_task(job.pk)
    done = client.get(page, HTTP_HX_REQUEST="true")
    assert done.status_code == 286
    assert "other provider" in done.content.decode()


def test_counts_are_uploaded_as_csv_or_a_vllm_scrape(decision, engineer, client):
    client.force_login(engineer)
    url = reverse("finops:actuals-upload", args=[decision.pk])
    bad = b"month,accepted_outputs,acceptance_share\n2026-03,10,0.9\n2026-04,x,0.9\n"
    response = client.post(url, {"kind": "csv", "file": SimpleUploadedFile("c.csv", bad)})
    assert response.status_code == 400
    assert "Row 2, column accepted_outputs" in response.content.decode()
    assert not ActualOutputs.objects.exists()
    scrape = (
        b'vllm:request_success_total{finished_reason="stop"} 900000.0\n'
        b"vllm:generation_tokens_total 270000000.0\n"
    )
    response = client.post(
        url,
        {
            "kind": "vllm",
            "month": "2026-03",
            "acceptance_share": "0.8",
            "file": SimpleUploadedFile("metrics.txt", scrape),
        },
    )
    assert response.status_code == 302
    saved = ActualOutputs.objects.get()
    assert (saved.accepted_outputs, saved.completed_outputs) == (Decimal(720000), Decimal(900000))
    assert saved.source == ActualOutputs.Source.VLLM


def test_the_count_form_refuses_a_share_above_one(decision, finance, client):
    client.force_login(finance)
    response = client.post(
        reverse("finops:actuals-new", args=[decision.pk]),
        {"month": "2026-03", "accepted_outputs": "10", "acceptance_share": "92"},
    )
    assert response.status_code == 400
    assert not ActualOutputs.objects.exists()


def test_the_list_shows_decisions_and_filters_drifting_ones(decision, finance, client):
    run(decision, BILL.encode(), finance)
    count(decision, finance, "800000")
    client.force_login(finance)
    page = client.get(reverse("finops:decision-list")).content.decode()
    assert decision.title in page
    assert "past tolerance" in page
    drifting = client.get(reverse("finops:decision-list"), {"drift": "1"}).content.decode()
    assert decision.title in drifting
