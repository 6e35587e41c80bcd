"""/api/v1/briefs/: list, create, detail (missing fields, versions), revise; roles; bad input."""

from __future__ import annotations

import pytest
from django.forms.models import model_to_dict
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from briefs.models import WorkloadBrief
from core.models import AuditEvent
from tests.briefs.factories_briefs import RANGES, brief_factory_kwargs
from tests.factories import WorkloadBriefFactory

pytestmark = pytest.mark.django_db
LIST = "/api/v1/briefs/"
STAFF = ["lead", "engineer", "finance", "security", "admin_member"]
WRITERS = ["lead", "admin_member"]
READ_ONLY_STAFF = ["engineer", "finance", "security"]
VENDORS = ["vendor_a", "vendor_b"]


def _detail(brief) -> str:
    return f"/api/v1/briefs/{brief.pk}/"


def _revise(brief) -> str:
    return f"/api/v1/briefs/{brief.pk}/revise/"


def _body(**extra):
    return {
        "title": "Support chat",
        "workload_class": "realtime_inference",
        "model": "llama-3-1-70b",
        "context_window_tokens": 8192,
        "p95_input_tokens": 3000,
        "p95_output_tokens": 500,
        "concurrency": 32,
        "ttft_p95_ms": 800,
        "itl_p95_ms": 60,
        "e2e_p99_ms": 20000,
        "platform_fte": 0.5,
        "allowed_regions": ["eu-west"],
        **RANGES,
        **extra,
    }


@pytest.fixture
def as_user(api_client):
    def _as(user):
        api_client.force_authenticate(user)
        return api_client

    return _as


# --- role matrix -----------------------------------------------------------------------------


@pytest.mark.parametrize("who", STAFF)
def test_staff_can_list_and_read(as_user, request, who, brief):
    client = as_user(request.getfixturevalue(who))
    assert client.get(LIST).status_code == 200
    assert client.get(_detail(brief)).status_code == 200


@pytest.mark.parametrize("who", VENDORS)
@pytest.mark.parametrize("route", ["list", "detail", "create", "revise", "missing"])
def test_vendors_get_404_on_every_brief_route(as_user, request, who, route, brief):
    client = as_user(request.getfixturevalue(who))
    response = {
        "list": lambda: client.get(LIST),
        "detail": lambda: client.get(_detail(brief)),
        "create": lambda: client.post(LIST, _body(), format="json"),
        "revise": lambda: client.post(_revise(brief), {"concurrency": 1}, format="json"),
        "missing": lambda: client.get("/api/v1/briefs/999999/"),
    }[route]()
    assert response.status_code == 404
    assert WorkloadBrief.objects.count() == 1


@pytest.mark.parametrize("route", ["list", "detail", "create", "revise"])
def test_anonymous_is_refused(api_client, route, brief):
    response = {
        "list": lambda: api_client.get(LIST),
        "detail": lambda: api_client.get(_detail(brief)),
        "create": lambda: api_client.post(LIST, _body(), format="json"),
        "revise": lambda: api_client.post(_revise(brief), {}, format="json"),
    }[route]()
    assert response.status_code in (401, 403)


@pytest.mark.parametrize("who", READ_ONLY_STAFF)
def test_read_only_staff_cannot_create_or_revise(as_user, request, who, brief):
    client = as_user(request.getfixturevalue(who))
    assert client.post(LIST, _body(), format="json").status_code == 403
    assert client.post(_revise(brief), {"concurrency": 1}, format="json").status_code == 403
    assert WorkloadBrief.objects.count() == 1


@pytest.mark.parametrize("who", WRITERS)
def test_writers_can_create_and_revise(as_user, request, who, catalog, brief):
    client = as_user(request.getfixturevalue(who))
    assert client.post(LIST, _body(), format="json").status_code == 201
    assert client.post(_revise(brief), {"concurrency": 1}, format="json").status_code == 201


@pytest.mark.parametrize("method", ["put", "patch", "delete"])
def test_no_put_patch_or_delete(as_user, lead, brief, method):
    client = as_user(lead)
    assert getattr(client, method)(_detail(brief), {}, format="json").status_code == 405
    assert getattr(client, method)(LIST, {}, format="json").status_code == 405
    assert WorkloadBrief.objects.count() == 1


