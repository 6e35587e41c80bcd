"""A13: a quote's overage rate reaches the comparison's row as the `overage` line (the
vendor's form asked for it, the catalog checked it and the snapshot froze it; the cost
model never read it)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.deployments.conftest import h200_quote, run_rows, sweep_on
from tests.factories import WorkloadBriefFactory

pytestmark = pytest.mark.django_db
HOURS = Decimal(730)


def test_a_reserved_quotes_hours_past_its_commitment_cost_its_overage_rate(lead, checklist_items):
    """Contoso's H200 reserved at 3.50 a GPU-hour, 4 GPUs committed (2,920 GPU-hours a
    month), 5.00 an hour past them. The row holds one 8-GPU replica: 5,840 GPU-hours, 2,920
    past the commitment, each 1.50 dearer than the GPU lines price it: 4,380.00."""
    quote = h200_quote(lead, min_commitment_gpus=4, overage_rate_per_gpu_hour=Decimal("5.00"))
    sweep_on(lead, quote)
    _, rows = run_rows(lead, WorkloadBriefFactory(created_by=lead), [quote])
    row = rows[quote.pk]
    assert Decimal(str(row.detail["billed_gpu_hours"])) == 8 * HOURS
    assert Decimal(row.cost_lines["overage"]) == Decimal("4380.00")
    assert Decimal(str(row.total_usd)) == sum(Decimal(v) for v in row.cost_lines.values())
