"""The product walked as its users walk it (round four): the memory fit's assumptions on the
brief page and the calculator read as labels, not as the engine's keys (`gb`,
`overhead_gb_per_gpu`, `kv_bytes_per_value`); the key stays in the label's title."""

from __future__ import annotations

import pytest

from briefs.fit_words import LABELS, assumption_rows, label_of
from tests.briefs.test_briefs_views import CALC

pytestmark = pytest.mark.django_db

RAW_KEYS = ("<dt>gb</dt>", "<dt>overhead_gb_per_gpu</dt>", "<dt>kv_bytes_per_value</dt>")


def _assumptions(html: str) -> str:
    start = html.index('<details class="card assumptions"')
    return html[start : html.index("</details>", start)]


def test_j9_brief_page_names_the_memory_fit_assumptions_in_words(login, lead, brief):
    html = _assumptions(login(lead).get(brief.get_absolute_url()).content.decode())
    assert '<dt title="overhead_gb_per_gpu">Runtime overhead per GPU (GB)</dt>' in html
    assert '<dt title="kv_formula">KV cache per token</dt>' in html
    assert not [key for key in RAW_KEYS if key in html]


def test_j9_calculator_names_the_assumptions_in_words(login, lead, catalog):
    html = _assumptions(login(lead).post("/briefs/memory-fit/", CALC).content.decode())
    assert '<dt title="safety_margin">Safety margin (share of memory kept free)</dt>' in html
    assert '<dt title="accelerator_memory_gb">' in html
    assert not [key for key in RAW_KEYS if key in html]


def test_j9_a_key_without_a_label_still_reads_as_words():
    assert label_of("kv_precision") == LABELS["kv_precision"] == "KV-cache precision"
    assert label_of("new_engine_figure") == "New engine figure"
    assert assumption_rows({"gb": "1e9 bytes"}) == [("gb", "GB", "1e9 bytes")]
    assert assumption_rows(None) == []
