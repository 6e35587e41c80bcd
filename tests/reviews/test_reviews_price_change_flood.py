"""Security round 4, R5: 30 revisions that changed nothing in 8 s raised 90 flags and 270
mails. Now a revision that changes no priced figure (a re-capture, a new title) raises no
flag, a further price revision while the flag is unacknowledged updates that flag (mailed
again at most hourly), and a provider's people may save at most REVISIONS_PER_HOUR versions
an hour."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.core import mail
from django.utils import timezone

from catalog.errors import TooManyRevisions
from catalog.models import Quote
from catalog.services.quote_guards import REVISIONS_PER_HOUR
from catalog.services.quotes import quote_revise
from procurement.models import PriceChange
from tests.factories import UserFactory
from tests.reviews.factories_reviews import deliver_price_changes
from tests.reviews.test_reviews_price_changes import _approved_quote

pytestmark = pytest.mark.django_db


def _revise(user, quote, capture, **data):
    with capture(execute=True):
        return quote_revise(acting_user=user, quote=quote, data=data)


def test_r5_a_revision_that_changes_nothing_is_silent(
    comparison, finance, lead, django_capture_on_commit_callbacks
):
    """A re-capture of the same price (an empty revision) is a new version, not a notice."""
    quote = _approved_quote(comparison, finance, django_capture_on_commit_callbacks)
    for _ in range(5):
        quote = _revise(lead, quote, django_capture_on_commit_callbacks)
    deliver_price_changes()
    assert not PriceChange.objects.exists()
    assert mail.outbox == []


def test_r5_a_revision_of_no_priced_figure_raises_no_flag(
    comparison, finance, lead, django_capture_on_commit_callbacks
):
    quote = _approved_quote(comparison, finance, django_capture_on_commit_callbacks)
    for n in range(5):  # the next move: change the title each time instead
        quote = _revise(lead, quote, django_capture_on_commit_callbacks, title=f"H100 v{n}")
    deliver_price_changes()
    assert not PriceChange.objects.exists()
    assert mail.outbox == []


def test_r5_price_revisions_coalesce_into_one_flag_and_one_notice_an_hour(
    comparison, finance, lead, django_capture_on_commit_callbacks
):
    quote = _approved_quote(comparison, finance, django_capture_on_commit_callbacks)
    for price in ("3.10", "3.20", "3.30", "3.40"):
        quote = _revise(
            lead, quote, django_capture_on_commit_callbacks, price_per_gpu_hour=Decimal(price)
        )
        deliver_price_changes()
    flag = PriceChange.objects.get(comparison=comparison)  # one flag, not four
    assert (flag.new_quote, flag.new_price) == (quote, Decimal("3.40"))
    assert sorted(m.to[0] for m in mail.outbox) == [finance.email, lead.email]  # once each
    # An hour later a further change is mailed again.
    PriceChange.objects.filter(pk=flag.pk).update(
        notified_at=timezone.now() - timedelta(hours=1, minutes=1)
    )
    mail.outbox.clear()
    _revise(lead, quote, django_capture_on_commit_callbacks, price_per_gpu_hour=Decimal("3.50"))
    deliver_price_changes()
    assert sorted(m.to[0] for m in mail.outbox) == [finance.email, lead.email]
    assert PriceChange.objects.count() == 1


def test_r5_a_vendor_may_save_only_so_many_versions_an_hour(comparison, lead):
    quote = comparison.candidates.get(key=comparison.recommended_key).quote
    vendor = UserFactory(username="flood-vendor", role="vendor", provider=quote.provider)
    Quote.objects.filter(pk=quote.pk).update(entered_by=vendor)
    quote.refresh_from_db()
    for n in range(REVISIONS_PER_HOUR):
        Quote.objects.create(
            **{
                f.name: getattr(quote, f.name)
                for f in Quote._meta.concrete_fields
                if f.name not in ("id", "supersedes", "created_at", "version")
            },
            version=100 + n,
        )
    with pytest.raises(TooManyRevisions) as refused:
        quote_revise(acting_user=vendor, quote=quote, data={"price_per_gpu_hour": "3.10"})
    assert refused.value.status_code == 429
