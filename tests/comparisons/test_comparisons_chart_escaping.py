"""Security round 4, R2 (S6 again): the operating-point charts carried a vendor's quote title
`<a href=…>` unescaped, a clickable link in the comparison page's legend. Now the one way a
page embeds a figure is the `plotly_json` filter, which escapes every string of every figure
whoever built it; this walks every figure of every page a vendor's title reaches (the
comparison, its review and record, the quote page) for an unescaped `<`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.conf import settings

from core.chart_text import OWN_TAGS
from procurement.models import CandidateResult
from procurement.services.comparisons import comparison_create, comparison_run
from tests.factories import QuoteFactory

pytestmark = pytest.mark.django_db

TITLES = [
    '<a href="https://ev.il/x">Log in</a> H200',
    "<b style='font-size:40px'>BEST</b>",
    "&lt;a href=x&gt;entities typed&lt;/a&gt; <span>",
]
SCRIPT = re.compile(r'<script id="([^"]+)" type="application/json">(.*?)</script>', re.S)


def _strings(node, key=""):
    if isinstance(node, str):
        yield key, OWN_TAGS.sub("", node)
    elif isinstance(node, dict):
        for k, v in node.items():
            yield from _strings(v, k)
    elif isinstance(node, list):
        for v in node:
            yield from _strings(v, key)


def _unescaped(page: str) -> list[tuple[str, str, str]]:
    found = []
    for figure_id, payload in SCRIPT.findall(page):
        for key, text in _strings(json.loads(payload)):
            if "<" in text or ">" in text:
                found.append((figure_id, key, text))
    return found


@pytest.mark.parametrize("title", TITLES)
def test_no_figure_on_any_page_carries_an_unescaped_tag(scenario, lead, finance, login, title):
    h100 = scenario["fast"].accelerator
    bait = QuoteFactory(
        accelerator=h100,
        provider=scenario["fast"].provider,
        price_per_gpu_hour=scenario["fast"].price_per_gpu_hour,
        title=title,
        entered_by=lead,
    )
    comparison = comparison_create(
        acting_user=lead,
        brief=scenario["brief"],
        quote_ids=[scenario["cheap"].pk, scenario["fast"].pk, bait.pk],
    ).comparison
    comparison_run(comparison_id=comparison.pk)
    # Two operating points on every row, so the operating-point charts are drawn too.
    base = {
        "label": title, "statement": title, "concurrency": 8, "request_rate_per_s": None,
        "tokens_per_s": 800.0, "ttft_p95_ms": 300.0, "itl_p95_ms": 20.0, "e2e_p99_ms": 9000.0,
        "goodput": 0.99, "slo_attainment": 0.99, "error_rate": 0.0, "chosen": False,
        "reason": "",
    }  # fmt: skip
    points = [
        {**base, "tokens_per_s_per_user": 20.0, "unit_cost": "1.5", "meets": True},
        {**base, "tokens_per_s_per_user": 40.0, "unit_cost": "2.5", "meets": False},
    ]
    for row in CandidateResult.objects.filter(comparison=comparison):
        row.detail = {**(row.detail or {}), "operating_points": points}
        row.save(update_fields=["detail"])
    pages = {
        "comparison": login(lead).get(f"/comparisons/{comparison.pk}/"),
        "review": login(finance).get(f"/comparisons/{comparison.pk}/review/"),
        "record": login(finance).get(f"/comparisons/{comparison.pk}/record/"),
        "quote": login(lead).get(f"/catalog/quotes/{bait.pk}/"),
    }
    seen = 0
    for name, response in pages.items():
        assert response.status_code == 200, name
        page = response.content.decode()
        seen += len(SCRIPT.findall(page))
        assert _unescaped(page) == [], name
    assert seen >= 3  # the walk saw figures, among them the operating-point chart
    assert 'id="fig-points"' in pages["comparison"].content.decode()


def test_every_page_embeds_figures_through_the_one_escaping_filter():
    """The next chart cannot forget: no template embeds JSON but through `plotly_json`."""
    offenders = [
        str(path)
        for path in Path(settings.BASE_DIR, "templates").rglob("*.html")
        if "json_script" in path.read_text(encoding="utf-8")
    ]
    assert offenders == []
