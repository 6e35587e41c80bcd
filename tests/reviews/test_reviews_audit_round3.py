"""The audit trail reads as words, links its objects and exports the filtered view as CSV."""

from __future__ import annotations

import csv
import io

import pytest

from core.audit import audit_record

pytestmark = pytest.mark.django_db


def test_v20_actions_in_words_objects_linked_and_a_csv_of_the_filtered_view(
    login, comparison, admin_member, lead
):
    audit_record(actor=lead, action="comparison.price_changed", obj=comparison, summary={"a": 1})
    audit_record(actor=lead, action="quote.revise", object_type="catalog.quote", object_id="7")
    client = login(admin_member)
    html = client.get("/audit/").content.decode()
    assert "Price changed behind the comparison" in html
    assert "Quote: revise" in html
    assert f'href="/comparisons/{comparison.pk}/"' in html
    assert 'href="/catalog/quotes/7/"' in html
    assert "<code>comparison.price_changed</code>" not in html
    assert 'id="audit-csv"' in html

    response = client.get("/audit/", {"action": "comparison.price_changed", "format": "csv"})
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [r["action_code"] for r in rows] == ["comparison.price_changed"]
    assert rows[0]["action"] == "Price changed behind the comparison"
    assert rows[0]["actor"] == "lead"
    assert rows[0]["summary"] == "a: 1"


def test_v20_every_object_with_a_page_is_linked_in_words_and_the_csv_is_inert(
    login, comparison, admin_member, finance, lead
):
    """Objects named in words ("quote #7", not "catalog.quote #7") and linked to their page:
    benchmark results and plans, a checklist answer to its quote's checklist item, a user to
    the user page for admins only; every action of the trail in words; the filter menus in
    words; the CSV keeps the filters and quotes a typed formula."""
    from tests.benchmarks.factories_benchmarks import BenchmarkPlanFactory, BenchmarkResultFactory
    from tests.checklist.factories_checklist import AnswerFactory, item
    from tests.factories import QuoteFactory

    quote = QuoteFactory(provider__name="=HYPERLINK(evil)")
    result = BenchmarkResultFactory()
    plan = BenchmarkPlanFactory()
    on_quote = AnswerFactory(provider=quote.provider, quote=quote, item=item("interconnect"))
    default = AnswerFactory(provider=quote.provider, item=item("iam-audit"))
    audit_record(actor=lead, action="quote.submitted", obj=quote)
    audit_record(actor=lead, action="benchmark_result.uploaded", obj=result)
    audit_record(actor=lead, action="benchmark_plan.created", obj=plan)
    audit_record(actor=lead, action="checklist.answer", obj=on_quote, summary={"item": "x"})
    audit_record(actor=lead, action="checklist.review", obj=default)
    audit_record(actor=lead, action="login.ok", obj=lead)
    audit_record(actor=lead, action="comparison.exported_xlsx", obj=comparison)

    html = login(admin_member).get("/audit/").content.decode()
    assert f'href="/catalog/quotes/{quote.pk}/"' in html
    assert f'href="/benchmarks/results/{result.pk}/"' in html
    assert f'href="/benchmarks/plans/{plan.pk}/"' in html
    assert f'href="/checklist/quotes/{quote.pk}/#item-interconnect"' in html
    assert f'href="/accounts/users/{lead.pk}/"' in html
    for words in (
        "Quote submitted",
        "Benchmark uploaded",
        "Benchmark plan created",
        "Checklist answered",
        "Checklist answer reviewed",
        "Logged in",
        "Comparison exported (XLSX)",
    ):
        assert f"<td>{words} <span" in html, words
    assert f">quote #{quote.pk}</span>" in html
    assert f">checklist answer #{default.pk}</span>" in html  # a provider default: no page
    assert ">catalog.quote #" not in html
    # The menus read as words, their values stay the codes the URL carries.
    assert '<option value="benchmark_result.uploaded">Benchmark uploaded</option>' in html
    assert '<option value="catalog.quote">quote</option>' in html

    # Finance reads the trail too, but the user pages are the admins': no link there.
    finance_html = login(finance).get("/audit/").content.decode()
    assert f'href="/accounts/users/{lead.pk}/"' not in finance_html
    assert f'href="/catalog/quotes/{quote.pk}/"' in finance_html

    response = login(admin_member).get("/audit/", {"object_type": "catalog.quote", "format": "csv"})
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [r["action"] for r in rows] == ["Quote submitted"]
    assert rows[0]["object"].startswith("'")  # "=HYPERLINK(…)" would run in a spreadsheet
