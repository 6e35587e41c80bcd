"""Snapshot API routes → the engine's `CandidateInput` and row facts. Pure: no Django."""

from __future__ import annotations

import re
from decimal import Decimal

from catalog.model_names import precision_in_name
from catalog.tiers import input_limit_reason, prices_for
from core import workloads
from engine.errors import EngineInputError
from engine.evidence import normalise_model
from engine.types import ApiPricing, CandidateInput
from procurement.snapshot.assumptions import scalar
from procurement.snapshot.context import Context, money, rounded, route_key
from procurement.snapshot.facts import RowFacts
from procurement.snapshot.schema import ModelRow, RouteRow
from procurement.snapshot.workload import dec

# Providers' names for an FP8 deployment of a model, beside the quantisation suffixes.
FP8_DEPLOYMENT_WORDS = frozenset({"turbo"})
FULL_PRECISIONS = frozenset({"bf16", "fp16", "fp32"})


def precision_note(ctx: Context, route: RouteRow) -> str:
    """P12: "serves … at FP8, the brief is BF16" when the route's name states a lower
    precision than the brief's weights ("" when the same, or not stated)."""
    name = route.get("model_name") or ""
    served = precision_in_name(name)
    if not served and FP8_DEPLOYMENT_WORDS & set(re.split(r"[^a-z0-9]+", name.lower())):
        served = "fp8"
    brief = str(ctx.brief.get("weight_precision") or "").lower()
    if not served or served == brief or brief not in FULL_PRECISIONS:
        return ""
    return (
        f"serves {name} at {served.upper()}, the brief is {brief.upper()}: a quantised "
        "deployment of the model, whose answers may differ from the brief's (an evaluation "
        "of the route shows whether they pass)"
    )


def model_substitution(ctx: Context, route: RouteRow) -> str:
    """'serves gpt-4o-mini, the brief is Llama 3.1 70B' when the route serves another model
    (by model profile when both name one, else by name); '' when it is the brief's model."""
    model: ModelRow = ctx.snap.get("model") or {}
    if not model:
        return ""
    brief_model = ctx.brief.get("model_id")
    served = route.get("model_name") or "an unnamed model"
    if route.get("model_profile_id") and brief_model:
        same = route["model_profile_id"] == brief_model
    else:
        names = {normalise_model(model.get("name") or ""), normalise_model(model.get("slug") or "")}
        same = normalise_model(served) in names
    return "" if same else f"serves {served}, the brief is {model.get('name') or 'another model'}"


