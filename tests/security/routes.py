"""Walking the URL resolver, and driving one request of the matrix."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from django.db import transaction
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


def call(world: Any, role: str, method: str, url: str, route: Route) -> HttpResponse:
    """One request as `role`, rolled back afterwards (database and the client's cookies)."""
    client = world.clients[role]
    cookies = copy.deepcopy(client.cookies)
    try:
        with transaction.atomic():
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
            transaction.set_rollback(True)
    finally:
        client.cookies = cookies
    return response
