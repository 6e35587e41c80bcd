"""Issue 26: the cheapest plan across offers is a candidate finance can approve.

Hand-checked through the API and the services (the world and its arithmetic:
tests/comparisons/plan_world.py): the plan's total commitment drives the dual-approval
threshold, the checklist level of its largest part applies to every vendor, approving it
keeps each vendor's part, and four-eyes holds as for a row.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core import mail

from checklist.models import ChecklistItem
from core.models import AuditEvent
from procurement.models import Comparison, PlanPart, Review
from tests.comparisons.plan_world import (
    CONTOSO_GPUS,
    FABRIKAM_MONTHLY,
    HOURS,
    STORAGE_MONTHLY,
    computed,
    contoso_on_demand,
    contoso_reserved,
    fabrikam,
    plan_brief,
)

pytestmark = pytest.mark.django_db

# Contoso's 104 GPUs at 3.00 for a month; its contract binds one month only.
CONTOSO_MONTHLY = CONTOSO_GPUS * HOURS * Decimal(3)  # 227,760.00
FABRIKAM_COMMITMENT = FABRIKAM_MONTHLY * 12  # the 12-month contract: 280,320.00
# 6 months of spend, storage included (227,771.50 × 6 = 1,366,629.00) > its 1-month contract
CONTOSO_COMMITMENT = (CONTOSO_MONTHLY + STORAGE_MONTHLY) * 6
PLAN_COMMITMENT = FABRIKAM_COMMITMENT + CONTOSO_COMMITMENT  # 1,646,949.00
THRESHOLD = 1_600_000  # above either part, below their sum


def _post(api_client, user, comparison, **body):
    api_client.force_authenticate(user)
    return api_client.post(
        f"/api/v1/comparisons/{comparison.pk}/reviews/",
        {"decision": "approve", "comment": "Checked each vendor's part.", **body},
        format="json",
    )


def _plan(**extra):
    return {"candidate": "plan", "justification": "Two vendors cost less a month.", **extra}


@pytest.fixture
def split(lead, checklist_items, settings):
    """Fabrikam's 2 nodes (12-month term) and Contoso's 13 (1-month term), 6-month horizon."""
    settings.DUAL_APPROVAL_THRESHOLD_USD = THRESHOLD
    cheap, dear = fabrikam(lead), contoso_reserved(lead, term_months=1)
    comparison, rows = computed(lead, plan_brief(lead, horizon_months=6), [cheap, dear])
    return comparison, cheap, dear, rows


def test_the_plans_parts_carry_their_commitment_and_the_plan_its_total(split):
    comparison, cheap, dear, _ = split
    plan = comparison.result["plan"]
    parts = {v["offer_id"]: v for v in plan["vendors"]}
    assert Decimal(parts[f"quote:{cheap.pk}"]["monthly_cost"]) == FABRIKAM_MONTHLY == 23360
    assert Decimal(parts[f"quote:{dear.pk}"]["monthly_cost"]) == CONTOSO_MONTHLY == 227760
    # Fabrikam: its contract (280,320.00) outweighs 6 months of spend (140,160.00)
    assert Decimal(parts[f"quote:{cheap.pk}"]["commitment_usd"]) == Decimal("280320.00")
    # Contoso: 6 months of spend (1,366,629.00) outweigh its 1-month contract (227,760.00)
    assert Decimal(parts[f"quote:{dear.pk}"]["commitment_total"]) == Decimal("227760.00")
    assert Decimal(parts[f"quote:{dear.pk}"]["commitment_usd"]) == Decimal("1366629.00")
    assert Decimal(plan["commitment_usd"]) == PLAN_COMMITMENT == Decimal("1646949.00")
    assert plan["horizon_months"] == 6


def test_a_plan_above_the_threshold_though_each_part_is_below_needs_two_approvals(
    split, finance, engineer, security, api_client, django_capture_on_commit_callbacks
):
    comparison, _cheap, dear, _ = split
    # the compute weighed the recommended row (Contoso alone): one approval
    assert comparison.commitment_usd <= THRESHOLD
    assert comparison.required_approvals == 1
    assert max(FABRIKAM_COMMITMENT, CONTOSO_COMMITMENT) < THRESHOLD < PLAN_COMMITMENT

    with django_capture_on_commit_callbacks(execute=True):
        first = _post(api_client, finance, comparison, **_plan())
    assert first.status_code == 201, first.json()
    # the reviewers who can give the second approval are asked for it, for the plan
    asked = next(m for m in mail.outbox if m.to == [engineer.email])
    assert "for the cheapest plan across offers" in asked.body
    assert first.json()["candidate"] == "plan"
    assert first.json()["approvals"] == "1 of 2 approvals"
    assert first.json()["comparison_status"] == Comparison.Status.READY
    comparison.refresh_from_db()
    assert comparison.required_approvals == 2
    raised = AuditEvent.objects.get(action="comparison.approvals_raised")
    assert raised.summary["candidate"] == "plan"
    assert raised.summary["commitment_usd"] == "1646949.00"
    assert raised.summary["largest_part_usd"] == "1366629.00"

    # the second approval must be for the plan too, not for a row
    row = _post(api_client, security, comparison, candidate=f"quote:{dear.pk}")
    assert row.status_code == 400
    assert "The first approval is for the cheapest plan across offers" in row.json()["detail"]

    second = _post(api_client, engineer, comparison, **_plan())
    assert second.status_code == 201, second.json()
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.APPROVED
    assert second.json()["approvals"] == "2 of 2 approvals"
    approved = AuditEvent.objects.get(action="comparison.plan_approved")
    assert approved.summary["commitment_usd"] == "1646949.00"
    assert [p["commitment_usd"] for p in approved.summary["parts"]] == [
        "280320.00",
        "1366629.00",
    ]
    decided = AuditEvent.objects.get(action="comparison.decided")
    assert decided.summary["after"]["candidate"] == "plan"


def test_approving_the_plan_keeps_each_vendors_part_on_the_review(split, finance, settings):
    from procurement.services.reviews import review_submit

    settings.DUAL_APPROVAL_THRESHOLD_USD = 5_000_000  # one approval: the plan's 1.6 M is below
    comparison, cheap, dear, rows = split
    review = review_submit(
        acting_user=finance,
        comparison=comparison,
        decision="approve",
        comment="Two vendors.",
        candidate_key="plan",
        justification="Cheaper a month.",
    )
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.APPROVED
    assert review.approves_plan
    assert review.candidate is None
    parts = list(PlanPart.objects.filter(review=review).order_by("position"))
    assert [p.candidate.quote_id for p in parts] == [cheap.pk, dear.pk]
    fab, con = parts
    assert (fab.replicas, fab.gpus, fab.term) == (2, 16, "12-month term")
    assert (con.replicas, con.gpus, con.term) == (13, CONTOSO_GPUS, "1-month term")
    assert (fab.commitment_usd, con.commitment_usd) == (FABRIKAM_COMMITMENT, CONTOSO_COMMITMENT)
    assert (fab.contract_usd, con.contract_usd) == (FABRIKAM_COMMITMENT, CONTOSO_MONTHLY)
    assert fab.configuration == rows[cheap.pk].detail["configuration"]["words"]
    assert {fab.checklist_level, con.checklist_level} == {"full"}  # reserved: full


def test_the_checklist_level_of_the_largest_part_applies_to_every_vendor(
    lead, finance, checklist_items, api_client
):
    """Fabrikam's reservation (12 months, 280,320.00) is the largest part, so the plan needs
    the full level; Contoso's on-demand quote is complete at its own basic level only (every
    answer self-attested, none evidenced), so the plan cannot be approved — while Contoso's
    own row, at its own level, can be."""
    cheap = fabrikam(lead)
    dear = contoso_on_demand(lead, evidenced=False)
    comparison, rows = computed(lead, plan_brief(lead, horizon_months=1), [cheap, dear])
    assert rows[dear.pk].eligible  # complete at its own (basic) level
    assert rows[dear.pk].checklist["required_level"] == "basic"
    parts = {v["offer_id"]: v for v in comparison.result["plan"]["vendors"]}
    largest = Decimal(parts[f"quote:{cheap.pk}"]["commitment_usd"])
    assert largest == FABRIKAM_COMMITMENT  # 16 × 730 × 2.00 × 12
    assert Decimal(parts[f"quote:{dear.pk}"]["commitment_usd"]) < largest

    refused = _post(api_client, finance, comparison, **_plan())
    assert refused.status_code == 400
    detail = refused.json()["detail"]
    items = ChecklistItem.objects.count()
    assert detail.startswith(
        "The plan needs the full checklist level, that of its largest commitment "
        f"({rows[cheap.pk].label}, 280,320.00 USD): {rows[dear.pk].label} lacks {items} items "
        "at the full level"
    )
    assert not Review.objects.exists()
    assert not PlanPart.objects.exists()

    own_row = _post(api_client, finance, comparison, candidate=f"quote:{dear.pk}")
    assert own_row.status_code == 201, own_row.json()


def test_with_full_evidence_from_every_vendor_the_plan_is_approved(
    lead, finance, checklist_items, api_client
):
    cheap = fabrikam(lead)
    dear = contoso_on_demand(lead, evidenced=True)
    comparison, _ = computed(lead, plan_brief(lead, horizon_months=1), [cheap, dear])
    approved = _post(api_client, finance, comparison, **_plan())
    assert approved.status_code == 201, approved.json()
    levels = {p["key"]: p["checklist_level"] for p in approved.json()["plan_parts"]}
    assert levels == {f"quote:{cheap.pk}": "full", f"quote:{dear.pk}": "full"}


def test_an_infeasible_or_absent_plan_cannot_be_approved(
    lead, finance, checklist_items, api_client
):
    cheap = fabrikam(lead)
    small = contoso_reserved(lead, term_months=12)
    small.max_gpus_available = 16
    small.save(update_fields=["max_gpus_available"])
    comparison, _ = computed(lead, plan_brief(lead, horizon_months=12), [cheap, small])
    plan = comparison.result["plan"]
    assert plan["status"] == "infeasible"
    refused = _post(api_client, finance, comparison, **_plan())
    assert refused.status_code == 400
    assert refused.json()["detail"] == (
        f"The cheapest plan across offers is infeasible ({plan['reason']}), so it cannot be "
        "approved."
    )
    assert refused.json()["fields"]["candidate"]

    result = dict(comparison.result)
    result.pop("plan")
    Comparison.objects.filter(pk=comparison.pk).update(result=result)
    absent = _post(api_client, finance, comparison, **_plan())
    assert absent.status_code == 400
    assert "has no plan across offers to approve" in absent.json()["detail"]
    assert not Review.objects.exists()


def test_four_eyes_holds_for_the_plan_and_a_justification_is_asked_when_it_costs_no_less(
    split, lead, finance, api_client
):
    comparison, *_ = split
    own = _post(api_client, lead, comparison, **_plan())
    assert own.status_code == 403
    # The plan costs 23,360.00 + 227,760.00 = 251,120.00 a month: made as dear as the
    # recommended row, approving it instead of the row needs a reason (P14)
    row = comparison.candidates.get(key=comparison.recommended_key)
    assert Decimal(comparison.result["plan"]["monthly_cost"]) == Decimal("251120.00")
    row.total_usd = Decimal("251120.00")
    row.save(update_fields=["total_usd"])
    bare = _post(api_client, finance, comparison, candidate="plan")
    assert bare.status_code == 400
    assert bare.json()["fields"] == {
        "justification": ["Explain why this plan rather than the recommended row."]
    }
    assert not Review.objects.exists()


def test_p14_a_plan_cheaper_than_the_recommended_row_is_approved_without_a_justification(
    split, finance, api_client
):
    """The computed, cheaper choice carries no more friction than the dearer row."""
    comparison, *_ = split
    row = comparison.candidates.get(key=comparison.recommended_key)
    assert Decimal(comparison.result["plan"]["monthly_cost"]) < row.total_usd
    bare = _post(api_client, finance, comparison, candidate="plan")
    assert bare.status_code == 201, bare.json()
    review = Review.objects.get()
    assert review.approves_plan
    assert review.justification == ""


def test_the_review_page_shows_what_approving_the_plan_commits_before_approving(
    split, finance, login
):
    comparison, cheap, dear, rows = split
    html = login(finance).get(f"/comparisons/{comparison.pk}/review/").content.decode()
    assert '<option value="plan">The cheapest plan across offers (2 vendor offers, ' in html
    bar = html.split('id="decision-plan"')[1].split("</span>")[0]
    assert "Or the cheapest plan across offers: 2 vendor offers" in bar
    assert f"commitment USD {PLAN_COMMITMENT:,.2f}" in bar  # USD 1,646,949.00
    panel = html.split('id="plan-decision"')[1].split("</table>")[0]
    for row, replicas, gpus, term, commitment in (
        (rows[cheap.pk], 2, 16, "12-month term", FABRIKAM_COMMITMENT),
        (rows[dear.pk], 13, CONTOSO_GPUS, "1-month term", CONTOSO_COMMITMENT),
    ):
        cells = panel.split(row.label)[1].split("</tr>")[0]
        assert row.detail["configuration"]["words"] in cells
        assert f'<td class="num">{replicas}</td><td class="num">{gpus}</td><td>{term}' in cells
        assert f"{commitment:,.2f}" in cells
    assert f"<strong>{PLAN_COMMITMENT:,.2f}</strong>" in panel
    approvals = html.split('id="plan-approvals"')[1].split("</p>")[0]
    assert "2 approvals." in approvals
    assert "above the dual-approval threshold (USD 1,600,000.00), though each part is below it" in (
        approvals
    )
    checklist = html.split('id="plan-checklist"')[1].split("</p>")[0]
    assert f"the full level</strong>, that of the largest commitment ({rows[dear.pk].label}" in (
        checklist
    )


def test_a_plan_that_does_not_split_is_not_offered_its_row_is(
    lead, finance, checklist_items, api_client, login
):
    alone = contoso_reserved(lead, term_months=12)
    comparison, rows = computed(lead, plan_brief(lead, horizon_months=12), [alone])
    assert comparison.result["plan"]["split"] is False
    refused = _post(api_client, finance, comparison, **_plan())
    assert refused.status_code == 400
    assert refused.json()["detail"] == (
        "The cheapest plan across offers does not split the fleet: it is "
        f"{rows[alone.pk].label} alone, so approve that row."
    )
    html = login(finance).get(f"/comparisons/{comparison.pk}/review/").content.decode()
    assert '<option value="plan">' not in html
    assert 'id="decision-plan"' not in html
