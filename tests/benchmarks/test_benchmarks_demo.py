"""benchmarks.demo.load(): real sample files uploaded through the service, one plan; twice."""

from __future__ import annotations

import pytest

from accounts.models import Provider
from benchmarks import demo
from benchmarks.models import BenchmarkPlan, BenchmarkResult
from benchmarks.workload import model_warning
from core.roles import Role
from tests.factories import ModelProfileFactory, QuoteFactory, UserFactory, WorkloadBriefFactory

pytestmark = pytest.mark.django_db


def test_demo_loads_samples_and_a_plan_idempotently(h100, h200, lead):
    UserFactory(username="engineer", role=Role.PLATFORM_ENGINEER)
    northwind = Provider.objects.create(name="Northwind GPU Cloud", slug="northwind")
    QuoteFactory(provider=northwind, accelerator=h100, title="Northwind H100 on-demand")
    QuoteFactory(provider=northwind, accelerator=h200, title="Northwind H200 reserved")
    brief = WorkloadBriefFactory(created_by=lead)  # Llama 3.1 70B, real-time
    ModelProfileFactory(slug="gpt-oss-20b", name="gpt-oss-20b")

    demo.load()
    demo.load()

    results = BenchmarkResult.objects.order_by("accelerator__slug", "original_name")
    assert [r.status for r in results] == ["parsed"] * 4
    assert {r.format_id for r in results} == {"vllm-serve", "aiperf-jsonl", "run-json"}
    # U18: each file is bound to its own model's brief, never to another model's
    assert all(model_warning(r) is None for r in results)
    by_format = {r.format_id: r for r in results}
    by_name = {r.original_name: r for r in results}
    llmd = "llmd_exp7_H100_vllm-2replicas_benchmark_2025-05-13_04-55-27.json"
    assert by_name[llmd].brief is None  # Llama 3.1 8B: no 8B brief here
    assert by_format["aiperf-jsonl"].model_name == "gpt-oss-20b"  # asked, not guessed
    # the chat brief's measured H100 sweep (issue 17: four operating points) and H200 proxy run
    sweep = by_name["demo_llama70b_h100-sxm-80gb_sweep_c1-64.jsonl"]
    assert (sweep.format_id, sweep.brief, sweep.precision) == ("vllm-serve", brief, "bf16")
    points = sweep.metrics["operating_points"]
    assert [p["concurrency"] for p in points] == [1, 4, 16, 64]
    assert [r.brief for r in results if r.format_id == "run-json"] == [brief]
    plan = BenchmarkPlan.objects.get()
    assert plan.quote.accelerator == h100
    assert plan.steps.get(code="p3-cold-start").status == "passed"
    # The plan reads the sweep as the comparison costs it: the saturation run (concurrency 64)
    # misses the brief's 800 ms TTFT at 1,450 ms, concurrency 16 meets every target, so the
    # latency steps pass and name that point.
    ttft = plan.steps.get(code="p2-ttft-p95")
    assert ttft.status == "passed"
    assert ttft.observed.startswith("met at concurrency 16: TTFT p95 520 ms")
    assert ttft.result == sweep


def test_demo_without_quotes_or_engineer_is_a_no_op():
    demo.load()
    assert not BenchmarkResult.objects.exists()
