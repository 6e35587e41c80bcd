"""U1 / U2 on the brief pages: a fit with headroom under the margin reads amber with its
reason, never a plain green "fits"; the context a fit is computed at names where it came from
(a blank p95 input falls back to the context window and says so)."""

from __future__ import annotations

import pytest

from catalog.models import ModelProfile
from tests.briefs.test_briefs_views import CALC
from tests.factories import WorkloadBriefFactory

pytestmark = pytest.mark.django_db

GREEN_FITS = '<span class="badge ok">fits</span>'


def test_u2_calculator_result_under_the_margin_reads_amber(login, lead, catalog):
    html = login(lead).post("/briefs/memory-fit/", {**CALC, "concurrent_sequences": "1"})
    html = html.content.decode()
    heading = html[html.index("<h2>") : html.index("</h2>")]
    assert "tight fit, 4.5 % headroom" in heading
    assert GREEN_FITS not in heading


def test_u1_blank_p95_input_names_the_context_window_fallback(login, lead, catalog):
    brief = WorkloadBriefFactory(
        created_by=lead,
        model=ModelProfile.objects.get(slug="llama-3-1-70b"),
        p95_input_tokens=None,
        context_window_tokens=16384,
    )
    html = login(lead).get(brief.get_absolute_url()).content.decode()
    assert "at a context of 16,384 tokens (from the context window (the brief gives no p95" in html
    assert "p95 context" not in html


def test_u1_p95_context_names_its_source(login, lead, brief):
    html = login(lead).get(brief.get_absolute_url()).content.decode()
    assert "at a context of 3,500 tokens (from p95 input + p95 output)" in html
