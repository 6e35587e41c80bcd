"""The product walked as its users walk it (round four): an RFQ sent from a brief states its
token counts as the rest of its requirements do, with thousands separators."""

from __future__ import annotations

import html as html_lib

import pytest

from tests.factories import WorkloadBriefFactory

pytestmark = pytest.mark.django_db


def test_j10_rfq_from_a_brief_states_token_counts_with_separators(login, lead):
    brief = WorkloadBriefFactory(created_by=lead, p95_input_tokens=3500, p95_output_tokens=1200)
    page = login(lead).get(f"/catalog/rfqs/new/?brief={brief.pk}").content.decode()
    requirements = html_lib.unescape(
        page[page.index('name="requirements"') :].split("</textarea>")[0]
    )
    assert "p95 3,500 input / 1,200 output tokens" in requirements  # was "p95 3500 input / 1200"
