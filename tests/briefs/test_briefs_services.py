"""services_briefs: create and revise (versioned, audited, atomic), and the completeness gate."""

from __future__ import annotations

import pytest
from django.forms.models import model_to_dict

from briefs.models import WorkloadBrief
from briefs.services import brief_create, brief_revise
from catalog.models import ModelProfile
from core.errors import Conflict, DomainError, NotAllowed
from core.models import AuditEvent
from tests.briefs.factories_briefs import RANGES

pytestmark = pytest.mark.django_db


def _data(**extra):
    return {
        "title": "Support chat",
        "workload_class": "realtime_inference",
        "model": ModelProfile.objects.get(slug="llama-3-1-70b"),
        "context_window_tokens": 8192,
        "p95_input_tokens": 3000,
        "p95_output_tokens": 500,
        "concurrency": 32,
        "ttft_p95_ms": 800,
        "itl_p95_ms": 60,
        "e2e_p99_ms": 20000,
        "platform_fte": 0.5,
        **RANGES,
        **extra,
    }


def test_create_saves_version_one_and_audits(lead, catalog):
    brief = brief_create(acting_user=lead, data=_data())
    assert brief.version == 1
    assert brief.supersedes is None
    assert brief.created_by == lead
    assert brief.is_complete
    event = AuditEvent.objects.get(action="brief.created")
    assert event.object_id == str(brief.pk)
    assert event.actor == lead
    assert event.summary["missing_fields"] == []


def test_incomplete_brief_is_saved_and_reports_missing_fields(lead, catalog):
    brief = brief_create(acting_user=lead, data={"title": "Draft", "workload_class": "training"})
    assert not brief.is_complete
    assert "training_tokens_b" in brief.missing_fields()


@pytest.mark.parametrize("who", ["engineer", "finance", "security", "vendor_a"])
def test_only_leads_and_admins_write_briefs(who, request, catalog):
    user = request.getfixturevalue(who)
    with pytest.raises(NotAllowed):
        brief_create(acting_user=user, data=_data())
    assert not WorkloadBrief.objects.exists()
    assert not AuditEvent.objects.filter(action__startswith="brief.").exists()


def test_admin_can_write(admin_member, catalog):
    assert brief_create(acting_user=admin_member, data=_data()).pk


def test_invalid_ranges_are_refused_with_a_message_per_field(lead, catalog):
    with pytest.raises(DomainError) as exc:
        brief_create(
            acting_user=lead,
            data=_data(acceptance_rate_low=0.99, utilisation_high=1.4, p95_input_tokens=9000),
        )
    fields = exc.value.fields
    assert "acceptance_rate_low" in fields
    assert "utilisation_high" in fields
    assert "context_window_tokens" in fields
    assert not WorkloadBrief.objects.exists()


def test_unknown_field_is_refused(lead, catalog):
    with pytest.raises(DomainError) as exc:
        brief_create(acting_user=lead, data=_data(version=7))
    assert exc.value.fields == {"version": ["This field cannot be set."]}


def test_revise_creates_a_new_version_and_keeps_the_old_unchanged(lead, lead_other, brief):
    before = model_to_dict(brief)
    new = brief_revise(acting_user=lead_other, brief=brief, data={"concurrency": 64})
    brief.refresh_from_db()
    assert model_to_dict(brief) == before
    assert new.pk != brief.pk
    assert (new.version, new.supersedes_id, new.concurrency) == (2, brief.pk, 64)
    assert new.created_by == lead_other
    assert new.title == brief.title
    assert new.model_id == brief.model_id
    assert new.allowed_regions == brief.allowed_regions
    event = AuditEvent.objects.get(action="brief.revised")
    assert event.summary["changed"] == ["concurrency"]
    assert event.summary["supersedes"] == brief.pk


def test_revising_a_superseded_version_is_a_conflict(lead, brief):
    brief_revise(acting_user=lead, brief=brief, data={"concurrency": 64})
    with pytest.raises(Conflict):
        brief_revise(acting_user=lead, brief=brief, data={"concurrency": 128})
    assert WorkloadBrief.objects.count() == 2


def test_invalid_revision_changes_nothing(lead, brief):
    with pytest.raises(DomainError) as exc:
        brief_revise(acting_user=lead, brief=brief, data={"failure_rate_likely": 0.5})
    assert "failure_rate_high" in exc.value.fields
    assert WorkloadBrief.objects.count() == 1
    assert not AuditEvent.objects.filter(action="brief.revised").exists()


def test_revision_can_complete_an_incomplete_brief(lead, incomplete_brief):
    assert not incomplete_brief.is_complete
    new = brief_revise(
        acting_user=lead,
        brief=incomplete_brief,
        data={"concurrency": 8, "e2e_p99_ms": 4000, "acceptance_rate_high": 0.97},
    )
    assert new.is_complete
    incomplete_brief.refresh_from_db()
    assert not incomplete_brief.is_complete
