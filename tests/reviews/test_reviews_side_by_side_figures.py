"""U28 on the lower half of the side by side: a row's fit and performance figures read with
their names and units in words, and engine floats as precise as a reader compares them."""

from __future__ import annotations

import re

import pytest

from core.templatetags.numbers import readable

pytestmark = pytest.mark.django_db


def test_fit_and_performance_figures_read_in_words(client, comparison, finance):
    row = comparison.candidates.get(key="q-h100")
    row.fit = {**(row.fit or {}), "kv_cache_gb": 36.7123, "per_gpu_gb": 44.475, "gpus_required": 4}
    row.performance = {
        **(row.performance or {}),
        "e2e_p99_ms": 11167.977,
        "tokens_per_s": 822.101,
        "bound": "memory_bandwidth",
    }
    row.save(update_fields=["fit", "performance"])
    client.force_login(finance)
    html = client.get(f"/comparisons/{comparison.pk}/side-by-side/?a=q-h100&b=q-h200").content
    page = html.decode()
    for label in ("KV cache (GB)", "Memory needed per GPU (GB)", "GPUs required", "E2E p99 (ms)"):
        assert f">{label}<" in page, label
    assert "Kv cache gb" not in page
    cells = [re.sub(r"<[^>]+>", "", c) for c in re.findall(r'<td class="val">(.*?)</td>', page)]
    assert {"36.7", "44.5", "11,168", "822", "Memory bandwidth"} <= set(cells), cells
    assert not [c for c in cells if re.search(r"\d\.\d{3,}", c) and not c.startswith("0.")]


@pytest.mark.parametrize(
    ("value", "shown"),
    [(11167.977, "11,168"), (44.475, "44.5"), (2.0, "2"), (0.005, "0.005"), (-3.25, "-3.2")],
)
def test_readable_rounds_engine_floats_by_size(value, shown):
    assert readable(value) == shown
