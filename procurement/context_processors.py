"""Role-aware navigation: templates get the links the user may follow, never decide access."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from accounts.models import Role
from procurement import access

NAV: list[tuple[str, str, frozenset[str]]] = [
    ("Dashboard", "/", frozenset(Role.values)),
    ("Catalog", "/catalog/", access.STAFF_ROLES),
    ("Quotes", "/catalog/quotes/", access.STAFF_ROLES),
    ("RFQs", "/catalog/rfqs/", access.STAFF_ROLES),
    ("My RFQs", "/vendor/", frozenset({Role.VENDOR})),
    ("Briefs", "/briefs/", access.STAFF_ROLES),
    ("Checklist", "/checklist/", access.STAFF_ROLES | {Role.VENDOR}),
    ("Benchmarks", "/benchmarks/", access.STAFF_ROLES),
    ("Comparisons", "/comparisons/", access.STAFF_ROLES),
    ("Audit", "/audit/", frozenset({Role.ADMIN, Role.FINANCE_REVIEWER, Role.SECURITY_REVIEWER})),
    ("API", "/api/docs/", access.STAFF_ROLES | {Role.VENDOR}),
]


def navigation(request: HttpRequest) -> dict[str, Any]:
    role = access.role_of(request.user)
    if role is None:
        return {"nav_links": []}
    path = request.path
    links = []
    for label, url, roles in NAV:
        if role in roles:
            active = path == url if url == "/" else path.startswith(url)
            links.append({"label": label, "url": url, "active": active})
    return {"nav_links": links, "user_role_label": Role(role).label}
