"""The checks every FinOps write makes: who may, and whether the decision is approved and the
month inside its contract."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from core.errors import Conflict, DomainError, NotAllowed
from finops import access, selectors
from procurement.models import Comparison

if TYPE_CHECKING:
    from accounts.models import User


def drift_tolerance() -> Decimal:
    """FINOPS_DRIFT_TOLERANCE as a share (0.10: 10 %); a bad value is a configuration error."""
    raw = str(getattr(settings, "FINOPS_DRIFT_TOLERANCE", "0.10"))
    try:
        value = Decimal(raw)
    except InvalidOperation:
        value = Decimal("NaN")
    if not (value.is_finite() and 0 <= value < 100):
        raise ImproperlyConfigured(
            f"FINOPS_DRIFT_TOLERANCE must be a share such as 0.10, not {raw!r}."
        )
    return value


def _approved(comparison: Comparison) -> None:
    if comparison.status != Comparison.Status.APPROVED:
        raise Conflict(
            f"This comparison is {comparison.get_status_display().lower()}, not approved: "
            "only an approved decision has a commitment to export and a bill to reconcile."
        )
    if comparison.decision_superseded_by_id is not None:
        raise Conflict(
            f"This decision was superseded by comparison {comparison.decision_superseded_by_id} "
            f"on {comparison.decision_superseded_at:%Y-%m-%d}: it is no longer tracked; import "
            "bills and counts on the decision that superseded it."
        )


def _clean_list(values: Sequence[str]) -> list[str]:
    return sorted({v.strip() for v in values if v and v.strip()})


def _tag_pairs(tags: Sequence[str]) -> list[str]:
    out = []
    for tag in _clean_list(tags):
        if "=" not in tag:
            raise DomainError(
                f"The tag {tag!r} is not written key=value.",
                fields={"tags": [f"Write {tag!r} as key=value."]},
            )
        out.append(tag)
    return out


def _in_contract(comparison: Comparison, month: date, field: str) -> None:
    """Refuse a month no contract of the decision covers (another period)."""
    contracts = [line.contract for line in selectors.decision_lines(comparison)]
    if not contracts:
        return
    start, end = selectors.month_bounds(month)
    if any(start < c.end and end > c.start for c in contracts):
        return
    first = min(c.start for c in contracts)
    last = max(c.end for c in contracts)
    message = (
        f"{month:%Y-%m} is outside this decision's contract period "
        f"({first:%Y-%m-%d} to {last:%Y-%m-%d}, UTC, end exclusive)."
    )
    raise DomainError(message, fields={field: [message]})


def billing_import_check(*, acting_user: User, comparison: Comparison) -> None:
    """Raise why this user may not import a bill for this comparison now (403, 409)."""
    if not access.can_import_bill(acting_user):
        raise NotAllowed("Only the procurement lead and finance import bills.")
    _approved(comparison)


def actual_outputs_check(*, acting_user: User, comparison: Comparison) -> None:
    """Raise why this user may not enter counts for this comparison now (403, 409)."""
    if not access.can_count_outputs(acting_user):
        raise NotAllowed("Only the lead, platform engineers and finance enter accepted outputs.")
    _approved(comparison)
