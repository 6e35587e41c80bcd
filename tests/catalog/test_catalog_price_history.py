"""The price history of an imported offer is kept and charted (finding R2): each weekly import
that changes the price is a new version of the same offer, and the quote page draws them all.

The file is written for the test in the format of SkyPilot's `vms.csv`; the figures are made up.
"""

from __future__ import annotations

import json
import re
from datetime import date, timedelta

import pytest
from django.urls import reverse

from catalog.models import Quote
from catalog.services import ImportKind, catalog_import
from tests.factories import ProviderFactory

pytestmark = pytest.mark.django_db

LAMBDA_VMS = (
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
    "Region,AvailabilityZone\n"
    "gpu_8x_h100_sxm5,H100,8.0,208.0,1800.0,,{price},,us-east-1,\n"
)
FIRST_DAY = date(2026, 11, 2)


def test_r2_price_history_per_offer_is_kept_and_charted(lead, catalog, login):
    provider = ProviderFactory(slug="lambda", name="Lambda")
    for week, price in enumerate(("23.92", "21.52", "23.12")):
        catalog_import(
            acting_user=lead,
            kind=ImportKind.SKYPILOT,
            data=LAMBDA_VMS.format(price=price).encode(),
            filename="vms.csv",
            captured_on=FIRST_DAY + timedelta(weeks=week),
            provider=provider,
        )
    versions = Quote.objects.filter(provider=provider).order_by("version")
    assert [(q.version, str(q.price_per_gpu_hour)) for q in versions] == [
        (1, "2.9900"),
        (2, "2.6900"),
        (3, "2.8900"),
    ]
    latest = Quote.objects.current().get(provider=provider)
    page = login(lead).get(reverse("catalog:quote-detail", args=[latest.pk]))
    assert page.status_code == 200
    found = re.search(
        r'<script id="fig-price-history" type="application/json">(.*?)</script>',
        page.content.decode(),
        re.S,
    )
    assert found is not None, "the quote page has no price-history chart"
    trace = json.loads(found.group(1))["data"][0]
    assert trace["y"] == [2.99, 2.69, 2.89]
    assert [x[:10] for x in trace["x"]] == ["2026-11-02", "2026-11-09", "2026-11-16"]
    assert trace["text"] == ["v1", "v2", "v3"]
    assert 'data-plotly="fig-price-history"' in page.content.decode()
