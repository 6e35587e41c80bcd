"""Issue 31 (a typed snapshot): typing the row facts changes no stored byte.

The rows of representative snapshots (tests/comparisons/facts_world.py: a measured sweep,
an estimate with a calibration ledger, a quote without an FX rate, model APIs at their
standard and batch tiers, an error rate over the brief's maximum, media, training and a
stored format-1 snapshot) were computed by the release before the row facts were typed and
stored in fixtures/snapshot_facts_rows.json; the same snapshots computed today give the same
JSON, key order included.
"""

from __future__ import annotations

import json
from dataclasses import fields
from decimal import Decimal

import pytest
from django.apps import apps

from engine.deployments import Configuration, ConfigurationVerdict
from procurement.snapshot.deployments import (
    configuration_facts,
    verdict_facts,
)
from procurement.snapshot.schema import BriefRow, QuoteRow, RouteRow
from tests.comparisons.facts_world import FIXTURES, SCENARIOS, frozen_rows

EXPECTED = json.loads((FIXTURES / "snapshot_facts_rows.json").read_text())


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_issue31_typed_row_facts_store_the_same_json(scenario):
    expected = json.dumps(EXPECTED[scenario], indent=1, ensure_ascii=False)
    assert frozen_rows(scenario) == expected


def test_issue31_the_fixture_covers_every_kind_of_row_fact():
    """The frozen rows exercise each fact the adapter writes, so a key dropped or renamed by
    a later change to the typed facts shows up as a difference above."""
    rows = [row for rows in EXPECTED.values() for row in rows]
    performance = {key for row in rows for key in row["performance"]}
    assert {
        "calibration",
        "calibration_applied",
        "configuration",
        "error_rate_over",
        "estimated_tokens_per_s",
        "ignored_evidence",
        "latency_not_in_benchmark",
        "measured",
        "outputs_per_s",
        "peak_dense_tflops_per_gpu",
        "prefix_caching",
    } <= performance
    detail = {key for row in rows for key in row["detail"]}
    assert {
        "capacity",
        "configurations",
        "model_substitution",
        "operating_points",
        "price_tiers_applied",
    } <= detail
    fit = {key for row in rows for key in row["fit"]}
    assert {"context_source", "fits_at_context_window", "note", "status"} <= fit
    assert {row["checklist"].get("available") for row in rows} == {True, False}
    assert {row["perf_source"] for row in rows} == {"measured", "estimated", "proxy"}


def test_issue31_typed_configurations_are_what_the_engine_writes():
    """The row's configuration and its costed alternatives are built field by field for the
    type checker; they hold every field of the engine's dataclasses, in the engine's order
    (a field the engine adds fails here until the typed facts carry it)."""
    conf = Configuration(
        gpus_per_replica=8,
        tensor_parallel=4,
        pipeline_parallel=2,
        expert_parallel=None,
        precision="fp8",
        serving_engine="vllm",
        origin="measured_offer",
        result_id=12,
    )
    verdict = ConfigurationVerdict(
        configuration=conf,
        words=conf.words(),
        origin_words="measured on this offer",
        chosen=True,
        eligible=False,
        reasons=("needs 2 nodes",),
        unit_cost=Decimal("0.00012500"),
        total=None,
        perf_source="measured",
        latency_source=None,
        latency_verdict="meets",
        gpus_peak=16,
        nodes_peak=2,
    )
    facts = configuration_facts(conf)
    assert list(facts.items())[:-1] == list(conf.to_dict().items())
    assert facts["words"] == "8 GPUs (TP=4, PP=2), fp8, vllm"
    assert list(verdict_facts(verdict).items()) == list(verdict.to_dict().items())
    assert list(verdict_facts(verdict)) == [f.name for f in fields(ConfigurationVerdict)]


@pytest.mark.parametrize(
    ("model", "row"),
    [
        ("briefs.WorkloadBrief", BriefRow),
        ("catalog.Quote", QuoteRow),
        ("catalog.ModelApiRoute", RouteRow),
    ],
)
def test_issue31_frozen_rows_name_every_field_the_freeze_copies(model, row):
    """`freeze.row_fields` copies every concrete field of the brief, the quote and the route:
    the typed rows name each one, so a reader of a new field is checked too."""
    copied = {f.attname for f in apps.get_model(model)._meta.concrete_fields} - {"created_at"}
    assert copied - set(row.__annotations__) == set()
