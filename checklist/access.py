"""Who may see vendors' checklist answers and who reviews which section."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db.models import QuerySet

from checklist.models import ChecklistAnswer
from core.roles import Role, get_or_404, has_role, is_staff, is_vendor

if TYPE_CHECKING:
    from accounts.models import User

# Who may review which checklist section (docs/domain.md's four sections).
CHECKLIST_REVIEWERS: dict[str, frozenset[str]] = {
    "hardware": frozenset({Role.PLATFORM_ENGINEER, Role.ADMIN}),
    "software": frozenset({Role.PLATFORM_ENGINEER, Role.ADMIN}),
    "commercial": frozenset({Role.FINANCE_REVIEWER, Role.PROCUREMENT_LEAD, Role.ADMIN}),
    "security": frozenset({Role.SECURITY_REVIEWER, Role.ADMIN}),
}


def answers_for(user: User) -> QuerySet[ChecklistAnswer]:
    qs = ChecklistAnswer.objects.select_related("item", "provider", "quote", "answered_by")
    if is_staff(user):
        return qs
    if is_vendor(user) and user.provider_id is not None:
        return qs.filter(provider_id=user.provider_id)
    return qs.none()


def access_answer(user: User, answer_id: Any) -> ChecklistAnswer:
    return get_or_404(answers_for(user), pk=answer_id)


def can_review_checklist_section(user: User, section: str) -> bool:
    return has_role(user, *CHECKLIST_REVIEWERS.get(section, frozenset()))
