"""H3 and issue 15: brief figures have stated bounds (the engine's limits), with the field named."""

from __future__ import annotations

import pytest

from briefs.rules import brief_errors
from engine.limits import BRIEF_BOUNDS, MAX_HORIZON_MONTHS


@pytest.mark.parametrize("horizon", [0, -1, MAX_HORIZON_MONTHS + 1])
def test_h3_horizon_outside_1_to_120_months_is_refused_with_the_field_named(horizon: int) -> None:
    """H3: horizon_months 0 was accepted as a complete brief (commitment $0.00)."""
    errors = brief_errors({"horizon_months": horizon})
    assert list(errors) == ["horizon_months"]
    assert "Horizon (months)" in errors["horizon_months"][0]
    assert "engine's limits" in errors["horizon_months"][0]


def test_horizon_within_bounds_is_accepted() -> None:
    assert brief_errors({"horizon_months": 1}) == {}
    assert brief_errors({"horizon_months": MAX_HORIZON_MONTHS}) == {}


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("peak_to_average", 0.5),
        ("peak_to_average", 1000.0),
        ("expected_model_churn_months", 0),
        ("platform_fte", -1.0),
        ("storage_gb", 1e12),
        ("expected_mfu", 0.0),
        ("run_success_probability", 1.5),
        ("node_failure_rate_per_day", 1000.0),
        ("training_tokens_b", 0.0),
    ],
)
def test_brief_figures_outside_the_engines_limits_name_their_field(name: str, value: float) -> None:
    assert name in BRIEF_BOUNDS
    assert name in brief_errors({name: value})
