"""Issue 16: deeply nested JSON and absurd numbers on every API write endpoint answer a 4xx,
never a 5xx, and write nothing.

The endpoints come from the URL resolver (every `api/v1/` route) and are checked against the
OpenAPI schema, so a new write endpoint is covered the day it is added. Each one gets POST, PUT
and PATCH bodies of:
- 10,000 levels of `[[[...]]]` and of `{"a": {"a": ...}}` (past any parser's recursion limit);
- every documented field set to `1e400` (a float overflow: infinity), `-1e400`, `10**5000`
  (5,001 digits) and 900 levels of nesting (under the recursion limit, so only a depth rule
  stops it), both as plain values and in the field's own shape;
- every number field set to `10**24` (past 64 bits) and to huge numbers written as strings
  (text fields may take those: "1e400" is a fine reason for a withdrawal).
Each request is sent as the first role of the authorisation matrix that passes the endpoint's
role gate (a 403 would prove nothing about the body), inside a savepoint that is rolled back.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest
from django.db import transaction
from django.urls import resolve
from drf_spectacular.generators import SchemaGenerator

from tests.security.factories_security import ROLES
from tests.security.matrix import LOGIN, MATRIX
from tests.security.routes import all_routes, fingerprint, url_for

pytestmark = pytest.mark.django_db

DEPTH = 10_000
DEEP_LIST = "[" * DEPTH + "]" * DEPTH
DEEP_OBJECT = '{"a":' * DEPTH + "1" + "}" * DEPTH
UNDER_LIMIT = "[" * 900 + "]" * 900
#: refused by the JSON reader itself, wherever they stand
UNREADABLE = ("1e400", "-1e400", "1" + "0" * 5000, UNDER_LIMIT)
#: valid JSON, refused by the number field they are put in (an integer past 64 bits, numbers
#: written as strings)
UNFIT_NUMBERS = ("1" + "0" * 24, '"1e400"', '"-' + "9" * 5000 + '"')
METHODS = ("post", "put", "patch")
WRITE_METHODS = ("post", "put", "patch", "delete")
GATE_CLOSED = {401, 403, 404, 405, LOGIN}


def _schema_form(path: str) -> str:
    """`/api/v1/quotes/{id}/revise/` and `api/v1/quotes/<int:pk>/revise/` read alike."""
    path = re.sub(r"\(\?P<[^>]+>[^)]*\)", "{}", path)  # a router's regex groups
    path = re.sub(r"<[^>]+>", "{}", path)
    path = re.sub(r"\{[^}]*\}", "{}", path)
    return "/" + path.replace("^", "").replace("$", "").lstrip("/")


@cache
def _schema() -> dict[str, Any]:
    return SchemaGenerator().get_schema(request=None, public=True)


def _resolve_ref(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        node = schema["components"]["schemas"][name]
    return node


def _properties(path: str, method: str) -> dict[str, dict[str, Any]]:
    """The documented fields of an operation's JSON (or form) body, with their schemas."""
    schema = _schema()
    operation = schema["paths"].get(path, {}).get(method, {})
    content = operation.get("requestBody", {}).get("content", {})
    for media in ("application/json", "multipart/form-data", "application/x-www-form-urlencoded"):
        if media in content:
            body = _resolve_ref(schema, content[media]["schema"])
            return {k: _resolve_ref(schema, v) for k, v in body.get("properties", {}).items()}
    return {}


def _shaped(value: str, field: dict[str, Any]) -> str:
    """The value where the field expects it: inside a list, or as a member of an object."""
    if field.get("type") == "array":
        return f"[{value}]"
    if field.get("type") == "object":
        members = list(field.get("properties", {})) or ["a"]
        return "{" + ",".join(f'"{m}": {value}' for m in members) + "}"
    return value


def _is_number(field: dict[str, Any]) -> bool:
    if field.get("type") == "array":
        return _is_number(field.get("items", {}))
    return field.get("type") in ("integer", "number") or field.get("format") == "decimal"


