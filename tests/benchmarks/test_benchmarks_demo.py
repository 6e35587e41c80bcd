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
    assert by_format["vllm-serve"].brief is None  # Llama 3.1 8B: no 8B brief here
    assert by_format["aiperf-jsonl"].model_name == "gpt-oss-20b"  # asked, not guessed
    assert [r.brief for r in results if r.format_id == "run-json"] == [brief, brief]
    plan = BenchmarkPlan.objects.get()
    assert plan.quote.accelerator == h100
    assert plan.steps.get(code="p3-cold-start").status == "passed"
    assert plan.steps.get(code="p2-ttft-p95").status == "passed"


def test_demo_without_quotes_or_engineer_is_a_no_op():
    demo.load()
    assert not BenchmarkResult.objects.exists()
