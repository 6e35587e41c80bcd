"""Issue 17: the unit cost counts the tokens the team pays for (output, input or total)."""

from __future__ import annotations

from decimal import Decimal, localcontext

import pytest

from engine import cost
from engine.comparison import run_comparison
from engine.errors import EngineInputError
from engine.types import ApiPricing, CandidateInput, ComparisonInput, WorkloadInput
from tests.engine.builders import fixed, gpu

D = Decimal


def chat(**kw: object) -> WorkloadInput:
    """1M accepted answers a month, 1,000 tokens in and 300 out each, nothing wasted."""
    base: dict[str, object] = {
        "workload_class": "batch_inference",
        "monthly_accepted_outputs": fixed(1_000_000),
        "acceptance_rate": fixed(1.0),
        "failure_rate": fixed(0.0),
        "utilisation": fixed(1.0),
        "input_tokens_per_request": 1000,
        "output_tokens_per_request": 300,
        "vendor_management_fte": 0.0,
    }
    base.update(kw)
    return WorkloadInput(**base)  # type: ignore[arg-type]


def route() -> CandidateInput:
    return CandidateInput(
        id="api",
        label="api",
        kind="api",
        capacity_model="api",
        api_pricing=ApiPricing(D("3"), D("15")),
    )


def test_issue17_unit_cost_per_input_and_total_tokens_divides_the_same_bill() -> None:
    """The monthly bill is the same; only the tokens it is divided by change."""
    offer = gpu(throughput_per_replica=fixed(3100))
    per_output = cost.point_estimate(chat(), offer)
    per_input = cost.point_estimate(chat(tokens_billed="input"), offer)
    per_total = cost.point_estimate(chat(tokens_billed="total"), offer)
    assert per_output.total == per_input.total == per_total.total
    assert per_output.unit_label == "per 1M accepted output tokens"
    assert per_input.unit_label == "per 1M accepted input tokens"
    assert per_total.unit_label == "per 1M accepted tokens (input + output)"
    # total / (accepted × tokens per request) × 1e6 = 67.20 / 1.3e9 × 1e6 = 0.051692…
    with localcontext(cost.DECIMAL_CONTEXT):
        assert per_input.unit_cost_exact == per_output.total / D(1_000_000 * 1000) * 10**6
        assert per_total.unit_cost_exact == per_output.total / D(1_000_000 * 1300) * 10**6
    assert per_total.unit_cost == D("0.051692")
    assert per_input.unit_cost_exact * 1000 == pytest.approx(per_output.unit_cost_exact * 300)


def test_issue17_an_api_route_priced_per_input_and_output_token_is_normalised_alike() -> None:
    """3 USD per 1M input + 15 USD per 1M output; 1,000 in and 300 out per answer:
    7.5 mUSD a request = 5.769… USD per 1M total tokens, 7.5 per 1M input, 25 per 1M output."""
    per_request = (D(1000) * 3 + D(300) * 15) / D(10**6)
    assert per_request == D("0.0075")
    total = cost.point_estimate(chat(tokens_billed="total"), route())
    assert total.unit_cost_exact == pytest.approx(per_request / 1300 * 10**6)
    assert cost.point_estimate(chat(tokens_billed="input"), route()).unit_cost == D("7.500000")
    assert cost.point_estimate(chat(), route()).unit_cost == D("25.000000")


def test_issue17_the_monte_carlo_and_the_ranking_use_the_same_unit() -> None:
    offers = (gpu("a", throughput_per_replica=fixed(3100)), route())
    out = run_comparison(
        ComparisonInput(workload=chat(tokens_billed="input"), candidates=offers),
        seed=7,
        samples=200,
    )
    assert out.unit_label == "per 1M accepted input tokens"
    for row in out.candidates:
        assert row.unit_label == "per 1M accepted input tokens"
        # the Monte Carlo does not round lines to the cent: same figure within 0.1 %
        assert row.p50 == pytest.approx(float(row.unit_cost), rel=1e-3)


def test_issue17_unit_basis_says_how_the_unit_is_normalised() -> None:
    words = cost.unit_basis(chat(tokens_billed="total"))
    assert "per 1M accepted tokens (input + output)" in words
    assert "1,300 input + output tokens per request" in words
    assert "API routes" in words
    training = WorkloadInput(workload_class="media", monthly_accepted_outputs=fixed(10))
    assert cost.unit_basis(training) == ""


def test_issue17_a_token_type_needs_its_tokens_and_a_known_name() -> None:
    with pytest.raises(EngineInputError, match="billed_token_type"):
        chat(tokens_billed="cached")
    no_input = chat(tokens_billed="input", input_tokens_per_request=0)
    with pytest.raises(EngineInputError, match="input tokens per request"):
        cost.point_estimate(no_input, gpu(throughput_per_replica=fixed(3100)))
