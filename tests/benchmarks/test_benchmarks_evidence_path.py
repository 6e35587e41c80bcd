"""One judge of which result counts: the plan and the compare page use the comparison's
matching rules (engine/evidence.py), so neither rests on a result the comparison ignores."""

from __future__ import annotations

import pytest

from benchmarks.selectors import evidence_target
from benchmarks.services import benchmark_plan_create, benchmark_plans_refresh_for_brief
from benchmarks.services.plans import plan_evidence
from tests.benchmarks.factories_benchmarks import BenchmarkResultFactory, metrics_dict

pytestmark = pytest.mark.django_db

LLAMA_8B = "meta-llama/Llama-3.1-8B-Instruct"
LLAMA_70B = "meta-llama/Llama-3.1-70B-Instruct"


def _result(quote, brief, model_name, **kw):
    """A result on the quote; by default at the brief's shape, on as many GPUs as the brief's
    memory fit needs there (what the comparison costs the row at)."""
    gpus = evidence_target(brief, quote.accelerator, quote_id=quote.pk).gpus
    values = {
        "quote": quote,
        "accelerator": quote.accelerator,
        "brief": brief,
        "model_name": model_name,
        "precision": "bf16",
        "gpu_count": gpus,
        "input_tokens_mean": brief.mean_input_tokens,
        "output_tokens_mean": brief.mean_output_tokens,
        "concurrency": brief.concurrency,
        **kw,
    }
    return BenchmarkResultFactory(**values)


def test_a_benchmark_of_another_model_never_settles_a_plan_step(engineer, quote_a, brief):
    plan, _ = benchmark_plan_create(acting_user=engineer, quote=quote_a, brief=brief)
    _result(quote_a, brief, LLAMA_8B)
    benchmark_plans_refresh_for_brief(brief.pk)
    assert plan_evidence(plan) == []
    assert plan.steps.get(code="p2-e2e-p99").status == "pending"

    own = _result(quote_a, brief, LLAMA_70B, metrics=metrics_dict(e2e=(4000.0, 9000.0, 15000.0)))
    benchmark_plans_refresh_for_brief(brief.pk)
    ((counted, verdict),) = plan_evidence(plan)
    assert counted.pk == own.pk
    assert verdict.counts
    step = plan.steps.get(code="p2-e2e-p99")
    assert step.status == "passed"
    assert step.result_id == own.pk


def test_the_plan_prefers_what_the_comparison_prefers(engineer, quote_a, brief):
    plan, _ = benchmark_plan_create(acting_user=engineer, quote=quote_a, brief=brief)
    measured = _result(quote_a, brief, LLAMA_70B, metrics=metrics_dict(e2e=(1.0, 2.0, 30000.0)))
    # Newer, but at another precision: a proxy, so it comes after the measured one.
    proxy = _result(quote_a, brief, LLAMA_70B, precision="fp8")
    judged = plan_evidence(plan)
    assert [(r.pk, v.kind) for r, v in judged] == [(measured.pk, "measured"), (proxy.pk, "proxy")]
    benchmark_plans_refresh_for_brief(brief.pk)
    step = plan.steps.get(code="p2-e2e-p99")
    assert step.result_id == measured.pk
    assert step.status == "failed"  # 30 s against the brief's 20 s: the measured one decides


def test_the_compare_page_says_how_the_comparison_counts_each_result(
    login, finance, quote_a, brief
):
    _result(quote_a, brief, LLAMA_8B)
    _result(quote_a, brief, LLAMA_70B)
    response = login(finance).get(f"/benchmarks/compare/?brief={brief.pk}")
    assert response.status_code == 200
    rows = response.context["rows"]
    kinds = sorted((row["evidence_kind"], row["evidence_reason"]) for row in rows)
    assert kinds[0][0] == "ignored"
    assert "ignored: the brief is Llama 3.1 70B" in kinds[0][1]
    assert kinds[1][0] == "measured"
    html = response.content.decode()
    assert "Counts as" in html
    assert "ignored: the brief is Llama 3.1 70B" in html
