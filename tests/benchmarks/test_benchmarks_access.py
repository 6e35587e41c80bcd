"""Role matrix for every benchmarks route, HTML and API: vendors always get 404, never 403."""

from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token

from benchmarks.models import BenchmarkPlanStep
from benchmarks.services import benchmark_plan_create
from tests.benchmarks.factories_benchmarks import BenchmarkResultFactory

pytestmark = pytest.mark.django_db

READ, WRITE = "read", "write"
ROLES = ["lead", "engineer", "finance", "security", "admin_member", "vendor_a"]
CAN_READ = {"lead", "engineer", "finance", "security", "admin_member"}
CAN_WRITE = {"lead", "engineer", "admin_member"}


@pytest.fixture
def world(quote_a, brief, engineer, h100):
    result = BenchmarkResultFactory(quote=quote_a, accelerator=h100, brief=brief)
    plan, _ = benchmark_plan_create(acting_user=engineer, quote=quote_a, brief=brief)
    step = plan.steps.filter(kind=BenchmarkPlanStep.Kind.MANUAL).first()
    return {"result": result, "plan": plan, "step": step, "brief": brief, "quote": quote_a}


HTML_ROUTES = [
    ("list", "get", "/benchmarks/", READ),
    ("upload page", "get", "/benchmarks/upload/", WRITE),
    ("upload post", "post", "/benchmarks/upload/", WRITE),
    ("compare", "get", "/benchmarks/compare/?brief={brief}", READ),
    ("detail", "get", "/benchmarks/results/{result}/", READ),
    ("download", "get", "/benchmarks/results/{result}/download/", READ),
    ("file template", "get", "/benchmarks/templates/requests_template.csv/", READ),
    ("plans", "get", "/benchmarks/plans/", READ),
    ("plan new page", "get", "/benchmarks/plans/new/?quote={quote}&brief={brief}", WRITE),
    ("plan new post", "post", "/benchmarks/plans/new/", WRITE),
    ("plan detail", "get", "/benchmarks/plans/{plan}/", READ),
    ("step check", "post", "/benchmarks/plans/{plan}/steps/{step}/check/", WRITE),
]


def _url(template, world):
    return template.format(
        result=world["result"].pk,
        plan=world["plan"].pk,
        step=world["step"].pk,
        brief=world["brief"].pk,
        quote=world["quote"].pk,
    )


def _allowed(who, need):
    return who in (CAN_READ if need == READ else CAN_WRITE)


@pytest.mark.parametrize("who", ROLES)
@pytest.mark.parametrize(("_name", "method", "template", "need"), HTML_ROUTES)
def test_html_route_matrix(_name, method, template, need, who, world, request, login):
    client = login(request.getfixturevalue(who))
    response = getattr(client, method)(_url(template, world))
    if not _allowed(who, need):
        assert response.status_code == 404
    else:
        # Empty posts are bad input (400), never a server error; reads are 200.
        assert response.status_code in ({200} if method == "get" else {200, 302, 400})


@pytest.mark.parametrize(("_name", "method", "template", "_need"), HTML_ROUTES)
def test_anonymous_is_sent_to_login(_name, method, template, _need, world, client):
    response = getattr(client, method)(_url(template, world))
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]


def test_vendor_gets_404_for_missing_and_existing_alike(world, login, vendor_a):
    client = login(vendor_a)
    assert client.get(f"/benchmarks/results/{world['result'].pk}/").status_code == 404
    assert client.get("/benchmarks/results/999999/").status_code == 404
    assert client.get(f"/benchmarks/plans/{world['plan'].pk}/").status_code == 404


API_ROUTES = [
    ("list", "get", "/api/v1/benchmark-results/", READ),
    ("upload", "post", "/api/v1/benchmark-results/", WRITE),
    ("detail", "get", "/api/v1/benchmark-results/{result}/", READ),
]


@pytest.mark.parametrize("who", ROLES)
@pytest.mark.parametrize(("_name", "method", "template", "need"), API_ROUTES)
def test_api_route_matrix(_name, method, template, need, who, world, request, api_client):
    user = request.getfixturevalue(who)
    token = Token.objects.create(user=user)
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    response = getattr(api_client, method)(_url(template, world), format="multipart")
    if who == "vendor_a":
        assert response.status_code == 404
    elif not _allowed(who, need):
        assert response.status_code == 403
    else:
        assert response.status_code == (200 if method == "get" else 400)
    assert set(response.json()) >= ({"detail", "code"} if response.status_code >= 400 else set())


@pytest.mark.parametrize("method", ["put", "patch", "delete"])
def test_api_has_no_put_patch_delete(method, world, api_client, engineer, vendor_a):
    api_client.force_authenticate(engineer)
    for url in ("/api/v1/benchmark-results/", f"/api/v1/benchmark-results/{world['result'].pk}/"):
        assert getattr(api_client, method)(url).status_code == 405
    api_client.force_authenticate(vendor_a)
    url = f"/api/v1/benchmark-results/{world['result'].pk}/"
    assert getattr(api_client, method)(url).status_code == 404


@pytest.mark.parametrize("path", ["/api/v1/benchmark-results/", "/api/v1/benchmark-results/1/"])
def test_api_anonymous_refused(path, api_client):
    assert api_client.get(path).status_code in (401, 403)
