"""Issue 31 (a typed snapshot): typing the row facts changes no stored byte.

The rows of representative snapshots (tests/comparisons/facts_world.py: a measured sweep,
an estimate with a calibration ledger, a quote without an FX rate, model APIs at their
standard and batch tiers, an error rate over the brief's maximum, media, training and a
stored format-1 snapshot) were computed by the release before the row facts were typed and
stored in fixtures/snapshot_facts_rows.json; the same snapshots computed today give the same
JSON, key order included.
"""

from __future__ import annotations

import json

import pytest

from tests.comparisons.facts_world import FIXTURES, SCENARIOS, frozen_rows

EXPECTED = json.loads((FIXTURES / "snapshot_facts_rows.json").read_text())


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_issue31_typed_row_facts_store_the_same_json(scenario):
    expected = json.dumps(EXPECTED[scenario], indent=1, ensure_ascii=False)
    assert frozen_rows(scenario) == expected


def test_issue31_the_fixture_covers_every_kind_of_row_fact():
    """The frozen rows exercise each fact the adapter writes, so a key dropped or renamed by
    a later change to the typed facts shows up as a difference above."""
    rows = [row for rows in EXPECTED.values() for row in rows]
    performance = {key for row in rows for key in row["performance"]}
    assert {
        "calibration",
        "calibration_applied",
        "configuration",
        "error_rate_over",
        "estimated_tokens_per_s",
        "ignored_evidence",
        "latency_not_in_benchmark",
        "measured",
        "outputs_per_s",
        "peak_dense_tflops_per_gpu",
        "prefix_caching",
    } <= performance
    detail = {key for row in rows for key in row["detail"]}
    assert {
        "capacity",
        "configurations",
        "model_substitution",
        "operating_points",
        "price_tiers_applied",
    } <= detail
    fit = {key for row in rows for key in row["fit"]}
    assert {"context_source", "fits_at_context_window", "note", "status"} <= fit
    assert {row["checklist"].get("available") for row in rows} == {True, False}
    assert {row["perf_source"] for row in rows} == {"measured", "estimated", "proxy"}
