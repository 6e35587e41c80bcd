"""E-mail: reviewers hear when a comparison is ready, the creator when it is decided."""

from __future__ import annotations

import pytest
from django.core import mail

from core.roles import Role
from procurement import notifications
from procurement.services.reviews import review_submit
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def recipients() -> list[str]:
    return sorted(address for message in mail.outbox for address in message.to)


def test_ready_goes_to_finance_but_not_the_creator(finance, finance_other, engineer):
    from tests.reviews.factories_reviews import ready_comparison

    UserFactory(username="no-mail", role=Role.FINANCE_REVIEWER, email="")
    UserFactory(username="gone", role=Role.FINANCE_REVIEWER, is_active=False)
    comparison = ready_comparison(created_by=finance_other)
    assert notifications.notify_comparison_ready(comparison) == 1
    assert recipients() == ["finance@example.com"]  # not the creator, nor the engineer
    message = mail.outbox[0]
    assert message.subject == f"Ready for review: {comparison.title} (rev 1)"
    assert f"/comparisons/{comparison.pk}/review/" in message.body
    assert "four-eyes" in message.body


def test_one_message_per_recipient(comparison, finance, finance_other):
    notifications.notify_comparison_ready(comparison)
    assert recipients() == ["finance2@example.com", "finance@example.com"]
    assert all(len(message.to) == 1 for message in mail.outbox)


def test_ready_above_threshold_also_asks_second_approvers(
    dual_comparison, finance, engineer, security, lead_other
):
    notifications.notify_comparison_ready(dual_comparison)
    assert recipients() == ["engineer@example.com", "finance@example.com", "security@example.com"]
    assert "one from finance and one from a platform engineer" in mail.outbox[0].body


def test_decision_mails_the_creator(comparison, finance, lead, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        review_submit(
            acting_user=finance, comparison=comparison, decision="reject", comment="Too dear."
        )
    assert recipients() == ["lead@example.com"]
    message = mail.outbox[0]
    assert message.subject == f"Rejected: {comparison.title} (rev 1)"
    assert "Too dear." in message.body
    assert f"/comparisons/{comparison.pk}/record/" in message.body


def test_no_mail_when_the_decision_rolls_back(comparison, lead, django_capture_on_commit_callbacks):
    from core.errors import NotAllowed

    with django_capture_on_commit_callbacks(execute=True) as callbacks, pytest.raises(NotAllowed):
        review_submit(acting_user=lead, comparison=comparison, decision="approve", comment="x")
    assert callbacks == []
    assert mail.outbox == []


def test_first_of_two_approvals_asks_the_other_slot(
    dual_comparison, finance, engineer, security, finance_other, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        review_submit(
            acting_user=finance, comparison=dual_comparison, decision="approve", comment="ok"
        )
    assert recipients() == ["engineer@example.com", "security@example.com"]
    assert "1 of 2" in mail.outbox[0].body
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        review_submit(
            acting_user=engineer, comparison=dual_comparison, decision="approve", comment="ok"
        )
    assert recipients() == ["lead@example.com"]
    assert mail.outbox[0].subject.startswith("Approved:")


def test_a_mail_outage_never_breaks_the_flow(comparison, finance, monkeypatch, caplog):
    class Broken:
        def send_messages(self, messages):
            raise ConnectionRefusedError("smtp down")

    monkeypatch.setattr(notifications, "get_connection", lambda: Broken())
    assert notifications.notify_comparison_ready(comparison) == 0
    assert "could not send comparison_ready" in caplog.text


def test_ready_reads_the_row_not_a_stale_instance(dual_comparison, finance, engineer):
    from procurement.models import Comparison

    stale = Comparison.objects.get(pk=dual_comparison.pk)
    stale.required_approvals = 1  # as held before the run's update() set 2
    stale.status = Comparison.Status.RUNNING
    assert notifications.notify_comparison_ready(stale) == 2
    assert recipients() == ["engineer@example.com", "finance@example.com"]


def test_ready_is_not_sent_for_a_comparison_that_is_not_ready(comparison, finance):
    from procurement.models import Comparison

    Comparison.objects.filter(pk=comparison.pk).update(status=Comparison.Status.FAILED)
    assert notifications.notify_comparison_ready(comparison) == 0
    assert mail.outbox == []


def test_n3_links_are_absolute_from_site_url(comparison, finance, settings):
    settings.SITE_URL = "https://workbench.example.com"
    notifications.notify_comparison_ready(comparison)
    body = mail.outbox[0].body
    assert f"https://workbench.example.com/comparisons/{comparison.pk}/review/" in body
    assert f"https://workbench.example.com/comparisons/{comparison.pk}/record/" in body


def test_n3_ready_mail_names_the_creator_not_the_reader(comparison, finance):
    notifications.notify_comparison_ready(comparison)
    body = mail.outbox[0].body
    assert f"It was created by {comparison.created_by}, who cannot review it" in body
    assert "You cannot review" not in body
