"""The measured latency of a hosted model API, for the comparison's API rows.

A benchmark run against a provider's endpoint (an LLMPerf, GenAI-Perf or AIPerf run) is stored
on the API route it measured (docs/benchmarks.md, "Hosted APIs"). The comparison judges that
route's latency on it instead of the provider's stated figures: the newest parsed run on the
route that measured the brief's model (the route's model profile, or the same model name) and
is bound to this brief or to none. Plain values, one query for every route.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db.models import Q

from benchmarks import figures
from benchmarks.models import BenchmarkResult
from engine.evidence import same_model_name


def hosted_latency_for(
    route_ids: Sequence[int], brief_id: int | None, model: Any | None
) -> dict[int, dict[str, Any]]:
    """route id → the latency its newest matching run measured: ``result_id``, ``ttft_p95_ms``,
    ``itl_p95_ms``, ``e2e_p99_ms``, ``concurrency``, ``model_name``, ``parsed_at``. A route
    without such a run is absent. ``model``: the brief's model profile (None: any model)."""
    if not route_ids:
        return {}
    qs = BenchmarkResult.objects.filter(
        status=BenchmarkResult.Status.PARSED, api_route_id__in=[int(r) for r in route_ids]
    )
    if brief_id is not None:
        qs = qs.filter(Q(brief_id=brief_id) | Q(brief__isnull=True))
    found: dict[int, dict[str, Any]] = {}
    for result in qs.select_related("api_route").order_by("-parsed_at", "-id"):
        route = result.api_route
        if route is None or route.pk in found or not _same_model(result, model):
            continue
        key = figures.key_figures(result.metrics or {}, None)
        if key["ttft_p95_ms"] is None and key["e2e_p99_ms"] is None:
            continue  # nothing to judge the latency on
        found[route.pk] = {
            "result_id": result.pk,
            **{k: key[k] for k in ("ttft_p95_ms", "itl_p95_ms", "e2e_p99_ms", "concurrency")},
            "model_name": result.model_name or route.model_name,
            "parsed_at": result.parsed_at.isoformat() if result.parsed_at else None,
        }
    return found


def _same_model(result: BenchmarkResult, model: Any | None) -> bool:
    """The run measured the brief's model: by profile (the run's, else its route's, which
    serves one model), else by name."""
    if model is None:
        return True
    route = result.api_route
    profile = result.model_profile_id or (route.model_profile_id if route is not None else None)
    if profile is not None:
        return bool(profile == model.pk)
    name = result.model_name or (route.model_name if route is not None else "")
    return any(same_model_name(name, known) for known in (model.name, model.slug) if known)
