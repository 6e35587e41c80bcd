"""Published results (MLPerf Inference) as the comparison reads them: plain dicts, one query.

Each carries its band, read across the round's submitters on the same accelerator, model and
scenario (the lowest and highest per-GPU figure as factors of its own) and how far it lies
from their median, so the matching rules (engine/evidence.py, `match_published`) can prefer
the typical submission over the best one without reading the table again.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from statistics import median
from typing import Any

from django.db.models import Q

from benchmarks.models import PublishedResult
from benchmarks.parsers.mlperf_results import serving_software

# The id a frozen published result carries: never a digit string, so it is never taken for
# an uploaded result's id (procurement.snapshot.evidence.result_ids_in).
ID_PREFIX = "published:"

# The benchmark's name without its accuracy target ("llama2-70b-99.9" → "llama2-70b") → the
# catalog's model profile, and the mean prompt length the comparison scales from. MLPerf's
# files give the output tokens per sample (tokens/s ÷ samples/s) but not the input: these
# are the datasets' own figures from the reference implementation's READMEs
# (mlcommons/inference, language/<benchmark>/README.md); see docs/benchmarks.md.
BENCHMARK_MODELS: dict[str, tuple[str, float | None]] = {
    "llama2-70b": ("llama-2-70b", 300.0),  # OpenOrca, 24,576 samples (an assumption: ±100)
    "mixtral-8x7b": ("mixtral-8x7b", 300.0),  # OpenOrca + GSM8K + MBXP mix (an assumption)
    "gptj": ("gpt-j-6b", 1000.0),  # CNN/DailyMail articles, truncated to 1,919 (an assumption)
    "stable-diffusion-xl": ("sdxl-1-0-base", None),  # images: no tokens
}


def benchmark_model(benchmark: str) -> str:
    """'llama2-70b-99.9' → 'llama2-70b'; 'gptj-99' → 'gptj'; others unchanged."""
    name = benchmark.strip().lower()
    for suffix in ("-99.9", "-99"):
        if name.endswith(suffix):
            return name.removesuffix(suffix)
    return name


def published_item(row: PublishedResult, band: tuple[float, float, float]) -> dict[str, Any]:
    """One published result as the comparison freezes it (`band`: low, median, high)."""
    low, mid, high = band
    per_gpu = row.throughput_per_gpu
    tokens = row.unit == "tokens"
    per_sample = (row.throughput / row.samples_per_s) if tokens and row.samples_per_s else None
    return {
        "result_id": f"{ID_PREFIX}{row.pk}",
        "accelerator": row.accelerator.slug,
        "model_name": row.model_profile.name,
        "model_profile_id": row.model_profile_id,
        "precision": row.precision,
        "gpu_count": row.gpu_count,
        "tokens_per_s_per_gpu": per_gpu if tokens else None,
        "outputs_per_s_per_gpu": None if tokens else per_gpu,
        "output_tokens_mean": round(per_sample, 2) if per_sample else None,
        "input_tokens_mean": BENCHMARK_MODELS.get(benchmark_model(row.benchmark), ("", None))[1],
        # the engine the label names ("vLLM, CUDA 12.2" → vLLM), else the framework as written
        "serving_engine": serving_software(row.framework) or row.framework,
        "format_id": "mlperf-published",
        "published": {
            "round": row.round,
            "division": row.division,
            "submitter": row.submitter,
            "system": row.system,
            "benchmark": row.benchmark,
            "software": row.framework,
            "scenario": row.scenario,
            "ttft_limit_ms": row.ttft_limit_ms,
            "tpot_limit_ms": row.tpot_limit_ms,
            "spread_low": round(low / per_gpu, 4),
            "spread_high": round(high / per_gpu, 4),
            "off_median": round(abs(math.log(per_gpu / mid)), 4),
            "source_path": row.source_path,
            "licence": row.licence,
        },
    }


def published_results_for(
    accelerator_ids: Sequence[int], model_profile_id: int | None, model_family: str = ""
) -> list[dict[str, Any]]:
    """Every published result on these accelerators of the brief's model or its family (the
    matching rules decide which counts), oldest round first. One query."""
    if not accelerator_ids or model_profile_id is None:
        return []
    same = Q(model_profile_id=model_profile_id)
    if model_family:
        same |= Q(model_profile__family=model_family)
    rows = list(
        PublishedResult.objects.filter(same, accelerator_id__in=[int(a) for a in accelerator_ids])
        .select_related("accelerator", "model_profile")
        .order_by("round", "benchmark", "scenario", "submitter", "system")
    )
    return [published_item(row, band) for row, band in zip(rows, bands(rows), strict=True)]


def bands(rows: Sequence[PublishedResult]) -> list[tuple[float, float, float]]:
    """(lowest, median, highest) per-GPU figure of each row's group: the same round, model,
    scenario and accelerator, across submitters and systems."""
    groups: dict[tuple[str, int, str, int], list[float]] = defaultdict(list)

    def key(row: PublishedResult) -> tuple[str, int, str, int]:
        return (row.round, row.model_profile_id, row.scenario.lower(), row.accelerator_id)

    for row in rows:
        groups[key(row)].append(row.throughput_per_gpu)
    out = []
    for row in rows:
        values = groups[key(row)]
        out.append((min(values), float(median(values)), max(values)))
    return out
