"""Issue 17: a brief paying for input tokens sees "per 1M accepted input tokens" everywhere."""

from __future__ import annotations

import csv
import io

import pytest

from procurement.models import CandidateResult
from procurement.services.comparisons import comparison_create, comparison_run
from tests.factories import WorkloadBriefFactory

pytestmark = pytest.mark.django_db
UNIT = "per 1M accepted input tokens"


@pytest.fixture
def brief(db, lead):
    return WorkloadBriefFactory(created_by=lead, e2e_p99_ms=30_000, billed_token_type="input")


@pytest.fixture
def pair(scenario, lead):
    """The scenario's quotes compared twice: billed per output token, then per input token."""
    made = {}
    for kind in ("output", "input"):
        brief = scenario["brief"]
        if kind == "output":
            brief = WorkloadBriefFactory(created_by=lead, e2e_p99_ms=30_000)
        comparison = comparison_create(
            acting_user=lead,
            brief=brief,
            quote_ids=[scenario["cheap"].pk, scenario["fast"].pk],
            seed=7,
        ).comparison
        comparison_run(comparison_id=comparison.pk)
        comparison.refresh_from_db()
        made[kind] = comparison
    return made


def _row(comparison, quote) -> CandidateResult:
    return CandidateResult.objects.get(comparison=comparison, key=f"quote:{quote.pk}")


def test_issue17_rows_are_costed_per_million_input_tokens(pair, scenario, brief):
    """Same monthly total; the unit divides it by the mean (else p95) input per request."""
    out_row = _row(pair["output"], scenario["fast"])
    in_row = _row(pair["input"], scenario["fast"])
    assert out_row.total_usd == in_row.total_usd
    assert in_row.unit_label == UNIT
    assert pair["input"].result["billed_token_type"] == "input"
    assert pair["input"].result["unit_label"] == UNIT
    tokens_in = brief.mean_input_tokens or brief.p95_input_tokens
    tokens_out = brief.mean_output_tokens or brief.p95_output_tokens
    ratio = float(in_row.unit_cost_usd) / float(out_row.unit_cost_usd)
    assert ratio == pytest.approx(tokens_out / tokens_in, rel=1e-4)


def test_issue17_every_surface_names_the_token_type(pair, login, api_client, lead, finance):
    comparison = pair["input"]
    page = login(lead).get(comparison.get_absolute_url()).content.decode()
    assert f"USD {UNIT}" in page
    assert 'id="unit-basis"' in page
    assert "API routes priced per input and per output token" in page
    review = login(finance).get(f"/comparisons/{comparison.pk}/review/").content.decode()
    assert f"USD {UNIT}" in review
    record = login(finance).get(f"/comparisons/{comparison.pk}/record/").content.decode()
    assert UNIT in record
    api_client.force_authenticate(finance)
    body = api_client.get(f"/api/v1/comparisons/{comparison.pk}/").json()
    assert body["billed_token_type"] == "input"
    assert body["unit_label"] == UNIT
    assert {c["unit_label"] for c in body["candidates"]} == {UNIT}
    exported = api_client.get(f"/api/v1/comparisons/{comparison.pk}/export.csv")
    text = b"".join(exported.streaming_content).decode("utf-8-sig")
    assert {r["Unit"] for r in csv.DictReader(io.StringIO(text))} == {UNIT}
