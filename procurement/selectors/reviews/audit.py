"""The audit page's reads: the trail as a user may read it, filtered, and the filter menus."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

from django.db.models import QuerySet

from checklist.models import ChecklistAnswer
from core.audit import audit_distinct
from core.models import AuditEvent
from core.roles import Role
from procurement import access

if TYPE_CHECKING:
    from accounts.models import User

AUDIT_READER_ROLES = frozenset({Role.ADMIN, Role.FINANCE_REVIEWER, Role.SECURITY_REVIEWER})


def audit_filter_choices(user: User) -> tuple[list[str], list[str]]:
    """The actions and object types present in the trail, for the filter menus."""
    if not access.audit_events_for(user).exists():
        return [], []
    # A skip scan per menu, not a DISTINCT over the whole trail (fast at a million events).
    return audit_distinct("action"), audit_distinct("object_type")


def audit_events_filtered(
    user: User,
    *,
    actor: str = "",
    action: str = "",
    object_type: str = "",
    date_from: date | None = None,
    date_to: date | None = None,
) -> QuerySet[AuditEvent]:
    """The trail as this user may read it, filtered; newest first (dates are UTC days)."""
    lookups = {
        "actor_name__iexact": actor.strip(),
        "action": action,
        "object_type": object_type,
        "created_at__date__gte": date_from,
        "created_at__date__lte": date_to,
    }
    events = access.audit_events_for(user).order_by("-created_at", "-id")
    return events.filter(**{lookup: value for lookup, value in lookups.items() if value})


def checklist_answer_places(answer_ids: list[int]) -> dict[int, tuple[int | None, str]]:
    """{answer id: (its quote id or None for a provider default, its item code)} in one
    query, for linking a page of audit events to the checklist they changed."""
    rows = ChecklistAnswer.objects.filter(pk__in=answer_ids).values_list(
        "pk", "quote_id", "item__code"
    )
    return {pk: (quote_id, code) for pk, quote_id, code in rows}
