"""Demo briefs: four complete, one paused, idempotent, written through the audited service."""

from __future__ import annotations

import io

import pytest

from briefs import demo as demo_briefs
from briefs.models import WorkloadBrief
from core.models import AuditEvent

pytestmark = pytest.mark.django_db


def test_demo_loads_four_complete_briefs_and_one_paused(lead, catalog):
    out = io.StringIO()
    demo_briefs.load(stdout=out)
    briefs = list(WorkloadBrief.objects.all())
    assert len(briefs) == 5
    assert all(b.created_by == lead for b in briefs)
    complete = {b.workload_class for b in briefs if b.is_complete}
    assert complete == {"realtime_inference", "batch_inference", "adapter_finetune", "media"}
    paused = [b for b in briefs if not b.is_complete]
    assert [b.workload_class for b in paused] == ["retrieval"]
    assert "concurrency" in paused[0].missing_fields()
    assert AuditEvent.objects.filter(action="brief.created").count() == 5
    assert "5 created" in out.getvalue()


def test_demo_is_idempotent(lead, catalog):
    demo_briefs.load()
    demo_briefs.load()
    assert WorkloadBrief.objects.count() == 5


def test_demo_loads_the_catalog_when_it_is_missing(lead):
    demo_briefs.load()
    chat = WorkloadBrief.objects.get(workload_class="realtime_inference")
    assert chat.model.slug == "llama-3-1-70b"


def test_demo_without_lead_does_nothing(db):
    out = io.StringIO()
    demo_briefs.load(stdout=out)
    assert not WorkloadBrief.objects.exists()
    assert "skipped" in out.getvalue()


def test_the_support_brief_carries_the_shipped_trace_read(lead, catalog, settings, tmp_path):
    """The demo's support brief sizes from the shipped Azure conversation trace: 19,366
    requests over 58 minutes, as a representative hour; loading twice keeps one."""
    from briefs.models import TrafficTrace

    settings.STORAGES = {
        **settings.STORAGES,
        "default": {**settings.STORAGES["default"], "OPTIONS": {"location": str(tmp_path)}},
    }
    demo_briefs.load()
    demo_briefs.load()
    trace = TrafficTrace.objects.get()
    assert trace.brief.title == demo_briefs.RFQ_BRIEF_TITLE
    assert trace.status == TrafficTrace.Status.READY, trace.error
    assert (trace.requests, trace.window, trace.layout) == (19_366, "hour", "azure")
    assert len(trace.summary["requests_per_minute"]) == 59
