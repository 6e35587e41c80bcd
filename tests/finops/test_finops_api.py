"""The FinOps REST API (issue 40): a FinOps tool pulls a decision's FOCUS export, a script
pushes a month's bill and the accepted outputs, and reads the reconciliation back — the same
services and checks as the decision page (conftest's `decision`, figures by hand there)."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from core.models import AuditEvent
from finops.models import BillingImport
from finops.tasks import billing_import_run_task
from procurement.models import Comparison
from tests.finops.test_finops_imports import BILL

pytestmark = pytest.mark.django_db


def _base(decision) -> str:
    return f"/api/v1/finops/decisions/{decision.pk}"


def test_the_focus_export_is_served_and_audited(api_client, decision, finance) -> None:
    api_client.force_authenticate(finance)
    response = api_client.get(f"{_base(decision)}/focus/commitments/")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv"
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(rows) == 1
    assert rows[0]["ServiceProviderName"] == "Provider A"
    parquet = api_client.get(f"{_base(decision)}/focus/prices/", {"format": "parquet"})
    assert parquet.status_code == 200
    assert parquet.content[:4] == b"PAR1"
    assert AuditEvent.objects.filter(action="comparison.exported_focus_commitments").exists()
    assert api_client.get(f"{_base(decision)}/focus/invoices/").status_code == 404
    assert api_client.get(f"{_base(decision)}/focus/prices/", {"format": "xml"}).status_code == 400


def test_an_undecided_comparison_has_no_focus_export(api_client, decision, finance) -> None:
    Comparison.objects.filter(pk=decision.pk).update(status=Comparison.Status.READY)
    api_client.force_authenticate(finance)
    response = api_client.get(f"{_base(decision)}/focus/commitments/")
    assert response.status_code == 409
    assert "Only an approved comparison" in response.json()["detail"]


def test_a_bill_is_pushed_matched_and_reconciled_with_the_counts(
    api_client, decision, finance
) -> None:
    """The page's hand figures (conftest, test_finops_imports): 5,500 + 100 USD billed for
    800,000 accepted outputs is 0.007 a output against 0.0051 forecast."""
    api_client.force_authenticate(finance)
    bill = SimpleUploadedFile("march.csv", BILL.encode())
    response = api_client.post(
        f"{_base(decision)}/bills/",
        {
            "file": bill,
            "month": "2026-03-01",
            "provider_names": ["Provider A"],
            "sku_ids": "h100-reserved",
        },
        format="multipart",
    )
    assert response.status_code == 202, response.content
    job = response.json()
    assert (job["status"], job["month"]) == ("pending", "2026-03")
    billing_import_run_task(job["id"])
    listed = api_client.get(f"{_base(decision)}/bills/").json()
    assert listed[0]["status"] == BillingImport.Status.DONE
    assert (listed[0]["rows_matched"], listed[0]["rows_unmatched"]) == (2, 1)
    counted = api_client.post(
        f"{_base(decision)}/outputs/",
        {
            "months": [
                {"month": "2026-03-15", "accepted_outputs": "800000", "acceptance_share": "0.9"}
            ]
        },
        format="json",
    )
    assert counted.status_code == 201, counted.content
    month = counted.json()["months"][0]
    assert month["month"] == "2026-03"
    assert Decimal(month["actual_unit_cost_usd"]) == Decimal("0.007")
    assert Decimal(month["forecast_unit_cost_usd"]) == Decimal("0.0051")
    assert month["drift"] is True
    assert api_client.get(f"{_base(decision)}/reconciliation/").json()["months"] == [month]


def test_the_api_keeps_the_pages_checks(api_client, decision, engineer, finance) -> None:
    api_client.force_authenticate(engineer)  # counts outputs, imports no bill
    bill = SimpleUploadedFile("march.csv", BILL.encode())
    refused = api_client.post(
        f"{_base(decision)}/bills/",
        {"file": bill, "month": "2026-03-01", "provider_names": ["Provider A"]},
        format="multipart",
    )
    assert refused.status_code == 403
    api_client.force_authenticate(finance)
    not_focus = SimpleUploadedFile("march.csv", b"date,amount\n2026-03-01,5\n")
    answer = api_client.post(
        f"{_base(decision)}/bills/",
        {"file": not_focus, "month": "2026-03-01", "provider_names": ["Provider A"]},
        format="multipart",
    )
    assert answer.status_code == 400
    assert "file" in answer.json()["fields"]
    outside = api_client.post(
        f"{_base(decision)}/outputs/",
        {"months": [{"month": "2031-01-01", "accepted_outputs": "1", "acceptance_share": "0.9"}]},
        format="json",
    )
    assert outside.status_code == 400
    share = api_client.post(
        f"{_base(decision)}/outputs/",
        {"months": [{"month": "2026-03-01", "accepted_outputs": "1", "acceptance_share": "1.5"}]},
        format="json",
    )
    assert share.status_code == 400
    assert BillingImport.objects.count() == 0
