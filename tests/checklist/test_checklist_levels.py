"""The pure rule: required level from the commitment, completeness, missing items, red flags."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from checklist import levels
from checklist.levels import AnswerInput, ItemInput

_seed = importlib.import_module("checklist.migrations.0002_seed_items")
ITEMS = [ItemInput(code, title, section, basic) for code, section, title, _, basic in _seed.ITEMS]


def _all_answered(
    *, evidence: bool = True, review: str = "accepted", **overrides: AnswerInput
) -> dict[str, AnswerInput]:
    """Every item answered yes and, by default, accepted by a reviewer (M4: above the basic
    level only accepted answers count)."""
    answers = {
        i.code: AnswerInput(i.code, "yes", has_evidence=evidence, review_status=review)
        for i in ITEMS
    }
    answers.update(overrides)
    return answers


@pytest.mark.parametrize(
    ("capacity_model", "gpus", "months", "expected"),
    [
        ("on_demand", 0, 0, "basic"),
        ("spot", 0, 0, "basic"),
        ("marketplace", 0, 0, "basic"),
        ("marketplace", 16, 0, "full"),
        ("marketplace", 0, 6, "full"),
        ("managed_endpoint", 0, 0, "basic"),
        ("managed_endpoint", 0, 12, "full"),
        ("reserved", 0, 0, "full"),
        ("dedicated_cluster", 0, 0, "full"),
        ("private_cloud", 0, 0, "full"),
        ("purchase", 0, 0, "full"),
        ("on_demand", 8, 0, "full"),
        ("something_new", 0, 0, "full"),
    ],
)
def test_checklist_required_level_grows_with_commitment(capacity_model, gpus, months, expected):
    assert (
        levels.required_level(capacity_model, min_commitment_gpus=gpus, term_months=months)
        == expected
    )


def test_checklist_seed_has_twenty_items_in_four_sections_and_eight_basics():
    assert len(ITEMS) == 20
    assert {i.section for i in ITEMS} == {"hardware", "software", "commercial", "security"}
    assert sum(i.is_basic for i in ITEMS) == 8
    assert len({i.code for i in ITEMS}) == 20


def test_reserved_quote_with_19_of_20_answered_is_incomplete_and_names_the_missing_item():
    answers = _all_answered()
    del answers["data-lifecycle"]
    result = levels.checklist_summary(ITEMS, answers, capacity_model="reserved")
    assert result.required_level == "full"
    assert not result.complete
    assert result.completeness_pct == 95
    assert [m.code for m in result.missing_items] == ["data-lifecycle"]
    missing = result.as_dict()["missing_items"][0]
    assert missing["reason"] == "unanswered"
    assert missing["title"].startswith("Data storage, checkpoint retention")
    assert missing["why"] == "not answered"


def test_reserved_quote_with_all_answered_and_evidenced_is_complete():
    result = levels.checklist_summary(ITEMS, _all_answered(), capacity_model="reserved")
    assert result.complete
    assert result.completeness_pct == 100
    assert result.as_dict()["missing_items"] == []


def test_full_level_needs_evidence_for_every_item():
    answers = _all_answered(
        **{"interconnect": AnswerInput("interconnect", "yes", has_evidence=False)}
    )
    result = levels.checklist_summary(ITEMS, answers, capacity_model="purchase")
    assert [(m.code, m.reason) for m in result.missing_items] == [("interconnect", "no_evidence")]
    assert result.evidenced_count == 19


def test_m4_self_attested_answers_do_not_make_a_committed_offer_eligible():
    answers = _all_answered(review="pending")
    result = levels.checklist_summary(ITEMS, answers, capacity_model="reserved")
    assert not result.complete
    assert result.completeness_pct == 0
    assert set(result.awaiting_review) == {i.code for i in ITEMS}
    assert result.as_dict()["awaiting_review"] == list(result.awaiting_review)
    assert result.missing_items[0].why.startswith("self-attested: awaiting a reviewer")
    one_accepted = _all_answered(review="pending")
    one_accepted["interconnect"] = AnswerInput("interconnect", "yes", True, "accepted")
    assert (
        levels.checklist_summary(ITEMS, one_accepted, capacity_model="reserved").counted_count == 1
    )


def test_m4_the_basic_level_still_takes_the_vendors_word():
    answers = _all_answered(review="pending")
    result = levels.checklist_summary(ITEMS, answers, capacity_model="on_demand")
    assert result.complete
    assert result.awaiting_review == ()


def test_on_demand_needs_only_the_basics_and_no_evidence():
    answers = {i.code: AnswerInput(i.code, "yes", has_evidence=False) for i in ITEMS if i.is_basic}
    result = levels.checklist_summary(ITEMS, answers, capacity_model="on_demand")
    assert result.required_level == "basic"
    assert result.required_count == 8
    assert result.complete


def test_on_demand_missing_a_basic_item_is_incomplete():
    answers = {i.code: AnswerInput(i.code, "yes", has_evidence=False) for i in ITEMS}
    answers["region-placement"] = AnswerInput("region-placement", "unknown", has_evidence=False)
    result = levels.checklist_summary(ITEMS, answers, capacity_model="spot")
    assert [(m.code, m.reason) for m in result.missing_items] == [
        ("region-placement", "status_unknown")
    ]
    assert result.completeness_pct == 87  # 7 of 8, rounded down


@pytest.mark.parametrize(
    ("status", "review_status", "counts", "reason"),
    [
        ("yes", "pending", False, "awaiting_review"),
        ("yes", "accepted", True, None),
        ("partial", "pending", False, "awaiting_review"),
        ("partial", "accepted", True, None),
        ("no", "pending", False, "answered_no"),
        ("unknown", "pending", False, "status_unknown"),
        ("yes", "needs_info", False, "needs_info"),
        ("yes", "red_flag", False, "red_flag"),
    ],
)
def test_which_answers_count(status, review_status, counts, reason):
    code = ITEMS[0].code
    answers = _all_answered(**{code: AnswerInput(code, status, True, review_status, "why?")})
    result = levels.checklist_summary(ITEMS, answers, capacity_model="reserved")
    assert result.complete is counts
    assert [m.reason for m in result.missing_items] == ([reason] if reason else [])


def test_red_flags_are_listed_with_the_reviewer_comment_even_on_optional_items():
    code = "compliance-evidence"  # not basic: optional for on-demand
    answers = _all_answered(
        **{code: AnswerInput(code, "yes", True, "red_flag", "SOC 2 report expired in 2023")}
    )
    result = levels.checklist_summary(ITEMS, answers, capacity_model="on_demand")
    assert result.complete  # the basics are all there
    assert result.as_dict()["red_flags"] == [
        {
            "code": code,
            "title": "Compliance evidence and vendor-review support",
            "section": "security",
            "comment": "SOC 2 report expired in 2023",
        }
    ]


def test_no_items_means_nothing_to_miss():
    result = levels.evaluate([], {}, level="full")
    assert result.complete
    assert result.completeness_pct == 100


def test_unknown_level_is_refused():
    with pytest.raises(ValueError, match="Unknown checklist level"):
        levels.evaluate(ITEMS, {}, level="medium")


def test_levels_module_is_pure():
    source = Path(levels.__file__).read_text()
    imported: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
    forbidden = ("django", "rest_framework", "checklist.models", "catalog", "procurement")
    assert not [name for name in imported if name.startswith(forbidden)]
