"""L8: the new-comparison form submits more than 1,000 ticked candidates.

Before: each ticked quote is one POST field and Django refused more than 1,000 fields with a
blank "Bad Request (400)" (TooManyFieldsSent) — 995 ticked quotes was the most a lead could
compare from the browser. Now the limit covers the 5,000-id cap every surface shares, and
past that cap the form says so; and past 200 candidates the page lists a sample and the
comparison takes every match by the filters, sending no id.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from catalog.models import Quote
from procurement.models import Comparison
from procurement.services.comparisons.selection import SAMPLE
from tests.comparisons.factories_comparisons import frozen

pytestmark = pytest.mark.django_db

TICKED = 1_200


@pytest.fixture
def sent(monkeypatch):
    out: list[object] = []
    monkeypatch.setattr("core.jobs.send", lambda name, args, **kw: out.append(args))
    return out


@pytest.fixture
def many(scenario, lead):
    """TICKED current quotes like the scenario's fast one (bulk, as the 10x world is)."""
    like = scenario["fast"]
    now = timezone.now()
    Quote.objects.bulk_create(
        Quote(
            provider=like.provider,
            accelerator=like.accelerator,
            capacity_model=like.capacity_model,
            currency="USD",
            price_per_gpu_hour=like.price_per_gpu_hour,
            gpus_per_node=like.gpus_per_node,
            region=like.region,
            quoted_at=now - timedelta(days=1),
            valid_until=now + timedelta(days=90),
            entered_by=lead,
            source_url="https://example.com/price-list",
        )
        for _ in range(TICKED - 2)
    )
    ids = list(Quote.objects.values_list("pk", flat=True))
    assert len(ids) == TICKED
    return ids


def _post(login, lead, brief, quotes):
    return login(lead).post(
        "/comparisons/new/", {"brief": brief.pk, "quotes": quotes, "title": "Many"}
    )


def test_l8_a_form_with_1200_ticked_quotes_is_queued(login, lead, scenario, many, sent):
    response = _post(login, lead, scenario["brief"], many)
    assert response.status_code == 302, response.content.decode()[:300]
    comparison = frozen(Comparison.objects.get(title="Many"))
    assert sorted(comparison.snapshot["selection"]["quote_ids"]) == sorted(many)


def test_l8_past_the_id_cap_the_form_says_why(login, lead, scenario, many, sent, monkeypatch):
    monkeypatch.setattr("procurement.forms.comparisons.MAX_IDS", 1_000)
    response = _post(login, lead, scenario["brief"], many)
    assert response.status_code == 400
    assert (
        "At most 1,000 quotes can be compared at once; 1,200 are ticked. Narrow the filters above."
        in response.content.decode()
    )
    assert not Comparison.objects.filter(title="Many").exists()
    assert sent == []


def test_l8_past_200_the_page_shows_the_count_and_a_sample_and_sends_the_filters(
    login, lead, scenario, many, sent
):
    """At 100,000 quotes the page listed 100,000 checkboxes: 34 MB, 35 s; above ~995 ticked
    its post was a blank 400. Past LIST_LIMIT it lists a sample, no box, and the comparison
    takes every match by the filters (no id posted)."""
    brief = scenario["brief"]
    client = login(lead)
    provider = scenario["fast"].provider.slug
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(f"/comparisons/new/?brief={brief.pk}&filtered=1&providers={provider}")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'name="quotes"' not in html
    listed = html[html.index('class="candidate-groups"') : html.index("3. Run settings")]
    assert listed.count("<li>") == SAMPLE
    words = " ".join(html.split())
    assert f"{TICKED - 1:,} candidates are compared by these filters: more than the 200" in words
    assert 'name="by_filters" value="True"' in html
    # no query reads every current quote's id (100,000 at ten times today's size)
    assert not any(
        '"catalog_quote"."id" FROM' in q["sql"]
        and "LIMIT" not in q["sql"]
        and "COUNT" not in q["sql"]
        and "IN (" not in q["sql"]
        for q in ctx.captured_queries
    ), [q["sql"][:200] for q in ctx.captured_queries]

    posted = client.post(
        "/comparisons/new/",
        {"brief": brief.pk, "by_filters": "True", "providers": [provider], "title": "By filter"},
    )
    assert posted.status_code == 302, posted.content.decode()[:400]
    comparison = Comparison.objects.get(title="By filter")
    assert comparison.chosen["quote_ids"] is None
    assert comparison.chosen["filters"] == {"providers": [provider]}
    assert len(frozen(comparison).snapshot["quotes"]) == TICKED - 1


def test_l8_at_200_or_fewer_the_page_lists_every_candidate_to_tick(login, lead, scenario, many):
    brief = scenario["brief"]
    cheap = scenario["cheap"].provider.slug
    listed = login(lead).get(f"/comparisons/new/?brief={brief.pk}&filtered=1&providers={cheap}")
    html = listed.content.decode()
    assert html.count('name="quotes"') == 1
    assert 'name="by_filters"' not in html
