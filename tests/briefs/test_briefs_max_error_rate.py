"""The brief's optional maximum error rate (issue 24): model, form, API and its message."""

from __future__ import annotations

import pytest

from briefs.forms import BriefForm
from briefs.models import WorkloadBrief
from tests.briefs.test_briefs_api import LIST, _body

pytestmark = pytest.mark.django_db


def test_n8_the_api_stores_a_maximum_error_rate_and_refuses_one_outside_0_to_1(
    api_client, lead, catalog
):
    api_client.force_authenticate(lead)
    made = api_client.post(LIST, _body(max_error_rate=0.05), format="json")
    assert made.status_code == 201, made.json()
    assert made.json()["max_error_rate"] == 0.05
    assert WorkloadBrief.objects.get(pk=made.json()["id"]).max_error_rate == 0.05
    before = WorkloadBrief.objects.count()
    for bad in (1.5, 1, -0.1):
        refused = api_client.post(LIST, _body(max_error_rate=bad), format="json")
        assert refused.status_code == 400
        message = " ".join(refused.json()["fields"]["max_error_rate"])
        assert "Maximum error rate" in message
    assert WorkloadBrief.objects.count() == before
    empty = api_client.post(LIST, _body(), format="json")
    assert empty.json()["max_error_rate"] is None  # optional: no error-rate target


def test_n8_the_form_offers_the_maximum_error_rate_beside_the_latency_targets():
    form = BriefForm()
    assert "max_error_rate" in form.fields
    (latency,) = [g for g in form.fieldsets() if g["key"] == "latency"]
    assert [f.name for f in latency["fields"]][-1] == "max_error_rate"
