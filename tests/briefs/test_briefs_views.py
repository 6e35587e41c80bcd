"""Brief pages and the calculator page: roles, forms, selection paused, fit table, queries."""

from __future__ import annotations

import pytest
from django.forms.models import model_to_dict

from briefs.models import WorkloadBrief
from catalog.models import Accelerator
from core.models import AuditEvent
from tests.briefs.factories_briefs import RANGES, brief_factory_kwargs
from tests.factories import AcceleratorFactory, WorkloadBriefFactory

pytestmark = pytest.mark.django_db
STAFF = ["lead", "engineer", "finance", "security", "admin_member"]
VENDORS = ["vendor_a", "vendor_b"]


def _form(**extra) -> dict:
    data = {
        "title": "Support chat",
        "workload_class": "realtime_inference",
        "description": "",
        "weight_precision": "bf16",
        "kv_precision": "bf16",
        "context_window_tokens": "8192",
        "p95_input_tokens": "3000",
        "p95_output_tokens": "500",
        "streaming": "on",
        "concurrency": "32",
        "ttft_p95_ms": "800",
        "itl_p95_ms": "60",
        "e2e_p99_ms": "20000",
        "peak_to_average": "2",
        "optimizer": "adamw",
        "sharding": "zero3",
        "allowed_regions": "eu-west, eu-central",
        "operating_model": "self_managed",
        "platform_fte": "0.5",
        "loaded_monthly_cost_per_fte": "18000",
        "horizon_months": "12",
        **{k: str(v) for k, v in RANGES.items()},
    }
    data.update(extra)
    return data


def _pages(brief) -> dict[str, str]:
    return {
        "list": "/briefs/",
        "detail": f"/briefs/{brief.pk}/",
        "create": "/briefs/new/",
        "revise": f"/briefs/{brief.pk}/revise/",
    }


# --- role matrix -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("who", "expected"),
    [
        ("lead", {"list": 200, "detail": 200, "create": 200, "revise": 200}),
        ("admin_member", {"list": 200, "detail": 200, "create": 200, "revise": 200}),
        ("engineer", {"list": 200, "detail": 200, "create": 403, "revise": 403}),
        ("finance", {"list": 200, "detail": 200, "create": 403, "revise": 403}),
        ("security", {"list": 200, "detail": 200, "create": 403, "revise": 403}),
        ("vendor_a", {"list": 404, "detail": 404, "create": 404, "revise": 404}),
        ("vendor_b", {"list": 404, "detail": 404, "create": 404, "revise": 404}),
    ],
)
def test_brief_pages_role_matrix(login, request, brief, who, expected):
    client = login(request.getfixturevalue(who))
    for page, url in _pages(brief).items():
        assert client.get(url).status_code == expected[page], (who, page)


@pytest.mark.parametrize("who", [*VENDORS, "engineer"])
def test_posts_by_non_writers_change_nothing(login, request, brief, who):
    client = login(request.getfixturevalue(who))
    client.post("/briefs/new/", _form())
    client.post(f"/briefs/{brief.pk}/revise/", _form(concurrency="64"))
    assert WorkloadBrief.objects.count() == 1


def test_anonymous_is_sent_to_login(client, brief):
    for url in [*_pages(brief).values(), "/briefs/memory-fit/"]:
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/")


@pytest.mark.parametrize("who", [*STAFF, *VENDORS])
def test_calculator_page_is_open_to_everyone_logged_in(login, request, catalog, who):
    assert login(request.getfixturevalue(who)).get("/briefs/memory-fit/").status_code == 200


def test_missing_brief_is_404(login, lead, catalog):
    assert login(lead).get("/briefs/999999/").status_code == 404
    assert login(lead).get("/briefs/999999/revise/").status_code == 404


# --- create and revise through the form --------------------------------------------------


def test_create_form_saves_and_redirects(login, lead, catalog):
    from catalog.models import ModelProfile

    model = ModelProfile.objects.get(slug="llama-3-1-70b")
    response = login(lead).post("/briefs/new/", _form(model=str(model.pk)))
    brief = WorkloadBrief.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/briefs/{brief.pk}/"
    assert brief.allowed_regions == ["eu-west", "eu-central"]
    assert brief.is_complete
    assert AuditEvent.objects.filter(action="brief.created").count() == 1


