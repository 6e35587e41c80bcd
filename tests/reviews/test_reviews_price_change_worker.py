"""A REAL Celery worker (subprocess, Redis) assesses a price change and sends its notices
after the vendor's revision commits; the vendor's request only saved the flag."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.conf import settings

from core.models import AuditEvent
from core.roles import Role
from procurement.models import Comparison, PriceChange
from procurement.selectors.reviews.acknowledge import CODES as TICKS
from procurement.services.reviews import review_submit
from tests.browser.worlds_browser import decision_world
from tests.factories import UserFactory
from tests.support import worker
from tests.support.mail_worker import MAIL_DIR_ENV, sent_messages


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_revision_behind_an_approved_comparison_is_assessed_and_told_by_a_worker(
    tmp_path, monkeypatch, api_client, lead, finance, finance_other
):
    monkeypatch.setenv("DUAL_APPROVAL_THRESHOLD_USD", str(10**12))
    worker.reset_broker()
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

    maildir = tmp_path / "mail"
    maildir.mkdir()
    log = tmp_path / "worker.log"
    env = {**worker.test_env(), MAIL_DIR_ENV: str(maildir)}
    proc = worker.start_worker(log, app="tests.support.mail_worker", env=env)
    try:
        api_client.force_authenticate(vendor)
        response = api_client.post(  # autocommit: the flag's task is published on commit
            f"/api/v1/quotes/{quote.pk}/revise/",
            {"price_per_gpu_hour": str(quote.price_per_gpu_hour * 2)},
            format="json",
        )
        assert response.status_code == 201, response.content
        flag = PriceChange.objects.get(comparison=comparison)

        def notified() -> bool:
            return PriceChange.objects.filter(pk=flag.pk, notified_at__isnull=False).exists()

        assert worker.wait_until(notified, 180), log.read_text()[-3000:]
        broker = settings.CELERY_BROKER_URL
        assert worker.wait_until(lambda: worker.broker_idle(broker), 60), log.read_text()[-3000:]
    finally:
        worker.stop_worker(proc)

    flag.refresh_from_db()
    # 2.49 → 4.98 USD per GPU-hour: +100 %, far above the 5 % tolerance.
    assert flag.impact["pct_change"] == "100.00"
    assert flag.impact["needs_reapproval"] is True
    assert Decimal(flag.impact["new_unit_cost"]) > Decimal(flag.impact["old_unit_cost"])
    assert flag.impact_assessed_at is not None
    assert (flag.attempts, flag.claimed_at, flag.last_error) == (1, None, "")
    (event,) = AuditEvent.objects.filter(action="comparison.price_change_notified")
    assert event.summary["price_change"] == flag.pk
    assert event.summary["recipients"] == ["finance", "finance2", "lead"]
    # The owner, the approver and the other finance reviewer: one message each, by the worker.
    messages = sent_messages(maildir)
    assert sorted(m["To"] for m in messages) == sorted(
        [lead.email, finance.email, finance_other.email]
    )
    assert all(m["Subject"].startswith("Price changed since approval") for m in messages)
    body = messages[0].get_payload(decode=True).decode()
    assert "+100.00 %" in body
    assert "Re-approval needed" in body
