"""U24: a frozen decision record shows only the evidence frozen in its snapshot; evidence that
arrived after the compute is listed apart, as "new since this comparison was computed"."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse
from openpyxl import load_workbook

from procurement.services.comparisons import comparison_create, comparison_run
from tests.benchmarks.factories_benchmarks import BenchmarkResultFactory

pytestmark = pytest.mark.django_db


def _section(html: str, heading_id: str) -> str:
    start = html.index(f'id="{heading_id}"')
    end = html.find("</section>", start)
    return html[start:end]


@pytest.fixture
def frozen_then_late(scenario, lead):
    """A result uploaded before the compute, the comparison, then a result uploaded after."""
    cheap = scenario["cheap"]
    model = scenario["brief"].model.name
    before = BenchmarkResultFactory(
        quote=cheap, accelerator=cheap.accelerator, model_name=model, original_name="before.json"
    )
    comparison = comparison_create(
        acting_user=lead, brief=scenario["brief"], quote_ids=[cheap.pk], seed=3
    ).comparison
    comparison_run(comparison_id=comparison.pk)
    comparison.refresh_from_db()
    late = BenchmarkResultFactory(
        quote=cheap, accelerator=cheap.accelerator, model_name=model, original_name="late.json"
    )
    return comparison, before, late


def test_u24_record_lists_a_later_upload_under_new_since_not_as_evidence(
    frozen_then_late, login, lead
):
    comparison, before, _late = frozen_then_late
    assert comparison.snapshot_facts["evidence_result_ids"] == [before.pk]

    html = login(lead).get(reverse("procurement:comparison-record", args=[comparison.pk]))
    html = html.content.decode()

    evidence = _section(html, "evidence-h")
    assert "before.json" in evidence
    assert "late.json" not in evidence
    new_since = _section(html, "new-since-h")
    assert "late.json" in new_since
    assert "before.json" not in new_since
    assert reverse("procurement:comparison-recompute", args=[comparison.pk]) in new_since


def test_u24_review_page_rows_show_only_frozen_evidence(frozen_then_late, login, finance):
    comparison, _before, _late = frozen_then_late
    html = login(finance).get(reverse("procurement:comparison-review", args=[comparison.pk]))
    html = html.content.decode()
    start = html.index('id="candidate-rows"')
    rows = html[start : html.index("</tbody>", start)]
    assert "before.json" in rows
    assert "late.json" not in rows
    assert "late.json" in _section(html, "new-since-h")
    # a finance reviewer may not recompute: no button for them
    assert "Recompute with the new evidence" not in html


def test_u24_exports_keep_the_frozen_evidence_and_list_the_later_one_apart(
    frozen_then_late, login, finance
):
    comparison, _before, late = frozen_then_late
    client = login(finance)
    body = b"".join(
        client.get(reverse("api-comparison-export-csv", args=[comparison.pk])).streaming_content
    )
    rows = list(csv.reader(io.StringIO(body.decode("utf-8-sig"))))
    column = rows[0].index("Benchmark evidence (as computed)")
    assert all("late.json" not in r[column] and f"#{late.pk} " not in r[column] for r in rows[1:])

    xlsx = client.get(reverse("api-comparison-export-xlsx", args=[comparison.pk]))
    workbook = load_workbook(io.BytesIO(b"".join(xlsx.streaming_content)))
    later = [[c.value for c in row] for row in workbook["New since computed"].iter_rows()]
    assert later[0] == ["Kind", "What", "When (UTC)"]
    assert any(row[0] == "benchmark result" and "late.json" in row[1] for row in later[1:])


def test_u24_a_record_without_stored_ids_reads_them_from_its_snapshot(frozen_then_late):
    from procurement.selectors.reviews.frozen import frozen_result_ids

    comparison, before, _late = frozen_then_late
    comparison.snapshot_facts = {"as_of": comparison.snapshot_facts["as_of"]}
    assert frozen_result_ids(comparison) == {before.pk}


def test_u24_a_later_quote_version_and_checklist_answer_are_new_since(
    frozen_then_late, scenario, login, lead
):
    from decimal import Decimal

    from catalog.services import quote_revise
    from checklist.models import ChecklistAnswer, ChecklistItem

    comparison, _before, _late = frozen_then_late
    cheap = scenario["cheap"]
    revised = quote_revise(
        acting_user=lead, quote=cheap, data={"price_per_gpu_hour": Decimal("0.7900")}
    )
    ChecklistAnswer.objects.create(
        provider=cheap.provider,
        quote=cheap,
        item=ChecklistItem.objects.order_by("order").first(),
        answer="Changed after the compute.",
        status="partial",
        answered_by=lead,
    )

    html = login(lead).get(reverse("procurement:comparison-record", args=[comparison.pk]))
    new_since = _section(html.content.decode(), "new-since-h")
    assert f"v{revised.version} (the comparison used v{cheap.version})" in new_since
    assert "Checklist answer" in new_since
    assert "Partial" in new_since
    evidence = _section(html.content.decode(), "evidence-h")
    assert f"quote #{cheap.pk} v{cheap.version}" in evidence  # the version it was computed on
