"""/api/v1/comparisons/: create 202, validation 400s with nothing saved, list, detail with
every figure, retry, recompute; the role matrix (vendors 404 everywhere); query counts."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from kombu.exceptions import OperationalError

from procurement.models import Comparison
from procurement.services.comparisons import QUEUE_UNAVAILABLE_MESSAGE, comparison_create
from tests.comparisons.factories_comparisons import many_quotes, ready_comparison
from tests.factories import WorkloadBriefFactory

URL = "/api/v1/comparisons/"
STAFF = ["lead", "lead_other", "engineer", "finance", "security", "admin_member"]


@pytest.fixture
def sent(monkeypatch):
    out = []
    monkeypatch.setattr("core.jobs.send", lambda name, args, **kw: out.append(args))
    return out


@pytest.fixture
def failed(scenario, lead, sent):
    comparison = comparison_create(acting_user=lead, brief=scenario["brief"]).comparison
    Comparison.objects.filter(pk=comparison.pk).update(
        status=Comparison.Status.FAILED, error="boom", finished_at=timezone.now()
    )
    return comparison


def _as(api_client, user):
    if user is not None:
        api_client.force_authenticate(user)
    return api_client


def test_create_answers_202_and_queues_on_commit(
    api_client, lead, scenario, sent, django_capture_on_commit_callbacks
):
    body = {
        "brief": scenario["brief"].pk,
        "quotes": [scenario["cheap"].pk, scenario["fast"].pk],
        "assumptions": {"headroom_margin_pct": 15},
        "seed": 99,
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = _as(api_client, lead).post(URL, body, format="json")
    assert response.status_code == 202, response.json()
    data = response.json()
    comparison = Comparison.objects.get()
    assert data["id"] == comparison.pk
    assert data["status"] == "queued"
    assert data["queue"] == "sent"
    assert data["url"].endswith(f"/api/v1/comparisons/{comparison.pk}/")
    assert sent == [(comparison.pk,)]
    assert comparison.seed == 99
    assert comparison.assumptions == {"headroom_margin_pct": 15.0}


@pytest.mark.django_db(transaction=True)
def test_create_with_the_broker_down_still_answers_202_and_says_so(
    api_client, lead, scenario, monkeypatch
):
    """Real commits: the on-commit publish fails inside the request, which still succeeds."""

    def down(*args, **kwargs):
        raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr("core.jobs.send", down)
    response = _as(api_client, lead).post(URL, {"brief": scenario["brief"].pk}, format="json")
    assert response.status_code == 202
    assert response.json()["queue"] == "unavailable"
    assert response.json()["detail"] == QUEUE_UNAVAILABLE_MESSAGE
    assert Comparison.objects.get().status == "queued"


@pytest.mark.parametrize(
    ("case", "body", "field", "text"),
    [
        ("no brief", {}, "brief", "required"),
        ("unknown brief", {"brief": 999999}, "brief", "Unknown brief id 999999"),
        ("no candidates", {"quotes": [], "api_routes": []}, "quotes", "nothing to compare"),
        ("unknown quotes", {"quotes": [999998, 999999]}, "quotes", "999998, 999999"),
        ("unknown route", {"api_routes": [777777]}, "api_routes", "777777"),
        ("float seed", {"seed": 1.5}, "seed", "integer"),
        ("bad assumption", {"assumptions": {"pue": 9}}, "pue", "between 1 and 3"),
    ],
)
def test_bad_input_is_a_clear_400_and_nothing_is_saved_or_queued(
    api_client, lead, scenario, sent, django_capture_on_commit_callbacks, case, body, field, text
):
    if "brief" not in body and case != "no brief":
        body = {"brief": scenario["brief"].pk, **body}
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = _as(api_client, lead).post(URL, body, format="json")
    assert response.status_code == 400, response.json()
    data = response.json()
    assert field in data["fields"], data
    assert text in data["detail"] + " ".join(data["fields"][field]), data
    assert callbacks == []
    assert sent == []
    assert not Comparison.objects.exists()


def test_incomplete_brief_is_a_400_with_its_missing_fields(api_client, lead, scenario, sent):
    brief = WorkloadBriefFactory(created_by=lead, p95_input_tokens=None)
    response = _as(api_client, lead).post(URL, {"brief": brief.pk}, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "brief_incomplete"
    assert "p95_input_tokens" in response.json()["detail"]
    assert not Comparison.objects.exists()


def test_detail_has_every_figure_both_ranks_and_the_warning(
    api_client, finance, computed, scenario
):
    response = _as(api_client, finance).get(f"{URL}{computed.pk}/")
    assert response.status_code == 200
    data = response.json()
    assert data["status"] == "ready"
    assert data["unit_label"] == "per 1M accepted output tokens"
    assert data["recommendation"]["key"] == f"quote:{scenario['fast'].pk}"
    assert data["tornado"]["entries"]
    assert "hybrid" in data
    assert "breakeven" in data
    rows = {c["key"]: c for c in data["candidates"]}
    cheap = rows[f"quote:{scenario['cheap'].pk}"]
    assert cheap["rank"] == 2
    assert cheap["rank_hourly"] == 1
    assert cheap["recommended"] is False
    assert "CHEAPEST_HOURLY_NOT_CHEAPEST_OUTPUT" in {w["code"] for w in cheap["warnings"]}
    fast = rows[f"quote:{scenario['fast'].pk}"]
    assert fast["recommended"] is True
    assert fast["quote"] == scenario["fast"].pk
    assert fast["quote_version"] == 1
    for key in (
        "cost_lines",
        "unit_cost_usd",
        "accepted_outputs",
        "p10",
        "p50",
        "p90",
        "prob_cheapest",
        "reasons",
        "fit",
        "performance",
        "checklist",
        "unit_label",
    ):
        assert key in fast
    assert isinstance(fast["unit_cost_usd"], str)  # Decimal as a string, never a float
    assert fast["cost_lines"]["platform_labor"] == "9000.00"


def test_list_is_paginated_and_filtered(api_client, engineer, computed, failed):
    client = _as(api_client, engineer)
    data = client.get(URL, {"limit": 1}).json()
    assert data["count"] == 2
    assert len(data["results"]) == 1
    assert data["next"]
    only = client.get(URL, {"status": "failed"}).json()
    assert [c["id"] for c in only["results"]] == [failed.pk]
    ready = client.get(URL, {"brief": computed.brief_id, "status": "ready"}).json()["results"]
    assert ready[0]["candidate_count"] == 2
    assert ready[0]["recommended_label"]
    assert client.get(URL, {"brief": "x"}).status_code == 400


def test_retry_requeues_a_failed_comparison_and_refuses_others(
    api_client, lead, failed, computed, sent, django_capture_on_commit_callbacks
):
    client = _as(api_client, lead)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"{URL}{failed.pk}/retry/")
    assert response.status_code == 202
    assert response.json()["status"] == "queued"
    assert sent[-1] == (failed.pk,)
    conflict = client.post(f"{URL}{computed.pk}/retry/")
    assert conflict.status_code == 409
    assert conflict.json()["code"] == "conflict"


def test_recompute_answers_202_with_the_new_revision(api_client, lead, computed, sent):
    response = _as(api_client, lead).post(f"{URL}{computed.pk}/recompute/")
    assert response.status_code == 202
    revision = Comparison.objects.get(pk=response.json()["id"])
    assert revision.supersedes_id == computed.pk
    assert response.json()["revision"] == 2


def test_no_put_patch_or_delete(api_client, admin_member, computed):
    client = _as(api_client, admin_member)
    for method in ("put", "patch", "delete"):
        assert getattr(client, method)(f"{URL}{computed.pk}/").status_code == 405


# --- role matrix ------------------------------------------------------------------------------


@pytest.mark.parametrize("who", [*STAFF, "vendor_a", "vendor_b", "anonymous"])
def test_read_role_matrix(api_client, request, who, computed):
    client = _as(api_client, request.getfixturevalue(who))
    vendor = who.startswith("vendor")
    for path in (URL, f"{URL}{computed.pk}/"):
        status = client.get(path).status_code
        if who == "anonymous":
            assert status in (401, 403)
        else:
            assert status == (404 if vendor else 200), (who, path)


@pytest.mark.parametrize(
    ("who", "expected"),
    [
        ("lead", 202),
        ("admin_member", 202),
        ("engineer", 403),
        ("finance", 403),
        ("security", 403),
        ("vendor_a", 404),
        ("vendor_b", 404),
    ],
)
def test_write_role_matrix(api_client, request, who, expected, scenario, failed, sent):
    client = _as(api_client, request.getfixturevalue(who))
    assert client.post(URL, {"brief": scenario["brief"].pk}, format="json").status_code == expected
    assert client.post(f"{URL}{failed.pk}/retry/").status_code == expected
    assert client.post(f"{URL}{failed.pk}/recompute/").status_code == (
        expected if expected != 202 else 409  # the retry re-queued it: not finished
    )


def test_missing_comparison_is_404(api_client, lead):
    assert _as(api_client, lead).get(f"{URL}999999/").status_code == 404


def test_detail_queries_do_not_grow_with_candidates(api_client, lead, brief, checklist_items):
    quotes = many_quotes(50, lead)
    small = ready_comparison(lead, brief, quotes[:5])
    large = ready_comparison(lead, brief, quotes)
    client = _as(api_client, lead)
    counts = []
    for comparison in (small, large):
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(f"{URL}{comparison.pk}/").status_code == 200
        counts.append(len(ctx.captured_queries))
    assert counts[0] == counts[1]
    assert counts[1] <= 4
