"""benchmarks.demo.load(): real sample files uploaded through the service, one plan; twice."""

from __future__ import annotations

import pytest

from accounts.models import Provider
from benchmarks import demo
from benchmarks.models import BenchmarkPlan, BenchmarkResult
from core.roles import Role
from tests.factories import QuoteFactory, UserFactory, WorkloadBriefFactory

pytestmark = pytest.mark.django_db


def test_demo_loads_samples_and_a_plan_idempotently(h100, h200, lead):
    UserFactory(username="engineer", role=Role.PLATFORM_ENGINEER)
    northwind = Provider.objects.create(name="Northwind GPU Cloud", slug="northwind")
    QuoteFactory(provider=northwind, accelerator=h100, title="Northwind H100 on-demand")
    QuoteFactory(provider=northwind, accelerator=h200, title="Northwind H200 reserved")
    brief = WorkloadBriefFactory(created_by=lead)

    demo.load()
    demo.load()

    results = BenchmarkResult.objects.order_by("accelerator__slug")
    assert [r.status for r in results] == ["parsed", "parsed"]
    assert {r.format_id for r in results} == {"vllm-serve", "aiperf-jsonl"}
    assert all(r.brief == brief for r in results)
    plan = BenchmarkPlan.objects.get()
    assert plan.quote.accelerator == h100
    assert plan.steps.get(code="p3-cold-start").status == "passed"
    assert plan.steps.get(code="p2-ttft-p95").status == "passed"


def test_demo_without_quotes_or_engineer_is_a_no_op():
    demo.load()
    assert not BenchmarkResult.objects.exists()
