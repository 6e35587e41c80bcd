"""Walking the URL resolver, and driving one request of the matrix."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from functools import cache
from typing import Any

from django.apps import apps
from django.db import connection, transaction
from django.http import HttpResponse
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from tests.security.matrix import ALLOWLIST, LOGIN, MATRIX, Route

LOGIN_PATH = "/accounts/login/"


def walk(patterns: list[Any], namespace: str = "", prefix: str = "") -> Iterator[tuple[str, str]]:
    """(name, pattern) of every route, namespaces included (unnamed ones by their pattern)."""
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            yield from walk(pattern.url_patterns, inner, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            full = prefix + str(pattern.pattern)
            yield f"{namespace}{pattern.name or f'<unnamed {full}>'}", full


def all_routes() -> dict[str, str]:
    return dict(walk(get_resolver().url_patterns))


def allowlisted(name: str) -> bool:
    return name in ALLOWLIST or any(name.startswith(key) for key in ALLOWLIST if key.endswith(":"))


def url_for(world: Any, name: str) -> str:
    return reverse(name, kwargs=world.kwargs(MATRIX[name].kwargs))


def outcome(response: HttpResponse) -> int | str:
    if response.status_code == 302 and response["Location"].startswith(LOGIN_PATH):
        return LOGIN
    return response.status_code


# Every domain table but the audit trail (a refusal is audit-logged on purpose).
DOMAIN_APPS = ("accounts", "catalog", "checklist", "briefs", "benchmarks", "procurement", "finops")
NOT_FINGERPRINTED = {"core.auditevent"}


@cache
def fingerprint_tables() -> tuple[str, ...]:
    """The tables `fingerprint()` hashes, in the order of its values."""
    return tuple(
        sorted(
            model._meta.db_table
            for label in DOMAIN_APPS
            for model in apps.get_app_config(label).get_models(include_auto_created=True)
            if model._meta.label_lower not in NOT_FINGERPRINTED
        )
    )


@cache
def _fingerprint_sql() -> str:
    qn = connection.ops.quote_name
    per_table = "(SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM {} t)"
    parts = [per_table.format(qn(t)) for t in fingerprint_tables()]  # our own table names
    return "SELECT " + ", ".join(parts)


def fingerprint() -> tuple[str, ...]:
    """Every row of every domain table, hashed per table (one query): equal means unchanged."""
    with connection.cursor() as cursor:
        cursor.execute(_fingerprint_sql())
        return tuple(cursor.fetchone())


def call(world: Any, role: str, method: str, url: str, route: Route) -> HttpResponse:
    """One request as `role`, rolled back afterwards (database and the client's cookies).

    A POST's response carries `changed`: whether it changed any domain row (before the
    rollback), so a refused write can be shown to have written nothing.
    """
    client = world.clients[role]
    cookies = copy.deepcopy(client.cookies)
    try:
        with transaction.atomic():
            before = fingerprint() if method == "post" else None
            if method == "get":
                response = client.get(url)
            else:
                body = route.body(world) if route.body else {}
                if route.api and not route.multipart:
                    response = client.post(url, body, content_type="application/json")
                else:
                    response = client.post(url, body)
            response.body = (  # type: ignore[attr-defined]
                b"".join(response.streaming_content) if response.streaming else response.content
            )
            response.changed = before is not None and fingerprint() != before  # type: ignore[attr-defined]
            transaction.set_rollback(True)
    finally:
        client.cookies = cookies
    return response
