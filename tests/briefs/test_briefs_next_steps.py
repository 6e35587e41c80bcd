"""U3, U5: the brief page offers "Send RFQ" and "Compare offers"; the RFQ form is pre-filled
from the brief (?brief=<id>) and offers only current brief versions."""

from __future__ import annotations

import pytest

from tests.factories import WorkloadBriefFactory

pytestmark = pytest.mark.django_db


def test_brief_page_offers_send_rfq_and_compare_offers(login, lead):
    """U3: the lead goes from the brief to an RFQ or a comparison in one click."""
    brief = WorkloadBriefFactory(title="Chat assistant", created_by=lead)
    html = login(lead).get(f"/briefs/{brief.pk}/").content.decode()
    assert f'href="/catalog/rfqs/new/?brief={brief.pk}"' in html
    assert f'href="/comparisons/new/?brief={brief.pk}"' in html
    assert "Send RFQ" in html
    assert "Compare offers" in html


def test_the_engineer_sees_no_buttons_it_cannot_use(login, engineer, lead):
    """U3: the buttons follow the roles (the engineer neither sends RFQs nor compares)."""
    brief = WorkloadBriefFactory(title="Chat assistant", created_by=lead)
    html = login(engineer).get(f"/briefs/{brief.pk}/").content.decode()
    assert "Compare offers" not in html


def test_rfq_form_is_prefilled_from_the_brief(login, lead):
    """U5: title, brief, requirements in words, region and term from the brief."""
    brief = WorkloadBriefFactory(
        title="Chat assistant",
        created_by=lead,
        ttft_p95_ms=500,
        allowed_regions=["eu-west"],
        horizon_months=12,
    )
    response = login(lead).get(f"/catalog/rfqs/new/?brief={brief.pk}")
    assert response.status_code == 200
    form = response.context["form"]
    assert form.initial["brief"] == brief.pk
    assert form.initial["title"] == "RFQ: Chat assistant"
    assert "TTFT p95 ≤ 500 ms" in form.initial["requirements"]
    assert form.initial["region"] == "eu-west"
    assert form.initial["term_months"] == 12
    html = response.content.decode()
    assert 'value="RFQ: Chat assistant"' in html
    assert f'<option value="{brief.pk}" selected>' in html


def test_rfq_form_offers_only_current_brief_versions(login, lead):
    """U5: a superseded brief version is not offered."""
    old = WorkloadBriefFactory(title="Chat v1", created_by=lead)
    new = WorkloadBriefFactory(title="Chat v2", created_by=lead, supersedes=old, version=2)
    form = login(lead).get("/catalog/rfqs/new/").context["form"]
    offered = set(form.fields["brief"].queryset.values_list("pk", flat=True))
    assert new.pk in offered
    assert old.pk not in offered


def test_unknown_brief_id_leaves_the_form_empty(login, lead):
    response = login(lead).get("/catalog/rfqs/new/?brief=999999")
    assert response.status_code == 200
    assert not response.context["form"].initial
