"""Demo benchmark data: real and written result files uploaded through the service, one plan.

`manage.py seed_demo` calls `load()` after the catalog and before the decision app. Each file
is bound to the brief of the model it measured, never to another model's brief (U18):

- the vLLM sample (llm-d, Llama 3.1 8B, H100) → the 8B batch brief;
- the AIPerf per-request sample (gpt-oss-20b, named in the same run's summary file, since the
  per-request export does not say) → no brief;
- two run summaries written here for the 70B chat brief, so its comparison shows each kind of
  evidence with its reason: one measured at the brief's shape on Northwind's H100 (the GPU
  count its memory fit costs), one at concurrency 16 on Northwind's H200 (a proxy: another
  shape); the other offers stay estimated.

Briefs are created later in the seed order; when none exists yet, the briefs' own idempotent
loader runs first. Idempotent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.files import File
from django.core.files.base import ContentFile

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
from catalog.models import ModelProfile, Quote

FIXTURES = Path(settings.BASE_DIR) / "tests" / "parsers" / "fixtures"
# (file, accelerator slug, GPUs, serving engine, parallelism, notes, brief model, model asked)
DemoFile = tuple[str, str, int, str, str, str, str | None, str | None]
DEMO_FILES: list[DemoFile] = [
    (
        "vllm-serve/llmd_exp7_H100_vllm-2replicas_benchmark_2025-05-13_04-55-27.json",
        "h100-sxm-80gb",
        2,
        "vLLM 0.8",
        "TP=1, 2 replicas",
        "llm-d experiment 7: Llama 3.1 8B, 3.6 req/s, summary only.",
        "llama-3-1-8b",
        None,
    ),
    (
        "aiperf/aiperf_examples_run1_profile_export.jsonl",
        "h200-sxm-141gb",
        1,
        "vLLM",
        "TP=1",
        "AIPerf per-request export (100 requests, some cancelled); the run's summary file "
        "(profile_export_aiperf.json) names the model.",
        None,
        "gpt-oss-20b",
    ),
]
CHAT_MODEL = "llama-3-1-70b"


def _chat_run(gpu: str, gpus: int, *, concurrency: int, tokens_per_s: float) -> dict[str, Any]:
    """A vLLM serving run of Llama 3.1 70B (BF16) at the chat brief's token lengths."""
    done = 2000
    return {
        "kind": "inference",
        "schema_version": 1,
        "tool": "vllm bench serve",
        "tool_version": "0.8.5",
        "model": "meta-llama/Llama-3.1-70B-Instruct",
        "precision": "bf16",
        "gpus": gpus,
        "gpu_model": gpu,
        "duration_s": round(done * 250 / tokens_per_s, 1),
        "requests_completed": done,
        "requests_failed": 0,
        "input_tokens_total": done * 1400,
        "output_tokens_total": done * 250,
        "output_tokens_per_s": tokens_per_s,
        "request_throughput_rps": round(tokens_per_s / 250, 3),
        "concurrency": concurrency,
        "ttft_ms": {"p50": 210.0, "p95": 420.0, "p99": 610.0},
        "itl_ms": {"p50": 24.0, "p95": 38.0, "p99": 47.0},
        "e2e_ms": {"p50": 6400.0, "p95": 9900.0, "p99": 11800.0},
        "notes": "Written for the demo: the chat brief's lengths (1,400 in / 250 out).",
    }


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


def _demo_brief(model_slug: str | None = None) -> Any:
    """The first complete, current brief (real-time, or of that model when given)."""
    from briefs.models import WorkloadBrief

    briefs = WorkloadBrief.objects.filter(superseded_by__isnull=True).order_by("created_at", "pk")
    briefs = (
        briefs.filter(model__slug=model_slug)
        if model_slug
        else briefs.filter(workload_class="realtime_inference")
    )
    return next((b for b in briefs if b.is_complete), None)


