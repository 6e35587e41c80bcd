"""The dashboard's two lists (recent comparisons, price notices) are kept per user while the
tables they show are unchanged, so a view costs the baseline's queries plus one stamp.

Before: every view compiled and ran both lists' queries; they were half the dashboard's CPU
under load, which served 45 % of the minimal authenticated view's requests/s (target 50 %).
The stamp (each table's row count and sum of `xmin`) changes with any committed write, also
an `.update()` that sends no signal. Each write here commits on its own (transaction=True):
inside one transaction every row carries the same `xmin`, which no deployment serves from.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from procurement.models import CandidateResult, Comparison, PriceChange
from tests.factories import ComparisonFactory, QuoteFactory, WorkloadBriefFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def lists_kept(settings):
    settings.DASHBOARD_LISTS_CACHE_SECONDS = 60
    cache.clear()


def _view(client) -> tuple[str, int]:
    with CaptureQueriesContext(connection) as ctx:
        response = client.get("/")
    assert response.status_code == 200
    return response.content.decode(), len(ctx.captured_queries)


def test_a_kept_dashboard_costs_the_session_the_user_and_one_stamp_at_any_size(login, lead):
    brief = WorkloadBriefFactory(created_by=lead)
    for _ in range(30):
        ComparisonFactory(brief=brief, created_by=lead)
    client = login(lead)
    _view(client)  # the cards, kept 15 s by role, and the lists
    ComparisonFactory(brief=brief, created_by=lead)
    _html, cold = _view(client)
    _html, warm = _view(client)
    assert cold == 5  # session, user, stamp, the recent comparisons, the open notices
    assert warm == 3  # session, user, the stamp: as many as the minimal view's session + query


def test_every_write_to_what_the_lists_show_is_seen_on_the_next_view(login, lead, lead_other):
    brief = WorkloadBriefFactory(created_by=lead, title="Stamped brief")
    comparison = ComparisonFactory(brief=brief, created_by=lead, title="Kept one")
    client = login(lead)
    html, _ = _view(client)
    assert "Kept one" in html
    assert "status-queued" in html

    # an update that sends no signal (the worker's claim, a status change)
    Comparison.objects.filter(pk=comparison.pk).update(status=Comparison.Status.READY)
    html, _ = _view(client)
    assert "status-ready" in html
    assert "status-queued" not in html

    ComparisonFactory(brief=brief, created_by=lead, title="A new one")
    html, _ = _view(client)
    assert "A new one" in html

    # a price change on the lead's comparison: a notice; acknowledged: gone
    quote = QuoteFactory(entered_by=lead)
    row = CandidateResult.objects.create(
        comparison=comparison, key=f"q{quote.pk}", kind="gpu", label="Row", quote=quote
    )
    flag = PriceChange.objects.create(
        comparison=comparison,
        candidate=row,
        approved_quote=quote,
        new_quote=quote,
        kind="price",
        currency="USD",
        old_price=Decimal("2.0000"),
        new_price=Decimal("2.5000"),
    )
    html, _ = _view(client)
    assert f'id="price-change-{flag.pk}"' in html
    other, _ = _view(login(lead_other))  # kept per user: not the owner, no notice
    assert f'id="price-change-{flag.pk}"' not in other
    PriceChange.objects.filter(pk=flag.pk).update(acknowledged_at=timezone.now())
    html, _ = _view(login(lead))
    assert f'id="price-change-{flag.pk}"' not in html

    Comparison.objects.filter(pk=comparison.pk).update(title="Renamed")
    html, _ = _view(client)
    assert "Renamed" in html
