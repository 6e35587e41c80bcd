"""A comparison that becomes ready is due for review REVIEW_WINDOW_BUSINESS_DAYS business
days later (weekends do not count); a re-queued one is not due until it is ready again."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from procurement.review_window import review_due_at


@pytest.mark.parametrize(
    ("_case", "ready_at", "days", "due"),
    [
        ("Monday + 5 is next Monday", (2026, 11, 30, 9), 5, (2026, 12, 7, 9)),
        ("Friday + 1 skips the weekend", (2026, 12, 4, 18), 1, (2026, 12, 7, 18)),
        ("Saturday counts from Monday", (2026, 12, 5, 10), 5, (2026, 12, 14, 10)),
        ("Sunday with no window is Monday", (2026, 12, 6, 10), 0, (2026, 12, 7, 10)),
        ("Thursday + 2 is Monday", (2026, 12, 3, 8), 2, (2026, 12, 7, 8)),
    ],
)
def test_review_window_counts_business_days(_case, ready_at, days, due):
    assert review_due_at(datetime(*ready_at, tzinfo=UTC), days) == datetime(*due, tzinfo=UTC)


def test_a_negative_window_is_refused_with_its_value():
    with pytest.raises(ValueError, match=r"cannot be negative \(got -1 days\)"):
        review_due_at(datetime(2026, 12, 3, tzinfo=UTC), -1)


@pytest.mark.django_db
def test_a_ready_comparison_carries_its_due_date(computed, settings):
    assert computed.status == "ready"
    expected = review_due_at(computed.finished_at, settings.REVIEW_WINDOW_BUSINESS_DAYS)
    assert computed.review_due_at == expected
    assert computed.review_due_at > computed.finished_at


@pytest.mark.django_db
def test_the_api_gives_the_due_date_of_a_ready_comparison(computed, api_client, finance):
    api_client.force_authenticate(finance)
    body = api_client.get(f"/api/v1/comparisons/{computed.pk}/").json()
    assert body["review_due_at"] == computed.review_due_at.isoformat().replace("+00:00", "Z")
    listed = api_client.get("/api/v1/comparisons/").json()
    assert {row["id"]: row["review_due_at"] for row in listed["results"]}[computed.pk]
