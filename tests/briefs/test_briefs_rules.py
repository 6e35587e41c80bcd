"""brief_rules: what each class needs, and the rules on values (pure, no database)."""

from __future__ import annotations

import pytest

from briefs.models import WorkloadBrief
from briefs.rules import (
    BRIEF_FIELDS,
    brief_errors,
    field_label,
    groups_for,
    missing_fields,
    range_errors,
)
from catalog.models import ModelProfile
from core import workloads
from tests.briefs.factories_briefs import brief_factory_kwargs

ALL_CLASSES = sorted(workloads.ALL)


def _brief(workload_class: str, *, complete: bool = True, **extra) -> WorkloadBrief:
    kwargs = brief_factory_kwargs(workload_class, complete=complete)
    kwargs.pop("model", None)
    values = {
        "title": "t",
        "platform_fte": 0.5,
        "context_window_tokens": 8192,
        "p95_input_tokens": 3000,
        "p95_output_tokens": 500,
        "concurrency": 16,
        "ttft_p95_ms": 800,
        "itl_p95_ms": 60,
        "e2e_p99_ms": 20000,
    }
    brief = WorkloadBrief(**{**values, **kwargs})
    if workload_class != "media":
        brief.model_id = 1  # only the id is read: no query
    for name, value in extra.items():
        setattr(brief, name, value)
    return brief


def test_brief_fields_cover_every_editable_model_field():
    system = {"id", "version", "supersedes", "created_by", "created_at"}
    model_fields = {
        f.name for f in WorkloadBrief._meta.concrete_fields if f.editable and f.name not in system
    }
    assert set(BRIEF_FIELDS) == model_fields
    assert len(BRIEF_FIELDS) == len(set(BRIEF_FIELDS))


@pytest.mark.parametrize("workload_class", ALL_CLASSES)
def test_complete_values_leave_nothing_missing(workload_class):
    assert missing_fields(_brief(workload_class)) == []


@pytest.mark.parametrize(
    ("workload_class", "expected"),
    [
        ("realtime_inference", {"concurrency", "e2e_p99_ms", "acceptance_rate"}),
        ("retrieval", {"concurrency", "e2e_p99_ms", "acceptance_rate"}),
        ("batch_inference", {"acceptance_rate"}),
        ("training", {"training_tokens_b"}),
        ("full_finetune", {"training_tokens_b", "acceptance_rate"}),
        ("adapter_finetune", {"training_tokens_b", "lora_rank", "acceptance_rate"}),
        ("media", {"media_kind", "acceptance_rate"}),
    ],
)
def test_missing_fields_are_specific_to_the_class(workload_class, expected):
    assert set(missing_fields(_brief(workload_class, complete=False))) == expected


def test_realtime_streaming_needs_inter_token_target_but_not_without_streaming():
    assert "itl_p95_ms" in missing_fields(_brief("realtime_inference", itl_p95_ms=None))
    brief = _brief("realtime_inference", itl_p95_ms=None, streaming=False)
    assert missing_fields(brief) == []


def test_managed_operating_model_needs_no_platform_team():
    assert "platform_fte" in missing_fields(_brief("batch_inference", platform_fte=None))
    brief = _brief("batch_inference", platform_fte=None, operating_model="managed")
    assert missing_fields(brief) == []


def test_model_is_required_for_inference_but_not_for_media():
    brief = _brief("batch_inference")
    brief.model_id = None
    assert missing_fields(brief) == ["model"]
    assert "model" not in missing_fields(_brief("media"))


def test_training_needs_only_utilisation_among_ranges():
    brief = _brief("training")
    brief.monthly_accepted_outputs_low = None
    brief.acceptance_rate_high = None
    assert missing_fields(brief) == []
    brief.utilisation_low = None
    assert missing_fields(brief) == ["utilisation"]


@pytest.mark.parametrize(
    ("workload_class", "shown", "hidden"),
    [
        ("realtime_inference", {"tokens", "latency", "volume"}, {"training", "media"}),
        ("training", {"training", "checkpoints"}, {"tokens", "latency", "media"}),
        ("media", {"media", "volume"}, {"training", "tokens"}),
    ],
)
def test_groups_follow_the_class(workload_class, shown, hidden):
    keys = {g.key for g in groups_for(workload_class)}
    assert shown <= keys
    assert not hidden & keys


def test_ranges_in_order_are_valid():
    assert range_errors(brief_factory_kwargs("realtime_inference")) == {}


def test_low_above_likely_names_the_low_field():
    errors = range_errors({"acceptance_rate_low": 0.95, "acceptance_rate_likely": 0.9})
    assert errors == {
        "acceptance_rate_low": ["Acceptance rate: low (0.95) must not exceed likely (0.9)."]
    }


def test_likely_above_high_names_the_high_field():
    errors = range_errors(
        {
            "monthly_accepted_outputs_low": 1000,
            "monthly_accepted_outputs_likely": 5000,
            "monthly_accepted_outputs_high": 2000,
        }
    )
    assert errors == {
        "monthly_accepted_outputs_high": [
            "Monthly accepted outputs (answers, not tokens): high (2,000) must be at least "
            "likely (5,000)."
        ]
    }


def test_low_above_high_without_likely_is_caught():
    assert "utilisation_high" in range_errors({"utilisation_low": 0.8, "utilisation_high": 0.2})


@pytest.mark.parametrize("value", [-0.1, 1.5, 92])
def test_rates_must_be_fractions(value):
    errors = range_errors({"failure_rate_likely": value})
    assert "fraction between 0 and 1" in errors["failure_rate_likely"][0]


def test_volume_cannot_be_negative():
    errors = range_errors({"monthly_accepted_outputs_low": -5})
    assert errors["monthly_accepted_outputs_low"] == [
        "Monthly accepted outputs (answers, not tokens) (low) cannot be negative."
    ]


def test_partial_range_is_incomplete_not_invalid():
    assert range_errors({"utilisation_likely": 0.5}) == {}


def test_context_window_must_hold_the_p95_request():
    errors = brief_errors(
        {"context_window_tokens": 4096, "p95_input_tokens": 4000, "p95_output_tokens": 500}
    )
    assert errors["context_window_tokens"] == [
        "The context window (4,096 tokens) must hold the p95 input plus output (4,500 tokens)."
    ]


def test_mean_cannot_exceed_p95():
    errors = brief_errors({"p95_output_tokens": 500, "mean_output_tokens": 800})
    assert "mean_output_tokens" in errors


def test_context_window_cannot_exceed_the_models_max_context():
    model = ModelProfile(name="Tiny", max_context=4096)
    errors = brief_errors({"model": model, "context_window_tokens": 8192})
    assert errors["context_window_tokens"] == ["Tiny supports at most 4,096 tokens of context."]


def test_non_finite_numbers_are_refused():
    assert brief_errors({"storage_gb": float("nan")}) == {
        "storage_gb": ["Must be a finite number."]
    }
    assert "utilisation_low" in brief_errors({"utilisation_low": float("inf")})


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("acceptance_rate", "Acceptance rate (low / likely / high)"),
        ("utilisation_high", "Utilisation (high)"),
        ("ttft_p95_ms", "Time to first token p95 (ms)"),
        ("something_else", "Something else"),
    ],
)
def test_field_labels_are_human(name, label):
    assert field_label(name) == label
