"""Demo data: graceful without quotes, idempotent, and showing the intended situations."""

from __future__ import annotations

import io

import pytest

from checklist import demo, selectors
from checklist.models import ChecklistAnswer, ChecklistItem, ChecklistReview
from core.roles import Role
from tests.factories import ProviderFactory, QuoteFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_demo_does_nothing_without_vendors_or_quotes(items):
    out = io.StringIO()
    demo.load(stdout=out)
    assert not ChecklistAnswer.objects.exists()
    assert "nothing to do" in out.getvalue()


@pytest.fixture
def demo_world(items, engineer, finance, security):
    northwind = ProviderFactory(name="Northwind GPU Cloud", slug="northwind")
    contoso = ProviderFactory(name="Contoso Compute", slug="contoso")
    UserFactory(username="vendor_a", role=Role.VENDOR, provider=northwind)
    UserFactory(username="vendor_b", role=Role.VENDOR, provider=contoso)
    return {
        "northwind": QuoteFactory(provider=northwind, capacity_model="reserved", term_months=12),
        "contoso": QuoteFactory(provider=contoso, capacity_model="dedicated_cluster"),
        "contoso_od": QuoteFactory(provider=contoso, capacity_model="on_demand"),
    }


def test_demo_builds_the_intended_situations_and_is_idempotent(demo_world):
    demo.load(stdout=io.StringIO())
    counts = (ChecklistAnswer.objects.count(), ChecklistReview.objects.count())
    assert counts[0] == 29
    summaries = selectors.quote_checklist_summaries(demo_world.values())
    northwind = summaries[demo_world["northwind"].pk]
    assert northwind["evidenced_count"] == 20
    reasons = {m["code"]: m["reason"] for m in northwind["missing_items"]}
    assert list(reasons.values()).count("needs_info") == 1
    software = {i.code for i in ChecklistItem.objects.filter(section="software")}
    # M4: the software answers the demo leaves unreviewed await a reviewer
    needs_info = {code for code, reason in reasons.items() if reason == "needs_info"}
    assert set(northwind["awaiting_review"]) == software - needs_info
    assert northwind["awaiting_review"]
    # Contoso's dedicated cluster needs every item: its red-flagged deletion answer and the
    # items it left unanswered keep it incomplete
    contoso = summaries[demo_world["contoso"].pk]
    assert contoso["required_level"] == "full"
    assert not contoso["complete"]
    assert [f["code"] for f in contoso["red_flags"]] == ["data-lifecycle"]
    contoso_missing = {m["code"]: m["reason"] for m in contoso["missing_items"]}
    assert contoso_missing["data-lifecycle"] == "red_flag"
    assert "unanswered" in contoso_missing.values()
    # Its on-demand offer needs the basics only, which reviewers accepted
    contoso_od = summaries[demo_world["contoso_od"].pk]
    assert contoso_od["required_level"] == "basic"
    assert contoso_od["complete"]
    assert not contoso_od["missing_items"]
    basics = ChecklistItem.objects.filter(is_basic=True).values_list("code", flat=True)
    contoso_basics = ChecklistAnswer.objects.filter(
        provider__slug="contoso", item__code__in=list(basics)
    )
    assert contoso_basics.count() == len(basics)
    assert set(contoso_basics.values_list("review_status", flat=True)) == {"accepted"}
    reviewers = set(
        ChecklistReview.objects.filter(answer__provider__slug="contoso").values_list(
            "reviewer__username", flat=True
        )
    )
    assert {"security", "finance"} <= reviewers
    demo.load(stdout=io.StringIO())
    assert (ChecklistAnswer.objects.count(), ChecklistReview.objects.count()) == counts
