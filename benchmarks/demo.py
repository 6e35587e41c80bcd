"""Demo benchmark data: two real result files uploaded through the service, and one plan.

`manage.py seed_demo` calls `load()` after the catalog and before the decision app. The files
are the vLLM and AIPerf samples of the parsers' fixtures (Apache-2.0, provenance next to
them), uploaded by `engineer` against Northwind's H100 and H200 quotes and parsed in-process.
Briefs are created later in the seed order; when none exists yet, the decision app's own
idempotent brief loader (`briefs.demo.load`, which `procurement.demo` calls again
harmlessly) is run first, so one `seed_demo` links the results and the plan to the first
real-time brief. Without that module the results are uploaded without a brief and the plan
waits for a later seed. Idempotent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.files import File

from accounts.models import User
from benchmarks.models import BenchmarkPlan, BenchmarkPlanStep, BenchmarkResult, Phase
from benchmarks.services import (
    UploadMeta,
    benchmark_plan_create,
    benchmark_plan_step_check,
    benchmark_result_ingest,
    benchmark_result_parse,
)
from briefs import demo as briefs_demo
from catalog.models import Quote

FIXTURES = Path(settings.BASE_DIR) / "tests" / "parsers" / "fixtures"
# (file, accelerator slug, GPUs, serving engine, parallelism, notes)
DemoFile = tuple[str, str, int, str, str, str]
DEMO_FILES: list[DemoFile] = [
    (
        "vllm-serve/llmd_exp7_H100_vllm-2replicas_benchmark_2025-05-13_04-55-27.json",
        "h100-sxm-80gb",
        2,
        "vLLM 0.8",
        "TP=1, 2 replicas",
        "llm-d experiment 7: Llama 3.1 8B, 3.6 req/s, summary only.",
    ),
    (
        "aiperf/aiperf_examples_run1_profile_export.jsonl",
        "h200-sxm-141gb",
        1,
        "vLLM",
        "TP=1",
        "AIPerf per-request export (100 requests, some cancelled).",
    ),
]


def _say(stdout: Any, text: str) -> None:
    if stdout is not None:
        stdout.write(text)


def _northwind_quote(accelerator_slug: str) -> Quote | None:
    return (
        Quote.objects.current()
        .filter(provider__slug="northwind", accelerator__slug=accelerator_slug)
        .select_related("accelerator", "provider")
        .order_by("-quoted_at")
        .first()
    )


def _demo_brief() -> Any:
    """The first complete, current real-time inference brief, if the briefs exist yet."""
    from briefs.models import WorkloadBrief

    briefs = WorkloadBrief.objects.filter(
        workload_class="realtime_inference", superseded_by__isnull=True
    ).order_by("created_at", "pk")
    return next((b for b in briefs if b.is_complete), None)


def _ensure_briefs(stdout: Any) -> None:
    briefs_demo.load(stdout=stdout)


def _upload(engineer: User, spec: DemoFile, brief: Any, stdout: Any) -> BenchmarkResult | None:
    name, slug, gpus, engine, parallelism, notes = spec
    path = FIXTURES / name
    quote = _northwind_quote(slug)
    if quote is None or not path.is_file():
        _say(stdout, f"Benchmarks: no Northwind {slug} quote or no {name}; skipped.")
        return None
    with path.open("rb") as handle:
        upload = File(handle, name=path.name)
        outcome = benchmark_result_ingest(
            acting_user=engineer,
            upload=upload,
            meta=UploadMeta(
                quote=quote,
                gpu_count=gpus,
                brief=brief,
                phase=Phase.THROUGHPUT_LATENCY,
                serving_engine=engine,
                parallelism=parallelism,
                notes=notes,
            ),
        )
    result = outcome.result
    if result.status == BenchmarkResult.Status.PENDING:  # large files: parse here, not later
        benchmark_result_parse(result_id=result.pk)
        result.refresh_from_db()
    return result


def _plan(engineer: User, brief: Any, stdout: Any) -> None:
    quote = _northwind_quote("h100-sxm-80gb")
    if quote is None or brief is None:
        return
    plan, created = benchmark_plan_create(acting_user=engineer, quote=quote, brief=brief)
    step = plan.steps.filter(code="p3-cold-start", status=BenchmarkPlanStep.Status.PENDING).first()
    if step is not None:
        benchmark_plan_step_check(
            acting_user=engineer,
            plan=plan,
            step_id=step.pk,
            status=BenchmarkPlanStep.Status.PASSED,
            notes="Empty node to first token in 212 s (image pull 95 s, weights load 88 s).",
            evidence_url="https://wiki.example.com/benchmarks/northwind-h100/cold-start",
        )
    state = "created" if created else "exists"
    _say(stdout, f"Benchmarks: plan for {quote} {state} ({plan.steps.count()} steps).")


def load(stdout: Any = None) -> None:
    engineer = User.objects.filter(username="engineer").first()
    if engineer is None:
        _say(stdout, "Benchmarks: no demo engineer; skipped.")
        return
    brief = _demo_brief()
    if brief is None:
        _ensure_briefs(stdout)
        brief = _demo_brief()
    uploaded = []
    for spec in DEMO_FILES:
        quote = _northwind_quote(spec[1])
        if (
            quote is not None
            and BenchmarkResult.objects.filter(
                quote=quote, original_name=Path(spec[0]).name
            ).exists()
        ):
            continue  # uploaded by an earlier seed (perhaps before the briefs existed)
        result = _upload(engineer, spec, brief, stdout)
        if result is not None:
            uploaded.append(f"{result.original_name} ({result.status})")
    _say(stdout, f"Benchmarks: uploaded {len(uploaded)} demo result(s). {' '.join(uploaded)}")
    _plan(engineer, brief, stdout)
    if brief is None:
        _say(stdout, "Benchmarks: no real-time brief yet; the plan is added by the next seed.")
    elif not BenchmarkPlan.objects.exists():
        _say(stdout, "Benchmarks: no plan (no Northwind H100 quote).")
