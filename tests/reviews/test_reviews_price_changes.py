"""Issue 15: a price changed since approval flags the approved decision.

A revision or withdrawal of a quote version an approved decision rests on flags that decision
("price changed since approval", naming the quote, the approved and the new price) on its
decision record, on its approvers' dashboards and by e-mail to the approvers; in the same
transaction as the revision, audited, once per new version.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core import mail

from catalog.services.quotes import quote_revise, quote_withdraw
from catalog.templatetags.catalog_tags import price
from core.models import AuditEvent
from procurement.models import Comparison, PriceChange
from procurement.services.price_changes import flag_approved_decisions
from procurement.services.reviews import review_submit
from tests.reviews.factories_reviews import deliver_price_changes

pytestmark = pytest.mark.django_db


def _approved_quote(comparison, finance, capture):
    with capture(execute=True):
        review_submit(
            acting_user=finance, comparison=comparison, decision="approve", comment="Checked."
        )
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.APPROVED
    mail.outbox.clear()
    return comparison.candidates.get(key=comparison.recommended_key).quote


def test_price_changed_since_approval_flags_record_dashboard_and_mails_the_approver(
    comparison, finance, lead, login, django_capture_on_commit_callbacks
):
    quote = _approved_quote(comparison, finance, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        new = quote_revise(
            acting_user=lead, quote=quote, data={"price_per_gpu_hour": Decimal("3.10")}
        )
    deliver_price_changes()  # the worker's run, published on commit
    flag = PriceChange.objects.get(comparison=comparison)
    assert (flag.approved_quote, flag.new_quote, flag.kind) == (quote, new, "revised")
    assert (flag.old_price, flag.new_price) == (quote.price_per_gpu_hour, Decimal("3.10"))
    assert AuditEvent.objects.filter(action="comparison.price_changed").count() == 1

    # The approver and the comparison's owner (who would recompute it) are told.
    assert sorted(m.to[0] for m in mail.outbox) == [finance.email, lead.email]
    message = next(m for m in mail.outbox if m.to == [finance.email])
    assert message.subject == f"Price changed since approval: {comparison.title} (rev 1)"
    assert f"Quote #{quote.pk}" in message.body
    # Money reads as on the dashboard flag: currency first, two decimals, the unit.
    assert "now stands at USD 3.10 per GPU-hour" in message.body
    assert f"approved at USD {price(quote.price_per_gpu_hour)} per GPU-hour" in message.body
    assert "3.1000" not in message.body

    client = login(finance)
    record = client.get(f"/comparisons/{comparison.pk}/record/").content.decode()
    assert "Price changed since approval" in record
    assert f"quote #{quote.pk}" in record
    dashboard = client.get("/").content.decode()
    assert "Price changed since approval" in dashboard
    assert f"/comparisons/{comparison.pk}/record/" in dashboard


def test_withdrawal_flags_the_decision_too(
    comparison, finance, lead, django_capture_on_commit_callbacks
):
    quote = _approved_quote(comparison, finance, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        quote_withdraw(acting_user=lead, quote=quote, reason="capacity sold")
    deliver_price_changes()
    flag = PriceChange.objects.get(comparison=comparison)
    assert flag.kind == "withdrawn"
    assert flag.new_price is None
    assert "was withdrawn" in mail.outbox[0].body


def test_flagging_is_idempotent_and_a_later_version_flags_again(
    comparison, finance, lead, django_capture_on_commit_callbacks
):
    quote = _approved_quote(comparison, finance, django_capture_on_commit_callbacks)
    v2 = quote_revise(acting_user=lead, quote=quote, data={"price_per_gpu_hour": Decimal("2.80")})
    assert flag_approved_decisions([(quote, v2)], lead) == 0  # the same version again: nothing
    assert PriceChange.objects.filter(comparison=comparison).count() == 1
    v3 = quote_revise(acting_user=lead, quote=v2, data={"price_per_gpu_hour": Decimal("2.90")})
    latest = PriceChange.objects.get(new_quote=v3)
    assert latest.approved_quote == quote  # still against the price that was approved
    assert AuditEvent.objects.filter(action="comparison.price_changed").count() == 2


def test_only_ready_and_approved_decisions_are_flagged(comparison, lead):
    """A ready comparison's recommended row is flagged too (its reviewers are told before
    they decide); a rejected one is not."""
    quote = comparison.candidates.get(key=comparison.recommended_key).quote
    quote_revise(acting_user=lead, quote=quote, data={"price_per_gpu_hour": Decimal("3.10")})
    assert PriceChange.objects.filter(comparison=comparison).count() == 1
    comparison.status = Comparison.Status.REJECTED
    comparison.save(update_fields=["status"])
    current = type(quote).objects.current().get(provider=quote.provider, title=quote.title)
    quote_revise(acting_user=lead, quote=current, data={"price_per_gpu_hour": Decimal("3.20")})
    assert PriceChange.objects.filter(comparison=comparison).count() == 1


def test_the_flag_is_written_with_the_revision_or_not_at_all(
    comparison, finance, lead, monkeypatch, django_capture_on_commit_callbacks
):
    quote = _approved_quote(comparison, finance, django_capture_on_commit_callbacks)

    def broken(*args, **kwargs):
        raise RuntimeError("audit store down")

    monkeypatch.setattr("procurement.services.price_changes.audit_record", broken)
    with pytest.raises(RuntimeError):
        quote_revise(acting_user=lead, quote=quote, data={"price_per_gpu_hour": Decimal("3.10")})
    assert not PriceChange.objects.exists()
    assert not quote.__class__.objects.filter(supersedes=quote).exists()  # no half-write


def test_a_bulk_import_revision_flags_the_decision_too(
    comparison, finance, lead, django_capture_on_commit_callbacks
):
    """The import writes many versions at once (`_bulk_versions`); the hook runs there too."""
    from catalog.services.import_apply import Applied, _bulk_versions

    quote = _approved_quote(comparison, finance, django_capture_on_commit_callbacks)
    update = type(quote).objects.get(pk=quote.pk)
    update.price_per_gpu_hour = Decimal("1.95")
    with django_capture_on_commit_callbacks(execute=True):
        _bulk_versions(lead, [(quote, update)], [], Applied())
    deliver_price_changes()
    flag = PriceChange.objects.get(comparison=comparison)
    assert flag.new_price == Decimal("1.95")
    assert sorted(m.to[0] for m in mail.outbox) == [finance.email, lead.email]
