"""Deeply nested JSON and huge numbers on every API write route (L1, and the fuzzing's claim
of no 5xx): each route from the URL resolver gets POST, PUT and PATCH with 10,000 levels of
`[[[…]]]` and `{"a":{"a":…}}`, and a body giving each documented field of the route a
100,000-digit integer, 1e999 (infinity) or 1e308. Every answer is a 4xx and no domain row
changes. Each request is made by a role that passes the route's role gate (the matrix says
which), so the body is really parsed and validated.
"""

from __future__ import annotations

import re

import pytest
from django.db import transaction
from django.test import Client
from django.urls import resolve

from tests.security.factories_security import ROLES
from tests.security.matrix import LOGIN, MATRIX
from tests.security.routes import all_routes, fingerprint, fingerprint_tables, url_for

pytestmark = pytest.mark.django_db

DEPTH = 10_000
NESTED = {
    "list": "[" * DEPTH + "]" * DEPTH,
    "object": '{"a":' * DEPTH + "1" + "}" * DEPTH,
}
HUGE_NUMBERS = {"digits": "9" * 100_000, "infinite": "1e999", "largest": "1e308"}
GATES = (401, 403, 404, 405, LOGIN)
WRITE_METHODS = ("post", "put", "patch")


def api_routes() -> list[str]:
    return sorted(name for name in all_routes() if name in MATRIX and MATRIX[name].api)


def writer(name: str) -> str:
    """A role whose POST passes the route's gate (admin when the route takes no POST)."""
    post = MATRIX[name].post
    if post is None:
        return "admin_member"
    for role in ("admin_member", "lead", "vendor_a", "engineer", "finance", "security"):
        if post[ROLES.index(role)] not in GATES:
            return role
    return "admin_member"


Fields = dict[tuple[str, str], dict[str, bool]]


def _numeric(prop: dict) -> bool:
    kinds = prop.get("type", [])
    kinds = kinds if isinstance(kinds, list) else [kinds]
    return bool({"integer", "number"} & set(kinds)) or prop.get("format") == "decimal"


@pytest.fixture(scope="module")
def documented_fields() -> Fields:
    """(path shape, method) → {property: numeric?} of the request body in the OpenAPI schema;
    no entry when the operation takes no body."""
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema["components"]["schemas"]
    fields: Fields = {}
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            content = operation.get("requestBody", {}).get("content", {})
            if not content:
                continue
            body = content.get("application/json") or next(iter(content.values()))
            ref = body.get("schema", {}).get("$ref", "")
            properties = components.get(ref.rsplit("/", 1)[-1], {}).get("properties", {})
            fields[(shape(path), method)] = {k: _numeric(v) for k, v in properties.items()}
    return fields


def shape(path: str) -> str:
    """A route's path with its parameters blanked, alike for the resolver's `<int:pk>`, a
    router's `^quotes/(?P<pk>[^/.]+)/revise/$` and the schema's `{id}`."""
    blanked = re.sub(r"\(\?P<[^>]+>[^)]*\)|<[^>]+>|\{[^}]+\}", "*", path)
    return "/" + blanked.replace("^", "").replace("$", "").lstrip("/")


def bodies(documented: dict[str, bool] | None) -> dict[str, str]:
    """The nested bodies, and, where the route has a numeric field, one body per huge number
    given to every documented field."""
    made = dict(NESTED)
    if documented and any(documented.values()):
        for label, number in HUGE_NUMBERS.items():
            made[label] = "{" + ",".join(f'"{key}": {number}' for key in sorted(documented)) + "}"
    return made


def unchanged(before: tuple[str, ...], after: tuple[str, ...]) -> bool:
    """Equal but for the login-failure counter, which a refused token request feeds on
    purpose (the throttle counts bad credentials)."""
    skip = fingerprint_tables().index("accounts_loginfailure")
    return [h for i, h in enumerate(before) if i != skip] == [
        h for i, h in enumerate(after) if i != skip
    ]


def send(world, role: str, method: str, url: str, body: str):
    """One request as `role` (the world's logged-in client), the database rolled back."""
    client: Client = world.clients[role]
    client.raise_request_exception = False
    handler = getattr(client, method)
    return handler(url, body, content_type="application/json")


@pytest.mark.parametrize("name", api_routes())
def test_deep_json_and_huge_numbers_on_every_api_write_are_a_4xx(world, documented_fields, name):
    """A route that takes a body answers 4xx and writes nothing; a route that documents no
    body (recompute, retry) never reads it, so it may act, but never answers 5xx."""
    url = url_for(world, name)
    role = writer(name)
    failures = []
    with transaction.atomic():
        before = fingerprint()
        for method in WRITE_METHODS:
            documented = documented_fields.get((shape(all_routes()[name]), method))
            takes_body = documented is not None
            for label, body in bodies(documented).items():
                with transaction.atomic():
                    response = send(world, role, method, url, body)
                    status = response.status_code
                    if status >= 500 or (takes_body and not 400 <= status < 500):
                        failures.append(
                            f"{method.upper()} {label}: {status} {response.content[:300]!r}"
                        )
                    if takes_body and not unchanged(before, fingerprint()):
                        failures.append(f"{method.upper()} {label}: a domain row changed")
                    transaction.set_rollback(True)
        transaction.set_rollback(True)
    assert not failures, f"{name} as {role} ({url}):\n" + "\n".join(failures)


def test_every_api_route_is_driven():
    """The resolver's API routes are all in the matrix, so none escapes this module."""
    api_paths = [n for n, p in all_routes().items() if p.startswith("api/v1/")]
    assert api_paths
    missing = [n for n in api_paths if n not in MATRIX]
    assert not missing, missing
    assert resolve("/api/v1/quotes/").url_name == "quote-list"
