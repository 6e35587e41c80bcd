"""The decision record at a thousand candidates (finding X13): the best eligible rows in full,
the recommendation's evidence, the ineligible rows summarised by reason, every row in the
exports. A structural check (the speed is measured in `make bench`, not asserted here)."""

from __future__ import annotations

import importlib
from decimal import Decimal

import pytest
from django.apps import apps
from django.db import connection
from django.test.utils import CaptureQueriesContext

from procurement.models import CandidateResult, Comparison
from procurement.selectors.reviews.record import RECORD_ROWS, ineligible_by_reason, record_rows
from procurement.services.comparisons.run import refused_by
from tests.reviews.factories_reviews import ready_comparison

pytestmark = pytest.mark.django_db

MANY = 1000
RECORD_QUERIES = 25  # whatever the number of rows


def _add_rows(comparison, count: int) -> None:
    rows = []
    for i in range(count):
        eligible = i % 4 != 3
        block = [] if eligible else [
            {"code": "DATA_BOUNDARY" if i % 8 == 3 else "LATENCY_TARGET", "severity": "block",
             "detail": f"row {i} is refused", "candidate_id": f"m{i}"},
        ]  # fmt: skip
        rows.append(
            CandidateResult(
                comparison=comparison,
                key=f"m{i}",
                kind="gpu",
                label=f"Provider {i % 50} · H100 SXM 80GB · region-{i % 40}",
                provider_name=f"Provider {i % 50}",
                accelerator_name="H100 SXM 80GB",
                capacity_model="on_demand",
                gpus=8,
                hourly_price_usd=Decimal("2.5000") + Decimal(i % 300) / 100,
                eligible=eligible,
                reasons=[] if eligible else [block[0]["detail"]],
                warnings=block,
                cost_lines={"compute": "1000.00", "storage": "20.00"},
                total_usd=Decimal(150_000 + i),
                accepted_outputs=Decimal(3_000_000),
                unit_cost_usd=Decimal("0.0100") + Decimal(i) / Decimal(10**6),
                unit_label="per 1k accepted outputs",
                p10=0.009,
                p50=0.01,
                p90=0.012,
                prob_cheapest=0.0,
                rank=None if not eligible else 10 + i,
            )
        )
    CandidateResult.objects.bulk_create(rows)


def test_x13_record_of_a_thousand_candidates_lists_the_best_and_summarises_the_rest(
    client, lead, finance
):
    """X13: at 1,000+ rows the record lists at most the best RECORD_ROWS eligible rows (the
    recommended one included), counts the ineligible rows by reason and points to the exports;
    the page stays under 1 MB."""
    comparison = ready_comparison(created_by=lead)
    _add_rows(comparison, MANY)
    client.force_login(finance)
    response = client.get(f"/comparisons/{comparison.pk}/record/")
    assert response.status_code == 200
    page = response.content.decode()
    assert len(response.content) < 1_000_000
    assert page.count('data-key="') <= RECORD_ROWS + 2
    assert 'data-key="q-h100"' in page  # the recommended row and its evidence
    assert 'data-key="m999"' not in page
    total = comparison.candidates.count()
    eligible = comparison.candidates.filter(eligible=True).count()
    assert f"{eligible:,} eligible, {total - eligible:,} ineligible." in page
    assert "Ineligible rows by reason" in page
    assert "export.csv" in page
    assert "export.xlsx" in page


def test_x13_ineligible_rows_are_counted_by_the_rule_that_refused_them(lead):
    """X13: one line per blocking rule with its count and an example; a row without a
    blocking warning counts under its first reason."""
    comparison = ready_comparison(created_by=lead)
    _add_rows(comparison, 16)
    groups = {g["code"]: g["count"] for g in ineligible_by_reason(comparison)}
    assert groups["DATA_BOUNDARY"] == 2  # rows 3 and 11
    assert groups["LATENCY_TARGET"] == 2  # rows 7 and 15
    listed = record_rows(comparison)
    assert listed.ineligible_count == sum(groups.values())
    assert listed.eligible_count + listed.ineligible_count == comparison.candidates.count()
    assert listed.rows[0].eligible


def _keyed(comparison) -> None:
    """Stores each row's refusal key as the compute does (the rows above are written without)."""
    rows = list(comparison.candidates.all())
    for row in rows:
        row.refused_by = refused_by(
            {"eligible": row.eligible, "warnings": row.warnings, "reasons": row.reasons}
        )
    CandidateResult.objects.bulk_update(rows, ["refused_by"])


