"""V22 (and U28's delta): the side by side says how B differs from A, figure by figure, and
names its GPU row "GPUs"; the results page folds the why behind a row's latency under its
evidence badge so that rows stay a few lines tall. The widths at 1,024 px are measured in
Chromium by tests/browser/test_browser_tables_round3.py."""

from __future__ import annotations

import re

import pytest

from procurement.selectors.reviews.pair import pair_delta

pytestmark = pytest.mark.django_db


def _rows(html: str) -> dict[str, list[str]]:
    """Label → [A, B, B − A] of each figure row, tags stripped."""
    found = {}
    for row in re.findall(r"<tr[^>]*>\s*<td title=[^>]*>(.*?)</tr>", html, re.S):
        cells = [
            re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        ]
        label = re.sub(r"<[^>]+>", "", row.split("</td>", 1)[0]).strip()
        found[label] = cells
    return found


def test_v22_side_by_side_has_a_b_minus_a_column(client, comparison, finance):
    client.force_login(finance)
    html = client.get(
        f"/comparisons/{comparison.pk}/side-by-side/?a=q-h100&b=q-h200"
    ).content.decode()
    assert ">B − A</th>" in html
    assert "<colgroup>" in html  # fixed columns: the page does not scroll sideways
    rows = _rows(html)
    assert "GPUs" in rows
    assert "Gpus" not in rows
    a, b = comparison.candidates.get(key="q-h100"), comparison.candidates.get(key="q-h200")
    price = rows["Price per GPU-hour (USD)"]
    # The hand case: B − A and B ÷ A of the two rows' prices.
    diff = b.hourly_price_usd - a.hourly_price_usd
    ratio = b.hourly_price_usd / a.hourly_price_usd
    sign = "+" if diff > 0 else "−"
    assert price[-1] == f"{sign}{abs(diff):.2f} (×{ratio:.2f})"
    assert rows["Provider"][-1] == ""  # words have no difference


@pytest.mark.parametrize(
    ("a", "b", "fmt", "text"),
    [
        (1122.04, 2233.18, "amount", "+1,111.14 (×1.99)"),  # 2233.18 − 1122.04; ÷ = 1.990…
        (3.49, 2.69, "unit_price", "−0.80 (×0.77)"),  # 2.69 ÷ 3.49 = 0.7708
        (0.0375, 0.0341, "unit_price", "−0.0034 (×0.91)"),
        (2, 4, "thousands", "+2 (×2.00)"),
        (1.0, 0.25, "pct", "−75 pp"),  # a probability: points, no ratio
        (1, 3, "", "+2"),  # a rank: no ratio
        (40.0, 40.0, "amount", "same"),
        ("On-demand", "Spot", "", ""),
        (None, 2.0, "amount", ""),
        (True, False, "", ""),
    ],
)
def test_v22_pair_delta_reads_in_the_figures_format(a, b, fmt, text):
    assert pair_delta(a, b, fmt) == text


def test_v22_results_rows_fold_the_latency_why_under_the_evidence_badge(
    client, comparison, finance
):
    row = comparison.candidates.get(key="q-h100")
    row.performance = {
        **(row.performance or {}),
        "latency_source": "measured",
        "e2e_p99_ms": 6695.0,
        "ttft_p95_ms": 520.0,
        "evidence": {"kind": "measured", "result_id": 3, "reason": "measured at the shape"},
    }
    row.save(update_fields=["performance"])
    client.force_login(finance)
    html = client.get(f"/comparisons/{comparison.pk}/").content.decode()
    cell = html.split('data-key="q-h100"', 1)[1].split('<td class="col-latency">', 1)[1]
    cell = cell.split("</td>", 1)[0]
    figures, why = cell.split('<details class="latency-why">', 1)
    assert "e2e 6,695 ms · TTFT 520 ms" in figures  # the figures stay in view
    assert "measured at the shape" not in figures  # the reason folds
    assert '<span class="badge evidence-measured ok">measured</span> why</summary>' in why
    assert "measured at the shape" in why