def route_candidate(
    ctx: Context, route: RouteRow
) -> tuple[CandidateInput | None, RowFacts, list[str]]:
    rate = ctx.rate(route["currency"])
    conv = rate if rate is not None else Decimal(1)
    facts: RowFacts = {
        "kind": "api",
        "quote_id": None,
        "api_route_id": route["id"],
        "label": route["label"],
        "provider_name": route["provider_name"],
        "accelerator_name": "",
        "capacity_model": "api",
        "gpus": None,
        "fx_missing": rate is None,
        "fit": {"note": "the provider runs the model"},
        "perf_source": "estimated",
        "checklist": {"available": False, "note": "model API: no GPU checklist"},
        "performance": {
            "ttft_p95_ms": route.get("p95_ttft_ms"),
            "e2e_p99_ms": route.get("p99_e2e_ms"),
            "latency_source": "stated",
            "throughput_source": "provider",
        },
        "detail": {
            "quoted_at": route["quoted_at"],
            "valid_until": route.get("valid_until"),
            "region": route.get("region", ""),
            "currency": route["currency"],
            "fx_rate": None if rate is None else format(rate, "f"),
            "term_months": 0,
            "stale": ctx.is_stale(route["quoted_at"], route.get("valid_until")),
            "model_name": route["model_name"],
        },
    }
    # A benchmark run against the route measured its latency: judge the row on that.
    measured = route.get("measured_latency")
    if measured:
        facts["performance"] = {
            "ttft_p95_ms": measured["ttft_p95_ms"],
            "itl_p95_ms": measured["itl_p95_ms"],
            "e2e_p99_ms": measured["e2e_p99_ms"],
            "latency_source": "measured",
            "throughput_source": "provider",
            "result_id": measured["result_id"],
            "concurrency": measured["concurrency"],
        }
    reasons: list[str] = []  # its rate limits are judged by the engine (contracts.py)
    # Batch and long-context briefs pay the route's batch / long-context tier, when it has one.
    tier = prices_for(
        route,
        # serving with nobody waiting (batch inference, evaluation) can use the batch tier
        batch=ctx.brief.get("workload_class") in workloads.SERVING - workloads.REALTIME,
        input_tokens=ctx.brief.get("mean_input_tokens") or ctx.brief.get("p95_input_tokens"),
        p95_input_tokens=ctx.brief.get("p95_input_tokens"),
        context_window_tokens=ctx.brief.get("context_window_tokens"),
    )
    facts["detail"]["price_tiers_applied"] = list(tier.tiers)
    limit = input_limit_reason(route, ctx.brief.get("p95_input_tokens"))
    if limit:
        reasons.append(limit)
    # Where the provider processes requests; the route's region when it states nothing else.
    boundary = ctx.boundary_reason(
        list(route.get("processing_regions") or [route.get("region") or ""])
    )
    if boundary:
        reasons.append(boundary)
    # As for quotes; a snapshot frozen before routes stated it reads as "not stated".
    private = ctx.private_endpoint_reason(route.get("private_endpoint"), on="API route")
    if private:
        reasons.append(private)
    substitution = model_substitution(ctx, route)
    facts["detail"]["model_substitution"] = substitution
    if ctx.cls == "media":
        reasons.append("a token-priced model API does not serve media generation")
    try:
        cand = CandidateInput(
            id=route_key(route["id"]),
            label=route["label"],
            kind="api",
            capacity_model="api",
            api_pricing=ApiPricing(
                price_per_m_input_tokens=money(tier.input_per_m, conv),
                price_per_m_output_tokens=money(tier.output_per_m, conv),
                price_per_m_cached_input_tokens=None
                if tier.cached_input_per_m is None
                else money(tier.cached_input_per_m, conv),
                price_per_m_cache_write_tokens=None
                if tier.cache_write_per_m is None
                else money(tier.cache_write_per_m, conv),
            ),
            p95_ttft_ms=measured["ttft_p95_ms"] if measured else route.get("p95_ttft_ms"),
            itl_p95_ms=measured["itl_p95_ms"] if measured else None,
            p99_e2e_ms=measured["e2e_p99_ms"] if measured else route.get("p99_e2e_ms"),
            latency_source="measured" if measured else "estimated",
            data_boundary_ok=boundary is None and private is None,
            fx_available=rate is not None,
            ineligible_reasons=tuple(reasons),
            quote_age_days=rounded(ctx.age_days(route["quoted_at"]), 1),
            quote_stale=facts["detail"]["stale"],
            quote_expired_on=ctx.expired_on(route.get("valid_until")),
            rate_limit_rpm=route.get("rate_limit_rpm") or None,
            rate_limit_tpm=route.get("rate_limit_tpm") or None,
            # The workload's storage and egress are paid beside an API too (stated
            # product defaults, in the base currency); a route may state its billing
            storage_price_per_gb_month=dec(scalar(ctx.a, "api_storage_per_gb_month")),
            egress_price_per_gb=dec(scalar(ctx.a, "api_egress_per_gb")),
            failed_attempts_billed=None
            if not (billed := route.get("failed_attempts_billed"))
            else float(billed),
            model_substitution=substitution,
            precision_note="" if substitution else precision_note(ctx, route),
            substitution_allowed=bool(ctx.brief.get("allow_model_substitution"))
            or bool(route.get("evaluation_result_id")),
        )
    except EngineInputError as exc:
        return None, facts, [f"cannot be costed: {exc.message}"]
    return cand, facts, []