def test_x13_the_stored_refusal_key_counts_as_the_warnings_do(lead):
    """Counted in the database by the stored key, the groups, counts and examples are those
    read from the warnings; a row refused by two rules counts under both."""
    comparison = ready_comparison(created_by=lead)
    _add_rows(comparison, 40)
    two = comparison.candidates.get(key="m3")
    two.warnings = [*two.warnings, {"code": "LATENCY_TARGET", "severity": "block", "detail": "x"}]
    two.save(update_fields=["warnings"])
    unkeyed = ineligible_by_reason(comparison)
    _keyed(comparison)
    assert not comparison.candidates.filter(eligible=False, refused_by="").exists()
    assert ineligible_by_reason(comparison) == unkeyed
    groups = {g["code"]: g for g in unkeyed}
    assert groups["DATA_BOUNDARY"]["count"] == 5  # rows 3, 11, 19, 27, 35
    assert groups["LATENCY_TARGET"]["count"] == 6  # rows 7, 15, 23, 31, 39 and row 3
    assert groups["DATA_BOUNDARY"]["example"] == "row 3 is refused"


def test_x13_a_row_without_a_blocking_warning_counts_under_its_first_reason(lead):
    comparison = ready_comparison(created_by=lead)
    _add_rows(comparison, 4)
    row = comparison.candidates.get(key="m3")
    row.warnings, row.reasons = [], ["Checklist incomplete.", "Quote stale."]
    row.save(update_fields=["warnings", "reasons"])
    _keyed(comparison)
    assert row.key in {r.key for r in comparison.candidates.exclude(refused_by="")}
    assert {"code": "Checklist incomplete.", "count": 1, "example": "Checklist incomplete."} in (
        ineligible_by_reason(comparison)
    )


def _record_queries(client, comparison, django_assert_max_num_queries) -> int:
    client.get(f"/comparisons/{comparison.pk}/record/")  # the session and caches, first
    with django_assert_max_num_queries(RECORD_QUERIES) as ctx:
        response = client.get(f"/comparisons/{comparison.pk}/record/")
    assert response.status_code == 200
    assert response.content.decode().count('data-key="') <= RECORD_ROWS + 2
    return len(ctx.captured_queries)


def test_x13_the_record_reads_as_many_queries_at_500_rows_as_at_50(
    client, lead, finance, django_assert_max_num_queries
):
    """The record's queries do not grow with the number of candidates (the speed itself is
    measured in `make bench`): the same count at 50 and at 500 rows, under a fixed bound."""
    client.force_login(finance)
    counts = []
    for count in (50, 500):
        comparison = ready_comparison(created_by=lead)
        _add_rows(comparison, count)
        _keyed(comparison)
        counts.append(_record_queries(client, comparison, django_assert_max_num_queries))
    assert counts[0] == counts[1]


def test_x13_the_record_never_reads_the_snapshot(client, lead, finance):
    """The frozen snapshot (tens of megabytes at 20,000 offers) stays unread on the record."""
    comparison = ready_comparison(created_by=lead)
    comparison.snapshot_facts = Comparison.facts_of(comparison.snapshot)  # as computed today
    comparison.save(update_fields=["snapshot_facts"])
    _add_rows(comparison, 50)
    client.force_login(finance)
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(f"/comparisons/{comparison.pk}/record/")
    assert response.status_code == 200
    whole = '"procurement_comparison"."snapshot"'
    assert not [q["sql"] for q in ctx.captured_queries if whole in q["sql"]]


def test_x13_the_migration_backfills_the_refusal_key_of_stored_rows(lead):
    """Rows stored before the key existed get it from the migration, as the compute writes it."""
    backfill = importlib.import_module(
        "procurement.migrations.0010_candidate_refused_by_and_record_indexes"
    ).backfill
    comparison = ready_comparison(created_by=lead)
    _add_rows(comparison, 12)
    assert comparison.candidates.filter(eligible=False, refused_by="").count() >= 3  # m3, m7, m11
    before = ineligible_by_reason(comparison)
    backfill(apps, None)
    for row in comparison.candidates.all():
        expected = refused_by(
            {"eligible": row.eligible, "warnings": row.warnings, "reasons": row.reasons}
        )
        assert row.refused_by == expected
    assert ineligible_by_reason(comparison) == before
