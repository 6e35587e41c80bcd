"""Key figures read from a result's stored normalised metrics (pure: dicts in, dicts out).

`metrics` is the JSON stored on `BenchmarkResult.metrics`: the parser's `Metrics.to_dict()`
(latency families as `{"p50", "p95", "p99", "mean"}` in ms, throughputs per second).
Every figure is `None` when the file does not carry it; nothing is guessed.
"""

from __future__ import annotations

from typing import Any

from core.values import finite_or_none

LATENCY_FAMILIES: tuple[tuple[str, str], ...] = (
    ("ttft_ms", "Time to first token"),
    ("itl_ms", "Inter-token (per chunk)"),
    ("tpot_ms", "Time per output token"),
    ("e2e_ms", "End-to-end"),
)
PERCENTILES: tuple[str, ...] = ("p50", "p95", "p99")


def percentile(metrics: dict[str, Any], family: str, which: str) -> float | None:
    """`percentile(m, "e2e_ms", "p99")` → the stored value in ms, or None."""
    block = metrics.get(family)
    if not isinstance(block, dict):
        return None
    return finite_or_none(block.get(which), strings=False)


def tokens_per_s_per_gpu(metrics: dict[str, Any], gpu_count: int | None) -> float | None:
    """Output tokens per second divided by the GPUs that served them (the upload says how many)."""
    output = finite_or_none(metrics.get("output_tokens_per_s"), strings=False)
    if output is None:
        output = finite_or_none(metrics.get("tokens_per_s"), strings=False)
    if output is None or not gpu_count:
        return None
    return output / gpu_count


def acceptance_rate(metrics: dict[str, Any]) -> float | None:
    """Accepted share of completed requests: stated by the file, else accepted / completed."""
    rate = finite_or_none(metrics.get("acceptance_rate"), strings=False)
    if rate is not None:
        return rate
    accepted = finite_or_none(metrics.get("accepted_outputs"), strings=False)
    completed = finite_or_none(metrics.get("requests_completed"), strings=False)
    if accepted is not None and completed:
        return accepted / completed
    assets_accepted = finite_or_none(metrics.get("assets_accepted"), strings=False)
    assets = finite_or_none(metrics.get("assets_generated"), strings=False)
    if assets_accepted is not None and assets:
        return assets_accepted / assets
    return None


def has_acceptance_data(metrics: dict[str, Any]) -> bool:
    return any(
        finite_or_none(metrics.get(key), strings=False) is not None
        for key in ("acceptance_rate", "accepted_outputs", "assets_accepted")
    )


def key_figures(metrics: dict[str, Any], gpu_count: int | None) -> dict[str, Any]:
    """The normalised figures the comparison engine and the pages use."""
    return {
        "output_tokens_per_s": finite_or_none(metrics.get("output_tokens_per_s"), strings=False),
        "request_throughput_rps": finite_or_none(
            metrics.get("request_throughput_rps"), strings=False
        ),
        "ttft_p95_ms": percentile(metrics, "ttft_ms", "p95"),
        "itl_p95_ms": percentile(metrics, "itl_ms", "p95"),
        "tpot_p95_ms": percentile(metrics, "tpot_ms", "p95"),
        "e2e_p99_ms": percentile(metrics, "e2e_ms", "p99"),
        "tokens_per_s_per_gpu": tokens_per_s_per_gpu(metrics, gpu_count),
        "acceptance_rate": acceptance_rate(metrics),
        "has_acceptance_data": has_acceptance_data(metrics),
        "concurrency": finite_or_none(metrics.get("concurrency"), strings=False),
        "gpu_count": gpu_count,
    }


def percentile_rows(metrics: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per latency family that the file carries: label, p50, p95, p99, mean."""
    rows = []
    for family, label in LATENCY_FAMILIES:
        values = {p: percentile(metrics, family, p) for p in (*PERCENTILES, "mean")}
        if any(v is not None for v in values.values()):
            rows.append({"family": family, "label": label, **values})
    return rows


def peak_memory_mib(metrics: dict[str, Any]) -> tuple[float, float] | None:
    """(peak used, total) GPU memory in MiB from telemetry uploaded with the run, if any.

    nvidia-smi CSV logs give `memory.used_max` / `memory.total_max`; a DCGM scrape gives
    framebuffer used and free (`DCGM_FI_DEV_FB_USED_mean`, `..._FB_FREE_mean`).
    """
    extra = metrics.get("extra") or {}
    used = finite_or_none(extra.get("memory.used_max"), strings=False)
    total = finite_or_none(extra.get("memory.total_max"), strings=False)
    if used is not None and total:
        return used, total
    used = finite_or_none(extra.get("DCGM_FI_DEV_FB_USED_mean"), strings=False)
    free = finite_or_none(extra.get("DCGM_FI_DEV_FB_FREE_mean"), strings=False)
    if used is not None and free is not None and used + free > 0:
        return used, used + free
    return None


def _per_request(total: Any, requests: float | None) -> float | None:
    value = finite_or_none(total, strings=False)
    return value / requests if value is not None and requests else None


def workload_shape(metrics: dict[str, Any]) -> dict[str, Any]:
    """What load the figures were measured under, as GuideLLM's report leads with:
    requests done and failed, mean input and output tokens per request, the offered request
    rate and the concurrency. Each None when the file does not say."""
    completed = finite_or_none(metrics.get("requests_completed"), strings=False)
    failed = finite_or_none(metrics.get("requests_failed"), strings=False)
    return {
        "requests_completed": completed,
        "requests_failed": failed,
        "input_tokens_per_request": _per_request(metrics.get("input_tokens_total"), completed),
        "output_tokens_per_request": _per_request(metrics.get("output_tokens_total"), completed),
        "request_rate": finite_or_none(metrics.get("request_rate"), strings=False),
        "concurrency": finite_or_none(metrics.get("concurrency"), strings=False),
    }


def all_requests_failed(metrics: dict[str, Any]) -> bool:
    """Every request of the run failed: its throughput of 0 measures nothing."""
    completed = finite_or_none(metrics.get("requests_completed"), strings=False)
    failed = finite_or_none(metrics.get("requests_failed"), strings=False)
    return completed == 0 and bool(failed)