def test_missing_brief_is_404(as_user, lead, catalog):
    assert as_user(lead).get("/api/v1/briefs/424242/").status_code == 404
    assert as_user(lead).post("/api/v1/briefs/424242/revise/", {}, format="json").status_code == 404


# --- behaviour -------------------------------------------------------------------------------


def test_create_returns_the_brief_with_status_and_versions(as_user, lead, catalog):
    response = as_user(lead).post(LIST, _body(), format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["version"] == 1
    assert body["model"] == "llama-3-1-70b"
    assert body["is_complete"] is True
    assert body["status"] == "complete"
    assert body["missing_fields"] == []
    assert body["allowed_regions"] == ["eu-west"]
    assert [v["version"] for v in body["versions"]] == [1]
    assert AuditEvent.objects.filter(action="brief.created", object_id=str(body["id"])).exists()


def test_incomplete_brief_reports_selection_paused(as_user, lead, catalog):
    body = as_user(lead).post(LIST, {"title": "Idea", "workload_class": "media"}, format="json")
    data = body.json()
    assert data["status"] == "selection_paused"
    assert data["is_complete"] is False
    assert "gpu_seconds_per_asset" in data["missing_fields"]
    assert "GPU seconds per asset" in data["missing_labels"]


def test_revise_creates_version_two_and_keeps_version_one(as_user, lead, brief):
    before = model_to_dict(brief)
    response = as_user(lead).post(_revise(brief), {"concurrency": 64}, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["version"] == 2
    assert body["supersedes"] == brief.pk
    assert body["concurrency"] == 64
    assert [v["version"] for v in body["versions"]] == [1, 2]
    brief.refresh_from_db()
    assert model_to_dict(brief) == before
    old = as_user(lead).get(_detail(brief)).json()
    assert old["superseded_by"] == body["id"]
    assert old["is_current"] is False
    assert old["concurrency"] == 32


def test_revising_an_old_version_is_a_409(as_user, lead, brief):
    as_user(lead).post(_revise(brief), {"concurrency": 64}, format="json")
    response = as_user(lead).post(_revise(brief), {"concurrency": 65}, format="json")
    assert response.status_code == 409
    assert "latest version" in response.json()["detail"]
    assert WorkloadBrief.objects.count() == 2


def test_list_shows_latest_versions_unless_asked(as_user, lead, brief):
    as_user(lead).post(_revise(brief), {"concurrency": 64}, format="json")
    current = as_user(lead).get(LIST).json()
    assert [b["version"] for b in current["results"]] == [2]
    every = as_user(lead).get(LIST + "?all_versions=1").json()
    assert sorted(b["version"] for b in every["results"]) == [1, 2]


def test_list_filters_by_class(as_user, lead, brief):
    WorkloadBriefFactory(created_by=lead, **brief_factory_kwargs("media"))
    results = as_user(lead).get(LIST + "?workload_class=media").json()["results"]
    assert [b["workload_class"] for b in results] == ["media"]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"acceptance_rate_low": 0.99}, "acceptance_rate_low"),
        ({"utilisation_high": 1.5}, "utilisation_high"),
        ({"failure_rate_likely": -0.1}, "failure_rate_likely"),
        ({"monthly_accepted_outputs_high": 10}, "monthly_accepted_outputs_high"),
        ({"p95_input_tokens": 9000}, "context_window_tokens"),
        ({"workload_class": "astrology"}, "workload_class"),
        ({"model": "no-such-model"}, "model"),
        ({"weight_precision": "fp7"}, "weight_precision"),
        ({"concurrency": -1}, "concurrency"),
        ({"title": ""}, "title"),
        ({"allowed_regions": "eu-west"}, "allowed_regions"),
        ({"storage_gb": "lots"}, "storage_gb"),
    ],
)
def test_bad_create_is_a_400_with_a_message_per_field(as_user, lead, catalog, change, field):
    response = as_user(lead).post(LIST, _body(**change), format="json")
    assert response.status_code == 400, response.json()
    assert field in response.json()["fields"]
    assert response.json()["fields"][field][0]
    assert not WorkloadBrief.objects.exists()
    assert not AuditEvent.objects.filter(action__startswith="brief.").exists()


