"""A vendor's revision while the broker is down: the revision and its price-change flag are
saved, the request answers as usual, and the beat re-drive publishes the flag once the broker
is back; the notices are only delayed."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from core.roles import Role
from procurement.models import Comparison, PriceChange
from procurement.selectors.reviews.acknowledge import CODES as TICKS
from procurement.services.price_change_delivery import Delivery, price_changes_redrive_pending
from procurement.services.reviews import review_submit
from procurement.tasks import price_change_assess_and_notify_task
from tests.browser.worlds_browser import decision_world
from tests.factories import UserFactory


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_broker_outage_at_the_vendors_save_only_delays_the_price_change_notices(
    celery_on, api_client, lead, finance, finance_other, monkeypatch
):
    monkeypatch.setenv("DUAL_APPROVAL_THRESHOLD_USD", str(10**12))
    world = decision_world(lead=lead)
    comparison = world.comparison
    review_submit(
        acting_user=finance,
        comparison=comparison,
        decision="approve",
        comment="OK.",
        acknowledged=TICKS,
    )
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.APPROVED
    quote = comparison.candidates.get(key=comparison.recommended_key).quote
    vendor = UserFactory(username="fastgpus", role=Role.VENDOR, provider=quote.provider)
    mail.outbox.clear()

    celery_on.stop()
    api_client.force_authenticate(vendor)
    response = api_client.post(
        f"/api/v1/quotes/{quote.pk}/revise/",
        {"price_per_gpu_hour": str(quote.price_per_gpu_hour * 2)},
        format="json",
    )
    assert response.status_code == 201, response.content
    flag = PriceChange.objects.get(comparison=comparison)
    assert (flag.impact_assessed_at, flag.notified_at, flag.attempts) == (None, None, 0)
    assert mail.outbox == []
    # Still down a minute later: the re-drive sends nothing and loses nothing.
    later = timezone.now() + timedelta(minutes=2)
    assert price_changes_redrive_pending(now=later) == 0

    celery_on.start()
    assert price_changes_redrive_pending(now=later) == 1
    assert celery_on.queue_length() == 1
    assert price_change_assess_and_notify_task(flag.pk) == Delivery.DONE  # the worker's run
    flag.refresh_from_db()
    assert flag.impact["pct_change"] == "100.00"
    assert flag.notified_at is not None
    assert sorted(m.to[0] for m in mail.outbox) == sorted(
        [lead.email, finance.email, finance_other.email]
    )
