"""L9: a comparison's snapshot is frozen on the worker, not in the web request.

Before: `POST /api/v1/comparisons/` (and the form) froze every candidate's quote, checklist
and evidence before answering: 20,000 candidates held a gunicorn worker 14-39 s, 40,000 hit
its 60 s timeout and saved nothing. Now the request checks the choice in a bounded number of
queries and saves it (`Comparison.chosen`); the worker freezes, then computes.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalog.models import Quote
from core.models import AuditEvent
from procurement.models import CandidateResult, Comparison
from procurement.services.comparisons import comparison_create, comparison_run
from procurement.services.comparisons.freezing import freeze_chosen
from tests.comparisons.factories_comparisons import many_quotes, scenario_quotes
from tests.factories import WorkloadBriefFactory

pytestmark = pytest.mark.django_db

URL = "/api/v1/comparisons/"
LARGE = 40_000


@pytest.fixture
def checklist_items(db):
    import importlib

    from django.apps import apps

    from checklist.models import ChecklistItem

    if not ChecklistItem.objects.exists():
        importlib.import_module("checklist.migrations.0002_seed_items").seed_items(apps, None)


@pytest.fixture
def sent(monkeypatch):
    out: list[tuple[int, ...]] = []
    monkeypatch.setattr("core.jobs.send", lambda name, args, **kw: out.append(args))
    return out


def _copies(quote: Quote, n: int) -> None:
    """`n` copies of one quote in one INSERT … SELECT (40,000 factory rows would take minutes)."""
    columns = ", ".join(f'"{f.column}"' for f in Quote._meta.concrete_fields if not f.primary_key)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {Quote._meta.db_table} ({columns}) "  # noqa: S608 (model metadata)
            f"SELECT {columns} FROM {Quote._meta.db_table}, generate_series(1, %s) "
            "WHERE id = %s",
            [n, quote.pk],
        )


def _post(api_client, lead, brief, providers):
    api_client.force_authenticate(lead)
    body = {"brief": brief.pk, "providers": providers, "seed": 3}
    with CaptureQueriesContext(connection) as ctx:
        response = api_client.post(URL, body, format="json")
    assert response.status_code == 202, response.json()
    return Comparison.objects.get(pk=response.json()["id"]), len(ctx.captured_queries)


def test_l9_a_40000_candidate_choice_is_saved_in_as_many_queries_as_4_and_nothing_frozen(
    api_client, lead, checklist_items, sent
):
    brief = WorkloadBriefFactory(created_by=lead, e2e_p99_ms=30_000)
    quotes = many_quotes(4, lead, providers=1)
    slug = quotes[0].provider.slug
    _small, small_queries = _post(api_client, lead, brief, [slug])
    _copies(quotes[0], LARGE - 4)
    large, large_queries = _post(api_client, lead, brief, [slug])

    assert large_queries == small_queries <= 15  # 11 today
    stored = Comparison.objects.filter(pk=large.pk).values_list("snapshot", "snapshot_facts").get()
    assert stored == ({}, {})  # nothing frozen: the worker does it
    assert large.status == Comparison.Status.QUEUED
    assert not large.quotes.exists()
    assert large.chosen["quote_ids"] is None
    assert large.chosen["filters"] == {"providers": [slug]}
    created = AuditEvent.objects.get(action="comparison.create", object_id=str(large.pk))
    assert created.summary["quotes"] == LARGE


def test_l9_the_worker_freezes_the_choice_then_computes(lead, checklist_items):
    brief = WorkloadBriefFactory(created_by=lead, e2e_p99_ms=30_000)
    cheap, fast = scenario_quotes(lead)
    many_quotes(1, lead, providers=1)  # so that the two chosen are not the default set
    queued = comparison_create(
        acting_user=lead, brief=brief, quote_ids=[fast.pk, cheap.pk], seed=5, enqueue=False
    ).comparison
    assert Comparison.objects.values_list("snapshot", flat=True).get(pk=queued.pk) == {}
    expected, _, _ = freeze_chosen(Comparison.objects.get(pk=queued.pk))

    done = comparison_run(comparison_id=queued.pk)

    assert done is not None
    assert done.status == Comparison.Status.READY, done.error
    assert done.snapshot == expected  # the same document the request used to freeze
    assert done.snapshot["selection"] == {
        "default": False,
        "quote_ids": [cheap.pk, fast.pk],
        "api_route_ids": [],
    }
    assert done.snapshot["as_of"] == queued.chosen["as_of"]  # frozen as of the request
    assert done.snapshot_facts["as_of"] == queued.chosen["as_of"]
    assert set(done.quotes.values_list("pk", flat=True)) == {cheap.pk, fast.pk}
    assert CandidateResult.objects.filter(comparison=done).count() == 2


def test_l9_a_choice_withdrawn_before_the_worker_froze_it_fails_with_its_reason(
    lead, checklist_items, client, api_client
):
    brief = WorkloadBriefFactory(created_by=lead, e2e_p99_ms=30_000)
    cheap, fast = scenario_quotes(lead)
    many_quotes(1, lead, providers=1)  # so that the two chosen are not the default set
    queued = comparison_create(
        acting_user=lead, brief=brief, quote_ids=[cheap.pk, fast.pk], enqueue=False
    ).comparison
    Quote.objects.filter(pk=fast.pk).update(status=Quote.Status.WITHDRAWN)

    failed = comparison_run(comparison_id=queued.pk)

    assert failed is not None
    assert failed.status == Comparison.Status.FAILED
    reason = f"Quote id(s) {fast.pk} are withdrawn or superseded by a newer version"
    assert failed.error.startswith("The chosen candidates cannot be compared: " + reason)
    assert failed.snapshot == {}
    assert not CandidateResult.objects.filter(comparison=failed).exists()
    client.force_login(lead)
    assert reason in client.get(failed.get_absolute_url()).content.decode()
    api_client.force_authenticate(lead)
    assert reason in api_client.get(f"{URL}{failed.pk}/").json()["error"]


def test_l9_a_retry_of_a_comparison_that_never_froze_freezes_it(lead, checklist_items, sent):
    from procurement.services.comparisons import comparison_retry

    brief = WorkloadBriefFactory(created_by=lead, e2e_p99_ms=30_000)
    cheap, _fast = scenario_quotes(lead)
    queued = comparison_create(acting_user=lead, brief=brief, quote_ids=[cheap.pk]).comparison
    Quote.objects.filter(pk=cheap.pk).update(status=Quote.Status.WITHDRAWN)
    assert comparison_run(comparison_id=queued.pk).status == Comparison.Status.FAILED
    Quote.objects.filter(pk=cheap.pk).update(status=Quote.Status.SUBMITTED)

    comparison_retry(acting_user=lead, comparison=queued)
    done = comparison_run(comparison_id=queued.pk)

    assert done.status == Comparison.Status.READY, done.error
    assert done.snapshot["selection"]["quote_ids"] == [cheap.pk]