def _ensure_briefs(stdout: Any) -> None:
    briefs_demo.load(stdout=stdout)


def _ingest(engineer: User, upload: File[bytes], meta: UploadMeta) -> BenchmarkResult:
    outcome = benchmark_result_ingest(acting_user=engineer, upload=upload, meta=meta)
    result = outcome.result
    if result.status == BenchmarkResult.Status.PENDING:  # large files: parse here, not later
        benchmark_result_parse(result_id=result.pk)
        result.refresh_from_db()
    return result


def _upload(engineer: User, spec: DemoFile, stdout: Any) -> BenchmarkResult | None:
    name, slug, gpus, engine, parallelism, notes, brief_model, asked = spec
    path = FIXTURES / name
    quote = _northwind_quote(slug)
    if quote is None or not path.is_file():
        _say(stdout, f"Benchmarks: no Northwind {slug} quote or no {name}; skipped.")
        return None
    profile = ModelProfile.objects.filter(slug=asked).first() if asked else None
    if asked and profile is None:
        _say(stdout, f"Benchmarks: no {asked} model profile for {name}; skipped.")
        return None
    meta = UploadMeta(
        quote=quote,
        gpu_count=gpus,
        brief=_demo_brief(brief_model) if brief_model else None,
        phase=Phase.THROUGHPUT_LATENCY,
        serving_engine=engine,
        parallelism=parallelism,
        notes=notes,
        model_profile=profile,
    )
    with path.open("rb") as handle:
        return _ingest(engineer, File(handle, name=path.name), meta)


def _costed_gpus(brief: Any, quote: Quote) -> int:
    """GPUs per replica the brief's memory fit needs on the quote's accelerator."""
    from briefs.fit import fit_accelerators

    fit = fit_accelerators(brief, [quote.accelerator])[0]
    return fit.result.gpus_required if fit.result is not None else quote.gpus_per_node


def _chat_runs(engineer: User, stdout: Any) -> list[BenchmarkResult]:
    """The 70B chat brief's measured (H100, its shape) and proxy (H200, concurrency 16) runs."""
    brief = _demo_brief(CHAT_MODEL)
    out: list[BenchmarkResult] = []
    for slug, concurrency, per_gpu in (("h100-sxm-80gb", 64, 620.0), ("h200-sxm-141gb", 16, 540.0)):
        quote = _northwind_quote(slug)
        if brief is None or quote is None:
            continue
        name = f"demo_llama70b_{slug}_c{concurrency}.json"
        if BenchmarkResult.objects.filter(quote=quote, original_name=name).exists():
            continue
        gpus = _costed_gpus(brief, quote)
        gpu = str(quote.accelerator)
        run = _chat_run(gpu, gpus, concurrency=concurrency, tokens_per_s=per_gpu * gpus)
        meta = UploadMeta(
            quote=quote,
            gpu_count=gpus,
            brief=brief,
            serving_engine="vLLM",
            parallelism=f"TP={gpus}, PP=1",
            notes=run["notes"],
        )
        upload = ContentFile(json.dumps(run, indent=2).encode(), name=name)
        out.append(_ingest(engineer, upload, meta))
    if brief is None:
        _say(stdout, "Benchmarks: no Llama 3.1 70B brief; the chat runs are skipped.")
    return out


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
        result = _upload(engineer, spec, stdout)
        if result is not None:
            uploaded.append(f"{result.original_name} ({result.status})")
    uploaded += [f"{r.original_name} ({r.status})" for r in _chat_runs(engineer, stdout)]
    _say(stdout, f"Benchmarks: uploaded {len(uploaded)} demo result(s). {' '.join(uploaded)}")
    _plan(engineer, brief, stdout)
    if brief is None:
        _say(stdout, "Benchmarks: no real-time brief yet; the plan is added by the next seed.")
    elif not BenchmarkPlan.objects.exists():
        _say(stdout, "Benchmarks: no plan (no Northwind H100 quote).")
