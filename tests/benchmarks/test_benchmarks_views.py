"""HTML pages: list, detail with htmx progress polling, download, compare, plans."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from benchmarks.distributions import histogram
from benchmarks.models import BenchmarkPlan, BenchmarkPlanStep, BenchmarkResult
from benchmarks.services import benchmark_plan_create
from core.models import AuditEvent
from tests.benchmarks.factories_benchmarks import BenchmarkResultFactory, metrics_dict
from tests.factories import ModelProfileFactory, QuoteFactory

pytestmark = pytest.mark.django_db


def _results(n, **kwargs):
    return BenchmarkResultFactory.create_batch(n, **kwargs)


@pytest.mark.parametrize("rows", [5, 30])
def test_result_list_query_count_does_not_grow(
    rows, login, finance, quote_a, brief, django_assert_max_num_queries
):
    _results(rows, quote=quote_a, accelerator=quote_a.accelerator, brief=brief)
    client = login(finance)
    with django_assert_max_num_queries(12):
        response = client.get("/benchmarks/")
    assert response.status_code == 200
    assert response.content.count(b"/benchmarks/results/") >= rows


def test_result_list_filters(login, engineer, quote_a, h200, brief):
    parsed = BenchmarkResultFactory(quote=quote_a, accelerator=quote_a.accelerator, brief=brief)
    failed = BenchmarkResultFactory(
        accelerator=h200, status=BenchmarkResult.Status.FAILED, format_id="guidellm"
    )
    client = login(engineer)

    def ids(query):
        page = client.get(f"/benchmarks/?{query}")
        return {r["result"].pk for r in page.context["rows"]}

    assert ids("") == {parsed.pk, failed.pk}
    assert ids("status=failed") == {failed.pk}
    assert ids("format=guidellm") == {failed.pk}
    assert ids(f"brief={brief.pk}") == {parsed.pk}
    assert ids(f"accelerator={h200.slug}") == {failed.pk}
    assert ids(f"quote={quote_a.pk}") == {parsed.pk}


def test_detail_shows_percentiles_discrepancies_and_charts(login, finance, h100, brief):
    gap = {"metric": "p99_ttft_ms", "file_value": 450.0, "recomputed_value": 300.0}
    result = BenchmarkResultFactory(
        accelerator=h100,
        brief=brief,
        gpu_count=4,
        discrepancies=[{**gap, "rel_diff": 0.5}],
        parse_notes=["percentiles recomputed from 1000 per-request records"],
        distributions={"ttft_ms": histogram([0.5, 0.7, 1.2, 1.5, 1.9, 2.0, 0.2])},
    )
    response = login(finance).get(result.get_absolute_url())
    body = response.content.decode()
    assert response.status_code == 200
    assert "Time to first token" in body
    assert "p99_ttft_ms" in body  # the discrepancy is shown, not hidden
    assert "50 %" in body
    assert "percentiles recomputed" in body
    assert 'data-plotly="fig-percentiles"' in body
    assert 'data-plotly="fig-ttft"' in body
    assert 'data-plotly="fig-e2e"' not in body
    assert "600.0" in body  # 2400 tok/s over 4 GPUs
    assert "plotly.min.js" in body
    assert "hx-trigger" not in body  # nothing to poll once parsed


def test_detail_query_count(login, engineer, quote_a, brief, django_assert_max_num_queries):
    result = BenchmarkResultFactory(quote=quote_a, accelerator=quote_a.accelerator, brief=brief)
    client = login(engineer)
    with django_assert_max_num_queries(8):
        assert client.get(result.get_absolute_url()).status_code == 200


@pytest.mark.parametrize("status", ["pending", "parsing"])
def test_status_partial_polls_while_parsing(status, login, engineer, h100):
    result = BenchmarkResultFactory(accelerator=h100, status=status, progress=0.42, metrics={})
    client = login(engineer)
    page = client.get(result.get_absolute_url())
    assert b'hx-trigger="every 1s"' in page.content
    assert b"plotly.min.js" not in page.content  # the progress page stays light
    partial = client.get(result.get_absolute_url(), HTTP_HX_REQUEST="true")
    assert partial.status_code == 200
    assert b'hx-trigger="every 1s"' in partial.content
    assert b'value="42"' in partial.content
    assert b"<html" not in partial.content


@pytest.mark.parametrize("status", ["parsed", "failed"])
def test_status_partial_stops_polling_when_done(status, login, engineer, h100):
    result = BenchmarkResultFactory(accelerator=h100, status=status, error="bad row 3")
    partial = login(engineer).get(result.get_absolute_url(), HTTP_HX_REQUEST="true")
    assert partial.status_code == 286
    assert partial["HX-Refresh"] == "true"
    assert b"hx-trigger" not in partial.content


def test_failed_result_shows_its_reason_and_keeps_the_file(login, engineer, h100):
    result = BenchmarkResultFactory(
        accelerator=h100, status="failed", error="row 7, column 'ttft_ms': 'abc' is not a number"
    )
    page = login(engineer).get(result.get_absolute_url())
    assert "row 7, column" in page.content.decode()
    assert b"Download raw file" in page.content


def test_download_is_an_attachment_after_the_access_check(login, security, h100):
    result = BenchmarkResultFactory(accelerator=h100, original_name='evil"name<script>.json')
    response = login(security).get(f"/benchmarks/results/{result.pk}/download/")
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment;")
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Content-Type"] == "application/octet-stream"
    assert b"".join(response.streaming_content) == b'{"demo": true}'


def test_compare_plots_brief_results_with_target(
    login, finance, brief, quote_a, quote_b, django_assert_max_num_queries
):
    BenchmarkResultFactory(quote=quote_a, accelerator=quote_a.accelerator, brief=brief, gpu_count=2)
    BenchmarkResultFactory(
        quote=quote_b,
        accelerator=quote_b.accelerator,
        brief=brief,
        metrics=metrics_dict(e2e=(1.0, 2.0, 30000.0)),
    )
    BenchmarkResultFactory(quote=quote_b, accelerator=quote_b.accelerator)  # no brief: not here
    BenchmarkResultFactory(
        quote=quote_b, accelerator=quote_b.accelerator, brief=brief, status="failed"
    )
    client = login(finance)
    with django_assert_max_num_queries(10):
        response = client.get(f"/benchmarks/compare/?brief={brief.pk}")
    assert response.status_code == 200
    rows = response.context["rows"]
    assert len(rows) == 2
    figure = response.context["figure"]
    assert sum(len(t["x"]) for t in figure["data"]) == 2
    assert figure["layout"]["shapes"][0]["x0"] == float(brief.e2e_p99_ms)
    checks = {r["result"].quote_id: [c["ok"] for c in r["checks"]] for r in rows}
    # p99 E2E, p95 TTFT and the brief's p95 inter-token target (60 ms; ITL p95 35 ms)
    assert checks[quote_a.pk] == [True, True, True]
    assert checks[quote_b.pk] == [False, True, True]
    assert b'data-plotly="fig-compare"' in response.content


def test_compare_without_brief_and_with_unknown_brief(login, finance):
    client = login(finance)
    assert client.get("/benchmarks/compare/").status_code == 200
    assert client.get("/benchmarks/compare/?brief=999999").status_code == 404
    assert client.get("/benchmarks/compare/?brief=abc").status_code == 404


# --- Plans ------------------------------------------------------------------------------------


def test_plan_create_from_the_page_once_per_candidate(login, engineer, quote_a, brief):
    client = login(engineer)
    page = client.get(f"/benchmarks/plans/new/?quote={quote_a.pk}&brief={brief.pk}")
    assert page.status_code == 200
    assert page.context["form"].initial == {"quote": str(quote_a.pk), "brief": str(brief.pk)}
    first = client.post("/benchmarks/plans/new/", {"quote": quote_a.pk, "brief": brief.pk})
    plan = BenchmarkPlan.objects.get()
    assert first["Location"] == plan.get_absolute_url()
    again = client.post("/benchmarks/plans/new/", {"quote": quote_a.pk, "brief": brief.pk})
    assert again["Location"] == plan.get_absolute_url()
    assert BenchmarkPlan.objects.count() == 1
    assert plan.steps.count() >= 14
    assert AuditEvent.objects.filter(action="benchmark_plan.created").count() == 1


def test_plan_create_bad_input_is_a_400(login, engineer, quote_a):
    response = login(engineer).post("/benchmarks/plans/new/", {"quote": quote_a.pk, "brief": 999})
    assert response.status_code == 400
    assert b"Select a valid choice" in response.content
    assert not BenchmarkPlan.objects.exists()


@pytest.fixture
def plan(engineer, quote_a, brief):
    return benchmark_plan_create(acting_user=engineer, quote=quote_a, brief=brief)[0]


def _step(plan, code):
    return plan.steps.get(code=code)


def test_manual_step_checked_with_notes_and_evidence(login, engineer, plan):
    step = _step(plan, "p3-kill-worker")
    url = f"/benchmarks/plans/{plan.pk}/steps/{step.pk}/check/"
    prefix = f"s{step.pk}-"
    response = login(engineer).post(
        url,
        {
            f"{prefix}status": "passed",
            f"{prefix}notes": "Killed one replica; 0.4 % errors for 20 s.",
            f"{prefix}evidence_url": "https://runbooks.example.com/r/42",
        },
    )
    assert response.status_code == 302
    step.refresh_from_db()
    assert step.status == "passed"
    assert step.checked_by == engineer
    event = AuditEvent.objects.get(action="benchmark_plan.step_checked")
    assert event.summary["step"] == "p3-kill-worker"
    assert event.summary["before"]["status"] == "pending"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"status": "passed", "notes": "ok", "evidence_url": ""}, "evidence URL"),
        ({"status": "failed", "notes": "", "evidence_url": ""}, "notes"),
        ({"status": "maybe", "notes": "x", "evidence_url": ""}, "Select a valid choice"),
        ({"status": "passed", "notes": "x", "evidence_url": "javascript:alert(1)"}, "valid URL"),
    ],
)
def test_manual_step_bad_input_changes_nothing(data, message, login, engineer, plan):
    step = _step(plan, "p3-drain-node")
    prefix = f"s{step.pk}-"
    response = login(engineer).post(
        f"/benchmarks/plans/{plan.pk}/steps/{step.pk}/check/",
        {f"{prefix}{k}": v for k, v in data.items()},
    )
    assert response.status_code == 400
    assert message in response.content.decode()
    step.refresh_from_db()
    assert (step.status, step.notes, step.checked_by) == ("pending", "", None)
    assert not AuditEvent.objects.filter(action="benchmark_plan.step_checked").exists()


def test_automatic_step_cannot_be_checked_by_hand(login, engineer, plan):
    step = _step(plan, "p2-e2e-p99")
    prefix = f"s{step.pk}-"
    response = login(engineer).post(
        f"/benchmarks/plans/{plan.pk}/steps/{step.pk}/check/",
        {f"{prefix}status": "passed", f"{prefix}notes": "trust me", f"{prefix}evidence_url": ""},
    )
    assert response.status_code == 400
    assert "judged from uploaded results" in response.content.decode()
    step.refresh_from_db()
    assert step.status == "pending"


def test_step_of_another_plan_is_404(login, engineer, plan, quote_b, brief):
    other = benchmark_plan_create(acting_user=engineer, quote=quote_b, brief=brief)[0]
    step = _step(other, "p3-drain-node")
    response = login(engineer).post(
        f"/benchmarks/plans/{plan.pk}/steps/{step.pk}/check/",
        {f"s{step.pk}-status": "failed", f"s{step.pk}-notes": "x"},
    )
    assert response.status_code == 404


def test_plan_detail_judges_steps_from_uploaded_results(login, finance, plan, quote_a, brief):
    # A result that names the brief's model: the comparison's matching rules count it.
    BenchmarkResultFactory(
        quote=quote_a,
        accelerator=quote_a.accelerator,
        brief=brief,
        model_name=brief.model.name,
        metrics=metrics_dict(),
    )
    response = login(finance).get(plan.get_absolute_url())
    assert response.status_code == 200
    step = _step(plan, "p2-e2e-p99")
    assert step.status == "passed"
    assert "12,000 ms" in step.observed
    assert "12,000 ms" in response.content.decode()
    assert _step(plan, "p2-accepted-outputs").status == "failed"


@pytest.mark.parametrize("count", [2, 12])
def test_plan_pages_query_counts(
    count, login, engineer, brief, provider_a, h100, django_assert_max_num_queries
):
    plans = [
        benchmark_plan_create(
            acting_user=engineer, quote=QuoteFactory(provider=provider_a, accelerator=h100),
            brief=brief,
        )[0]
        for _ in range(count)
    ]  # fmt: skip
    client = login(engineer)
    with django_assert_max_num_queries(8):
        assert client.get("/benchmarks/plans/").status_code == 200
    with django_assert_max_num_queries(16):
        assert client.get(plans[0].get_absolute_url()).status_code == 200
    assert BenchmarkPlanStep.objects.filter(plan=plans[0]).count() >= 14


def test_file_templates_download_and_upload_with_acceptance(login, engineer, h100):
    client = login(engineer)
    response = client.get("/benchmarks/templates/requests_template.csv/")
    assert response["Content-Disposition"].startswith("attachment;")
    data = b"".join(response.streaming_content)
    assert data.startswith(b"start_time,ttft_ms")
    assert client.get("/benchmarks/templates/../settings.py/").status_code == 404
    assert client.get("/benchmarks/templates/README.md/").status_code == 404
    model = ModelProfileFactory()  # a per-request CSV does not say its model: the form asks
    upload = client.post(
        "/benchmarks/upload/",
        {
            "file": SimpleUploadedFile("mine.csv", data),
            "accelerator": h100.slug,
            "gpu_count": 1,
            "model_profile": model.slug,
            "precision": "fp8",  # nor its precision (issue 14)
        },
    )
    assert upload.status_code == 302
    result = BenchmarkResult.objects.get()
    assert result.metrics["acceptance_rate"] is not None
    page = client.get(result.get_absolute_url())
    assert b"accepted outputs" in page.content


def test_upload_tab_hidden_from_readers(login, finance, engineer):
    assert b"/benchmarks/upload/" not in login(finance).get("/benchmarks/plans/").content
    assert b"/benchmarks/upload/" in login(engineer).get("/benchmarks/plans/").content


def test_u21_result_page_leads_with_the_workload_shape(login, finance, h100):
    """U21: model, tokens in/out per request, offered rate and concurrency, in words."""
    metrics = {
        **metrics_dict(concurrency=16.0),
        "input_tokens_total": 8_000_000,
        "output_tokens_total": 200_000,
        "request_rate": 3.6,
    }
    result = BenchmarkResultFactory(
        accelerator=h100, metrics=metrics, model_name="meta-llama/Llama-3.1-70B-Instruct"
    )
    body = login(finance).get(result.get_absolute_url()).content.decode()
    shape = body[body.index('id="workload-shape"') :]
    shape = shape[: shape.index("</section>")]
    assert "meta-llama/Llama-3.1-70B-Instruct" in shape
    assert "8,000 in / 200 out (mean)" in shape
    assert "3.6 requests/s offered · concurrency 16" in shape
    assert "1,000 completed" in shape
    assert body.index('id="workload-shape"') < body.index("Latency percentiles")
    assert 'id="all-failed"' not in body


def test_u19_a_run_whose_requests_all_failed_is_flagged(login, engineer, h100):
    """U19: 0 completed, N failed: a warning on the page and a badge in the list."""
    metrics = {**metrics_dict(output_tokens_per_s=0.0), "requests_completed": 0}
    metrics["requests_failed"] = 120
    result = BenchmarkResultFactory(accelerator=h100, metrics=metrics)
    client = login(engineer)
    body = client.get(result.get_absolute_url()).content.decode()
    assert "Every request in this run failed" in body
    assert "120 failed, none completed" in body
    listing = client.get("/benchmarks/").content.decode()
    assert listing.count("all requests failed</span>") == 1
