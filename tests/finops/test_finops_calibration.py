"""Issue 30: a reconciled month's actual / forecast cost per accepted output goes into the
calibration ledger (one entry per decision and month, replaced when the month is reconciled
again); a later comparison on the same offer widens the cost band of its row, and says so."""

from __future__ import annotations

from decimal import Decimal

import pytest

from catalog.ledger import calibration_summaries, cost_calibration_for
from catalog.models import CalibrationEntry
from core.models import AuditEvent
from engine.calibration import widened_cost_band
from finops.models import Reconciliation
from procurement.models import CandidateResult
from procurement.services.comparisons import comparison_create, comparison_run
from tests.comparisons.factories_comparisons import answer_checklist
from tests.factories import QuoteFactory, WorkloadBriefFactory
from tests.finops.test_finops_imports import BILL, HEADER, count, line, run

pytestmark = pytest.mark.django_db


def _quote(decision):
    return decision.candidates.get(key="q").quote


def test_a_reconciled_month_writes_one_billed_entry_to_the_ledger(decision, finance):
    run(decision, BILL.encode(), finance)
    count(decision, finance, "800000", "0.9")
    month = Reconciliation.objects.get()
    entry = CalibrationEntry.objects.get()
    assert entry.kind == CalibrationEntry.Kind.COST
    assert entry.quote == _quote(decision)
    assert entry.accelerator_id == _quote(decision).accelerator_id
    assert entry.comparison_id == decision.pk
    assert entry.month == month.month
    assert entry.cost_ratio == month.cost_ratio  # 0.007 / 0.0051
    assert entry.forecast_unit_cost_usd == Decimal("0.0051")
    assert entry.actual_unit_cost_usd == Decimal("0.007")
    assert entry.benchmark_result_id is None
    event = AuditEvent.objects.get(action="calibration_entry.billed_month_recorded")
    assert event.object_id == str(entry.pk)
    # A billed month is no throughput pair: the accelerator's throughput spread is unmoved.
    assert calibration_summaries([entry.accelerator_id]) == {}


def test_a_month_reconciled_again_replaces_its_entry(decision, finance):
    run(decision, BILL.encode(), finance)
    count(decision, finance, "800000", "0.9")
    first = CalibrationEntry.objects.get()
    # The same month's bill imported again, on forecast this time.
    on_forecast = HEADER + line("5000.00", "2000", "GPU-Hours") + line("100.00", "400", "GB-Month")
    run(decision, on_forecast.encode(), finance, name="march-corrected.csv")
    count(decision, finance, "1000000", "0.9")
    entry = CalibrationEntry.objects.get()
    assert entry.pk == first.pk
    assert entry.cost_ratio == Decimal(1)
    assert entry.cost_ratio == Reconciliation.objects.get().cost_ratio


def test_a_later_comparison_on_that_offer_states_the_widened_band(
    decision, finance, lead, login, checklist_items
):
    """Billed at 1.37 × the forecast: a later comparison's row on that offer (a new version
    of the quote) has its p90 at least p50 × 1.37, and the row says why. On demand: a
    reserved row would need checklist evidence to be costed at all."""
    reserved = _quote(decision)
    on_demand = QuoteFactory(
        provider=reserved.provider, accelerator=reserved.accelerator, capacity_model="on_demand"
    )
    decision.candidates.filter(key="q").update(quote=on_demand, capacity_model="on_demand")
    run(decision, BILL.encode(), finance)
    count(decision, finance, "800000", "0.9")
    ratio = float(CalibrationEntry.objects.get().cost_ratio)
    old = _quote(decision)
    revised = QuoteFactory(
        provider=old.provider,
        accelerator=old.accelerator,
        capacity_model=old.capacity_model,
        version=old.version + 1,
        supersedes=old,
    )
    assert cost_calibration_for([revised])[str(revised.pk)]["entries"] == 1
    other = QuoteFactory(provider=old.provider, accelerator=old.accelerator, capacity_model="spot")
    assert cost_calibration_for([reserved]) == {}
    assert cost_calibration_for([other]) == {}  # another offer of the provider: untouched

    answer_checklist(old.provider, lead)
    brief = WorkloadBriefFactory(created_by=lead, e2e_p99_ms=30_000)
    comparison = comparison_create(
        acting_user=lead, brief=brief, quote_ids=[revised.pk], seed=11
    ).comparison
    comparison_run(comparison_id=comparison.pk)
    row = CandidateResult.objects.get(comparison=comparison, quote=revised)
    assert row.p50 is not None, row.reasons
    band = row.detail["cost_band"]
    assert band["note"].startswith("cost band widened to the 1 billed month on this offer")
    assert "1.37" in band["note"]
    assert row.p90 >= row.p50 * ratio * 0.999
    assert row.p90 >= band["default_p90"]
    assert row.p10 <= band["default_p10"]  # widened, never narrowed
    page = login(lead).get(f"/comparisons/{comparison.pk}/").content.decode()
    assert "cost band widened to the 1 billed month on this offer" in page


def test_the_band_only_widens():
    assert widened_cost_band(0.8, 1.0, 1.3, entries=2, min_ratio=0.9, max_ratio=1.1) is None
    p10, p90, note = widened_cost_band(0.8, 1.0, 1.3, entries=2, min_ratio=0.5, max_ratio=1.2)
    assert (p10, p90) == (0.5, 1.3)
    assert "2 billed months" in note


def test_the_accelerator_page_lists_billed_months_apart(decision, finance, login, engineer):
    run(decision, BILL.encode(), finance)
    count(decision, finance, "800000", "0.9")
    accelerator = _quote(decision).accelerator
    page = login(engineer).get(accelerator.get_absolute_url()).content.decode()
    assert "Billed months: forecast against the bill" in page
    billed = page.split("Billed months: forecast against the bill", 1)[1]
    assert "2026-03" in billed
    assert "<strong>1.37</strong>" in billed
    assert "No pair yet" in page  # the throughput pairs, still none
