"""When a review falls due: the time a comparison became ready plus a window of business days.

Pure (no Django): the run service and the migration that back-fills old rows share it.
Business days, not calendar days, because a comparison finished on a Friday evening should
not be overdue before finance has had a working week (REVIEW_WINDOW_BUSINESS_DAYS, default 5).
Weekends are Saturday and Sunday; public holidays are not known to the product.
"""

from __future__ import annotations

from datetime import datetime, timedelta

SATURDAY = 5


def review_due_at(ready_at: datetime, business_days: int) -> datetime:
    """`ready_at` moved forward by `business_days` weekdays, keeping the time of day.

    A comparison ready on a weekend counts from the next Monday's same time, so its window
    is as long as one finished on a weekday.
    """
    if business_days < 0:
        raise ValueError(f"a review window cannot be negative (got {business_days} days)")
    due = ready_at
    while due.weekday() >= SATURDAY:
        due += timedelta(days=1)
    left = business_days
    while left > 0:
        due += timedelta(days=1)
        if due.weekday() < SATURDAY:
            left -= 1
    return due
