"""The workload a result measured, in words, and whether it is the model its brief names.

One summary for the result list, the result page and every "measured" badge of a comparison
(which reads the same fields from the frozen snapshot): model, precision, GPUs and
parallelism, tokens in/out, concurrency or rate, serving engine.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from core.values import float_or_none
from engine.evidence import same_model_name

# The columns of a result that describe the workload it measured (beside its model name):
# what the upload stores from the file or the form, and what the evidence reads back.
WORKLOAD_FIELDS = (
    "precision",
    "tensor_parallel",
    "pipeline_parallel",
    "input_tokens_mean",
    "input_tokens_p95",
    "output_tokens_mean",
    "output_tokens_p95",
    "concurrency",
    "request_rate",
    "serving_engine",
    "engine_version",
)


def _parts(get: Callable[[str], Any]) -> list[str]:
    parts = [str(get("model_name") or "model not recorded")]
    if get("precision"):
        parts.append(str(get("precision")))
    if get("api_route_id"):  # the provider's GPUs: neither counted nor ours to state
        parts.append("hosted API")
    else:
        gpus = int(float_or_none(get("gpu_count")) or 1)
        parallel = ", ".join(
            f"{label}={int(value)}"
            for label, key in (("TP", "tensor_parallel"), ("PP", "pipeline_parallel"))
            if (value := float_or_none(get(key))) is not None
        )
        parts.append(
            f"{gpus} GPU{'s' if gpus != 1 else ''}" + (f" ({parallel})" if parallel else "")
        )
    tokens_in, tokens_out = (
        float_or_none(get("input_tokens_mean")),
        float_or_none(get("output_tokens_mean")),
    )
    if tokens_in is not None or tokens_out is not None:
        shown = [f"{v:,.0f}" if v is not None else "?" for v in (tokens_in, tokens_out)]
        parts.append(f"{shown[0]} in / {shown[1]} out tokens")
    if (concurrency := float_or_none(get("concurrency"))) is not None:
        parts.append(f"concurrency {concurrency:g}")
    elif (rate := float_or_none(get("request_rate"))) is not None:
        parts.append(f"{rate:g} requests/s")
    engine = " ".join(str(v) for v in (get("serving_engine"), get("engine_version")) if v)
    if engine:
        parts.append(engine)
    return parts


def workload_summary(result: Any) -> str:
    """'Llama 3.1 70B · fp8 · 4 GPUs (TP=4) · 1,500 in / 300 out tokens · concurrency 32 · vLLM'."""
    return " · ".join(_parts(lambda name: getattr(result, name, None)))


def workload_summary_of(data: Mapping[str, Any]) -> str:
    """The same summary from a result's frozen snapshot dict."""
    return " · ".join(_parts(data.get))


def model_warning(result: Any) -> str | None:
    """Why a result bound to a brief will not count as measured for it: another model, or
    no model recorded. None when it is the brief's model (or no brief or no model to compare)."""
    brief = getattr(result, "brief", None)
    wanted = getattr(brief, "model", None) if brief is not None else None
    if wanted is None:
        return None
    if result.model_profile_id is not None and result.model_profile_id == wanted.pk:
        return None
    named = result.model_name or ""
    if not named:
        return (
            "The file does not say which model it measured: comparisons of the brief "
            f"({wanted.name}) ignore it until the model is known."
        )
    if same_model_name(named, wanted.name) or same_model_name(named, wanted.slug):
        return None
    return (
        f"This file measured {named}; the brief it is bound to is {wanted.name}. Its "
        "comparisons will not count it as measured: it is ignored, or at most a proxy of the "
        "same family and size class, and the row says so."
    )