def test_bad_revision_merged_with_old_values_is_a_400(as_user, lead, brief):
    # likely alone is fine as a shape, but above the stored high (0.97) it breaks the range
    response = as_user(lead).post(_revise(brief), {"acceptance_rate_likely": 0.99}, format="json")
    assert response.status_code == 400
    assert "acceptance_rate_high" in response.json()["fields"]
    assert WorkloadBrief.objects.count() == 1


def test_version_and_lineage_cannot_be_set(as_user, lead, brief):
    response = as_user(lead).post(_revise(brief), {"version": 9, "supersedes": 1}, format="json")
    assert response.status_code == 201
    assert response.json()["version"] == 2


def test_list_query_count_does_not_grow_with_rows(
    as_user, lead, catalog, django_assert_max_num_queries
):
    for _ in range(3):
        WorkloadBriefFactory(created_by=lead)
    client = as_user(lead)
    with django_assert_max_num_queries(4):
        assert client.get(LIST).status_code == 200
    for _ in range(20):
        WorkloadBriefFactory(created_by=lead)
    with django_assert_max_num_queries(4):
        assert len(client.get(LIST).json()["results"]) == 23


def test_detail_query_count_does_not_grow_with_versions(
    as_user, lead, brief, django_assert_max_num_queries
):
    client = as_user(lead)
    latest = brief
    for n in range(6):
        latest_id = client.post(_revise(latest), {"concurrency": 10 + n}, format="json").json()[
            "id"
        ]
        latest = WorkloadBrief.objects.get(pk=latest_id)
    with django_assert_max_num_queries(3):
        body = client.get(_detail(latest)).json()
    assert [v["version"] for v in body["versions"]] == list(range(1, 8))


JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
    st.lists(st.text(max_size=3), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=1),
)
FIELDS = [
    "title",
    "workload_class",
    "model",
    "weight_precision",
    "context_window_tokens",
    "p95_input_tokens",
    "concurrency",
    "acceptance_rate_low",
    "acceptance_rate_likely",
    "monthly_accepted_outputs_high",
    "moderation_cost_per_asset",
    "allowed_regions",
    "operating_model",
    "streaming",
    "peak_to_average",
    "horizon_months",
]


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(overrides=st.dictionaries(st.sampled_from(FIELDS), JUNK, max_size=4))
def test_junk_brief_bodies_never_cause_a_500(catalog, lead, overrides):
    client = APIClient()
    client.force_authenticate(lead)
    before = WorkloadBrief.objects.count()
    response = client.post(LIST, _body(**overrides), format="json")
    assert response.status_code in (201, 400), (overrides, response.content)
    if response.status_code == 400:
        assert response.json()["fields"]
        assert WorkloadBrief.objects.count() == before


@pytest.mark.parametrize("field", ["model", "title", "workload_class", "weight_precision"])
def test_a_nul_byte_in_a_reference_or_text_is_a_400_not_a_500(catalog, lead, field):
    """Found by the junk-body property: a NUL in the model slug reached PostgreSQL."""
    client = APIClient()
    client.force_authenticate(lead)
    before = WorkloadBrief.objects.count()
    response = client.post(LIST, _body(**{field: "llama\x00"}), format="json")
    assert response.status_code == 400
    assert field in response.json()["fields"]
    assert WorkloadBrief.objects.count() == before


def test_issue17_the_api_takes_and_returns_the_billed_token_type(as_user, lead, catalog):
    client = as_user(lead)
    default = client.post(LIST, _body(), format="json").json()
    assert default["billed_token_type"] == "output"
    chosen = client.post(LIST, _body(billed_token_type="input"), format="json")
    assert chosen.status_code == 201, chosen.json()
    assert chosen.json()["billed_token_type"] == "input"
    revised = client.post(
        _revise(WorkloadBrief.objects.get(pk=default["id"])),
        {"billed_token_type": "total"},
        format="json",
    )
    assert revised.json()["billed_token_type"] == "total"
    bad = client.post(LIST, _body(title="Bad", billed_token_type="cached"), format="json")
    assert bad.status_code == 400
    assert "valid choice" in bad.json()["fields"]["billed_token_type"][0]
    assert not WorkloadBrief.objects.filter(title="Bad").exists()
