"""HTML review screens: the access matrix, the decision form, filters, side by side, record."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from benchmarks.models import BenchmarkPlan, BenchmarkPlanStep, BenchmarkResult
from core.templatetags.numbers import unit_price
from procurement.models import Comparison, Review
from tests.reviews.factories_reviews import CandidateResultFactory, ready_comparison

pytestmark = pytest.mark.django_db

STAFF = ["lead", "lead_other", "engineer", "finance", "finance_other", "security", "admin_member"]
VENDORS = ["vendor_a", "vendor_b"]


def url(comparison, name):
    return f"/comparisons/{comparison.pk}/{name}/"


def as_user(request, who) -> Client:
    client = Client()
    if who != "anonymous":
        client.force_login(request.getfixturevalue(who))
    return client


@pytest.mark.parametrize("screen", ["review", "side-by-side", "record"])
def test_missing_comparison_is_404_for_staff(request, finance, screen):
    client = as_user(request, "finance")
    assert client.get(f"/comparisons/999999/{screen}/").status_code == 404


@pytest.mark.parametrize("who", VENDORS)
def test_vendor_post_review_is_404_and_changes_nothing(request, comparison, who):
    response = as_user(request, who).post(
        url(comparison, "review"), {"decision": "approve", "comment": "mine"}
    )
    assert response.status_code == 404
    assert not Review.objects.exists()


def test_finance_approves_through_the_form(client, comparison, finance, lead):
    client.force_login(finance)
    response = client.post(
        url(comparison, "review"), {"decision": "approve", "comment": "Lines and evidence checked."}
    )
    assert response.status_code == 302
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.APPROVED
    page = client.get(url(comparison, "review"))
    assert "Decision recorded: the comparison is now approved." in page.content.decode()
    # The creator sees the decision, and no decision form (frozen).
    client.force_login(lead)
    html = client.get(url(comparison, "review")).content.decode()
    assert "Approved" in html
    assert "Lines and evidence checked." in html
    assert "frozen" in html
    assert 'name="comment"' not in html


def test_creator_approval_attempt_is_refused_in_html(client, comparison, lead):
    client.force_login(lead)
    assert 'name="comment"' not in client.get(url(comparison, "review")).content.decode()
    response = client.post(url(comparison, "review"), {"decision": "approve", "comment": "mine"})
    assert response.status_code == 403
    assert "four-eyes" in response.content.decode()
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.READY
    assert not Review.objects.exists()


@pytest.mark.parametrize(
    ("data", "field_message"),
    [
        ({"decision": "approve", "comment": ""}, "This field is required."),
        ({"decision": "sign", "comment": "x"}, "Select a valid choice."),
        (
            {"decision": "approve", "comment": "x", "candidate": "q-h200"},
            "Explain why this row rather than the recommended one.",
        ),
        (
            {"decision": "approve", "comment": "x", "candidate": "q-l40s"},
            "Select a valid choice.",  # ineligible rows are not offered
        ),
    ],
)
def test_bad_decision_input_is_a_clear_400(client, comparison, finance, data, field_message):
    client.force_login(finance)
    response = client.post(url(comparison, "review"), data)
    assert response.status_code == 400
    assert field_message in response.content.decode()
    assert not Review.objects.exists()
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.READY


def test_late_reviewer_gets_a_conflict_form_error(client, comparison, finance, finance_other):
    client.force_login(finance)
    client.post(url(comparison, "review"), {"decision": "approve", "comment": "ok"})
    client.force_login(finance_other)
    response = client.post(url(comparison, "review"), {"decision": "reject", "comment": "no"})
    assert response.status_code == 409
    assert "already approved" in response.content.decode()
    assert Review.objects.count() == 1


def test_first_of_two_approvals_says_one_of_two(client, dual_comparison, finance):
    client.force_login(finance)
    response = client.post(
        url(dual_comparison, "review"), {"decision": "approve", "comment": "ok"}, follow=True
    )
    html = response.content.decode()
    assert "1 of 2 approvals" in html
    dual_comparison.refresh_from_db()
    assert dual_comparison.status == Comparison.Status.READY


def test_review_page_explains_why_the_recommended_row_wins(client, comparison, finance):
    plan_result = BenchmarkResult.objects.create(
        uploaded_by=finance,
        quote=comparison.candidates.get(key="q-h100").quote,
        accelerator=comparison.candidates.get(key="q-h100").quote.accelerator,
        gpu_count=8,
        raw_file="benchmarks/run.json",
        original_name="vllm-run.json",
        sha256="0" * 64,
        size_bytes=10,
        format_id="vllm-serve",
        status="parsed",
    )
    client.force_login(finance)
    html = client.get(url(comparison, "review")).content.decode()
    assert "Why Northwind" in html
    assert "recommended" in html
    assert "HEADROOM_BELOW_MARGIN" in html  # warnings
    assert "CHECKLIST_BELOW_COMMITMENT" in html
    assert "weights do not fit in 48 GB" in html  # why a row is ineligible
    assert "11.5% cheaper per accepted output" in html  # 6.4167 vs 7.25
    assert "Cheapest per GPU-hour" not in html  # the winner is also cheapest per hour
    assert "throughput: measured" in html  # which figures are measured, which estimated
    assert "latency: estimated" in html
    assert "vllm-run.json" in html  # evidence
    assert f"/api/v1/comparisons/{comparison.pk}/export.csv" in html
    assert f"/api/v1/comparisons/{comparison.pk}/export.xlsx" in html
    assert plan_result.pk


def test_review_page_names_the_hourly_trap(client, comparison, finance):
    comparison.candidates.filter(key="q-h200").update(hourly_price_usd="1.2000")
    client.force_login(finance)
    html = client.get(url(comparison, "review")).content.decode()
    assert "Cheapest per GPU-hour is" in html


def rows_of(html: str) -> list[str]:
    import re

    return re.findall(r'data-key="([^"]+)"', html)


@pytest.mark.parametrize(
    ("query", "keys"),
    [
        ("", ["q-h100", "q-h200", "q-l40s"]),
        ("?eligible=on", ["q-h100", "q-h200"]),
        ("?capacity=reserved", ["q-h200"]),
        ("?provider=Fabrikam", ["q-l40s"]),
        ("?sort=hourly", ["q-h100", "q-h200", "q-l40s"]),  # eligible rows first, always
        ("?sort=p90", ["q-h100", "q-h200", "q-l40s"]),
        ("?sort=prob", ["q-h100", "q-h200", "q-l40s"]),
        ("?eligible=on&sort=hourly", ["q-h100", "q-h200"]),
    ],
)
def test_row_filters_and_sorting(client, comparison, finance, query, keys):
    client.force_login(finance)
    assert rows_of(client.get(url(comparison, "review") + query).content.decode()) == keys


def test_sort_by_hourly_price(client, comparison, finance):
    comparison.candidates.filter(key="q-h200").update(hourly_price_usd="1.2000")
    client.force_login(finance)
    html = client.get(url(comparison, "review") + "?sort=hourly").content.decode()
    assert rows_of(html) == ["q-h200", "q-h100", "q-l40s"]


def test_htmx_filter_returns_only_the_rows_partial(client, comparison, finance):
    client.force_login(finance)
    response = client.get(url(comparison, "review") + "?eligible=on", HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<div id="candidate-rows">')
    assert "<html" not in html
    assert rows_of(html) == ["q-h100", "q-h200"]


def test_htmx_history_restore_gets_the_whole_page(client, comparison, finance):
    client.force_login(finance)
    response = client.get(
        url(comparison, "review") + "?eligible=on",
        HTTP_HX_REQUEST="true",
        HTTP_HX_HISTORY_RESTORE_REQUEST="true",
    )
    assert "<html" in response.content.decode()
    assert "HX-Request" in response["Vary"]


def test_bad_filter_value_is_reported(client, comparison, finance):
    client.force_login(finance)
    html = client.get(url(comparison, "review") + "?sort=cheapest&capacity=x").content.decode()
    assert "Select a valid choice" in html
    assert rows_of(html) == ["q-h100", "q-h200", "q-l40s"]  # defaults apply


def test_side_by_side_defaults_to_recommended_and_runner_up(client, comparison, finance):
    client.force_login(finance)
    response = client.get(url(comparison, "side-by-side"))
    html = response.content.decode()
    assert response.status_code == 200
    assert "A: " + str(comparison.candidates.get(key="q-h100").label) in html
    assert "B: " + str(comparison.candidates.get(key="q-h200").label) in html
    assert 'class="differs"' in html
    assert "gpu_compute" in html
    assert "storage" in html


def test_side_by_side_highlights_only_differences(client, comparison, finance):
    client.force_login(finance)
    html = client.get(url(comparison, "side-by-side") + "?a=q-h100&b=q-h200").content.decode()
    import re

    storage_row = re.search(r'<tr class="([^"]*)">\s*<td title="storage">Storage</td>', html)
    gpu_row = re.search(r'<tr class="([^"]*)">\s*<td title="gpu_compute">GPU compute</td>', html)
    assert storage_row.group(1) == ""  # 250.00 on both
    assert gpu_row.group(1) == "differs"


def test_side_by_side_reads_in_words_and_numbers(client, comparison, finance):
    """Codes meant for machines on a business page (ux.md): labels and codes in words, the
    code kept as a tooltip; numbers with separators and no trailing zeros past the cent."""
    client.force_login(finance)
    html = client.get(url(comparison, "side-by-side") + "?a=q-h100&b=q-h200").content.decode()
    assert "<td>gpu_compute</td>" not in html
    assert ">on_demand<" not in html
    assert not re.search(r'<td class="val">\d{5,}', html), "a number without separators"
    # U28: each figure in its format: P(cheapest) as a percentage, unit costs and p10/p50/p90
    # as prices (not 6.416667), warning codes as labels (the code only in a tooltip), and
    # money labelled with its period.
    cells = [re.sub(r"<[^>]+>", "", c) for c in re.findall(r'<td class="val">(.*?)</td>', html)]
    assert "71 %" in cells
    assert "29 %" in cells
    assert "6.42" in cells
    assert "5.50" in cells
    assert not [c for c in cells if re.search(r"\d\.\d{5,}", c)], cells
    assert not [c for c in cells if re.search(r"[A-Z]+_[A-Z_]+", c)], cells
    assert "Headroom below margin" in cells
    assert 'title="HEADROOM_BELOW_MARGIN"' in html
    assert "Total (USD / month)" in html
    assert "Cost lines (USD / month)" in html
    assert "Total (USD)<" not in html


@pytest.mark.parametrize(
    ("query", "message"),
    [("?a=q-h100&b=q-h100", "Choose two different candidates."), ("?a=zzz&b=q-h100", "valid")],
)
def test_side_by_side_bad_pair_is_a_clear_400(client, comparison, finance, query, message):
    client.force_login(finance)
    response = client.get(url(comparison, "side-by-side") + query)
    assert response.status_code == 400
    assert message in response.content.decode()


def test_decision_record_has_what_a_later_review_needs(client, comparison, finance, engineer):
    chosen = comparison.candidates.get(key="q-h100")
    plan = BenchmarkPlan.objects.create(
        quote=chosen.quote, brief=comparison.brief, created_by=engineer
    )
    BenchmarkPlanStep.objects.create(
        plan=plan,
        phase=2,
        code="ttft",
        title="TTFT under load",
        criterion="p95 TTFT ≤ 800 ms at 32 concurrent",
        kind="auto",
    )
    client.force_login(finance)
    client.post(url(comparison, "review"), {"decision": "approve", "comment": "Evidence ok."})
    html = client.get(url(comparison, "record")).content.decode()
    assert comparison.brief.title in html
    assert "p95 TTFT ≤ 800 ms at 32 concurrent" in html  # acceptance criteria
    assert "hours_per_month" in html
    assert "override.utilisation_likely" in html
    assert "Evidence ok." in html  # approvals
    assert "review.approve" in html
    assert "comparison.decided" in html
    assert "css/print.css" in html
    assert "data-print" in html
    assert "Approved row" in html


def test_recompute_button_for_leads_makes_a_new_revision(client, comparison, lead, monkeypatch):
    import procurement.services.comparisons as services

    calls = []

    def fake_recompute(*, acting_user, comparison):
        calls.append((acting_user, comparison))
        return services.Queued(
            ready_comparison(
                created_by=acting_user, revision=comparison.revision + 1, supersedes=comparison
            )
        )

    monkeypatch.setattr(services, "comparison_recompute", fake_recompute)
    client.force_login(lead)
    assert "Recompute as new revision" in client.get(url(comparison, "review")).content.decode()
    response = client.post(url(comparison, "recompute"))
    assert response.status_code == 302
    assert calls == [(lead, comparison)]
    html = client.get(url(comparison, "review")).content.decode()
    assert "Revision 2 supersedes this one" in html
    assert "Recompute as new revision" not in html


def test_recompute_refusal_is_shown(client, comparison, lead, monkeypatch):
    import procurement.services.comparisons as services
    from core.errors import Conflict

    def refuse(**kwargs):
        raise Conflict("This comparison already has a newer revision; recompute that one.")

    monkeypatch.setattr(services, "comparison_recompute", refuse)
    client.force_login(lead)
    response = client.post(url(comparison, "recompute"), follow=True)
    assert "already has a newer revision" in response.content.decode()


@pytest.mark.parametrize(
    ("who", "expected"),
    [("finance", 404), ("engineer", 404), ("security", 404), ("vendor_a", 404)],
)
def test_recompute_is_for_leads_and_admins_only(request, comparison, who, expected):
    assert as_user(request, who).post(url(comparison, "recompute")).status_code == 404
    assert Comparison.objects.count() == 1


def test_recompute_is_post_only(client, comparison, lead):
    client.force_login(lead)
    assert client.get(url(comparison, "recompute")).status_code == 405


@pytest.mark.parametrize("screen", ["review", "record", "side-by-side"])
def test_page_queries_do_not_grow_with_rows(
    client, finance, lead, screen, django_assert_max_num_queries
):
    small = ready_comparison(created_by=lead, title="small")
    big = ready_comparison(created_by=lead, title="big", provider_names=("Big A", "Big B", "Big C"))
    for i in range(30):
        CandidateResultFactory(comparison=big, key=f"extra-{i}", rank=3 + i)
    client.force_login(finance)
    counts = []
    for comparison in (small, big):
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        with CaptureQueriesContext(connection) as ctx:
            assert client.get(url(comparison, screen)).status_code == 200
        counts.append(len(ctx.captured_queries))
    assert counts[0] == counts[1], counts
    with django_assert_max_num_queries(20):
        client.get(url(big, screen))


def test_side_by_side_without_a_recommendation_picks_two_rows(client, comparison, finance):
    Comparison.objects.filter(pk=comparison.pk).update(recommended_key="")
    client.force_login(finance)
    response = client.get(url(comparison, "side-by-side"))
    assert response.status_code == 200
    assert response.context["a"].key != response.context["b"].key


def test_side_by_side_with_one_candidate_says_so(client, finance, lead):
    from tests.factories import ComparisonFactory

    lonely = ComparisonFactory(created_by=lead, status="ready")
    CandidateResultFactory(comparison=lonely, key="only")
    client.force_login(finance)
    response = client.get(url(lonely, "side-by-side"))
    assert response.status_code == 200
    assert "fewer than two candidates" in response.content.decode()


def test_decision_record_lists_each_assumption_once_with_its_source(client, comparison, finance):
    comparison.result = {
        "assumptions": {
            "hours_per_month": "730",
            "workload": {
                "observability_per_month": "0",
                "horizon_months": 12,
                "assumption_sources": {
                    "observability_per_month": "product default",
                    "horizon_months": "brief",
                    "utilisation_likely": "override",
                },
            },
        },
        "assumptions_applied": [
            {
                "name": "observability_per_month",
                "label": "Observability per month",
                "value": "0",
                "source": "product default",
                "candidate_id": "",
                "note": "not provided: counted as 0",
            }
        ],
    }
    comparison.save(update_fields=["result"])
    client.force_login(finance)
    html = client.get(url(comparison, "record")).content.decode()
    assumptions = html.split('id="assumptions-h"', 1)[1].split("</section>", 1)[0]
    # Given by the applied row alone: value and source once, no separate source line.
    assert assumptions.count("observability_per_month") == 1
    assert "not provided: counted as 0 (product default)" in assumptions
    # Not in the applied rows: the figure carries its source beside it.
    assert "12 (brief)" in assumptions
    assert "assumption_sources.horizon_months" not in assumptions
    # A source naming no listed figure keeps its own line.
    assert "assumption_sources.utilisation_likely" in assumptions


def test_record_and_results_name_the_currency_of_money_assumptions(client, comparison, finance):
    comparison.result = {
        **comparison.result,
        "base_currency": "USD",
        "assumptions_applied": [
            {
                "name": "loaded_monthly_cost_per_fte",
                "label": "Loaded monthly cost per FTE",
                "value": "18000.00",
                "source": "brief",
                "candidate_id": "",
                "note": "",
            },
            {
                "name": "horizon_months",
                "label": "Planning horizon (months)",
                "value": 12,
                "source": "brief",
                "candidate_id": "",
                "note": "",
            },
        ],
    }
    comparison.save(update_fields=["result"])
    client.force_login(finance)
    record = client.get(url(comparison, "record")).content.decode()
    assert "Loaded monthly cost per FTE (USD)" in record  # the brief's facts
    assert "Loaded monthly cost per FTE<" not in record
    assert "USD 18,000.00 (brief)" in record  # the applied assumption
    assert "12 (brief)" in record
    detail = client.get(f"/comparisons/{comparison.pk}/").content.decode()
    assert (
        'Loaded monthly cost per FTE (USD): USD 18,000.00 <span class="muted">(from the brief)'
        in detail
    )
    assert 'Planning horizon (months): 12 <span class="muted">(from the brief)' in detail


def test_side_by_side_unit_costs_name_their_currency(client, comparison, finance):
    client.force_login(finance)
    html = client.get(url(comparison, "side-by-side") + "?a=q-h100&b=q-h200").content.decode()
    unit = comparison.candidates.get(key="q-h100").unit_label
    for label in ("Unit cost", "Unit cost p10", "Unit cost p50", "Unit cost p90"):
        assert f">{label} (USD {unit})<" in html
    assert ">Total (USD / month)<" in html
    assert ">P10<" not in html


def test_record_money_reads_with_currency_first_and_two_decimals(client, comparison, finance):
    comparison.commitment_usd = "250000.00"
    comparison.save(update_fields=["commitment_usd"])
    client.force_login(finance)
    html = client.get(url(comparison, "record")).content.decode()
    chosen = comparison.candidates.get(key=comparison.recommended_key)
    assert f"{unit_price(chosen.unit_cost_usd, 'USD')} {chosen.unit_label}" in html
    assert f"{chosen.unit_cost_usd:.4f} USD" not in html
    assert "USD 250,000.00" in html
