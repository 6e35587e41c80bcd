"""The reconciliation chart is drawn in a real browser under the strict CSP (plotly.js from
our own static files), with its table, and no console error."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from playwright.sync_api import expect

from finops import services
from finops.focus.actuals import MonthCount
from finops.models import ActualOutputs, Reconciliation
from finops.tasks import billing_import_run_task

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BILL = (
    "BillingAccountId,BillingCurrency,BillingPeriodStart,ChargePeriodStart,EffectiveCost,"
    "ServiceProviderName,SkuId,ConsumedQuantity,ConsumedUnit\n"
    "acct-1,USD,2026-03-01T00:00:00Z,2026-03-02T00:00:00Z,5500,Provider A,h100,2000,GPU-Hours\n"
)


def test_the_reconciliation_chart_is_drawn(browser_page, decision, finance):
    job = services.billing_import_create(
        acting_user=finance,
        comparison=decision,
        month=date(2026, 3, 1),
        upload=SimpleUploadedFile("march.csv", BILL.encode()),
        name="march.csv",
        size=len(BILL),
        provider_names=["Provider A"],
        sku_ids=["h100"],
    )
    billing_import_run_task(job.pk)
    services.actual_outputs_record(
        acting_user=finance,
        comparison=decision,
        source=ActualOutputs.Source.FORM,
        counts=[MonthCount(date(2026, 3, 1), Decimal(800_000), Decimal("0.9"))],
    )
    assert Reconciliation.objects.get().drift
    browser_page.login("finance")
    browser_page.goto(f"/finops/decisions/{decision.pk}/")
    chart = browser_page.page.locator('[data-plotly="fig-reconciliation"]')
    expect(chart.locator("svg.main-svg").first).to_be_visible()
    expect(browser_page.page.locator("details.chart-table")).to_have_count(1)
    expect(browser_page.page.locator("#reconciliation-table .drift-flag")).to_have_count(1)
    browser_page.shot("finops-reconciliation")
    browser_page.assert_no_console_errors()
