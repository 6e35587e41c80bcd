"""S-01/S-02: every route × every role answers what `matrix.MATRIX` says, and every route
has a row. Vendor B never gets a 403 or a page showing provider A's objects. A refused POST
(a 4xx or the login redirect) changes no domain row."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.security.factories_security import MARKERS, ROLES
from tests.security.matrix import LOGIN, MATRIX
from tests.security.routes import all_routes, allowlisted, call, outcome, url_for

pytestmark = pytest.mark.django_db

POST_ROUTES = sorted(name for name, route in MATRIX.items() if route.post is not None)


def test_every_route_has_an_entry():
    routes = all_routes()
    missing = sorted(n for n in routes if n not in MATRIX and not allowlisted(n))
    stale = sorted(n for n in MATRIX if n not in routes)
    assert not missing, f"routes without a row in tests/security/matrix.py: {missing}"
    assert not stale, f"rows in the matrix for routes that no longer exist: {stale}"


def test_matrix_rows_have_one_outcome_per_role():
    for name, route in MATRIX.items():
        assert len(route.get) == len(ROLES), name
        assert route.post is None or len(route.post) == len(ROLES), name


# Every page carries masked CSRF tokens: 64 random letters and digits, drawn anew per
# request, which hold "ZQXA" about once in 60,000 pages. A marker found there is chance, not
# a leak, so the tokens are blanked before the page is searched.
_CSRF_TOKEN = re.compile(r"[A-Za-z0-9]{64}")


def page_text_without_tokens(body: bytes) -> str:
    return _CSRF_TOKEN.sub("<csrf-token>", body.decode("utf-8", "replace"))


def _vendor_b_leaks(response, where: str) -> list[str]:
    """S-01: vendor B gets 404 (never 403) for A's objects, and reads none of A's rows."""
    if response.status_code == 403:
        return [f"{where} as vendor_b: 403 (must be 404: never confirm that A's object exists)"]
    if 200 <= response.status_code < 300:
        text = page_text_without_tokens(response.body)
        if leaked := [marker for marker in MARKERS if marker in text]:
            return [f"{where} as vendor_b shows provider A's {leaked}"]
    return []


def refused(expected: int | str) -> bool:
    """A refusal or bad input: such a POST must change no domain row."""
    return expected == LOGIN or (isinstance(expected, int) and expected >= 400)


def _mismatches(world, name: str, method: str) -> list[str]:
    route = MATRIX[name]
    expected_row = route.get if method == "get" else route.post
    url = url_for(world, name)
    where = f"{method.upper()} {url}"
    out = []
    for role, expected in zip(ROLES, expected_row, strict=True):
        response = call(world, role, method, url, route)
        got = outcome(response)
        if got != expected:
            out.append(f"{where} as {role}: expected {expected}, got {got} {response.body[:200]!r}")
        elif method == "post" and refused(expected) and response.changed:
            out.append(f"{where} as {role}: refused with {got}, yet it changed data")
        if role == "vendor_b":
            out += _vendor_b_leaks(response, where)
    return out


@pytest.mark.parametrize("name", sorted(MATRIX))
def test_get_matrix(world, name):
    mismatches = _mismatches(world, name, "get")
    assert not mismatches, "\n".join(mismatches)


@pytest.mark.parametrize("name", POST_ROUTES)
def test_post_matrix(world, name):
    mismatches = _mismatches(world, name, "post")
    assert not mismatches, "\n".join(mismatches)


# Objects of provider A behind URL kwargs (accelerators and model profiles are catalog data).
A_OBJECTS = {"quote", "rfq", "answer", "provider", "route", "result", "plan", "step", "brief"}
A_OBJECTS |= {"comparison", "event"}
HTML_OPEN = {
    "healthz",
    "accounts:login",
    "accounts:password-reset",
    "accounts:password-reset-done",
    "accounts:password-reset-complete",
}


def test_the_table_itself_keeps_the_rules():
    """Guards the table against a careless edit: vendor B's column on A's objects is 404 (or
    an id-independent 405), and anonymous is a login redirect (HTML) or 401/403 (API)."""
    for name, route in MATRIX.items():
        rows = [route.get] + ([route.post] if route.post else [])
        if set(route.kwargs.values()) & A_OBJECTS:
            for row in rows:
                assert row[ROLES.index("vendor_b")] in (404, 405), name
        anonymous = [row[0] for row in rows]
        if name in HTML_OPEN:
            assert anonymous[0] == 200, name
        elif route.api and name != "api-token":
            assert set(anonymous) <= {401, 403, 405}, name
            assert anonymous[-1] in (401, 403), name  # the method the route serves
        elif not route.api:
            assert set(anonymous) == {LOGIN}, name


def _missing_url(world, name: str) -> str:
    """The same route with every object id replaced by one that does not exist."""
    kwargs = {
        key: "no-such-slug" if isinstance(value, str) else 987654321
        for key, value in world.kwargs(MATRIX[name].kwargs).items()
    }
    return reverse(name, kwargs=kwargs)


@pytest.mark.parametrize(
    "name", sorted(n for n, r in MATRIX.items() if set(r.kwargs.values()) & A_OBJECTS)
)
def test_vendor_b_cannot_tell_a_objects_from_missing_ones(world, name):
    """S-01: no object is reachable, or even confirmed, by guessing its id."""
    route = MATRIX[name]
    for method in ("get", "post") if route.post else ("get",):
        real = call(world, "vendor_b", method, url_for(world, name), route)
        missing = call(world, "vendor_b", method, _missing_url(world, name), route)
        assert real.status_code == missing.status_code, method
        if route.api:
            assert real.body == missing.body, method


LISTS = [
    "/api/v1/quotes/",
    "/api/v1/providers/",
    "/api/v1/api-routes/",
    "/api/v1/rfqs/",
    "/vendor/",
    "/checklist/",
    "/checklist/provider/",
    "/",
]
PROBES = [
    "",
    "?provider=provider-a",
    "?provider={provider}",
    "?rfq={rfq}",
    "?quote={quote}",
    "?search=ZQXA",
    "?current=false",
    "?ordering=-price_per_gpu_hour",
]


@pytest.mark.parametrize("url", LISTS)
def test_lists_and_filters_never_show_vendor_b_any_row_of_a(world, url):
    """S-01: 0 of A's rows in B's lists, whatever the filter; A sees them (the check bites)."""
    mine = call(world, "vendor_a", "get", url, MATRIX["dashboard"])
    assert mine.status_code == 200
    assert any(m in mine.body.decode() for m in MARKERS), f"{url}: A's own rows are missing"
    for probe in PROBES:
        full = url + probe.format(**world.ids)
        response = call(world, "vendor_b", "get", full, MATRIX["dashboard"])
        assert response.status_code in (200, 400, 404), full
        assert not _vendor_b_leaks(response, f"GET {full}"), full


def test_a_marker_inside_a_csrf_token_is_chance_not_a_leak():
    """CI saw 'ZQXA' inside a masked CSRF token once; a real title still counts as a leak."""
    token = "ab" * 10 + "ZQXA" + "cd" * 20
    page = f'<input name="csrfmiddlewaretoken" value="{token}"><h1>Checklist</h1>'.encode()
    assert "ZQXA" not in page_text_without_tokens(page)
    assert "ZQXA" in page_text_without_tokens(b"<td>ZQXA RFQ to A</td>" + page)
