"""P15: FinOps forecasts a model API vendor without the object storage it does not bill
(brief B: the route's 11.50 a month of storage at the S3 default left an 'other charges' gap
that no bill from the vendor could close)."""

from __future__ import annotations

from decimal import Decimal

from briefs.models import WorkloadBrief
from finops.selectors import forecast_of
from procurement.models import CandidateResult, Comparison

D = Decimal


def test_p15_finops_forecasts_an_api_vendor_without_the_storage_it_does_not_bill() -> None:
    """The reconciliation's forecast of an approved route is 63.00 a month, so no bill from
    the vendor leaves an 11.50 'other charges' gap; a GPU row keeps its storage (46.00)."""
    comparison = Comparison(brief=WorkloadBrief(acceptance_rate_likely=1.0))
    lines = {"api_compute": "63.00", "storage": "11.50", "observability": "0.00"}
    route = CandidateResult(cost_lines=lines, total_usd=D("74.50"), api_route_id=1)
    assert forecast_of(comparison, route).spend == D("63.00")
    gpu_lines = {"gpu_compute": "14600.00", "idle_capacity": "14600.00", "storage": "46.00"}
    rented = CandidateResult(cost_lines=gpu_lines, total_usd=D("29246.00"), quote_id=1)
    assert forecast_of(comparison, rented).spend == D("29246.00")
