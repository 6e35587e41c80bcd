"""Demo benchmark data: real and written result files uploaded through the service, one plan.

`manage.py seed_demo` calls `load()` after the catalog and before the decision app. Each file
is bound to the brief of the model it measured, never to another model's brief:

- the vLLM sample (llm-d, Llama 3.1 8B, H100) → the 8B batch brief;
- the AIPerf per-request sample (gpt-oss-20b, named in the same run's summary file, since the
  per-request export does not say) → no brief;
- two runs written here for the 70B chat brief, so its comparison shows each kind of
  evidence with its reason: a vLLM sweep (`--append-result`, concurrency 1/4/16/64) measured
  at the brief's shape on Northwind's H100 (the GPU count its memory fit costs), whose
  saturation point misses the brief's 800 ms TTFT target, so the row is costed at concurrency
  16 and the page charts every point; and one run at concurrency 16 on Northwind's
  H200 (a proxy: another shape). The other offers stay estimated.

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
# (file, accelerator slug, GPUs, serving engine, parallelism, notes, brief model, model asked,
# precision asked: neither file states it, so the demo enters it as an engineer would)
DemoFile = tuple[str, str, int, str, str, str, str | None, str | None, str]
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
        "bf16",  # vLLM's "auto" dtype serves Llama 3.1 at its checkpoint's BF16
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
        "fp4",  # gpt-oss ships MXFP4 expert weights
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


# One vLLM run per concurrency of the H100 sweep: (concurrency, TTFT mean / p95 ms, ITL median
# ms). Invented but self-consistent: decode slows as the batch grows and prefill queues, and
# each run's throughput follows from its latencies (below), so the figures agree.
CHAT_SWEEP = ((1, 120.0, 170.0, 14.0), (4, 150.0, 230.0, 15.5), (16, 300.0, 520.0, 18.0),
              (64, 900.0, 1450.0, 24.0))  # fmt: skip


def _chat_sweep(gpus: int) -> bytes:
    """A vLLM `bench serve --append-result` JSON Lines file of Llama 3.1 70B (BF16) at the
    chat brief's lengths, one line per concurrency; `--metadata` recorded the precision."""
    lines = []
    for concurrency, ttft_mean, ttft_p95, itl in CHAT_SWEEP:
        e2e_s = (ttft_mean + 249 * itl) / 1000  # first token, then 249 inter-token gaps
        done = 100 * concurrency if concurrency < 64 else 2000
        duration = done * e2e_s / concurrency
        lines.append(
            {
                "date": "20261201-091500",
                "backend": "vllm",
                "model_id": "meta-llama/Llama-3.1-70B-Instruct",
                "tokenizer_id": "meta-llama/Llama-3.1-70B-Instruct",
                "num_prompts": done,
                "request_rate": "inf",
                "burstiness": 1.0,
                "max_concurrency": concurrency,
                "duration": round(duration, 2),
                "completed": done,
                "failed": 0,
                "total_input_tokens": done * 1400,
                "total_output_tokens": done * 250,
                "request_throughput": round(done / duration, 4),
                "request_goodput": None,
                "output_throughput": round(done * 250 / duration, 1),
                "total_token_throughput": round(done * 1650 / duration, 1),
                "mean_ttft_ms": ttft_mean,
                "median_ttft_ms": round(ttft_mean * 0.9, 1),
                "p95_ttft_ms": ttft_p95,
                "p99_ttft_ms": round(ttft_p95 * 1.3, 1),
                "mean_itl_ms": round(itl * 1.05, 2),
                "median_itl_ms": itl,
                "p95_itl_ms": round(itl * 1.6, 2),
                "p99_itl_ms": round(itl * 2.2, 2),
                "mean_e2el_ms": round(e2e_s * 1000, 1),
                "median_e2el_ms": round(e2e_s * 950, 1),
                "p95_e2el_ms": round(e2e_s * 1250, 1),
                "p99_e2el_ms": round(e2e_s * 1400, 1),
                "precision": "bf16",
                "tensor_parallel_size": str(gpus),
            }
        )
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


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


def _ingest(engineer: User, upload: File[bytes], meta: UploadMeta) -> BenchmarkResult:
    outcome = benchmark_result_ingest(acting_user=engineer, upload=upload, meta=meta)
    result = outcome.result
    if result.status == BenchmarkResult.Status.PENDING:  # large files: parse here, not later
        benchmark_result_parse(result_id=result.pk)
        result.refresh_from_db()
    return result


def _upload(engineer: User, spec: DemoFile, stdout: Any) -> BenchmarkResult | None:
    name, slug, gpus, engine, parallelism, notes, brief_model, asked, precision = spec
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
        precision=precision,
    )
    with path.open("rb") as handle:
        return _ingest(engineer, File(handle, name=path.name), meta)


def _costed_gpus(brief: Any, quote: Quote) -> int:
    """GPUs per replica the brief's memory fit needs on the quote's accelerator."""
    from briefs.fit import fit_accelerators

    fit = fit_accelerators(brief, [quote.accelerator])[0]
    return fit.result.gpus_required if fit.result is not None else quote.gpus_per_node


def _chat_runs(engineer: User, stdout: Any) -> list[BenchmarkResult]:
    """The 70B chat brief's measured sweep (H100, its shape) and proxy run (H200, c16)."""
    brief = _demo_brief(CHAT_MODEL)
    out: list[BenchmarkResult] = []
    for slug, name in (
        ("h100-sxm-80gb", "demo_llama70b_h100-sxm-80gb_sweep_c1-64.jsonl"),
        ("h200-sxm-141gb", "demo_llama70b_h200-sxm-141gb_c16.json"),
    ):
        quote = _northwind_quote(slug)
        if brief is None or quote is None:
            continue
        if BenchmarkResult.objects.filter(quote=quote, original_name=name).exists():
            continue
        gpus = _costed_gpus(brief, quote)
        if name.endswith(".jsonl"):
            content = _chat_sweep(gpus)
            notes = "Written for the demo: a vLLM sweep at the chat brief's lengths."
        else:
            run = _chat_run(str(quote.accelerator), gpus, concurrency=16, tokens_per_s=540.0 * gpus)
            content, notes = json.dumps(run, indent=2).encode(), run["notes"]
        meta = UploadMeta(
            quote=quote,
            gpu_count=gpus,
            brief=brief,
            serving_engine="vLLM",
            parallelism=f"TP={gpus}, PP=1",
            notes=notes,
        )
        out.append(_ingest(engineer, ContentFile(content, name=name), meta))
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
        briefs_demo.load(stdout=stdout)
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
