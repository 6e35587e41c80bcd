"""U8, U17, U27, U34: one number format (core/templatetags/numbers.py) and human labels, on
the comparison and review pages."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from core.templatetags import numbers
from procurement.models import CandidateResult


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (Decimal("54518.6400"), "USD 54,518.64"),
        ("245944.3", "USD 245,944.30"),
        (0, "USD 0.00"),
        (None, "—"),
        ("", "—"),
        ("abc", "—"),
    ],
)
def test_money_has_two_decimals_separators_and_currency(value, expected):
    """U8: money with 2 decimals, thousands separators and its currency."""
    assert numbers.money(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (Decimal("11.358100"), "11.36"),
        (Decimal("2.4900"), "2.49"),
        (Decimal("0.075"), "0.075"),
        (Decimal("0.8900"), "0.89"),
        (Decimal("0.123456"), "0.1235"),
        (Decimal("0.00015"), "0.00015"),
        (Decimal("0.000000150"), "0.00000015"),
        (Decimal("1234.5"), "1,234.50"),
    ],
)
def test_unit_prices_keep_four_significant_digits_below_one(value, expected):
    """U34: per-token prices keep enough significant digits; the rest has 2 decimals."""
    assert numbers.unit_price(value) == expected


def test_percentages_rather_than_fractions():
    """U28, U34: 0.6429 reads "64 %"."""
    assert numbers.pct(0.6429) == "64 %"
    assert numbers.pct("0.6429", 1) == "64.3 %"
    assert numbers.pct(None) == "—"
    assert numbers.thousands(10000) == "10,000"
    assert numbers.thousands("2614.93", 1) == "2,614.9"


def test_codes_get_human_labels():
    """U8, U15, U34: cost lines, capacity models and warning codes in words."""
    assert numbers.human("api_compute") == "API usage"
    assert numbers.human("platform_labor") == "Platform labour"
    assert numbers.human("on_demand") == "On-demand"
    # Labels already in words keep their acronyms and currency.
    assert numbers.human("Unit cost p10 (USD per 1M tokens)") == "Unit cost p10 (USD per 1M tokens)"
    assert numbers.human("LATENCY_UNMEASURED") == "Latency unmeasured"
    assert (
        numbers.human("CHEAPEST_HOURLY_NOT_CHEAPEST_OUTPUT") == "Cheapest per hour, not per output"
    )


def test_commitment_states_its_horizon():
    """U27: "12-month commitment", from the engine's months."""
    contracted = {"commitment": {"contract_usd": "1.00", "months_counted": 12, "horizon_months": 6}}
    assert numbers.commitment_horizon(contracted) == "12-month commitment"
    assert numbers.commitment_horizon(
        {"commitment": {"contract_usd": None, "horizon_months": 6}}
    ) == ("expected spend over 6 months, no contract")
    assert numbers.commitment_horizon({}) == "commitment"


def test_an_expected_spend_is_not_labelled_a_commitment():
    """The decision bar read "Commitment USD 27,406.44 expected spend over 12 months, no
    contract" for an on-demand winner: the label says what the figure is."""
    on_demand = {"commitment": {"contract_usd": None, "horizon_months": 12}}
    reserved = {"commitment": {"contract_usd": "1.00", "months_counted": 12}}
    assert numbers.commitment_label(on_demand) == "Expected spend"
    assert numbers.commitment_label(reserved) == "Commitment"
    assert numbers.commitment_label({}) == "Commitment"


def test_a_short_contract_under_the_horizons_spend_does_not_read_as_the_commitment():
    """A 1-month reserved term with a 6-month horizon: the figure is the expected spend over
    the horizon (the larger, ADR 0006), and the words say so on the bar, page and exports."""
    from procurement.selectors.reviews.commitment import row_commitment

    detail = {
        "commitment_usd": "60000.00",
        "commitment": {
            "contract_usd": "10000.00",
            "months_counted": 1,
            "horizon_months": 6,
            "expected_spend_usd": "60000.00",
            "basis": "fixed_term",
        },
    }
    assert numbers.commitment_horizon(detail) == (
        "expected spend over 6 months, above the 1-month contract"
    )
    found = row_commitment(detail)
    assert found is not None
    assert found.term == "6-month horizon, above the contract"
    detail["commitment"]["expected_spend_usd"] = "8000.00"  # the contract binds more
    assert numbers.commitment_horizon(detail) == "1-month commitment"


def test_comparison_page_uses_the_format_and_collapses_ineligible_rows(login, lead, computed):
    """U8, U9, U34: labels with the code in a title, 2-decimal money, rows by rank, and the
    ineligible rows behind a "show N ineligible" toggle."""
    html = login(lead).get(f"/comparisons/{computed.pk}/").content.decode()
    assert 'title="platform_labor">Platform labour</dt>' in html
    assert "Cost lines (USD / month)" in html
    assert not re.search(r"<dd>\d[\d,]*\.\d{3,}</dd>", html), "money lines have 2 decimals"
    rows = list(CandidateResult.objects.filter(comparison=computed))
    ineligible = [r for r in rows if not r.eligible]
    ranks = [int(m) for m in re.findall(r'data-col="rank">(\d+)<', html)]
    assert ranks == sorted(ranks)
    if ineligible:
        assert 'data-toggle-rows="ineligible-rows"' in html
        body = html[html.index('id="ineligible-rows"') :]
        assert all(f'data-key="{r.key}"' in body for r in ineligible)


def test_review_page_labels_cost_lines_and_periods(client, finance, lead):
    """U27: "Total / month", "USD / month" on the review page; lines in words."""
    from tests.reviews.factories_reviews import ready_comparison

    comparison = ready_comparison(created_by=lead)
    client.force_login(finance)
    html = client.get(f"/comparisons/{comparison.pk}/review/").content.decode()
    assert "Total / month" in html
    assert "USD / month" in html
    assert ">gpu_compute<" not in html


def test_empty_comparison_list_knows_about_the_filter(login, lead, computed):
    """U37: "no comparison matches these filters", not "No comparisons yet. Start one."."""
    html = login(lead).get("/comparisons/?status=failed").content.decode()
    assert "No comparison matches these filters." in html
    assert "No comparisons yet" not in html


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (2000000.0, "2,000,000"),
        (Decimal("18000.00"), "18,000.00"),
        (0.005, "0.005"),
        (8192, "8,192"),
        (True, True),
        ("zero3", "zero3"),
    ],
)
def test_decision_record_facts_read_as_numbers(value, expected):
    """The decision record's brief facts: no float tails, thousands grouped."""
    assert numbers.fact(value) == expected
