"""Issue 25 in the browser: the recommendation card and the decision bar say the fleet and
what is bought."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.deployments.conftest import h200_quote, run_rows, sweep_on
from tests.factories import WorkloadBriefFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_v3_card_and_decision_bar_show_the_fleet_and_what_is_bought(
    browser_page, checklist_items, lead, finance
):
    quote = h200_quote(lead)
    sweep_on(lead, quote)
    brief = WorkloadBriefFactory(
        created_by=lead,
        monthly_accepted_outputs_low=200_000_000,
        monthly_accepted_outputs_likely=300_000_000,
        monthly_accepted_outputs_high=400_000_000,
    )
    comparison, rows = run_rows(lead, brief, [quote])
    fleet = rows[quote.pk].detail["fleet"]
    browser_page.login(finance.username)
    page = browser_page.page
    browser_page.goto(comparison.get_absolute_url())
    card = page.locator(".recommended-card")
    expect(card.locator(".bought")).to_have_text(fleet["bought"])
    expect(card.locator(".fleet-size")).to_contain_text(f"= {fleet['gpus_peak']} GPUs")
    browser_page.shot("deployments-card", element=card)
    browser_page.goto(f"/comparisons/{comparison.pk}/review/")
    bar = page.locator("section.decision-bar")
    expect(bar.locator(".decision-buys .bought")).to_have_text(fleet["bought"])
    expect(bar.locator(".decision-buys")).to_contain_text(f"{fleet['nodes_peak']} nodes")
    expect(bar.locator(".decision-buys")).to_be_visible()
    browser_page.shot("deployments-decision-bar", element=bar)
    browser_page.assert_no_console_errors()
