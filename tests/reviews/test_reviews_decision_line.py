"""U4 / U5: the 30-second decision line — from whom · what is bought · a month · in all · how
sure · p10–p90 · idle share — on one line that alone stays on screen (with its Decide button)
while the decision is open; nothing sticks once decided (and, by CSS, on narrow screens); a
comparison with one eligible candidate says "no competing offer", not "cheapest in 100 %".

By hand (`factories_reviews.ready_comparison`, its recommended Northwind H100 row re-costed):
GPU compute 4,000 + idle capacity 6,000 + storage 250 + platform labour 9,000 = 19,250 a month;
the vendor bills 10,250 (labour is the team's own); idle is 6,000 / 19,250 = 31 %.
"""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from procurement.selectors.reviews.acknowledge import CODES as TICKS
from procurement.services.reviews import review_submit
from tests.reviews.factories_reviews import ready_comparison

pytestmark = pytest.mark.django_db


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html)).strip()


@pytest.fixture
def reserved(lead):
    comparison = ready_comparison(created_by=lead, commitment_usd=Decimal("123000.00"))
    comparison.candidates.filter(key="q-h100").update(
        cost_lines={
            "gpu_compute": "4000.00",
            "idle_capacity": "6000.00",
            "storage": "250.00",
            "platform_labor": "9000.00",
        },
        detail={"fleet": {"bought": "4 × 8-GPU H100 SXM 80GB nodes, 12 months, reserved"}},
    )
    return comparison


def _line(client, comparison) -> tuple[str, str]:
    html = client.get(f"/comparisons/{comparison.pk}/review/").content.decode()
    block = html.split('id="decision-line"')[1].split("</div>")[0]
    opening = html.split('id="decision-line"')[0].rsplit("<div", 1)[1]
    return opening, _text(block.split(">", 1)[1])


def test_the_line_says_who_what_a_month_in_all_how_sure_and_idle(reserved, finance, client):
    client.force_login(finance)
    opening, line = _line(client, reserved)
    assert "sticky" in opening
    assert line.startswith(
        "Northwind · 4 × 8-GPU H100 SXM 80GB nodes, 12 months, reserved · "
        "USD 10,250.00 / month (vendor) · commitment USD 123,000.00 · measured evidence · "
        "p10–p90 5.50–7.90 · 31 % of the month idle capacity"
    ), line
    assert line.endswith("Decide")  # the one button that stays with it
    assert "no competing offer" not in line


def test_once_decided_nothing_sticks(reserved, finance, client):
    review_submit(
        acting_user=finance,
        comparison=reserved,
        decision="approve",
        comment="Checked.",
        acknowledged=TICKS,
    )
    client.force_login(finance)
    opening, line = _line(client, reserved)
    assert "sticky" not in opening
    assert not line.endswith("Decide")


def test_a_lone_candidate_has_no_competing_offer_not_a_probability(reserved, finance, client):
    reserved.candidates.filter(key="q-h200").update(eligible=False, unit_cost_usd=None)
    reserved.candidates.filter(key="q-h100").update(prob_cheapest=1.0)
    client.force_login(finance)
    _, line = _line(client, reserved)
    assert "no competing offer" in line
    html = client.get(f"/comparisons/{reserved.pk}/review/").content.decode()
    why = _text(html.split('id="why-h"')[1].split("</section>")[0])
    assert "no competing offer" in why
    assert "cheapest in 100 %" not in why
