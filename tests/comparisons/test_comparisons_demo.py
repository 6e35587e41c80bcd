"""Demo data: one READY comparison computed in-process; loading twice adds nothing. And the
`redrive_comparisons` command."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

from django.core.management import call_command
from django.utils import timezone

from procurement import demo
from procurement.models import Comparison
from tests.comparisons.factories_comparisons import many_quotes
from tests.factories import ModelApiRouteFactory


def test_demo_computes_one_ready_comparison_and_is_idempotent(lead, brief, checklist_items):
    many_quotes(21, lead)
    ModelApiRouteFactory(region="eu-west", model_profile=brief.model)
    out = StringIO()
    demo.load(stdout=out)
    comparison = Comparison.objects.get()
    assert comparison.status == Comparison.Status.READY
    assert comparison.created_by == lead
    assert comparison.brief == brief
    assert comparison.candidates.count() == 22
    assert "ready with 22 candidates" in out.getvalue()
    demo.load(stdout=out)
    assert Comparison.objects.count() == 1


def test_demo_without_a_complete_realtime_brief_skips(db):
    out = StringIO()
    demo.load(stdout=out)
    assert "skipped" in out.getvalue()
    assert not Comparison.objects.exists()


def test_redrive_command_resends_stuck_comparisons(lead, brief, checklist_items, monkeypatch):
    sent = []
    monkeypatch.setattr("core.jobs.send", lambda name, args, **kw: sent.append(args))
    quotes = many_quotes(1, lead)
    from procurement.services.comparisons import comparison_create

    stuck = comparison_create(acting_user=lead, brief=brief, quote_ids=[quotes[0].pk]).comparison
    Comparison.objects.filter(pk=stuck.pk).update(queued_at=timezone.now() - timedelta(hours=1))
    out = StringIO()
    call_command("redrive_comparisons", stdout=out)
    assert sent == [(stuck.pk,)]
    assert "Re-sent 1 comparison(s)" in out.getvalue()
