"""FinOps reads the bill as it is (issue 40: U7, P18): the import form is never pre-filled with
the product's own SKU id, a bill that matches nothing is refused with what to change (never a
drift on a zero), and hours that cannot be GPU-hours are said so instead of blaming the price."""

from __future__ import annotations

from decimal import Decimal

import pytest

from finops.models import BillingImport, Reconciliation
from finops.selectors import sku_id
from tests.finops.test_finops_imports import HEADER, count, line, run

pytestmark = pytest.mark.django_db


def test_the_import_form_leaves_the_sku_box_to_the_bill(decision, finance, client) -> None:
    """U7: the product's own SKU id (the one its FOCUS export writes) is not the provider's."""
    client.force_login(finance)
    page = client.get(f"/finops/decisions/{decision.pk}/").content.decode()
    ours = sku_id(decision.candidates.get(key="q").quote)
    assert ours not in page.split('name="sku_ids"')[1].split(">")[0]
    assert 'name="gpus_per_instance"' in page


def test_a_bill_that_matches_nothing_fails_and_is_never_a_drift(decision, finance) -> None:
    """U7: 2 provider rows under another SKU and 1 other provider's: 0 of 3 matched."""
    bill = HEADER + line("5500.00", "2000", "GPU-Hours", sku="nw-h100-8x")
    bill += line("100.00", "400", "GB-Month", sku="nw-disk") + line("77", provider="Other")
    job = run(decision, bill.encode(), finance)
    assert job.status == BillingImport.Status.FAILED
    assert "None of the file's 3 rows matched this decision" in job.error
    assert "SKU ids" in job.error
    count(decision, finance, "800000", "0.9")
    assert not Reconciliation.objects.exists()


def test_instance_hours_are_said_so_and_never_blamed_on_the_price(decision, finance) -> None:
    """P18: one 8-GPU instance billed 730 Hrs at 10,512.00 with 1 GPU per billed instance. The
    month's 800,000 accepted outputs at 0.9 need 888,889 completed × (2,000 × 0.8 × 0.9 /
    1,000,000) = 1,280 busy GPU-hours: 730 hours would be 175 % busy."""
    bill = HEADER + line("10512.00", "730", "Hrs")
    job = run(decision, bill.encode(), finance, gpus_per_instance=1)
    assert job.status == BillingImport.Status.DONE, job.error
    assert job.gpu_hours == Decimal("730")
    count(decision, finance, "800000", "0.9")
    month = Reconciliation.objects.get()
    assert "look like instance- or node-hours" in month.note
    assert "175%" in month.note
    assert month.actual_utilisation is None
    drivers = {d["name"]: Decimal(d["per_output"]) for d in month.drivers}
    assert drivers["price"] == 0
    assert drivers["utilisation"] == 0
    # With the instance's 8 GPUs stated, the same bill is 5,840 GPU-hours at 1.80: no note.
    again = run(decision, bill.encode(), finance, gpus_per_instance=8, name="march-8.csv")
    assert again.gpu_hours == Decimal("5840")
    count(decision, finance, "800000", "0.9")
    month = Reconciliation.objects.get()
    assert month.note == ""
    assert month.actual_utilisation == (Decimal("1280") / Decimal("5840")).quantize(
        Decimal("1e-12")
    )
