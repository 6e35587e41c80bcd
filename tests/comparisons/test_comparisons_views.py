"""Comparison pages: list, new, detail with live status, retry, recompute; roles; queries."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone

from procurement.models import Comparison
from procurement.services.comparisons import comparison_create
from tests.comparisons.factories_comparisons import frozen, many_quotes, ready_comparison
from tests.factories import WorkloadBriefFactory

STAFF = ["lead", "lead_other", "engineer", "finance", "security", "admin_member"]
CREATORS = ["lead", "admin_member"]
NOT_CREATORS = ["engineer", "finance", "security", "vendor_a", "vendor_b"]


@pytest.fixture
def no_broker(monkeypatch):
    sent = []
    monkeypatch.setattr("core.jobs.send", lambda name, args, **kw: sent.append(args))
    return sent


@pytest.fixture
def failed(scenario, lead, no_broker):
    comparison = comparison_create(acting_user=lead, brief=scenario["brief"]).comparison
    Comparison.objects.filter(pk=comparison.pk).update(
        status=Comparison.Status.FAILED,
        error="Unexpected error while computing (X): boom",
        finished_at=timezone.now(),
    )
    comparison.refresh_from_db()
    return comparison


def _no_inline_script(html: str) -> None:
    for tag in re.findall(r"<script\b[^>]*>", html):
        assert "src=" in tag or 'type="application/json"' in tag, tag
    assert not re.search(r"\son[a-z]+=", html)


def test_results_page_shows_both_ranks_the_warning_and_the_charts(login, lead, computed, scenario):
    html = login(lead).get(f"/comparisons/{computed.pk}/").content.decode()
    _no_inline_script(html)
    rows = {
        m.group(1): m.group(0)
        for m in re.finditer(
            r'<tr id="row-\d+" data-key="([^"]+)".*?(?=<tr id="row-|</tbody>)', html, re.S
        )
    }
    cheap = rows[f"quote:{scenario['cheap'].pk}"]
    fast = rows[f"quote:{scenario['fast'].pk}"]
    assert 'class="recommended' in fast
    assert re.search(r'data-col="rank">1<', fast)
    assert re.search(r'data-col="rank-hourly">2<', fast)
    assert re.search(r'data-col="rank">2<', cheap)
    assert re.search(r'data-col="rank-hourly">1<', cheap)
    assert "CHEAPEST_HOURLY_NOT_CHEAPEST_OUTPUT" in cheap
    for fig in ("fig-cost", "fig-range", "fig-tornado"):
        assert f'id="{fig}"' in html
        assert f'data-plotly="{fig}"' in html
    assert "per 1M accepted output tokens" in html
    assert "hx-trigger" not in html  # finished: no polling


def test_queued_page_polls_and_the_partial_stops_with_286_when_done(
    login, lead, scenario, no_broker
):
    comparison = comparison_create(acting_user=lead, brief=scenario["brief"]).comparison
    client = login(lead)
    html = client.get(f"/comparisons/{comparison.pk}/").content.decode()
    assert 'hx-trigger="every 1s"' in html
    assert "<progress" in html
    partial = client.get(f"/comparisons/{comparison.pk}/?partial=status", HTTP_HX_REQUEST="true")
    assert partial.status_code == 200
    assert partial.content.decode().lstrip().startswith('<div id="status"')
    Comparison.objects.filter(pk=comparison.pk).update(
        status=Comparison.Status.RUNNING, progress=0.42
    )
    running = client.get(f"/comparisons/{comparison.pk}/?partial=status", HTTP_HX_REQUEST="true")
    assert "42%" in running.content.decode()
    from procurement.services.comparisons import comparison_run

    Comparison.objects.filter(pk=comparison.pk).update(status=Comparison.Status.QUEUED)
    comparison_run(comparison_id=comparison.pk)
    done = client.get(f"/comparisons/{comparison.pk}/?partial=status", HTTP_HX_REQUEST="true")
    assert done.status_code == 286
    assert done["HX-Refresh"] == "true"


def test_failed_comparison_shows_the_error_and_a_retry_button_to_leads(
    login, lead, finance, failed
):
    html = login(lead).get(f"/comparisons/{failed.pk}/").content.decode()
    assert "boom" in html
    assert f"/comparisons/{failed.pk}/retry/" in html
    assert (
        f"/comparisons/{failed.pk}/retry/"
        not in login(finance).get(f"/comparisons/{failed.pk}/").content.decode()
    )


def test_retry_button_requeues(login, lead, failed, no_broker, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = login(lead).post(f"/comparisons/{failed.pk}/retry/")
    assert response.status_code == 302
    failed.refresh_from_db()
    assert failed.status == Comparison.Status.QUEUED
    assert no_broker[-1] == (failed.pk,)


def test_retry_of_a_ready_comparison_is_refused_with_a_message(login, lead, computed):
    response = login(lead).post(f"/comparisons/{computed.pk}/retry/", follow=True)
    assert "Only a failed comparison can be retried" in response.content.decode()
    computed.refresh_from_db()
    assert computed.status == Comparison.Status.READY


def test_recompute_button_creates_the_next_revision(login, lead, computed, no_broker):
    response = login(lead).post(f"/comparisons/{computed.pk}/recompute/")
    revision = Comparison.objects.get(supersedes=computed)
    assert response.status_code == 302
    assert response["Location"] == f"/comparisons/{revision.pk}/"
    assert revision.revision == 2


def test_new_comparison_flow_preselects_every_candidate_and_queues(
    login, lead, scenario, no_broker, django_capture_on_commit_callbacks
):
    client = login(lead)
    chooser = client.get("/comparisons/new/").content.decode()
    assert scenario["brief"].title in chooser
    page = client.get(f"/comparisons/new/?brief={scenario['brief'].pk}").content.decode()
    _no_inline_script(page)
    for quote in (scenario["cheap"], scenario["fast"]):
        assert f'name="quotes" value="{quote.pk}" checked' in page
    assert "Cheap GPUs" in page
    assert "Fast GPUs" in page
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/comparisons/new/",
            {
                "brief": scenario["brief"].pk,
                "quotes": [scenario["fast"].pk],
                "seed": "42",
                "utilisation_low": "0.4",
                "utilisation_likely": "0.6",
                "utilisation_high": "0.8",
            },
        )
    comparison = Comparison.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/comparisons/{comparison.pk}/"
    assert comparison.seed == 42
    assert comparison.assumptions == {"utilisation": {"low": 0.4, "likely": 0.6, "high": 0.8}}
    assert [q["id"] for q in frozen(comparison).snapshot["quotes"]] == [scenario["fast"].pk]
    assert no_broker == [(comparison.pk,)]


def test_all_candidates_checked_means_the_default_selection(login, lead, scenario, no_broker):
    login(lead).post(
        "/comparisons/new/",
        {
            "brief": scenario["brief"].pk,
            "quotes": [scenario["cheap"].pk, scenario["fast"].pk],
        },
    )
    assert frozen(Comparison.objects.get()).snapshot["selection"]["default"] is True


@pytest.mark.parametrize(
    ("case", "extra", "message"),
    [
        ("nothing chosen", {}, "nothing to compare"),
        ("partial range", {"utilisation_low": "0.4"}, "Give low, likely and high together"),
        (
            "range out of order",
            {
                "quotes": "FAST",
                "failure_rate_low": "0.2",
                "failure_rate_likely": "0.1",
                "failure_rate_high": "0.3",
            },
            "low ≤ likely ≤ high",
        ),
        ("bad seed", {"quotes": "FAST", "seed": "-4"}, "greater than or equal to 0"),
    ],
)
def test_new_comparison_errors_are_shown_and_nothing_is_saved(
    login, lead, scenario, no_broker, case, extra, message
):
    data = {"brief": scenario["brief"].pk, **extra}
    if data.get("quotes") == "FAST":
        data["quotes"] = [scenario["fast"].pk]
    response = login(lead).post("/comparisons/new/", data)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Comparison.objects.exists()
    assert no_broker == []


def test_incomplete_brief_cannot_be_compared_from_the_page(login, lead, scenario, no_broker):
    brief = WorkloadBriefFactory(created_by=lead, concurrency=None)
    client = login(lead)
    assert brief.title not in client.get("/comparisons/new/").content.decode()
    response = client.post(
        "/comparisons/new/", {"brief": brief.pk, "quotes": [scenario["fast"].pk]}
    )
    assert response.status_code == 400
    assert "The brief is incomplete" in response.content.decode()
    assert not Comparison.objects.exists()


def test_list_filters_by_status_and_brief(login, lead, computed, failed):
    client = login(lead)
    html = client.get("/comparisons/").content.decode()
    assert computed.title in html
    assert failed.title in html
    only_failed = client.get("/comparisons/?status=failed").content.decode()
    assert f"/comparisons/{failed.pk}/" in only_failed
    assert f"/comparisons/{computed.pk}/" not in only_failed
    other = WorkloadBriefFactory(created_by=lead)
    assert (
        f"/comparisons/{computed.pk}/"
        not in client.get(f"/comparisons/?brief={other.pk}").content.decode()
    )


# --- role matrix ------------------------------------------------------------------------------


@pytest.mark.parametrize("who", [*STAFF, "vendor_a", "vendor_b", "anonymous"])
def test_read_pages_role_matrix(login, request, who, computed):
    client = login(request.getfixturevalue(who))
    for path in (
        "/comparisons/",
        f"/comparisons/{computed.pk}/",
        f"/comparisons/{computed.pk}/?partial=status",
    ):
        status = client.get(path, HTTP_HX_REQUEST="true" if "partial" in path else None).status_code
        expected = {"anonymous": 302, "vendor_a": 404, "vendor_b": 404}.get(who, 200)
        if who in STAFF and "partial" in path:
            expected = 286
        assert status == expected, (who, path, status)


@pytest.mark.parametrize("who", [*CREATORS, *NOT_CREATORS, "anonymous"])
def test_write_pages_role_matrix(login, request, who, scenario, failed, no_broker):
    client = login(request.getfixturevalue(who))
    expected_get = {"anonymous": 302}.get(who, 200 if who in CREATORS else 404)
    assert client.get("/comparisons/new/").status_code == expected_get
    expected_post = {"anonymous": 302}.get(who, 302 if who in CREATORS else 404)
    assert client.post(f"/comparisons/{failed.pk}/retry/").status_code == expected_post
    failed.refresh_from_db()
    assert failed.status == ("queued" if who in CREATORS else "failed")


def test_missing_comparison_is_404(login, lead):
    assert login(lead).get("/comparisons/999999/").status_code == 404


# --- query counts -----------------------------------------------------------------------------


def _queries(client, path, django_assert_max_num_queries):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as ctx:
        assert client.get(path).status_code == 200
    return len(ctx.captured_queries)


def test_detail_page_queries_do_not_grow_with_candidates(
    login, lead, brief, checklist_items, django_assert_max_num_queries
):
    quotes = many_quotes(50, lead)
    small = ready_comparison(lead, brief, quotes[:5])
    large = ready_comparison(lead, brief, quotes)
    assert large.candidates.count() == 50
    client = login(lead)
    n_small = _queries(client, f"/comparisons/{small.pk}/", django_assert_max_num_queries)
    n_large = _queries(client, f"/comparisons/{large.pk}/", django_assert_max_num_queries)
    assert n_small == n_large
    with django_assert_max_num_queries(8):
        client.get(f"/comparisons/{large.pk}/")


def test_list_page_queries_do_not_grow_with_comparisons(
    login, lead, brief, checklist_items, django_assert_max_num_queries
):
    quotes = many_quotes(3, lead)
    client = login(lead)
    for _ in range(3):
        ready_comparison(lead, brief, quotes)
    few = _queries(client, "/comparisons/", django_assert_max_num_queries)
    for _ in range(20):
        comparison_create(acting_user=lead, brief=brief, quote_ids=[quotes[0].pk], enqueue=False)
    many = _queries(client, "/comparisons/", django_assert_max_num_queries)
    assert few == many
    with django_assert_max_num_queries(6):
        client.get("/comparisons/")


def test_new_page_queries_do_not_grow_with_quotes(
    login, lead, brief, checklist_items, django_assert_max_num_queries
):
    client = login(lead)
    many_quotes(5, lead)
    few = _queries(client, f"/comparisons/new/?brief={brief.pk}", django_assert_max_num_queries)
    many_quotes(40, lead, providers=3)
    many = _queries(client, f"/comparisons/new/?brief={brief.pk}", django_assert_max_num_queries)
    assert few == many


@pytest.mark.django_db(transaction=True)
def test_broker_down_at_request_time_the_page_says_it_was_saved(login, lead, scenario, monkeypatch):
    from kombu.exceptions import OperationalError

    def down(*args, **kwargs):
        raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr("core.jobs.send", down)
    response = login(lead).post(
        "/comparisons/new/",
        {"brief": scenario["brief"].pk, "quotes": [scenario["fast"].pk]},
        follow=True,
    )
    assert response.status_code == 200
    assert "Saved; the worker queue is unavailable" in response.content.decode()
    assert Comparison.objects.get().status == Comparison.Status.QUEUED


def test_results_table_has_exactly_one_body_row_per_candidate(login, lead, computed):
    html = login(lead).get(f"/comparisons/{computed.pk}/").content.decode()
    table = html[html.index('id="results"') : html.index("</table>", html.index('id="results"'))]
    assert table.count("<table") == 0  # no nested tables: one <tr> per candidate
    assert table.count('<tr id="row-') == 2


def test_u35_each_comparison_chart_has_its_data_table(login, lead, computed, scenario):
    """U35: every chart on the results page has the table behind it, candidates named."""
    html = login(lead).get(f"/comparisons/{computed.pk}/").content.decode()
    charts = html.count('class="chart" data-plotly=')
    assert charts >= 3
    assert html.count('<details class="chart-table">') == charts
    tables = html[html.index('<details class="chart-table">') :]
    assert scenario["fast"].provider.name in tables
    assert '<th scope="row">' in tables
