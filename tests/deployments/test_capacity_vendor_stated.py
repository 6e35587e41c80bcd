"""Security round 4, R6: vendor-typed capacity was used as a fact and its input band was 100x
what the engine sizes. Now a stated capacity the fleet relies on is shown as vendor-stated
(a warning on the row and the winner banner) and no quote may state more GPUs than the
engine sizes (MAX_NODES nodes of its GPUs per node)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from catalog.errors import CatalogInvalid
from catalog.services import quote_submit
from engine.limits import MAX_NODES
from tests.deployments.conftest import h200_quote, run_rows, sweep_on
from tests.deployments.test_fleet import big_brief  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db


def test_r6_an_inflated_capacity_passes_only_as_vendor_stated(lead, big_brief, checklist_items):  # noqa: F811
    quote = h200_quote(lead, max_gpus_available=10_000)
    sweep_on(lead, quote)
    _, rows = run_rows(lead, big_brief, [quote])
    row = rows[quote.pk]
    assert row.detail["fleet"]["gpus_peak"] > 64
    warning = next(w for w in row.warnings if w["code"] == "CAPACITY_VENDOR_STATED")
    assert "vendor-stated, not verified" in warning["detail"]
    assert "10,000 GPUs" in warning["detail"]


@pytest.mark.parametrize(("gpus_per_node", "stated"), [(8, 80_001), (4, 40_001), (8, 1_000_000)])
def test_r6_no_quote_states_more_capacity_than_the_engine_sizes(lead, gpus_per_node, stated):
    from tests.factories import AcceleratorFactory, ProviderFactory

    h100 = AcceleratorFactory(slug="h100-sxm-80gb", name="H100 SXM 80GB", max_gpus_per_node=8)
    data = {
        "accelerator": h100,
        "capacity_model": "on_demand",
        "currency": "USD",
        "price_per_gpu_hour": "2.50",
        "gpus_per_node": gpus_per_node,
        "max_gpus_available": stated,
        "region": "eu-west",
        "source_url": "https://example.com/offer",
        "quoted_at": timezone.now() - timedelta(minutes=5),
    }
    with pytest.raises(CatalogInvalid) as refused:
        quote_submit(acting_user=lead, provider=ProviderFactory(), data=data)
    assert "max_gpus_available" in refused.value.fields
    assert f"At most {MAX_NODES:,} nodes" in refused.value.fields["max_gpus_available"][0]
    data["max_gpus_available"] = MAX_NODES * gpus_per_node  # the engine's own limit passes
    quote_submit(acting_user=lead, provider=ProviderFactory(), data=data)
