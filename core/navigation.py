"""Role-aware navigation: templates get the links the user may follow, never decide access."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from core.roles import STAFF_ROLES, Role, role_of

NAV: list[tuple[str, str, frozenset[str]]] = [
    ("Dashboard", "/", frozenset(Role.values)),
    ("Catalog", "/catalog/", STAFF_ROLES),
    ("Quotes", "/catalog/quotes/", STAFF_ROLES),
    ("RFQs", "/catalog/rfqs/", STAFF_ROLES),
    ("My RFQs", "/vendor/", frozenset({Role.VENDOR})),
    ("Briefs", "/briefs/", STAFF_ROLES),
    ("Checklist", "/checklist/", STAFF_ROLES | {Role.VENDOR}),
    ("Benchmarks", "/benchmarks/", STAFF_ROLES),
    ("Comparisons", "/comparisons/", STAFF_ROLES),
    # Those who answer for the spend or count the outputs (finops.access).
    (
        "FinOps",
        "/finops/",
        frozenset(
            {Role.PROCUREMENT_LEAD, Role.FINANCE_REVIEWER, Role.PLATFORM_ENGINEER, Role.ADMIN}
        ),
    ),
    ("Audit", "/audit/", frozenset({Role.ADMIN, Role.FINANCE_REVIEWER, Role.SECURITY_REVIEWER})),
    ("Users", "/accounts/users/", frozenset({Role.ADMIN})),
    ("API", "/api/docs/", STAFF_ROLES | {Role.VENDOR}),
]


def navigation(request: HttpRequest) -> dict[str, Any]:
    role = role_of(request.user)
    if role is None:
        return {"nav_links": []}
    path = request.path
    mine = [(label, url) for label, url, roles in NAV if role in roles]
    # U17: one current link, the longest that holds the page (/catalog/rfqs/2/ is RFQs only,
    # not Catalog too).
    matches = [url for _, url in mine if (path == url if url == "/" else path.startswith(url))]
    current = max(matches, key=len, default=None)
    links = [{"label": label, "url": url, "active": url == current} for label, url in mine]
    return {"nav_links": links, "user_role_label": Role(role).label}
