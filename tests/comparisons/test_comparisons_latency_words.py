"""D11: the results page's latency word agrees with the warnings."""

from __future__ import annotations


def test_d11_results_page_never_says_meets_beside_latency_unmeasured():
    """D11 / U7: an API row with stated latency and LATENCY_UNMEASURED reads "unmeasured"."""
    from types import SimpleNamespace

    from procurement.selectors.comparisons import _latency

    row = SimpleNamespace(
        warnings=[{"code": "LATENCY_UNMEASURED"}],
        performance={"latency_source": "stated"},
        kind="api",
    )
    assert _latency(row, has_targets=True) == "unmeasured"