def test_create_form_shows_fieldsets_keyed_on_the_class(login, lead, catalog):
    html = login(lead).get("/briefs/new/").content.decode()
    assert 'data-brief-class="1"' in html
    assert 'data-classes="adapter_finetune full_finetune training"' in html
    assert "Applies to:" in html  # visible without JavaScript
    assert "/static/js/briefs.js" in html
    assert "<script>" not in html  # no inline code (strict CSP)


def test_bad_ranges_show_clear_messages_and_save_nothing(login, lead, catalog):
    response = login(lead).post(
        "/briefs/new/",
        _form(acceptance_rate_low="0.99", utilisation_likely="75", p95_input_tokens="9000"),
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "Acceptance rate: low (0.99) must not exceed likely (0.9)." in html
    assert "fraction between 0 and 1" in html
    assert "must hold the p95 input plus output" in html
    assert not WorkloadBrief.objects.exists()
    assert not AuditEvent.objects.filter(action__startswith="brief.").exists()


def test_revise_form_is_prefilled_and_keeps_the_old_version(login, lead, brief):
    client = login(lead)
    page = client.get(f"/briefs/{brief.pk}/revise/").content.decode()
    assert 'value="Support chat assistant' in page
    assert "eu-west, eu-central" in page
    before = model_to_dict(brief)
    data = _form(title=brief.title, model=str(brief.model_id), concurrency="48")
    response = client.post(f"/briefs/{brief.pk}/revise/", data)
    new = WorkloadBrief.objects.get(supersedes=brief)
    assert response["Location"] == f"/briefs/{new.pk}/"
    assert (new.version, new.concurrency) == (2, 48)
    brief.refresh_from_db()
    assert model_to_dict(brief) == before


def test_revising_an_old_version_redirects_to_the_latest(login, lead, brief):
    client = login(lead)
    client.post(f"/briefs/{brief.pk}/revise/", _form(model=str(brief.model_id)))
    new = WorkloadBrief.objects.get(supersedes=brief)
    response = client.get(f"/briefs/{brief.pk}/revise/")
    assert response.status_code == 302
    assert response["Location"] == f"/briefs/{new.pk}/revise/"


# --- list and detail -----------------------------------------------------------------------


def test_list_marks_incomplete_briefs_selection_paused(login, lead, brief, incomplete_brief):
    html = login(lead).get("/briefs/").content.decode()
    assert html.count("Selection paused") == 1
    assert "Complete" in html
    assert "Draft contract search" in html
    assert "Retrieval pipeline" in html
    assert "v1" in html


def test_incomplete_detail_shows_selection_paused_and_missing_fields(login, lead, incomplete_brief):
    html = login(lead).get(f"/briefs/{incomplete_brief.pk}/").content.decode()
    assert "Selection paused" in html
    assert "cannot be used in a comparison" in html
    assert "Concurrent sequences at peak" in html
    assert "End-to-end latency p99 (ms)" in html
    assert "Acceptance rate (low / likely / high)" in html


def test_detail_shows_every_accelerator_sorted_with_charts(login, lead, brief):
    html = login(lead).get(f"/briefs/{brief.pk}/").content.decode()
    assert html.count('<tr class="') == Accelerator.objects.count()
    # 3,500 tokens × 32 sequences of Llama 3.1 70B: one B300 (288 GB) holds it, an H100 needs 4
    assert html.index("B300") < html.index("H100 SXM")
    assert 'data-plotly="fig-brief-breakdown"' in html
    assert 'id="fig-brief-breakdown" type="application/json"' in html
    assert 'data-plotly="fig-brief-curve"' in html
    assert "overhead_gb_per_gpu" in html
    assert "safety_margin" in html
    assert "docs/engine/memory-fit.md" in html


def test_detail_of_a_brief_without_model_explains_why_no_fit(login, lead, catalog):
    media = WorkloadBriefFactory(created_by=lead, **brief_factory_kwargs("media"))
    html = login(lead).get(f"/briefs/{media.pk}/").content.decode()
    assert "No model on this brief" in html
    assert "Media generation" in html


def test_detail_lists_versions_and_links_newer(login, lead, brief):
    client = login(lead)
    client.post(f"/briefs/{brief.pk}/revise/", _form(model=str(brief.model_id)))
    html = client.get(f"/briefs/{brief.pk}/").content.decode()
    assert "This is an old version" in html
    assert "v2" in html
    assert "Revise (creates" not in html


def test_engineer_sees_no_revise_button(login, engineer, brief):
    assert "Revise (creates" not in login(engineer).get(f"/briefs/{brief.pk}/").content.decode()


def test_list_query_count_is_flat(login, lead, catalog, django_assert_max_num_queries):
    client = login(lead)
    WorkloadBriefFactory(created_by=lead)
    with django_assert_max_num_queries(6):
        client.get("/briefs/")
    for _ in range(15):
        WorkloadBriefFactory(created_by=lead)
    with django_assert_max_num_queries(6):
        assert client.get("/briefs/").status_code == 200


def test_detail_query_count_does_not_grow_with_accelerators(
    login, lead, brief, django_assert_num_queries
):
    client = login(lead)
    client.get(f"/briefs/{brief.pk}/")  # warm the session
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as first:
        client.get(f"/briefs/{brief.pk}/")
    for n in range(10):
        AcceleratorFactory(slug=f"extra-{n}", name=f"Extra {n}", memory_gb=24 + n)
    with django_assert_num_queries(len(first.captured_queries)):
        assert client.get(f"/briefs/{brief.pk}/").status_code == 200
    assert len(first.captured_queries) <= 8


# --- calculator page -------------------------------------------------------------------------

CALC = {
    "model": "llama-3-1-70b",
    "mode": "inference",
    "weight_precision": "bf16",
    "kv_precision": "bf16",
    "context_tokens": "8192",
    "concurrent_sequences": "32",
    "accelerator": "h100-sxm-80gb",
    "overhead_gb": "2",
    "safety_margin": "0.1",
}


def test_calculator_post_shows_results_and_assumptions(login, vendor_a, catalog):
    response = login(vendor_a).post("/briefs/memory-fit/", CALC)
    html = response.content.decode()
    assert response.status_code == 200
    assert "327680" in html  # KV bytes per token
    assert "141.20 GB" in html
    assert "fits" in html
    assert "overhead_gb_per_gpu" in html
    assert "weight_bytes_per_param" in html


def test_calculator_accepts_a_prefilled_get(login, lead, catalog):
    html = login(lead).get("/briefs/memory-fit/", CALC).content.decode()
    assert "327680" in html


@pytest.mark.parametrize(
    ("change", "text"),
    [
        ({"accelerator": "nope"}, "Select a valid choice"),
        ({"context_tokens": "-1"}, "greater than or equal to 1"),
        ({"model": "", "params_b": "7"}, "Required for a custom model"),
        ({"overhead_gb": "80"}, "leave no usable memory"),
    ],
)
def test_calculator_bad_input_is_explained(login, lead, catalog, change, text):
    response = login(lead).post("/briefs/memory-fit/", {**CALC, **change})
    assert response.status_code == 400
    assert text in response.content.decode()


@pytest.mark.parametrize("workload_class", ["training", "full_finetune", "adapter_finetune"])
def test_training_brief_detail_sizes_the_training_state(login, lead, catalog, workload_class):
    from catalog.models import ModelProfile

    brief = WorkloadBriefFactory(
        created_by=lead,
        model=ModelProfile.objects.get(slug="llama-3-1-8b"),
        **brief_factory_kwargs(workload_class),
    )
    assert brief.is_complete
    html = login(lead).get(f"/briefs/{brief.pk}/").content.decode()
    assert "Max micro-batch" in html
    assert "sequence length 4,096 tokens" in html
    assert 'data-plotly="fig-brief-curve"' in html
    assert "bytes_per_trained_param" in html


def test_issue17_the_form_asks_which_tokens_unit_costs_count(login, lead, catalog):
    client = login(lead)
    assert 'name="billed_token_type"' in client.get("/briefs/new/").content.decode()
    client.post("/briefs/new/", _form(billed_token_type="total"))
    client.post("/briefs/new/", _form(title="Older form"))  # not sent: output, the default
    assert dict(WorkloadBrief.objects.values_list("title", "billed_token_type")) == {
        "Support chat": "total",
        "Older form": "output",
    }
    response = client.post("/briefs/new/", _form(title="Bad", billed_token_type="cached"))
    assert response.status_code == 400
    assert "Select a valid choice" in response.content.decode()
    assert not WorkloadBrief.objects.filter(title="Bad").exists()


def test_u35_each_brief_chart_has_its_data_table(login, lead, brief):
    """U35: the text alternative of both charts, folded under each."""
    html = login(lead).get(f"/briefs/{brief.pk}/").content.decode()
    assert html.count('<details class="chart-table">') == 2
    assert "<caption>Memory per GPU at the brief" in html
    assert '<th scope="col">Accelerator × GPUs required</th>' in html
    assert "B300" in html[html.index('<details class="chart-table">') :]