def _object(members: dict[str, str]) -> str:
    return "{" + ",".join(f'"{name}": {value}' for name, value in members.items()) + "}"


def _label(value: str) -> str:
    return value if len(value) < 12 else f"{value[:6]}…({len(value)} chars)"


def bodies(fields: dict[str, dict[str, Any]]) -> Iterator[tuple[str, str]]:
    """(label, raw JSON text): the whole-body nesting, then each value in every field."""
    yield "10,000 nested lists", DEEP_LIST
    yield "10,000 nested objects", DEEP_OBJECT
    names = fields or {"value": {}}
    for value in UNREADABLE:
        plain = _object(dict.fromkeys(names, value))
        yield f"every field = {_label(value)}", plain
        shaped = _object({n: _shaped(value, f) for n, f in names.items()})
        if shaped != plain:
            yield f"every field, in its shape = {_label(value)}", shaped
    numbers = {name: field for name, field in fields.items() if _is_number(field)}
    for value in UNFIT_NUMBERS if numbers else ():
        body = _object({n: _shaped(value, f) for n, f in numbers.items()})
        yield f"every number field = {_label(value)}", body


def write_endpoints(world: Any) -> list[tuple[str, str, str]]:
    """(route name, URL, schema path) of every API route that takes a write."""
    found = []
    for name, pattern in sorted(all_routes().items()):
        if not pattern.startswith("api/v1/") or name not in MATRIX:
            continue
        url = url_for(world, name)
        view = resolve(url).func
        actions = getattr(view, "actions", None)
        cls = getattr(view, "cls", None)
        takes = [
            m
            for m in WRITE_METHODS
            if (m in actions if actions else cls is not None and hasattr(cls, m))
        ]
        if takes:
            found.append((name, url, _schema_form(pattern)))
    return found


def _role_past_the_gate(name: str) -> str:
    route = MATRIX[name]
    outcomes = route.post or route.get
    for role, outcome in zip(ROLES, outcomes, strict=True):
        if outcome not in GATE_CLOSED:
            return role
    return "admin_member"


def _send(world: Any, role: str, method: str, url: str, body: str) -> tuple[int, bool, bytes]:
    """One request in a savepoint rolled back afterwards: (status, rows changed, body)."""
    client = world.clients[role]
    cookies = copy.deepcopy(client.cookies)
    client.raise_request_exception = False  # a crash is a 500 to count, not a test error
    try:
        with transaction.atomic():
            before = fingerprint()
            response = client.generic(
                method.upper(), url, body.encode(), content_type="application/json"
            )
            changed = fingerprint() != before
            transaction.set_rollback(True)
    finally:
        client.cookies = cookies
        client.raise_request_exception = True
    return response.status_code, changed, response.content[:300]


def test_every_write_endpoint_in_the_schema_is_exercised(world):
    """The resolver's list covers every write operation the OpenAPI schema documents."""
    tested = {path for _, _, path in write_endpoints(world)}
    documented = {
        _schema_form(path)
        for path, operations in _schema()["paths"].items()
        if any(m in operations for m in WRITE_METHODS)
    }
    assert documented <= tested, f"write endpoints not exercised: {sorted(documented - tested)}"
    assert len(tested) >= 20


def test_deep_json_and_huge_numbers_are_a_4xx_and_write_nothing(world):
    problems = []
    sent = 0
    for name, url, path in write_endpoints(world):
        role = _role_past_the_gate(name)
        schema_path = next(
            (p for p in _schema()["paths"] if _schema_form(p) == path), "/" + path.lstrip("/")
        )
        for method in METHODS:
            for label, body in bodies(_properties(schema_path, method)):
                status, changed, content = _send(world, role, method, url, body)
                sent += 1
                where = f"{method.upper()} {url} as {role}, {label}"
                if not 400 <= status < 500:
                    problems.append(f"{where}: {status} {content!r}")
                elif changed:
                    problems.append(f"{where}: {status} but rows were written")
    assert sent > 300
    assert not problems, f"{len(problems)} of {sent} requests:\n" + "\n".join(problems[:40])
